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

	"github.com/vibespace/vibespace/target"
)

// ProtocolVersion is sent in every answer; a CLI that sees another version
// talks to a daemon of another build.
const ProtocolVersion = 1

// Request is one line from a client. Which fields matter depends on Verb.
type Request struct {
	Verb        string   `json:"verb"`
	Session     string   `json:"session"`
	Target      string   `json:"target,omitempty"`
	Ref         string   `json:"ref,omitempty"`
	Text        string   `json:"text,omitempty"`    // type
	Chord       string   `json:"chord,omitempty"`   // key
	At          *Point   `json:"at,omitempty"`      // click --at, scroll --at: pixels of the window's screenshot
	Dir         string   `json:"dir,omitempty"`     // scroll
	By          int      `json:"by,omitempty"`      // scroll steps
	With        string   `json:"with,omitempty"`    // share
	Argv        []string `json:"argv,omitempty"`    // open
	Display     string   `json:"display,omitempty"` // open: which display (its provider's name); "" the default
	Interactive bool     `json:"interactive,omitempty"`
	JSON        bool     `json:"json,omitempty"`  // snapshot: the tree as JSON instead of text
	User        string   `json:"user,omitempty"`  // takeover: who takes over; handback: who hands back
	Force       bool     `json:"force,omitempty"` // handback: the operator's override
	Mode        string   `json:"mode,omitempty"`  // open --mode, mode <handle> <word>: auto | tree | pixels (windows only)
	Xpra        bool     `json:"xpra,omitempty"`  // watch --xpra: how a person attaches xpra's own client instead of the live view
	Host        string   `json:"host,omitempty"`  // watch --xpra --ssh: how a remote person reaches this machine ("user@host")

	// Observing and verifying (issue 15).
	Depth    int      `json:"depth,omitempty"`     // snapshot --depth N: levels below the root (or the scope) kept; 0 all
	Diff     bool     `json:"diff,omitempty"`      // snapshot --diff: what changed since this session's last snapshot of the target
	After    string   `json:"after,omitempty"`     // snapshot --after @ref: what follows that node, as one more page past a snapshot its budget cut
	Values   []string `json:"values,omitempty"`    // select @ref <option…>: the options to choose
	NoVerify bool     `json:"no_verify,omitempty"` // an acting verb: do not watch for its effect (the answer's effect is unverifiable)
	Steps    int      `json:"steps,omitempty"`     // budget --steps N: acting verbs allowed (-1: no bound)
	Minutes  int      `json:"minutes,omitempty"`   // budget --minutes N: wall clock allowed from now (-1: no bound)
	Reset    bool     `json:"reset,omitempty"`     // budget --reset: start the count and the clock over

	// The browser's words (vibespace-browser).
	URL      string `json:"url,omitempty"`      // open <url>; wait --url
	Profile  string `json:"profile,omitempty"`  // --profile <id|alias> or VIBESPACE_BROWSER: which attachment
	Label    string `json:"label,omitempty"`    // new <label>; use <label|id>
	Alias    string `json:"alias,omitempty"`    // use --alias
	None     bool   `json:"none,omitempty"`     // pin --none
	Action   string `json:"action,omitempty"`   // tab list|new|close|select; get text|url|title
	Expr     string `json:"expr,omitempty"`     // eval
	Selector string `json:"selector,omitempty"` // wait --selector
	Headed   bool   `json:"headed,omitempty"`   // a profile's browser on our display instead of headless
	For      string `json:"for,omitempty"`      // use/detach/pin/attachments --for <session>: the operator acting on another session's set
	Backend  string `json:"backend,omitempty"`  // new --backend: "desktop-app" (a real Chromium as a window, no DevTools); "" the CDP browser
	Size     string `json:"size,omitempty"`     // new --size WxH: a desktop app's window size in pixels
	Task     string `json:"task,omitempty"`     // new-child --task: what the helper is for, as the live view names its tabs

	// The trace (issue 15): trace --last N, the steps answered (0: the
	// default); trace --pictures on|off is Action "pictures-on" /
	// "pictures-off".
	Last int `json:"last,omitempty"`

	// Provider keys (key set|clear|list; verbs key.set, key.clear,
	// key.list): Provider names the provider ("cloud:browserless"); Secret
	// is the key itself, on key.set only. The CLI reads it from stdin, never
	// argv or the environment; the daemon stores it 0600 and never answers,
	// logs or audits it.
	Provider string `json:"provider,omitempty"`
	Secret   string `json:"secret,omitempty"`
	// Endpoint is new --endpoint: a remote provider's DevTools endpoint
	// (cdp: ws://…/devtools/browser/<id> or an http base) or a cloud
	// provider's region host (wss://…). Never a key.
	Endpoint string `json:"endpoint,omitempty"`

	// Desktop names the caller's own desktop session, from its environment
	// (desktop on, doctor): the user's desktop the operator opens to agents.
	Desktop *DesktopEnv `json:"desktop,omitempty"`
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
		return Request{}, target.Refuse(target.CodeBadRequest, "malformed request: %s", clip(err.Error(), 200)).Wrap(err)
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
