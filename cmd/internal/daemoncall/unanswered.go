package daemoncall

import (
	"context"
	"errors"
	"fmt"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/verb"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// busyBackoff are the pauses before the retries of a call the daemon
// answered busy (at its connection limit, before it read the request: a
// retry is safe for every verb). About 600 ms in all, and never past the
// call's own deadline; then busy is the answer.
var busyBackoff = []time.Duration{20 * time.Millisecond, 40 * time.Millisecond, 80 * time.Millisecond, 160 * time.Millisecond, 300 * time.Millisecond}

// callRetrying sends req with once, again after a busy answer (see
// busyBackoff).
func callRetrying(ctx context.Context, req wire.Request, once func() (wire.Response, error)) (wire.Response, error) {
	for i := 0; ; i++ {
		resp, err := once()
		if err != nil || resp.Code != target.CodeBusy || i == len(busyBackoff) {
			return resp, err
		}
		pause := busyBackoff[i] + rand.N(busyBackoff[i]/2) // apart, so waiting clients do not all come back at once
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < pause+time.Second {
			return resp, nil // no time left for the retry to be answered
		}
		select {
		case <-time.After(pause):
		case <-ctx.Done():
			return resp, nil
		}
	}
}

// Acts reports whether req may have changed something when it ran (a
// verb's trace --pictures and budget are the operator's words, and change
// what the daemon keeps).
func Acts(req wire.Request) bool {
	a, _, _ := args.Decode(req.Verb, req.Args)
	switch a := a.(type) {
	case args.Tab:
		return a.Action != "" && a.Action != "list"
	case args.Trace:
		return strings.HasPrefix(a.Action, "pictures-")
	}
	f, _ := verb.Of(req.Verb)
	return !f.Reads // the verb table: one that only reads can be run again safely
}

// unanswered is the answer the command line gives itself when the daemon's
// connection ended after req was sent whole and before its answer (err is
// wire.ErrNoAnswer), or when the daemon's process was seen stopped (or
// gone) while the answer was awaited (wire.ErrStopped):
// outcome_unknown for a verb that acts, which may have run in part or in
// whole (a retry could type the text twice) — or, the daemon stopped, may
// still run once it is continued — and daemon_gone for one that only
// reads. Both exit 2, as a daemon that cannot be reached does; the next
// call starts a daemon again (a stopped one holds its socket: the next
// call finds it stopped too, until it is continued).
func unanswered(req wire.Request, err error) (wire.Response, bool) {
	if !errors.Is(err, wire.ErrNoAnswer) {
		return wire.Response{}, false
	}
	verb := strings.TrimPrefix(req.Verb, "browser.")
	facts := map[string]any{"verb": verb, "sent": true}
	if req.Target != "" {
		facts["target"] = req.Target
	}
	resp := wire.Response{V: wire.ProtocolVersion, Facts: facts}
	var stopped *wire.StoppedError
	if errors.As(err, &stopped) {
		facts["pid"] = stopped.PID
		facts["state"] = stopped.State
		if stopped.State == "" {
			facts["state"] = "gone"
		}
	}
	switch {
	case stopped != nil && stopped.Stopped():
		what := fmt.Sprintf("the daemon's process (pid %d) is stopped (state %s in /proc/%d/stat: SIGSTOP, or a debugger) and did not answer %s within %v",
			stopped.PID, stopped.State, stopped.PID, verb, wire.StoppedFor)
		cont := fmt.Sprintf("kill -CONT %d continues it", stopped.PID)
		if Acts(req) {
			resp.Code = target.CodeOutcomeUnknown
			resp.Message = fmt.Sprintf("%s: %s was sent and may still run once the daemon is continued (%s); read the target (snapshot, screenshot, get) before you retry it", what, verb, cont)
		} else {
			resp.Code = target.CodeDaemonGone
			resp.Message = fmt.Sprintf("%s; %s only reads, so running it again is safe once the daemon is continued (%s)", what, verb, cont)
		}
	case stopped != nil:
		what := fmt.Sprintf("the daemon's process (pid %d) is gone and did not answer %s", stopped.PID, verb)
		if Acts(req) {
			resp.Code = target.CodeOutcomeUnknown
			resp.Message = fmt.Sprintf("%s: %s may have run in part or in whole; read the target (snapshot, screenshot, get) before you retry it", what, verb)
		} else {
			resp.Code = target.CodeDaemonGone
			resp.Message = fmt.Sprintf("%s; %s only reads, so running it again is safe", what, verb)
		}
	case Acts(req):
		resp.Code = target.CodeOutcomeUnknown
		resp.Message = fmt.Sprintf("the daemon went away (killed, stopped or restarted) after %s was sent and before it answered: %s may have run in part or in whole; read the target (snapshot, screenshot, get) before you retry it", verb, verb)
	default:
		resp.Code = target.CodeDaemonGone
		resp.Message = fmt.Sprintf("the daemon went away (killed, stopped or restarted) before it answered %s; %s only reads, so running it again is safe", verb, verb)
	}
	return resp, true
}

// unansweredCode reports whether code is one the command line gives itself
// for a call the daemon did not answer.
func unansweredCode(code target.Code) bool {
	return code == target.CodeOutcomeUnknown || code == target.CodeDaemonGone
}
