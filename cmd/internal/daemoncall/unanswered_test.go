package daemoncall

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// TestBusyIsRetried: a busy answer (the daemon read nothing) is tried again
// a few times within the call's deadline, then is the answer.
func TestBusyIsRetried(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	n := 0
	resp, err := callRetrying(ctx, wire.Request{Verb: "list"}, func() (wire.Response, error) {
		if n++; n < 3 {
			return wire.Response{Code: target.CodeBusy}, nil
		}
		return wire.Response{OK: true}, nil
	})
	if err != nil || !resp.OK || n != 3 {
		t.Fatalf("after two busy answers: %+v %v (%d tries)", resp, err, n)
	}
	n = 0
	start := time.Now()
	resp, _ = callRetrying(ctx, wire.Request{Verb: "list"}, func() (wire.Response, error) {
		n++
		return wire.Response{Code: target.CodeBusy}, nil
	})
	if resp.Code != target.CodeBusy || n != len(busyBackoff)+1 || time.Since(start) > 3*time.Second {
		t.Fatalf("always busy: %+v after %d tries in %v", resp, n, time.Since(start))
	}
}

// TestUnansweredSaysWhatIsKnown: a verb that acts and got no answer is
// outcome_unknown, one that reads daemon_gone; both exit 2 and say so.
func TestUnansweredSaysWhatIsKnown(t *testing.T) {
	cut := fmt.Errorf("read from daemon: %w: EOF", wire.ErrNoAnswer)
	for _, c := range []struct {
		req  wire.Request
		code target.Code
	}{
		{wire.Request{Verb: "type", Target: "win:1"}.With(args.Type{Text: "x"}), target.CodeOutcomeUnknown},
		{wire.Request{Verb: "browser.fill"}.With(args.Fill{Ref: "@e1"}), target.CodeOutcomeUnknown},
		{wire.Request{Verb: "browser.tab"}.With(args.Tab{Action: "close"}), target.CodeOutcomeUnknown},
		{wire.Request{Verb: "snapshot", Target: "win:1"}, target.CodeDaemonGone},
		{wire.Request{Verb: "browser.tab"}.With(args.Tab{Action: "list"}), target.CodeDaemonGone},
		{wire.Request{Verb: "find", Target: "win:1"}.With(args.Find{Text: "Dark"}), target.CodeDaemonGone},
		{wire.Request{Verb: "browser.find"}.With(args.Find{Text: "Edit"}), target.CodeDaemonGone},
		{wire.Request{Verb: "get", Target: "win:1"}.With(args.GetNode{What: "text", Ref: "@e1"}), target.CodeDaemonGone},
		{wire.Request{Verb: "trace"}.With(args.Trace{Last: 5}), target.CodeDaemonGone},
		{wire.Request{Verb: "browser.trace"}.With(args.Trace{Action: "pictures-on"}), target.CodeOutcomeUnknown},
	} {
		resp, ok := unanswered(c.req, cut)
		if !ok || resp.Code != c.code {
			t.Errorf("%s %s: %+v", c.req.Verb, c.req.Args, resp)
			continue
		}
		var out, errb bytes.Buffer
		err := Printer{Out: &out, Err: &errb}.Answer(resp, nil)
		if code := ExitCode(err, "vibespace-window", &errb); code != ExitUsage || !strings.Contains(errb.String(), "unanswered: ") || !strings.Contains(errb.String(), "["+string(c.code)+"]") {
			t.Errorf("%s: exit %d\n%s", c.req.Verb, code, errb.String())
		}
	}
	if _, ok := unanswered(wire.Request{Verb: "type"}, fmt.Errorf("send to daemon: broken pipe")); ok {
		t.Error("a request that was not sent whole is not unanswered")
	}
}

// TestLongRefusalIsCut: a refusal's sentence and facts are printed cut.
func TestLongRefusalIsCut(t *testing.T) {
	long := strings.Repeat("ctrl+", 8000)
	var out, errb bytes.Buffer
	Printer{Out: &out, Err: &errb}.Answer(wire.Response{Code: target.CodeBadChord, Message: "bad chord " + long, Facts: map[string]any{"chord": long}}, nil)
	if errb.Len() > 3*printLimit || !strings.Contains(errb.String(), "[bad_chord]") || !strings.Contains(errb.String(), "bytes)") {
		t.Fatalf("%d bytes on stderr:\n%.300s", errb.Len(), errb.String())
	}
}

// TestStoppedDaemonIsUnanswered: a call given up on because the daemon's
// process was stopped is outcome_unknown for a verb that acts (it may
// still run once the daemon is continued) and daemon_gone for one that
// reads, each naming the stopped process and how to continue it.
func TestStoppedDaemonIsUnanswered(t *testing.T) {
	stopped := fmt.Errorf("read: %w", &wire.StoppedError{PID: 4242, State: "T", Verb: "click"})
	for _, c := range []struct {
		req  wire.Request
		code target.Code
		says string
	}{
		{wire.Request{Verb: "click", Target: "win:1"}.With(args.Click{Ref: "@e1"}), target.CodeOutcomeUnknown, "may still run once the daemon is continued"},
		{wire.Request{Verb: "list"}, target.CodeDaemonGone, "running it again is safe once the daemon is continued"},
	} {
		resp, ok := unanswered(c.req, stopped)
		if !ok || resp.Code != c.code || !strings.Contains(resp.Message, "(pid 4242) is stopped (state T in /proc/4242/stat") ||
			!strings.Contains(resp.Message, c.says) || !strings.Contains(resp.Message, "kill -CONT 4242") || resp.Facts["pid"] != 4242 {
			t.Errorf("%s: %+v", c.req.Verb, resp)
		}
	}
	gone := &wire.StoppedError{PID: 4242, Verb: "list"}
	if resp, ok := unanswered(wire.Request{Verb: "list"}, gone); !ok || resp.Code != target.CodeDaemonGone || !strings.Contains(resp.Message, "(pid 4242) is gone") {
		t.Errorf("gone: %+v", resp)
	}
}
