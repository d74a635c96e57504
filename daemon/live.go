package daemon

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vibespace/vibespace/capture"
	"github.com/vibespace/vibespace/daemon/viewer"
	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/rtc"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/x11"
)

// liveView is the daemon's live view: an HTTP server on 127.0.0.1 serving
// the viewer page, the targets API, WHEP signalling and the page's takeover
// and handback, started on the first watch and stopped with the daemon.
type liveView struct {
	startMu sync.Mutex // held while starting or stopping
	takeMu  sync.Mutex // one page takeover or handback at a time

	mu      sync.Mutex // guards the fields below
	srv     *http.Server
	addr    string // host:port once serving
	hub     *rtc.Hub
	token   string
	stopped bool
	drivers map[target.ID]string                 // the viewer id driving each target from the page
	marks   map[target.ID]*agentMark             // where an agent last acted, per target
	bounds  map[target.ID]map[string]target.Rect // a target's refs' bounds (screen) from its last JSON snapshot
	pending map[string]pendingPress              // a button a viewer pressed, by viewer id (see pointerInjector)
	x       *x11.Display                         // our own connection for pixels, when the display's Capturer cannot read them
	seq     uint64

	accepted atomic.Uint64 // viewer input events acted on
	dropped  atomic.Uint64 // viewer input events from viewers not driving, or that failed
}

// agentMark is where an agent's verb last acted on a target, in the pixels
// of the target's own picture. It carries no text the agent typed.
type agentMark struct {
	Verb    string       `json:"verb"`
	Session string       `json:"session"`
	Point   *Point       `json:"point,omitempty"`
	Box     *target.Rect `json:"box,omitempty"`
	Ref     string       `json:"ref,omitempty"`
	At      time.Time    `json:"at"`
	Seq     uint64       `json:"seq"`
}

// pendingPress is a button down a viewer sent, waiting for its up.
type pendingPress struct {
	button int
	target target.ID
}

// pointerInjector is the part of an Injector that presses and releases
// buttons separately and moves the pointer; with it a viewer can drag and
// hover. Without it, a viewer's down and up become one click at the up.
type pointerInjector interface {
	Move(ctx context.Context, x, y int) error
	ButtonDown(ctx context.Context, x, y, button int) error
	ButtonUp(ctx context.Context, x, y, button int) error
}

// Bounds of the live view's work.
const (
	liveInputTimeout = 3 * time.Second // one viewer input event
	liveAPITimeout   = 5 * time.Second // one API request's backend calls
	viewerHeader     = "X-Vibespace-Viewer"
	viewersHeader    = "X-Vibespace-Viewers"
	maxViewersHeader = 4 << 10
)

// startLive starts the live view's server if it is not running and returns
// its address and token.
func (d *Daemon) startLive() (addr, token string, hub *rtc.Hub, err error) {
	lv := &d.live
	lv.startMu.Lock()
	defer lv.startMu.Unlock()
	lv.mu.Lock()
	if lv.stopped {
		lv.mu.Unlock()
		return "", "", nil, target.Refuse(codeInternal, "the daemon is shutting down")
	}
	if lv.srv != nil {
		defer lv.mu.Unlock()
		return lv.addr, lv.token, lv.hub, nil
	}
	lv.mu.Unlock()
	d.mu.Lock()
	closed := d.closed
	d.mu.Unlock()
	if closed {
		return "", "", nil, target.Refuse(codeInternal, "the daemon is shutting down")
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", "", nil, fmt.Errorf("daemon: live view token: %w", err)
	}
	token = base64.RawURLEncoding.EncodeToString(b[:])
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", d.cfg.LivePort))
	if err != nil {
		return "", "", nil, target.Refuse(target.CodeLiveViewUnavailable, "the live view cannot listen on 127.0.0.1:%d: %v", d.cfg.LivePort, err).Wrap(err)
	}
	hub = rtc.New(rtc.Options{Logger: d.cfg.Logger})
	hub.OnInput(d.liveInput)
	srv := &http.Server{Handler: d.liveHandler(hub, token), ReadHeaderTimeout: 5 * time.Second, IdleTimeout: time.Minute}
	lv.mu.Lock()
	lv.srv, lv.addr, lv.hub, lv.token = srv, ln.Addr().String(), hub, token
	addr = lv.addr
	lv.mu.Unlock()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			d.cfg.Logger.Warn("live view: server ended", "err", err)
		}
	}()
	d.cfg.Logger.Info("live view: serving", "addr", addr, "available", hub.Available() == nil)
	return addr, token, hub, nil
}

// closeLive stops the live view: the server, every viewer and pipeline,
// and our pixel connection. Later watches are refused.
func (d *Daemon) closeLive() {
	lv := &d.live
	lv.startMu.Lock()
	defer lv.startMu.Unlock()
	lv.mu.Lock()
	lv.stopped = true
	srv, hub, x := lv.srv, lv.hub, lv.x
	lv.srv, lv.hub, lv.x = nil, nil, nil
	lv.mu.Unlock()
	if srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_ = srv.Shutdown(ctx)
		cancel()
		_ = srv.Close()
	}
	if hub != nil {
		_ = hub.Close()
	}
	if x != nil {
		_ = x.Close()
	}
}

// liveHub is the running hub, or nil.
func (d *Daemon) liveHub() *rtc.Hub {
	d.live.mu.Lock()
	defer d.live.mu.Unlock()
	return d.live.hub
}

// watch answers the viewer page's address: the overview, or one target's
// pane (Request.Target). It starts the live view on first use.
func (d *Daemon) watch(ctx context.Context, req Request) Response {
	var e *entry
	if req.Target != "" {
		var err error
		if e, err = d.lookup(ctx, req); err != nil {
			return d.finish(req, nil, lease.Grant{}, "", Response{}, err)
		}
	}
	addr, token, hub, err := d.startLive()
	if err != nil {
		return d.finish(req, e, lease.Grant{}, "", Response{}, err)
	}
	if err := hub.Available(); err != nil {
		return d.finish(req, e, lease.Grant{}, "", Response{}, err)
	}
	u := "http://" + addr + "/#token=" + token
	did := "the live view of every target of this host"
	if req.Target != "" {
		u += "&target=" + url.QueryEscape(req.Target)
		did = "the live view of " + req.Target
	}
	return d.finish(req, e, lease.Grant{}, "", Response{URL: u, Did: did + " is at this address (it carries the viewer's own token; open it in a browser)"}, nil)
}

// liveState says in words what the live view is doing, for status and
// doctor. It never includes the token.
func (d *Daemon) liveState() (string, bool) {
	lv := &d.live
	lv.mu.Lock()
	addr, hub := lv.addr, lv.hub
	lv.mu.Unlock()
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
	return fmt.Sprintf("serving on %s; %d viewer(s) of %d target(s); %d input event(s) acted on, %d dropped",
		addr, hub.Viewers(), len(ps), lv.accepted.Load(), lv.dropped.Load()+hub.InputRejected()), true
}

// ---- HTTP ----------------------------------------------------------------

// liveHandler routes the live view's requests. Everything but the page's
// own assets needs the viewer token.
func (d *Daemon) liveHandler(hub *rtc.Hub, token string) http.Handler {
	mux := http.NewServeMux()
	page := viewer.Handler()
	mux.Handle("/", page)
	api := http.NewServeMux()
	api.HandleFunc("GET /api/targets", d.apiTargets)
	api.Handle("/api/whep/", hub.WHEP(d.liveResolve))
	api.HandleFunc("POST /api/takeover/{target}", func(w http.ResponseWriter, r *http.Request) { d.apiControl(w, r, "takeover") })
	api.HandleFunc("POST /api/handback/{target}", func(w http.ResponseWriter, r *http.Request) { d.apiControl(w, r, "handback") })
	mux.Handle("/api/", requireToken(token, api))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		viewer.SecurityHeaders(w.Header())
		mux.ServeHTTP(w, r)
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

// liveTarget is one target as the page sees it. It never carries text an
// agent typed or filled.
type liveTarget struct {
	ID        target.ID  `json:"id"`
	Title     string     `json:"title"`
	Kind      string     `json:"kind"`
	App       string     `json:"app,omitempty"`
	Holder    string     `json:"holder,omitempty"` // the agent session holding its lease
	Mode      string     `json:"mode"`             // agent | user
	Driver    string     `json:"driver"`           // who drives: the holder, the user who took over, or ""
	User      string     `json:"user,omitempty"`   // who took over, in user mode
	UserSince string     `json:"user_since,omitempty"`
	YouDrive  bool       `json:"you_drive"` // one of the asking page's viewers took it over
	Viewers   int        `json:"viewers"`
	Width     int        `json:"width,omitempty"`
	Height    int        `json:"height,omitempty"`
	Agent     *agentMark `json:"agent,omitempty"`
}

type liveTargets struct {
	Targets []liveTarget `json:"targets"`
	Viewers int          `json:"viewers"` // of every target
}

// apiTargets lists every target of this host, refreshed from the display.
func (d *Daemon) apiTargets(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), liveAPITimeout)
	defer cancel()
	mine := map[string]bool{}
	if h := r.Header.Get(viewersHeader); h != "" && len(h) <= maxViewersHeader {
		for _, v := range strings.Split(h, ",") {
			mine[strings.TrimSpace(v)] = true
		}
	}
	writeJSON(w, http.StatusOK, d.liveTargets(ctx, mine))
}

// liveTargets describes every target; mine are the asking page's viewers.
func (d *Daemon) liveTargets(ctx context.Context, mine map[string]bool) liveTargets {
	d.mu.Lock()
	disp := d.display
	es := make([]*entry, 0, len(d.targets))
	for _, e := range d.targets {
		es = append(es, e)
	}
	d.mu.Unlock()
	sort.Slice(es, func(i, j int) bool {
		a, b := es[i].t.ID, es[j].t.ID
		if a.Kind() != b.Kind() {
			return a.Kind() == target.KindWindow
		}
		if a.Number() != b.Number() {
			return a.Number() < b.Number()
		}
		return a < b
	})
	d.pruneLive(es)
	hub := d.liveHub()
	out := liveTargets{Targets: []liveTarget{}}
	if hub != nil {
		out.Viewers = hub.Viewers()
	}
	for _, e := range es {
		if err := d.refresh(ctx, disp, e); target.CodeOf(err) == target.CodeWindowGone || target.CodeOf(err) == target.CodeTabGone {
			continue
		}
		d.mu.Lock()
		t, win := e.t, e.win
		d.mu.Unlock()
		if t.ID.Kind() == target.KindTab {
			t.App = "" // a tab's "app" is its URL, which may carry secrets
		}
		l := d.leases.Get(t.ID)
		lt := liveTarget{
			ID: t.ID, Title: t.Title, Kind: string(t.ID.Kind()), App: t.App, Holder: l.Holder,
			Mode: string(l.Input), Driver: l.Holder, Width: win.Bounds.W, Height: win.Bounds.H,
		}
		if l.Input == lease.InputUser {
			lt.User, lt.Driver = l.User, l.User
			lt.UserSince = l.UserSince.UTC().Format(time.RFC3339)
		}
		if hub != nil {
			if st, ok := hub.Stats(string(t.ID)); ok {
				lt.Viewers = st.Viewers
			}
		}
		d.live.mu.Lock()
		if v := d.live.drivers[t.ID]; v != "" && mine[v] && l.Input == lease.InputUser && l.User == viewerUser(v) {
			lt.YouDrive = true
		}
		if m := d.live.marks[t.ID]; m != nil {
			c := *m
			lt.Agent = &c
		}
		d.live.mu.Unlock()
		out.Targets = append(out.Targets, lt)
	}
	return out
}

// pruneLive forgets what the live view kept of targets that are gone.
func (d *Daemon) pruneLive(es []*entry) {
	have := make(map[target.ID]bool, len(es))
	for _, e := range es {
		have[e.t.ID] = true
	}
	lv := &d.live
	lv.mu.Lock()
	defer lv.mu.Unlock()
	for id := range lv.marks {
		if !have[id] {
			delete(lv.marks, id)
		}
	}
	for id := range lv.bounds {
		if !have[id] {
			delete(lv.bounds, id)
		}
	}
	for id := range lv.drivers {
		if !have[id] {
			delete(lv.drivers, id)
		}
	}
}

// liveResolve maps a WHEP request (/api/whep/<target>) to the target's
// pipeline key and how to open its pixels.
func (d *Daemon) liveResolve(r *http.Request) (string, rtc.OpenFunc, error) {
	name := strings.TrimPrefix(r.URL.Path, "/api/whep/")
	name = strings.TrimSuffix(name, "/")
	id, err := target.ParseID(name)
	if err != nil {
		return "", nil, err
	}
	if id.Kind() == target.KindTab {
		return d.liveResolveTab(id)
	}
	e, err := d.find(Request{Target: string(id)})
	if err != nil {
		return "", nil, err
	}
	ctx, cancel := context.WithTimeout(r.Context(), liveAPITimeout)
	defer cancel()
	disp := d.currentDisplay()
	if err := d.refresh(ctx, disp, e); err != nil {
		return "", nil, err
	}
	d.mu.Lock()
	xid := e.t.XID
	d.mu.Unlock()
	open := func(ctx context.Context) (capture.Source, error) {
		rd, err := d.pixels(ctx, disp)
		if err != nil {
			return nil, err
		}
		return capture.NewWindow(rd, x11.WindowID(xid), capture.WindowOptions{FPS: d.cfg.LiveFPS}), nil
	}
	return string(id), open, nil
}

// pixels is how the live view reads windows of disp: the display's own
// Capturer when it reads raw pixels, else our own X connection to it (the
// display admits our user's processes).
func (d *Daemon) pixels(ctx context.Context, disp Display) (capture.WindowReader, error) {
	if disp == nil {
		return nil, target.Refuse(target.CodeWindowGone, "our display is not running")
	}
	if r, ok := disp.Capture().(capture.WindowReader); ok {
		return r, nil
	}
	lv := &d.live
	lv.mu.Lock()
	defer lv.mu.Unlock()
	if lv.stopped {
		return nil, target.Refuse(codeInternal, "the daemon is shutting down")
	}
	if lv.x != nil && lv.x.Name() == disp.Name() {
		return lv.x, nil
	}
	x, err := x11.Open(ctx, disp.Name())
	if err != nil {
		return nil, target.Refuse(target.CodeNoCapture, "the live view cannot read the pixels of display %s: %v", disp.Name(), err).Wrap(err)
	}
	if lv.x != nil {
		_ = lv.x.Close()
	}
	lv.x = x
	return x, nil
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
func (d *Daemon) apiControl(w http.ResponseWriter, r *http.Request, verb string) {
	id, err := target.ParseID(r.PathValue("target"))
	if err != nil {
		writeAnswer(w, refusal(err))
		return
	}
	vid := r.Header.Get(viewerHeader)
	hub := d.liveHub()
	if hub == nil {
		writeAnswer(w, refusal(target.Refuse(target.CodeLiveViewUnavailable, "the live view is not running")))
		return
	}
	if key, ok := hub.ViewerKey(vid); vid == "" || !ok || key != string(id) {
		writeAnswer(w, refusal(target.Refuse(target.CodeBadRequest, "%s from the page needs the id of a viewer watching %s (watch it first)", verb, id).With("target", string(id))))
		return
	}
	user := viewerUser(vid)
	ctx, cancel := context.WithTimeout(r.Context(), d.cfg.VerbTimeout)
	defer cancel()
	lv := &d.live
	lv.takeMu.Lock()
	defer lv.takeMu.Unlock()
	l := d.leases.Get(id)
	req := Request{Verb: verb, Session: user, Target: string(id), User: user}
	switch verb {
	case "takeover":
		if l.Input == lease.InputUser && l.User != user && d.driverLive(hub, id, l.User) {
			writeAnswer(w, userRefusal(id, l, "%s is driven by %s since %s; one user drives a target at a time: wait for their handback"))
			return
		}
		resp := d.takeover(ctx, req)
		if resp.OK {
			lv.mu.Lock()
			if lv.drivers == nil {
				lv.drivers = make(map[target.ID]string)
			}
			lv.drivers[id] = vid
			lv.mu.Unlock()
		}
		writeAnswer(w, resp)
	case "handback":
		lv.mu.Lock()
		drv := lv.drivers[id]
		lv.mu.Unlock()
		if l.Input == lease.InputUser && (drv != vid || l.User != user) {
			writeAnswer(w, userRefusal(id, l, "%s was taken over by %s at %s, not by this viewer; only they hand it back"))
			return
		}
		resp := d.handback(ctx, req)
		if resp.OK {
			d.liveReleasePending(vid)
			// A viewer that can press without releasing (a drag) may
			// leave a button held: release it before the agents act.
			if disp := d.currentDisplay(); disp != nil && id.Kind() == target.KindWindow {
				if _, presses := disp.Input().(pointerInjector); presses {
					if e, err := d.find(req); err == nil {
						d.releaseFor(ctx, disp, e)
					}
				}
			}
			lv.mu.Lock()
			if lv.drivers[id] == vid {
				delete(lv.drivers, id)
			}
			lv.mu.Unlock()
		}
		writeAnswer(w, resp)
	}
}

// pausedCode is the refusal of a target someone else drives.
func pausedCode(id target.ID) target.Code {
	if id.Kind() == target.KindTab {
		return target.CodeBrowserPaused
	}
	return target.CodeWindowPaused
}

// driverLive reports whether user, who drives id, is still there: a viewer
// still connected, or any user who took over by the takeover verb.
func (d *Daemon) driverLive(hub *rtc.Hub, id target.ID, user string) bool {
	d.live.mu.Lock()
	vid := d.live.drivers[id]
	d.live.mu.Unlock()
	if vid == "" || viewerUser(vid) != user {
		return true // not a viewer of ours: a user at the command line
	}
	key, ok := hub.ViewerKey(vid)
	return ok && key == string(id)
}

func writeAnswer(w http.ResponseWriter, resp Response) {
	a := controlAnswer{OK: resp.OK, Code: resp.Code, Message: resp.Message, Did: resp.Did, Facts: resp.Facts}
	status := http.StatusOK
	if !resp.OK {
		status = http.StatusConflict
		if resp.Code == target.CodeBadRequest {
			status = http.StatusBadRequest
		}
		if resp.Code == target.CodeUnknownTarget || resp.Code == target.CodeWindowGone || resp.Code == target.CodeTabGone {
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

// ---- the agent's marks -----------------------------------------------------

// markAgent records where an agent verb acted, for the page's agent cursor:
// the point of click --at and scroll, or the bounds of the node of @ref (as
// its last JSON snapshot gave them). It keeps no text.
func (d *Daemon) markAgent(req Request, e *entry, resp Response) {
	if e == nil || !resp.OK {
		return
	}
	id := e.t.ID
	if req.Verb == "snapshot" {
		bs := map[string]target.Rect{}
		if resp.Snapshot != nil && resp.Snapshot.Root != nil {
			resp.Snapshot.Root.Walk(func(n *target.Node, _ int) bool {
				if n.Ref != "" && n.Bounds != nil && !n.Bounds.Offscreen() {
					bs[n.Ref] = *n.Bounds
				}
				return true
			})
		} else {
			// The text form: "push button \"Alpha\" @e2 80x30+10+40 …".
			for _, m := range refBounds.FindAllStringSubmatch(resp.Text, -1) {
				var r target.Rect
				if _, err := fmt.Sscanf(m[2], "%dx%d%d%d", &r.W, &r.H, &r.X, &r.Y); err == nil {
					bs[m[1]] = r
				}
			}
		}
		d.live.mu.Lock()
		if d.live.bounds == nil {
			d.live.bounds = make(map[target.ID]map[string]target.Rect)
		}
		d.live.bounds[id] = bs
		d.live.mu.Unlock()
		return
	}
	switch req.Verb {
	case "click", "scroll", "type", "key":
	case "browser.click", "browser.scroll", "browser.fill", "browser.type", "browser.key":
		// A tab's --at is in CSS pixels of its viewport: the picture's own
		// pixels at a device pixel ratio of 1.
	default:
		return
	}
	win := d.window(e)
	m := &agentMark{Verb: req.Verb, Session: req.Session, Ref: req.Ref, At: d.cfg.Now().UTC()}
	switch {
	case req.At != nil:
		p := *req.At
		m.Point = &p
	case req.Verb == "scroll" && id.Kind() == target.KindWindow:
		m.Point = &Point{X: win.Bounds.W / 2, Y: win.Bounds.H / 2}
	}
	d.live.mu.Lock()
	defer d.live.mu.Unlock()
	if req.Ref != "" {
		if b, ok := d.live.bounds[id][req.Ref]; ok {
			box := target.Rect{X: b.X - win.Bounds.X, Y: b.Y - win.Bounds.Y, W: b.W, H: b.H}
			m.Box = &box
			m.Point = &Point{X: box.X + box.W/2, Y: box.Y + box.H/2}
		}
	}
	if d.live.marks == nil {
		d.live.marks = make(map[target.ID]*agentMark)
	}
	d.live.seq++
	m.Seq = d.live.seq
	d.live.marks[id] = m
}

// refBounds finds a ref and the bounds that follow it in a text snapshot.
var refBounds = regexp.MustCompile(`(?m) (@e\d+) (\d+x\d+[+-]\d+[+-]\d+)(?: |$)`)

// ---- viewer input ----------------------------------------------------------

// liveInput is the Hub's InputHandler: it acts on input only from the
// viewer that took the target over from the page, while it still drives;
// everything else is dropped and counted.
func (d *Daemon) liveInput(viewerID, key string, ev rtc.InputEvent) {
	id := target.ID(key)
	lv := &d.live
	lv.mu.Lock()
	drv := lv.drivers[id]
	lv.mu.Unlock()
	l := d.leases.Get(id)
	if drv != viewerID || l.Input != lease.InputUser || l.User != viewerUser(viewerID) {
		lv.dropped.Add(1)
		return
	}
	d.leases.UserActivity(id)
	ctx, cancel := context.WithTimeout(context.Background(), liveInputTimeout)
	defer cancel()
	var err error
	switch id.Kind() {
	case target.KindWindow:
		err = d.windowInput(ctx, viewerID, id, ev)
	case target.KindTab:
		err = d.tabInput(ctx, viewerID, id, ev)
	default:
		err = target.Refuse(target.CodeBadRequest, "%s is no kind of target the live view drives", id)
	}
	if err != nil {
		lv.dropped.Add(1)
		d.cfg.Logger.Debug("live view: input not delivered", "target", id, "event", ev.String(), "err", err)
		return
	}
	lv.accepted.Add(1)
}

// windowInput injects one viewer event into a window: the picture's point
// is the window's origin plus the point, the window is raised first for
// anything but a move (as click --at does), keys go through target chords.
func (d *Daemon) windowInput(ctx context.Context, viewerID string, id target.ID, ev rtc.InputEvent) error {
	e, err := d.find(Request{Target: string(id)})
	if err != nil {
		return err
	}
	disp := d.currentDisplay()
	if disp == nil || disp.Input() == nil {
		return target.Refuse(target.CodeNoInjectionBackend, "our display has no input injection")
	}
	inj := disp.Input()
	if ev.Type != rtc.InputMove {
		if err := d.refresh(ctx, disp, e); err != nil {
			return err
		}
	}
	win := d.window(e)
	px, py := int(ev.X), int(ev.Y)
	if px < 0 || py < 0 || px >= win.Bounds.W || py >= win.Bounds.H {
		switch ev.Type {
		case rtc.InputKey, rtc.InputText:
		default:
			return target.Refuse(target.CodeOutsideWindow, "%d,%d is outside %s", px, py, id)
		}
	}
	x, y := win.Bounds.X+px, win.Bounds.Y+py
	var chord target.Chord
	if ev.Type == rtc.InputKey {
		if chord, err = target.ParseChord(ev.Chord); err != nil {
			return err
		}
	}
	release, err := d.injecting(ctx, e)
	if err != nil {
		return err
	}
	defer release()
	raise := func() error {
		unstack, err := d.stacking(ctx)
		if err != nil {
			return err
		}
		defer unstack()
		return disp.Raise(ctx, win)
	}
	pi, canPress := inj.(pointerInjector)
	if ev.Type != rtc.InputMove && ev.Type != rtc.InputUp {
		if err := raise(); err != nil {
			return err
		}
	}
	switch ev.Type {
	case rtc.InputMove:
		if canPress {
			return pi.Move(ctx, x, y)
		}
		return nil
	case rtc.InputDown:
		if canPress {
			return pi.ButtonDown(ctx, x, y, ev.Button)
		}
		d.livePress(viewerID, ev.Button, id)
		return nil
	case rtc.InputUp:
		if canPress {
			return pi.ButtonUp(ctx, x, y, ev.Button)
		}
		if !d.liveRelease(viewerID, ev.Button, id) {
			return nil
		}
		return inj.Click(ctx, x, y, ev.Button, 1)
	case rtc.InputClick:
		return inj.Click(ctx, x, y, ev.Button, ev.Count)
	case rtc.InputWheel:
		if ev.DY != 0 {
			dir := "down"
			if ev.DY < 0 {
				dir = "up"
			}
			if err := inj.Scroll(ctx, x, y, dir, steps(ev.DY)); err != nil {
				return err
			}
		}
		if ev.DX != 0 {
			dir := "right"
			if ev.DX < 0 {
				dir = "left"
			}
			return inj.Scroll(ctx, x, y, dir, steps(ev.DX))
		}
		return nil
	case rtc.InputKey:
		return inj.Key(ctx, chord)
	case rtc.InputText:
		return inj.Type(ctx, ev.Text)
	}
	return target.Refuse(target.CodeBadRequest, "unknown input event %q", ev.Type)
}

// steps turns a wheel delta into 1..10 scroll steps.
func steps(f float64) int {
	if f < 0 {
		f = -f
	}
	return min(max(int(f+0.5), 1), 10)
}

// userRefusal refuses a viewer's takeover or handback of id while user
// l.User drives it; format takes the target, the user and since when.
func userRefusal(id target.ID, l lease.Lease, format string) Response {
	since := l.UserSince.UTC().Format(time.RFC3339)
	return refusal(target.Refuse(pausedCode(id), format, id, l.User, since).
		With("user", l.User).With("user_since", since).With("target", string(id)))
}

// livePress notes a button down a viewer sent on target id that was not
// injected (see pointerInjector): its up becomes the click.
func (d *Daemon) livePress(viewerID string, button int, id target.ID) {
	d.live.mu.Lock()
	defer d.live.mu.Unlock()
	if d.live.pending == nil {
		d.live.pending = make(map[string]pendingPress)
	}
	d.live.pending[viewerID] = pendingPress{button: button, target: id}
}

// liveRelease forgets the viewer's noted press and reports whether it was
// button on target id, so that this up completes it.
func (d *Daemon) liveRelease(viewerID string, button int, id target.ID) bool {
	d.live.mu.Lock()
	defer d.live.mu.Unlock()
	p, ok := d.live.pending[viewerID]
	delete(d.live.pending, viewerID)
	return ok && p.button == button && p.target == id
}

// liveReleasePending forgets a button a viewer pressed and never released
// (the press was not injected: see pointerInjector).
func (d *Daemon) liveReleasePending(viewerID string) {
	d.live.mu.Lock()
	delete(d.live.pending, viewerID)
	d.live.mu.Unlock()
}
