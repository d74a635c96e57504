// Package wire is the daemon's wire protocol: the request and answer
// lines, their limits and decoding, the socket and state paths, and a
// client connection. It is what a client links instead of the daemon: it
// imports only the standard library and target.
package wire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/vibespace/vibespace/target"
)

// ProtocolVersion is sent in every answer; a CLI that sees another version
// talks to a daemon of another build.
const ProtocolVersion = 2

// Request is one line from a client: an envelope — the verb, who asks,
// what it acts on, how the answer is wanted — and the verb's own
// arguments, as the JSON of the verb's type of package daemon/args (a
// client sets them with args.Request or With; the daemon decodes them
// into that type once, refusing a field the type does not have).
type Request struct {
	Verb    string `json:"verb"`
	Session string `json:"session"`
	Target  string `json:"target,omitempty"`
	// For is --for <session>: the operator acting on another session's
	// browser attachments, trace or budget.
	For string `json:"for,omitempty"`
	// Profile is a browser verb's --profile <id|alias> (or
	// VIBESPACE_BROWSER): which attachment it acts in.
	Profile string `json:"profile,omitempty"`
	// Headed asks for that profile's browser on our display instead of
	// headless (a relaunch; refused on somebody else's browser).
	Headed bool `json:"headed,omitempty"`
	// JSON asks for the answer's tree or matches as JSON instead of text
	// (snapshot --json, find --json): the answer's form, not the verb's.
	JSON bool `json:"json,omitempty"`
	// Args are the verb's arguments: a JSON object, or none.
	Args json.RawMessage `json:"args,omitempty"`
}

// With is r carrying a as its arguments (a verb's type of package
// daemon/args, or any value whose JSON is that type's).
func (r Request) With(a any) Request {
	b, err := json.Marshal(a)
	if err != nil {
		// The arguments' types are plain structs of strings, numbers and
		// lists: nothing of them fails to marshal.
		panic(fmt.Sprintf("wire: arguments of %s do not marshal: %v", r.Verb, err))
	}
	if string(b) == "{}" || string(b) == "null" {
		b = nil
	}
	r.Args = b
	return r
}

// DesktopEnv names the user's own desktop session as the caller's
// environment has it. None of it is a secret: Xauthority is the file's
// path, and the cookie stays in the file.
type DesktopEnv struct {
	Display     string `json:"display,omitempty"`      // DISPLAY
	Xauthority  string `json:"xauthority,omitempty"`   // XAUTHORITY
	Bus         string `json:"bus,omitempty"`          // DBUS_SESSION_BUS_ADDRESS
	Wayland     string `json:"wayland,omitempty"`      // WAYLAND_DISPLAY
	RuntimeDir  string `json:"runtime_dir,omitempty"`  // XDG_RUNTIME_DIR
	SessionType string `json:"session_type,omitempty"` // XDG_SESSION_TYPE
	Current     string `json:"current,omitempty"`      // XDG_CURRENT_DESKTOP
	// ScreenCast: the operator asked (desktop on --screencast) for the
	// portal's ScreenCast even where this compositor's is known to fail
	// (headless KWin 5.27 dies in its chooser): not the environment's,
	// the operator's word, kept with it.
	ScreenCast bool `json:"screencast,omitempty"`
}

// Point is a pixel of a window's own screenshot: (0,0) is its top left.
type Point struct {
	X int `json:"x"`
	Y int `json:"y"`
}

// TargetInfo is how an answer names a target.
type TargetInfo struct {
	ID        target.ID `json:"id"`
	Title     string    `json:"title"`
	App       string    `json:"app,omitempty"`
	PID       int       `json:"pid,omitempty"`
	Origin    string    `json:"origin,omitempty"`
	Exposure  []string  `json:"exposure,omitempty"`
	Lease     string    `json:"lease"` // the lease state in words
	Input     string    `json:"input"` // agent | user
	Holder    string    `json:"holder,omitempty"`
	Since     string    `json:"since,omitempty"`      // when the holder took it (RFC 3339)
	User      string    `json:"user,omitempty"`       // who took over, while input is user
	UserSince string    `json:"user_since,omitempty"` // since when
	// Capabilities are the roads each verb has on this window, probed now
	// (list only). Verbs on a node (click @ref, type @ref) are decided
	// again per node at use.
	Capabilities []target.Capability `json:"capabilities,omitempty"`
	// NotAnswering is set (list only) when the window's display did not
	// answer: since when (RFC 3339). Its other facts are as last read.
	NotAnswering string `json:"not_answering,omitempty"`
	// Mode is a window's mode (auto, tree, pixels; "" for a tab); under
	// auto, Resolved is what it resolved to and ModeWhy why.
	Mode     target.Mode `json:"mode,omitempty"`
	Resolved target.Mode `json:"mode_resolved,omitempty"`
	ModeWhy  string      `json:"mode_why,omitempty"`
	// Watched is set while someone is attached to the window's display
	// from outside the daemon (an xpra client on a per-session display):
	// a person may be watching and driving it. It names what is attached,
	// counted ("an xpra client"); Watchers is how many, WatchedSince since
	// when (RFC 3339). A takeover makes their driving one: agents pause.
	Watched      string `json:"watched,omitempty"`
	Watchers     int    `json:"watchers,omitempty"`
	WatchedSince string `json:"watched_since,omitempty"`
	// Desktop is set for a window of the user's own desktop: every line
	// about it says "your desktop". Pixels is the operator's grant of the
	// point verbs (click --at, scroll --at) on it.
	Desktop bool `json:"desktop,omitempty"`
	Pixels  bool `json:"pixels,omitempty"`
	// Browser names the web browser such a window is (the user's own
	// Chromium or Firefox, tier 3): driven through its tree alone, never
	// CDP, never an automation flag; every line about it says so.
	Browser string `json:"browser,omitempty"`
	// CDPID is a tab's CDP target id, for programs that meet the tab over
	// DevTools too ("" for a window). Its handle is ID (tab:N); a handle of
	// the old form tab:<CDPID> is refused unknown_target, naming tab:N.
	CDPID string `json:"cdp_id,omitempty"`
}

// ModeWords says the target's mode as answers print it: "auto → tree",
// "auto → pixels (why)", "pixels"; "" for a tab.
func (t *TargetInfo) ModeWords() string {
	if t.Mode == "" {
		return ""
	}
	return target.ModeWords(t.Mode, t.Resolved, t.ModeWhy)
}

// Response is one line back. OK false carries Code and Message (a typed
// refusal); everything else is verb-specific.
type Response struct {
	V       int            `json:"v"`
	OK      bool           `json:"ok"`
	Code    target.Code    `json:"code,omitempty"`
	Message string         `json:"message,omitempty"`
	Facts   map[string]any `json:"facts,omitempty"`

	Target *TargetInfo `json:"target,omitempty"`
	// Said is set on a text answer whose header (Target and Profile, as
	// the header line names them) is the one the session's previous
	// answer said: the header line is left out (daemon/headers). The
	// fields stay.
	Said bool `json:"said,omitempty"`
	// Note is told once: control came back after a takeover.
	Note string      `json:"note,omitempty"`
	Did  string      `json:"did,omitempty"` // what was done, in words
	By   target.Road `json:"by,omitempty"`  // the road it took

	Targets  []TargetInfo     `json:"targets,omitempty"`  // list
	Snapshot *target.Snapshot `json:"snapshot,omitempty"` // snapshot
	Text     string           `json:"text,omitempty"`     // snapshot, as text
	PNG      []byte           `json:"png,omitempty"`      // screenshot
	Bounds   *target.Rect     `json:"bounds,omitempty"`   // screenshot: where the window is
	Status   *Status          `json:"status,omitempty"`
	Checks   []Check          `json:"checks,omitempty"` // doctor

	// URL is an address: the viewer page (watch) or the tab's URL (open,
	// get url).
	URL string `json:"url,omitempty"`
	// Profile names the browser profile a browser verb acted on, with the
	// attachment set around it.
	Profile     *ProfileInfo    `json:"profile,omitempty"`
	Profiles    []ProfileInfo   `json:"profiles,omitempty"`    // profiles
	Attachments []ProfileInfo   `json:"attachments,omitempty"` // attachments
	Value       json.RawMessage `json:"value,omitempty"`       // eval: the result as JSON
	// Effect is what an acting verb (click, type, fill, select, key,
	// scroll) observed after it acted: a word of target's closed
	// vocabulary and what changed.
	Effect *target.Effect `json:"effect,omitempty"`

	// Observing less (snapshot @ref, --depth, --diff; find).
	Cut   *target.Cut   `json:"cut,omitempty"`   // snapshot --depth: what the cut left out
	Diff  *target.Diff  `json:"diff,omitempty"`  // snapshot --diff: what changed since the session's last snapshot
	Found *target.Found `json:"found,omitempty"` // find: the matching refs
	// Trace is the trace verb's steps, oldest first (daemon/trace).
	Trace []TraceStep `json:"trace,omitempty"`
	// Keys are the provider keys key.list knows of: whether each is set
	// and since when, never a key's value or any part of it.
	Keys []KeyInfo `json:"keys,omitempty"`
	// Batch is a batch's steps as they ran (daemon/batch); a batch stopped
	// at a step is a refusal whose facts carry the same (batch, steps,
	// stopped_at).
	Batch *BatchAnswer `json:"batch,omitempty"`
	// Reach is what the reach ladder did (daemon/reach): the rung it
	// reached and every signal seen on the way.
	Reach *ReachAnswer `json:"reach,omitempty"`
}

// ReachAnswer is what a reach did: where it started and why, the rung it
// reached (1 fetch, 2 tree, 3 pixels, 4 desktop, 5 person), its outcome,
// and every signal a rung saw on the way, in order.
type ReachAnswer struct {
	URL   string `json:"url"`
	Start int    `json:"start"`
	// StartWhy says why it started above rung 1 ("" when it did not).
	StartWhy string `json:"start_why,omitempty"`
	Rung     int    `json:"rung"`
	RungName string `json:"rung_name"`
	// Outcome: served (the rung reached serves the page), or
	// handoff_next (rung 5: a person is next, and this daemon hands
	// nothing off itself), or handed_off (a person did).
	Outcome string        `json:"outcome"`
	Signals []ReachSignal `json:"signals,omitempty"`
	// Goal is the goal as given; GoalMet whether the rung reached met it
	// (nil: nothing to check); GoalWhy what was seen.
	Goal    string `json:"goal,omitempty"`
	GoalMet *bool  `json:"goal_met,omitempty"`
	GoalWhy string `json:"goal_why,omitempty"`
	// Desk is the desktop of the pool the session holds from rung 4 on.
	Desk string `json:"desk,omitempty"`
}

// ReachSignal is one rung's failure signal: its stable name, the rung
// that saw it, and what was seen.
type ReachSignal struct {
	Rung   int    `json:"rung"`
	Signal string `json:"signal"`
	Why    string `json:"why"`
}

// BatchAnswer is what a batch did: its id (the trace's steps carry it)
// and each step that ran, in order.
type BatchAnswer struct {
	ID    string      `json:"id"`
	Steps []BatchStep `json:"steps"`
}

// BatchStep is one step of a batch as it ran: the verb on its target, its
// short effect, and its expectation and whether it held.
type BatchStep struct {
	Verb   string            `json:"verb"` // as typed: click, fill
	Target string            `json:"target,omitempty"`
	Ref    string            `json:"ref,omitempty"`
	OK     bool              `json:"ok"`
	Code   target.Code       `json:"code,omitempty"` // its refusal, or expect_unmet
	Did    string            `json:"did,omitempty"`  // its answer's words (a refusal's sentence)
	Effect target.EffectWord `json:"effect,omitempty"`
	Expect string            `json:"expect,omitempty"`
	// Met says whether Expect held (nil: the step expected nothing, or
	// did not run to be checked).
	Met *bool `json:"met,omitempty"`
}

// KeyInfo is one provider's key as key.list (and key.set, key.clear)
// answer it.
type KeyInfo struct {
	Provider string `json:"provider"`
	Set      bool   `json:"set"`
	SetAt    string `json:"set_at,omitempty"` // RFC 3339, while set
}

// ProfileInfo names a browser profile as an answer shows it:
// "profile: work (bp-3f9a1c02) · default · 2 attachments". A session that
// attached no profile acts in its own ephemeral context: ID "" and
// Ephemeral true.
type ProfileInfo struct {
	ID          string `json:"id,omitempty"`     // bp-<8 hex>
	Label       string `json:"label,omitempty"`  // free text, never a path
	Handle      string `json:"handle,omitempty"` // how this session names it (alias, label or id)
	Parent      string `json:"parent,omitempty"` // new-child: the parent's handle
	Default     bool   `json:"default,omitempty"`
	Pinned      bool   `json:"pinned,omitempty"`
	Ephemeral   bool   `json:"ephemeral,omitempty"`
	Attachments int    `json:"attachments"`       // how many the session holds
	Running     bool   `json:"running,omitempty"` // its browser is up
	// Backend is how the profile's browser runs: "desktop-app" (a real
	// Chromium as a window target, no DevTools); "" the CDP browser.
	Backend string `json:"backend,omitempty"`
	// Provider is the profile's provider row (chromium, cdp,
	// cloud:<name>, desktop-app) and Endpoint where a remote one is
	// reached (never a key).
	Provider string `json:"provider,omitempty"`
	Endpoint string `json:"endpoint,omitempty"`
	// Window is the window target a desktop app runs as, while it runs.
	Window target.ID `json:"window,omitempty"`
}

// Status is what status answers about the daemon.
type Status struct {
	PID        int    `json:"pid"`
	Socket     string `json:"socket"`
	StateDir   string `json:"state_dir"`
	Display    string `json:"display,omitempty"` // "" until the first open
	Targets    int    `json:"targets"`           // all targets
	Yours      int    `json:"yours"`             // exposed to the caller
	Started    string `json:"started"`
	AuditPath  string `json:"audit"`
	MaxRequest int    `json:"max_request"`
	Live       string `json:"live,omitempty"` // the live view: where it serves and to how many, or why it is off (never its token)
	// Kept are the log files there are now, relative to the state
	// directory: the audit log and the daemon's log, each rotated at a size
	// bound, current file first, then the old ones kept (audit.jsonl.1, …).
	Kept []string `json:"kept,omitempty"`
	// Stderr is where the daemon's standard error goes — a panic's trace
	// lands there: a file, relative to the state directory when it is
	// under it, or the terminal of a daemon run in the foreground.
	Stderr string `json:"stderr,omitempty"`
	// Faults are what this daemon lost, could not restore or cannot keep
	// now, each with when it was found: a state file set aside, budgets
	// that could not be read, an audit log it cannot write. Empty while
	// nothing is wrong.
	Faults []string `json:"faults,omitempty"`
}

// errTooLarge is a request line over the limit.
var errTooLarge = errors.New("request too large")

// ReadRequest reads and decodes one request line of at most max bytes (the
// newline excluded). io.EOF means the client closed cleanly between
// requests. A line over the limit or one that is not a valid request is a
// bad_request refusal; after it the stream cannot be trusted and the caller
// closes the connection.
func ReadRequest(r *bufio.Reader, max int) (Request, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > max+1 {
			return Request{}, target.Refuse(target.CodeBadRequest, "request over the limit of %d bytes", max).With("limit", max).Wrap(errTooLarge)
		}
		if err == nil {
			break
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) && len(line) == 0 {
			return Request{}, io.EOF
		}
		if errors.Is(err, io.EOF) {
			return Request{}, target.Refuse(target.CodeBadRequest, "request not terminated by a newline").Wrap(err)
		}
		return Request{}, err
	}
	return DecodeRequest(line)
}

// DecodeRequest decodes one request line. Unknown fields, trailing data and
// a missing verb are refused bad_request.
func DecodeRequest(line []byte) (Request, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	var req Request
	if err := dec.Decode(&req); err != nil {
		hint := ""
		if strings.HasPrefix(err.Error(), "json: unknown field ") {
			// A client of protocol 1 sent a verb's arguments beside its
			// envelope.
			hint = fmt.Sprintf(" (protocol %d: a verb's arguments go in \"args\")", ProtocolVersion)
		}
		return Request{}, target.Refuse(target.CodeBadRequest, "malformed request: %s%s", clip(err.Error(), 200), hint).Wrap(err)
	}
	if dec.More() {
		return Request{}, target.Refuse(target.CodeBadRequest, "malformed request: more than one JSON value on the line")
	}
	if req.Verb == "" {
		return Request{}, target.Refuse(target.CodeBadRequest, "malformed request: no verb")
	}
	return req, nil
}

// WriteResponse writes one answer line.
func WriteResponse(w io.Writer, resp Response) error {
	resp.V = ProtocolVersion
	b, err := json.Marshal(resp)
	if err != nil {
		return fmt.Errorf("daemon: encode answer: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Check is one row of doctor's matrix.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"` // what was found, or why not
}

// ForOther is the other session a request acts for (--for, the operator's
// word for another session's attachments, trace or budget), or "" when it
// names none or the caller's own.
func (r Request) ForOther() string {
	if r.For == r.Session {
		return ""
	}
	return r.For
}

// Subject is the session a request is about: the one --for names, else the
// caller's.
func (r Request) Subject() string {
	if s := r.ForOther(); s != "" {
		return s
	}
	return r.Session
}
