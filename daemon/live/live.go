// Package live is the daemon's live view: an HTTP server on 127.0.0.1
// serving the viewer page, the targets and trace API, WHEP signalling (package rtc:
// one encoder per target, shared by its viewers) and the page's Take over
// and Hand back, started on the first watch and stopped with the daemon.
//
// It sees targets only through the hands the core lends it (Core,
// daemon.LiveHands): their list with their leases, a target's frame
// source, and a gated input sink — a person's events pass the same
// per-target gate as an agent's verbs, and only while that person drives
// the target. It keeps what is its own: the token, the hub, which viewer
// drives which target, its counters, and each session's strip (strip.go:
// what each target lives in, the sessions' browsers, their Stop).
package live

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vibespace/vibespace/capture"
	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/viewer"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/profile"
	"github.com/vibespace/vibespace/rtc"
	"github.com/vibespace/vibespace/target"
)

// Core is what the live view needs of the daemon: the core's hands it
// lends the view (daemon.LiveHands is one). What the view makes of them —
// a session's strip, a context's name, the Stop of an idle browser — is
// its own (strip.go).
type Core interface {
	// Targets lists every target with its lease, freshly read; targets
	// that are gone are dropped.
	Targets(ctx context.Context) []daemon.LiveTarget
	// Check reads target id afresh: unknown_target for an id that names
	// none, its kind's gone code for a target that is gone.
	Check(ctx context.Context, id target.ID) error
	// Frames opens a stream of target id's pictures, freshly read first.
	Frames(ctx context.Context, id target.ID, o kind.FrameOptions) (target.FrameSource, error)
	// Lease is target id's lease as it is now.
	Lease(id target.ID) lease.Lease
	// Input delivers a person's event through the gate agent verbs pass,
	// only while user drives the target (took it over).
	Input(ctx context.Context, id target.ID, user string, ev kind.Input) error
	// Takeover and Handback are those verbs, as user, from the page.
	Takeover(ctx context.Context, id target.ID, user string) daemon.Response
	Handback(ctx context.Context, id target.ID, user string) daemon.Response
	// Trace is the last n steps on id, of every session, pictures left out.
	Trace(id target.ID, n int) []daemon.TraceStep
	// Profiles is the profile registry, for naming contexts.
	Profiles() (*profile.Registry, error)
	// Browsers is the browser backend's count of running browsers and its
	// Stop; false when there is none.
	Browsers() (kind.BrowserUsage, bool)
	// ProfilesWithTabs is the set of profiles some tab of which is open.
	ProfilesWithTabs() map[string]bool
	// Audit records an entry in the audit log as the live view's.
	Audit(e lease.Entry)
}

// Options configure the live view.
type Options struct {
	Port int // on 127.0.0.1; 0 picks a free one
	// ICETCPPort is the port on 127.0.0.1 of the video's ICE-TCP road (a
	// passive candidate offered to every viewer beside UDP, one listener
	// for all); 0 picks a free one.
	ICETCPPort int
	FPS        int // the capture rate of a target's pane; 0 means its source's default
	Logger     *slog.Logger
	// VerbTimeout bounds a page's takeover or handback; 0 means the
	// daemon's default.
	VerbTimeout time.Duration
	// Routes are more of the page's API, each pattern (of net/http's
	// ServeMux, under /api/) answered by its handler behind the same
	// viewer token and same-origin check: a person's request to the
	// desktop pool (daemon/pool's Routes).
	Routes map[string]http.Handler
	// Asks are the targets whose agent asks a person for help now
	// (daemon/handoff's Desk.Asks): each shows "needs you" with its
	// reason in its strip row and pane, and the page raises a
	// notification; nil: none ever.
	Asks func() map[target.ID]wire.Ask
}

// For is daemon.Config.Live for a live view with options o.
func For(o Options) func(daemon.LiveHands) daemon.LiveView {
	return func(h daemon.LiveHands) daemon.LiveView { return New(h, o) }
}

// Bounds of the live view's work.
const (
	inputTimeout     = 3 * time.Second // one viewer input event
	apiTimeout       = 5 * time.Second // one API request's backend calls
	viewerHeader     = "X-Vibespace-Viewer"
	viewersHeader    = "X-Vibespace-Viewers"
	maxViewersHeader = 4 << 10
)

// View is the live view of one daemon.
type View struct {
	core Core
	o    Options

	startMu sync.Mutex // held while starting or stopping
	takeMu  sync.Mutex // one page takeover or handback at a time

	mu      sync.Mutex // guards the fields below
	srv     *http.Server
	addr    string // host:port once serving
	iceAddr string // the ICE-TCP listener's host:port once serving
	hub     *rtc.Hub
	token   string
	stopped bool
	drivers map[target.ID]string // the viewer id driving each target from the page

	accepted atomic.Uint64 // viewer input events acted on
	dropped  atomic.Uint64 // viewer input events from viewers not driving, or that failed
}

// New makes the live view of core; it serves nothing until Address.
func New(core Core, o Options) *View {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.VerbTimeout <= 0 {
		o.VerbTimeout = daemon.DefaultVerbTimeout
	}
	return &View{core: core, o: o, drivers: make(map[target.ID]string)}
}

// Address starts the server if it is not running and answers the viewer
// page's address with its token, and the port of the video's ICE-TCP road.
func (v *View) Address() (daemon.LiveAddress, error) {
	addr, token, hub, err := v.start()
	if err != nil {
		return daemon.LiveAddress{}, err
	}
	if err := hub.Available(); err != nil {
		return daemon.LiveAddress{}, err
	}
	a := daemon.LiveAddress{URL: "http://" + addr + "/#token=" + token}
	if t, ok := hub.ICETCPAddr().(*net.TCPAddr); ok {
		a.ICETCPPort = t.Port
	}
	return a, nil
}

func (v *View) start() (addr, token string, hub *rtc.Hub, err error) {
	v.startMu.Lock()
	defer v.startMu.Unlock()
	v.mu.Lock()
	if v.stopped {
		v.mu.Unlock()
		return "", "", nil, target.Refuse(target.CodeInternal, "the daemon is shutting down")
	}
	if v.srv != nil {
		defer v.mu.Unlock()
		return v.addr, v.token, v.hub, nil
	}
	v.mu.Unlock()
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", "", nil, fmt.Errorf("live: token: %w", err)
	}
	token = base64.RawURLEncoding.EncodeToString(b[:])
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", v.o.Port))
	if err != nil {
		return "", "", nil, target.Refuse(target.CodeLiveViewUnavailable, "the live view cannot listen on 127.0.0.1:%d: %v", v.o.Port, err).With("port", v.o.Port).Wrap(err)
	}
	// The video's TCP road, for a viewer that reaches this host through
	// a tunnel: the hub owns the listener and closes it.
	iceLn, err := net.Listen("tcp4", fmt.Sprintf("127.0.0.1:%d", v.o.ICETCPPort))
	if err != nil {
		_ = ln.Close()
		return "", "", nil, target.Refuse(target.CodeLiveViewUnavailable, "the live view's video cannot listen for ICE-TCP on 127.0.0.1:%d: %v", v.o.ICETCPPort, err).With("port", v.o.ICETCPPort).Wrap(err)
	}
	hub = rtc.New(rtc.Options{Logger: v.o.Logger, ICETCPListener: iceLn})
	hub.OnInput(v.input)
	srv := &http.Server{Handler: v.handler(hub, token), ReadHeaderTimeout: 5 * time.Second, IdleTimeout: time.Minute}
	v.mu.Lock()
	v.srv, v.addr, v.iceAddr, v.hub, v.token = srv, ln.Addr().String(), iceLn.Addr().String(), hub, token
	addr = v.addr
	v.mu.Unlock()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			v.o.Logger.Warn("live view: server ended", "err", err)
		}
	}()
	v.o.Logger.Info("live view: serving", "addr", addr, "ice_tcp", iceLn.Addr().String(), "available", hub.Available() == nil)
	return addr, token, hub, nil
}

// Close stops the live view: the server, every viewer and pipeline. Later
// Address calls are refused.
func (v *View) Close() error {
	v.startMu.Lock()
	defer v.startMu.Unlock()
	v.mu.Lock()
	v.stopped = true
	srv, hub := v.srv, v.hub
	v.srv, v.hub = nil, nil
	v.mu.Unlock()
	if srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_ = srv.Shutdown(ctx)
		cancel()
		_ = srv.Close()
	}
	if hub != nil {
		_ = hub.Close()
	}
	return nil
}

// Hub is the running hub, or nil.
func (v *View) Hub() *rtc.Hub {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.hub
}

// Counts are the viewer input events acted on and dropped.
func (v *View) Counts() (accepted, dropped uint64) { return v.accepted.Load(), v.dropped.Load() }

// State says in words what the live view is doing. It never includes the
// token.
func (v *View) State() (string, bool) {
	v.mu.Lock()
	addr, iceAddr, hub := v.addr, v.iceAddr, v.hub
	v.mu.Unlock()
	if hub == nil {
		if !rtc.VP8Available() {
			return "unavailable: this build has no video encoder (built without cgo and libvpx)", false
		}
		return "not started (it starts on the first watch)", true
	}
	if err := hub.Available(); err != nil {
		return "unavailable: " + err.Error(), false
	}
	ps := hub.Pipelines()
	return fmt.Sprintf("serving on %s, video over UDP and ICE-TCP on %s; %d viewer(s) of %d target(s); %d input event(s) acted on, %d dropped",
		addr, iceAddr, hub.Viewers(), len(ps), v.accepted.Load(), v.dropped.Load()+hub.InputRejected()), true
}

// ---- HTTP ----------------------------------------------------------------

// handler routes the live view's requests. Everything but the page's own
// assets needs the viewer token.
func (v *View) handler(hub *rtc.Hub, token string) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", viewer.Handler())
	api := http.NewServeMux()
	api.HandleFunc("GET /api/targets", v.apiTargets)
	api.HandleFunc("GET /api/trace/{target}", v.apiTrace)
	api.Handle("/api/whep/", hub.WHEP(v.resolve))
	api.HandleFunc("POST /api/takeover/{target}", func(w http.ResponseWriter, r *http.Request) { v.apiControl(w, r, "takeover") })
	api.HandleFunc("POST /api/handback/{target}", func(w http.ResponseWriter, r *http.Request) { v.apiControl(w, r, "handback") })
	api.HandleFunc("POST /api/stop", v.apiStop)
	for pattern, h := range v.o.Routes {
		api.Handle(pattern, h)
	}
	mux.Handle("/api/", sameOrigin(v.servesHost, requireToken(token, api)))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		viewer.SecurityHeaders(w.Header())
		if !v.servesHost(strings.ToLower(r.Host)) {
			// DNS rebinding: a page of another site whose name now
			// resolves to 127.0.0.1 reaches this port under its own name.
			http.Error(w, "this is the vibespace live view; it answers only to the address watch printed", http.StatusMisdirectedRequest)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// servesHost reports whether host (lower case) is a Host header the live
// view answers to: the loopback address it serves, by number or as
// localhost, with its port.
func (v *View) servesHost(host string) bool {
	v.mu.Lock()
	addr := v.addr
	v.mu.Unlock()
	_, port, err := net.SplitHostPort(addr)
	return err == nil && (host == addr || host == net.JoinHostPort("localhost", port))
}

// sameOrigin refuses, 403, an API request whose Origin is not the live
// view's own (a page of another site calling it from a viewer's browser). A
// request without an Origin (a command line, a same-origin GET) passes:
// the token still guards it.
func sameOrigin(servesHost func(string) bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("Origin"); o != "" {
			h, ok := strings.CutPrefix(strings.ToLower(o), "http://")
			if !ok || !servesHost(h) {
				http.Error(w, "the live view's API answers only its own page, not another site's", http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// requireToken lets through requests that carry the viewer token as
// "Authorization: Bearer <token>": 401 without one, 403 with a wrong one.
func requireToken(token string, next http.Handler) http.Handler {
	want := []byte(token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || got == "" {
			w.Header().Set("WWW-Authenticate", `Bearer realm="vibespace live view"`)
			http.Error(w, "the live view needs its viewer token (open the address watch printed)", http.StatusUnauthorized)
			return
		}
		if subtle.ConstantTimeCompare([]byte(got), want) != 1 {
			http.Error(w, "wrong viewer token", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Target is one target as the page sees it. It never carries text an agent
// typed or filled.
type Target struct {
	ID        target.ID       `json:"id"`
	Title     string          `json:"title"`
	Kind      string          `json:"kind"`
	App       string          `json:"app,omitempty"`
	Holder    string          `json:"holder,omitempty"` // the agent session holding its lease
	Mode      string          `json:"mode"`             // agent | user
	Driver    string          `json:"driver"`           // who drives: the holder, the user who took over, or ""
	User      string          `json:"user,omitempty"`   // who took over, in user mode
	UserSince string          `json:"user_since,omitempty"`
	YouDrive  bool            `json:"you_drive"` // one of the asking page's viewers took it over
	Viewers   int             `json:"viewers"`   // of its pane
	Thumbs    int             `json:"thumbs"`    // of its thumbnail
	Width     int             `json:"width,omitempty"`
	Height    int             `json:"height,omitempty"`
	Agent     *wire.AgentMark `json:"agent,omitempty"`
	// Desktop marks a window of the user's own desktop: its row and its
	// pane's title say "your desktop".
	Desktop bool `json:"desktop,omitempty"`
	// Needs is its agent's ask for a person (a hand-off): why, since
	// when, and who took it over since.
	Needs *wire.Ask `json:"needs,omitempty"`
	// Stopped is why its live view last stopped by itself (the source
	// failed, or sent no picture), until a pane of it shows a picture
	// again: its pane says it rather than "connecting" for ever.
	Stopped *target.Refusal `json:"stopped,omitempty"`

	// The strip: whose strip shows it, what it lives in (own, profile,
	// helper, app, window) and that context's name, and who drives it
	// now: "agent" (the session itself), "helper" (the helper of its
	// child handle), "you" (one of the asking page's viewers took it
	// over) or "user" (somebody else did: User says who).
	Session  string    `json:"session"`
	Context  string    `json:"context"`
	Name     string    `json:"name,omitempty"`
	Profile  string    `json:"profile,omitempty"`
	Opened   time.Time `json:"opened,omitzero"`
	DrivenBy string    `json:"driven_by"`
}

// Session is one session's strip header: the browsers it used of those
// running, how many run in all against the ceiling (AtCeiling: no other
// may start), and its idle browsers, each stoppable (POST /api/stop).
type Session struct {
	Name      string `json:"name"`
	Yours     int    `json:"yours"`
	Running   int    `json:"running"`
	Max       int    `json:"max"`
	AtCeiling bool   `json:"at_ceiling"`
	Idle      []Idle `json:"idle"`
}

// Idle is an idle browser of a session's.
type Idle struct {
	Profile string `json:"profile"`
	Label   string `json:"label,omitempty"`
}

// Targets is the answer of GET /api/targets.
type Targets struct {
	Targets  []Target  `json:"targets"`
	Sessions []Session `json:"sessions"`
	Viewers  int       `json:"viewers"` // of every target
}

// apiTargets lists every target of this host, freshly read.
func (v *View) apiTargets(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), apiTimeout)
	defer cancel()
	mine := map[string]bool{}
	if h := r.Header.Get(viewersHeader); h != "" && len(h) <= maxViewersHeader {
		for _, id := range strings.Split(h, ",") {
			mine[strings.TrimSpace(id)] = true
		}
	}
	writeJSON(w, http.StatusOK, v.targets(ctx, mine))
}

// targets describes every target; mine are the asking page's viewers.
func (v *View) targets(ctx context.Context, mine map[string]bool) Targets {
	lts := rows(ctx, v.core)
	hub := v.Hub()
	out := Targets{Targets: []Target{}}
	if hub != nil {
		out.Viewers = hub.Viewers()
	}
	// Who watches each target: its pane's viewers, and the pages showing
	// its thumbnail.
	watchers := map[string]map[rtc.Tier]int{}
	if hub != nil {
		for _, p := range hub.Pipelines() {
			if watchers[p.Key] == nil {
				watchers[p.Key] = map[rtc.Tier]int{}
			}
			watchers[p.Key][p.Tier] += p.Viewers
		}
	}
	var asks map[target.ID]wire.Ask
	if v.o.Asks != nil {
		asks = v.o.Asks()
	}
	have := make(map[target.ID]bool, len(lts))
	for _, lt := range lts {
		have[lt.ID] = true
		l := lt.Lease
		t := Target{
			ID: lt.ID, Title: lt.Title, Kind: string(lt.Kind), App: lt.App, Holder: l.Holder,
			Mode: string(l.Input), Driver: l.Holder, Width: lt.Width, Height: lt.Height, Agent: lt.Agent,
			Desktop: lt.Desktop, Session: lt.Session, Context: lt.Context, Name: lt.Name, Profile: lt.Profile,
			Opened: lt.Opened,
		}
		if l.Input == lease.InputUser {
			t.User, t.Driver = l.User, l.User
			t.UserSince = l.UserSince.UTC().Format(time.RFC3339)
		}
		if a, ok := asks[lt.ID]; ok {
			t.Needs = &a
		}
		if hub != nil {
			if r, ok := target.AsRefusal(hub.Stopped(string(lt.ID))); ok {
				t.Stopped = r
			}
		}
		t.Viewers, t.Thumbs = watchers[string(lt.ID)][rtc.TierFull], watchers[string(lt.ID)][rtc.TierThumb]
		v.mu.Lock()
		if d := v.drivers[lt.ID]; d != "" && mine[d] && l.Input == lease.InputUser && l.User == viewerUser(d) {
			t.YouDrive = true
		}
		v.mu.Unlock()
		switch {
		case t.YouDrive:
			t.DrivenBy = "you"
		case l.Input == lease.InputUser:
			t.DrivenBy = "user"
		case lt.Context == "helper":
			t.DrivenBy = "helper"
		default:
			t.DrivenBy = "agent"
		}
		out.Targets = append(out.Targets, t)
	}
	out.Sessions = []Session{}
	for _, ls := range sessions(v.core, lts) {
		s := Session{Name: ls.Name, Yours: ls.Yours, Running: ls.Running, Max: ls.Max, AtCeiling: ls.Max > 0 && ls.Running >= ls.Max, Idle: ls.Idle}
		out.Sessions = append(out.Sessions, s)
	}
	// Forget the drivers of targets that are gone.
	v.mu.Lock()
	for id := range v.drivers {
		if !have[id] {
			delete(v.drivers, id)
		}
	}
	v.mu.Unlock()
	return out
}

// traceSteps is how many of a target's recent steps its pane lists.
const traceSteps = 20

// Trace is the answer of GET /api/trace/<target>: the target's recent
// steps, of every session, oldest first. A step carries no text an agent
// typed or filled (its length only), and no picture.
type Trace struct {
	Target target.ID          `json:"target"`
	Steps  []daemon.TraceStep `json:"steps"`
}

// apiTrace lists a target's recent steps for the panel beside its pane.
// A handle with no steps must name a target the daemon knows: one that
// never did (tab:999) is refused unknown_target (404), as the other
// endpoints refuse it, not answered an empty list. A target that had steps
// keeps its list after it is gone.
func (v *View) apiTrace(w http.ResponseWriter, r *http.Request) {
	id, err := target.ParseID(r.PathValue("target"))
	if err != nil {
		writeRefusal(w, err)
		return
	}
	steps := v.core.Trace(id, traceSteps)
	if len(steps) == 0 {
		ctx, cancel := context.WithTimeout(r.Context(), apiTimeout)
		err := v.core.Check(ctx, id)
		cancel()
		if target.CodeOf(err) == target.CodeUnknownTarget {
			writeRefusal(w, err)
			return
		}
		steps = []daemon.TraceStep{}
	}
	writeJSON(w, http.StatusOK, Trace{Target: id, Steps: steps})
}

// resolve maps a WHEP request (/api/whep/<target>) to the target's pipeline
// key and how to open its pixels.
func (v *View) resolve(r *http.Request) (string, rtc.OpenFunc, error) {
	name := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/api/whep/"), "/")
	id, err := target.ParseID(name)
	if err != nil {
		return "", nil, err
	}
	ctx, cancel := context.WithTimeout(r.Context(), apiTimeout)
	defer cancel()
	if err := v.core.Check(ctx, id); err != nil {
		return "", nil, err
	}
	open := func(ctx context.Context) (capture.Source, error) {
		return v.core.Frames(ctx, id, kind.FrameOptions{FPS: v.o.FPS})
	}
	return string(id), open, nil
}

// controlAnswer is what the page's takeover and handback answer.
type controlAnswer struct {
	OK      bool           `json:"ok"`
	Code    target.Code    `json:"code,omitempty"`
	Message string         `json:"message,omitempty"`
	Did     string         `json:"did,omitempty"`
	Facts   map[string]any `json:"facts,omitempty"`
}

// viewerUser is the user a viewer takes over as.
func viewerUser(viewerID string) string {
	if len(viewerID) > 8 {
		viewerID = viewerID[:8]
	}
	return "viewer-" + viewerID
}

// apiControl is the page's Take over and Hand back. It runs the takeover
// and handback verbs themselves, as user "viewer-<id>": a takeover cancels
// the agents' input in flight, releases what is held, and pauses them; a
// handback owes their holder the note, told once.
func (v *View) apiControl(w http.ResponseWriter, r *http.Request, verb string) {
	id, err := target.ParseID(r.PathValue("target"))
	if err != nil {
		writeRefusal(w, err)
		return
	}
	vid := r.Header.Get(viewerHeader)
	hub := v.Hub()
	if hub == nil {
		writeRefusal(w, target.Refuse(target.CodeLiveViewUnavailable, "the live view is not running"))
		return
	}
	if key, ok := hub.ViewerKey(vid); vid == "" || !ok || key != string(id) {
		writeRefusal(w, target.Refuse(target.CodeBadRequest, "%s from the page needs the id of a viewer watching %s (watch it first)", verb, id).With("target", string(id)))
		return
	}
	user := viewerUser(vid)
	ctx, cancel := context.WithTimeout(r.Context(), v.o.VerbTimeout)
	defer cancel()
	v.takeMu.Lock()
	defer v.takeMu.Unlock()
	l := v.core.Lease(id)
	switch verb {
	case "takeover":
		if l.Input == lease.InputUser && l.User != user && v.driverLive(hub, id, l.User) {
			writeRefusal(w, userRefusal(id, l, "%s is driven by %s since %s; one user drives a target at a time: wait for their handback"))
			return
		}
		resp := v.core.Takeover(ctx, id, user)
		if resp.OK {
			v.mu.Lock()
			v.drivers[id] = vid
			v.mu.Unlock()
		}
		writeAnswer(w, resp)
	case "handback":
		v.mu.Lock()
		drv := v.drivers[id]
		v.mu.Unlock()
		if l.Input == lease.InputUser && (drv != vid || l.User != user) {
			writeRefusal(w, userRefusal(id, l, "%s was taken over by %s at %s, not by this viewer; only they hand it back"))
			return
		}
		resp := v.core.Handback(ctx, id, user)
		if resp.OK {
			v.mu.Lock()
			if v.drivers[id] == vid {
				delete(v.drivers, id)
			}
			v.mu.Unlock()
		}
		writeAnswer(w, resp)
	}
}

// StopRequest is the body of POST /api/stop: the strip's Stop of one of a
// session's idle browsers.
type StopRequest struct {
	Session string `json:"session"`
	Profile string `json:"profile"`
}

// apiStop stops an idle browser of a session's, as the page's person
// ("viewer-<id>" of the viewer header when the page sends one).
func (v *View) apiStop(w http.ResponseWriter, r *http.Request) {
	var req StopRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4<<10)).Decode(&req); err != nil || req.Session == "" || req.Profile == "" {
		writeRefusal(w, target.Refuse(target.CodeBadRequest, "stop takes {\"session\": …, \"profile\": …}"))
		return
	}
	user := "viewer"
	if vid := r.Header.Get(viewerHeader); vid != "" {
		user = viewerUser(vid)
	}
	ctx, cancel := context.WithTimeout(r.Context(), v.o.VerbTimeout)
	defer cancel()
	if err := stop(ctx, v.core, req.Session, req.Profile, user); err != nil {
		writeRefusal(w, err)
		return
	}
	writeJSON(w, http.StatusOK, controlAnswer{OK: true, Did: "stopped the browser of profile " + req.Profile})
}

// driverLive reports whether user, who drives id, is still there: a viewer
// still connected, or any user who took over by the takeover verb.
func (v *View) driverLive(hub *rtc.Hub, id target.ID, user string) bool {
	v.mu.Lock()
	vid := v.drivers[id]
	v.mu.Unlock()
	if vid == "" || viewerUser(vid) != user {
		return true // not a viewer of ours: a user at the command line
	}
	key, ok := hub.ViewerKey(vid)
	return ok && key == string(id)
}

// userRefusal refuses a viewer's takeover or handback of id while user
// l.User drives it; format takes the target, the user and since when.
func userRefusal(id target.ID, l lease.Lease, format string) error {
	since := l.UserSince.UTC().Format(time.RFC3339)
	return target.Refuse(id.Kind().Words().Paused, format, id, l.User, since).
		With("user", l.User).With("user_since", since).With("target", string(id))
}

func writeRefusal(w http.ResponseWriter, err error) {
	r, ok := target.AsRefusal(err)
	if !ok {
		r = target.Refuse(target.CodeInternal, "%v", err)
	}
	writeAnswer(w, daemon.Response{Code: r.Code, Message: r.Message, Facts: r.Facts})
}

func writeAnswer(w http.ResponseWriter, resp daemon.Response) {
	a := controlAnswer{OK: resp.OK, Code: resp.Code, Message: resp.Message, Did: resp.Did, Facts: resp.Facts}
	status := http.StatusOK
	if !resp.OK {
		status = http.StatusConflict
		switch resp.Code {
		case target.CodeBadRequest:
			status = http.StatusBadRequest
		case target.CodeUnknownTarget, target.CodeWindowGone, target.CodeTabGone:
			status = http.StatusNotFound
		}
	}
	writeJSON(w, status, a)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// ---- viewer input ----------------------------------------------------------

// input is the hub's InputHandler: it passes on input only from the viewer
// that took the target over from the page, while it still drives, through
// the daemon's gate; everything else is dropped and counted.
func (v *View) input(viewerID, key string, ev rtc.InputEvent) {
	id := target.ID(key)
	v.mu.Lock()
	drv := v.drivers[id]
	v.mu.Unlock()
	if drv != viewerID {
		v.dropped.Add(1)
		return
	}
	kev, err := v.event(id, ev)
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), inputTimeout)
		err = v.core.Input(ctx, id, viewerUser(viewerID), kev)
		cancel()
	}
	if err != nil {
		v.dropped.Add(1)
		v.o.Logger.Debug("live view: input not delivered", "target", id, "event", ev.String(), "err", err)
		return
	}
	v.accepted.Add(1)
}

// event turns a viewer's event into the kind's, with the size of the
// picture the viewer saw.
func (v *View) event(id target.ID, ev rtc.InputEvent) (kind.Input, error) {
	k := kind.Input{Type: kind.InputType(ev.Type), X: ev.X, Y: ev.Y, Button: ev.Button, Count: ev.Count, DX: ev.DX, DY: ev.DY, Text: ev.Text}
	if hub := v.Hub(); hub != nil {
		if st, ok := hub.Stats(string(id)); ok {
			k.PictureW, k.PictureH = st.Width, st.Height
		}
	}
	if ev.Type == rtc.InputKey {
		c, err := target.ParseChord(ev.Chord)
		if err != nil {
			return k, err
		}
		k.Chord = c
	}
	return k, nil
}
