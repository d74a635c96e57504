package live_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/cdp/cdptest"
	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/chromium"
	"github.com/vibespace/vibespace/daemon/daemontest"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/live"
	"github.com/vibespace/vibespace/daemon/native"
	"github.com/vibespace/vibespace/rtc"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// liveHarness is a daemon on the real backend (our own Xvfb, the GTK
// fixture) with its live view, served on a socket, for the live view's
// tests.
type liveHarness struct {
	*daemontest.Served
	view *live.View
}

func startLiveDaemon(t *testing.T, tune func(*daemon.Config)) *liveHarness {
	t.Helper()
	testenv.NeedIntegration(t, "chromium")
	if !rtc.VP8Available() {
		t.Fatal("this build has no VP8 encoder (cgo + libvpx): the live view cannot run")
	}
	dir := t.TempDir()
	sock := filepath.Join(dir, "run", "w.sock")
	h := &liveHarness{}
	cfg := daemon.Config{StateDir: dir, SocketPath: sock,
		Displays:    []kind.DisplayProvider{native.Xvfb(native.Options{Logf: t.Logf})},
		VerbTimeout: 30 * time.Second,
		Live: func(d daemon.LiveHands) daemon.LiveView {
			h.view = live.New(d, live.Options{Logger: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug}))})
			return h.view
		},
	}
	if tune != nil {
		tune(&cfg)
	}
	h.Served = daemontest.Start(t, cfg)
	return h
}

func (h *liveHarness) call(t *testing.T, req daemon.Request) daemon.Response { return h.Call(t, req) }
func (h *liveHarness) ok(t *testing.T, req daemon.Request) daemon.Response   { return h.OK(t, req) }

// openFixture opens the GTK fixture as session and waits for it.
func (h *liveHarness) openFixture(t *testing.T, ctx context.Context, session string) (target.ID, *testenv.FixtureLog) {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("..", "..", "testenv", "fixture", "fixture.py"))
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), "fixture.jsonl")
	resp := h.ok(t, daemon.Request{Verb: "open", Session: session}.With(args.Open{App: testenv.FixturePython, Args: []string{script, "--log", logPath}}))
	log := testenv.OpenFixtureLog(logPath)
	if _, err := log.WaitFrom(ctx, 0, func(e testenv.Event) bool { return e.Type == "ready" }); err != nil {
		t.Fatal(err)
	}
	return resp.Target.ID, log
}

// node finds a node of the target's JSON snapshot.
func (h *liveHarness) node(t *testing.T, session string, id target.ID, match func(*target.Node) bool) *target.Node {
	t.Helper()
	snap := h.ok(t, daemon.Request{Verb: "snapshot", Session: session, Target: string(id), JSON: true})
	n := snap.Snapshot.Root.Find(match)
	if n == nil || n.Bounds == nil {
		t.Fatalf("no such node (or no bounds) in:\n%s", snap.Snapshot.Text())
	}
	return n
}

// openPage opens u in a new browser context of b (a separate page, so a
// separate viewer).
func openPage(t *testing.T, ctx context.Context, b *cdp.Browser, u string) *cdp.Tab {
	t.Helper()
	_, tab := openPageIn(t, ctx, b, u)
	return tab
}

// openPageIn is openPage, also answering the page's browser context.
func openPageIn(t *testing.T, ctx context.Context, b *cdp.Browser, u string) (*cdp.Context, *cdp.Tab) {
	t.Helper()
	c, err := b.NewContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := c.NewTab(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	return c, tab
}

// paneState is what the page says of its pane of a target.
type paneState struct {
	State    string  `json:"state"`
	Frames   int     `json:"frames"`
	Decoded  int     `json:"decoded"`
	W        int     `json:"w"`
	H        int     `json:"h"`
	Viewer   string  `json:"viewer"`
	Driving  bool    `json:"driving"`
	Badge    string  `json:"badge"`
	Viewers  string  `json:"viewers"`
	Error    string  `json:"error"`
	Answer   string  `json:"answer"`
	Cursor   bool    `json:"cursor"`
	CursorX  float64 `json:"cx"`
	CursorY  float64 `json:"cy"`
	AgentAct string  `json:"act"`
	Title    string  `json:"title"`
}

func pane(t *testing.T, ctx context.Context, tab *cdp.Tab, id target.ID) paneState {
	t.Helper()
	var st paneState
	expr := fmt.Sprintf(`(() => {
		const p = window.vibespace && window.vibespace.panes.get(%q);
		if (!p) return {state: 'none'};
		const q = window.vibespace.panes.get(%q).q;
		const v = p.video;
		const pq = v.getVideoPlaybackQuality ? v.getVideoPlaybackQuality().totalVideoFrames : 0;
		const c = q('.cursor');
		return {state: p.state, frames: p.frames, decoded: pq, w: v.videoWidth, h: v.videoHeight,
			viewer: p.viewerId, driving: p.driving, badge: q('.badge').textContent,
			viewers: q('.viewers').textContent, error: q('.error').textContent,
			answer: p.lastAnswer ? (p.lastAnswer.code || 'ok') : '',
			cursor: !c.hidden, cx: parseFloat(c.style.left) || 0, cy: parseFloat(c.style.top) || 0,
			act: q('.agent-act').textContent, title: q('.title').textContent};
	})()`, string(id), string(id))
	if err := tab.EvalInto(ctx, expr, &st); err != nil {
		t.Fatalf("reading the page: %v", err)
	}
	return st
}

// waitPane waits until the page's pane of id satisfies ok.
func waitPane(t *testing.T, ctx context.Context, tab *cdp.Tab, id target.ID, what string, ok func(paneState) bool) paneState {
	t.Helper()
	for {
		st := pane(t, ctx, tab, id)
		if ok(st) {
			return st
		}
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for the pane of %s to be %s: last %+v", id, what, st)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// waitFor polls cond until it holds or ctx ends.
func waitFor(t *testing.T, ctx context.Context, what string, cond func() (bool, string)) {
	t.Helper()
	for {
		ok, last := cond()
		if ok {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %s", what, last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// clickSelector clicks the centre of the page's element sel with a real
// (CDP Input) mouse click, as a person would.
func clickSelector(t *testing.T, ctx context.Context, tab *cdp.Tab, sel string) {
	t.Helper()
	var r struct {
		X, Y float64
		Hit  bool
	}
	// Where the element is, and whether a click there reaches it: the
	// page lays its bar out again when what it shows changes (a viewer
	// left, a badge changed), so a point read while it moves is read again.
	expr := fmt.Sprintf(`(() => { const e = document.querySelector(%q); if (!e || e.hidden) return null;
		let r = e.getBoundingClientRect();
		if (r.bottom < 0 || r.top > innerHeight || r.right < 0 || r.left > innerWidth) e.scrollIntoView({block: 'center'}); // as a person scrolls to it
		r = e.getBoundingClientRect();
		const x = r.left + r.width/2, y = r.top + r.height/2;
		const at = document.elementFromPoint(x, y);
		return {X: x, Y: y, Hit: !!at && (at === e || e.contains(at))}; })()`, sel)
	for {
		if err := tab.EvalInto(ctx, expr, &r); err != nil || r.X == 0 {
			t.Fatalf("no visible %s in the page (%v)", sel, err)
		}
		if r.Hit {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s is covered at its centre (%v, %v)", sel, r.X, r.Y)
		case <-time.After(50 * time.Millisecond):
		}
	}
	if err := tab.ClickAt(ctx, cdp.Point{X: r.X, Y: r.Y}); err != nil {
		t.Fatal(err)
	}
}

// pagePoint is where, in the page, the picture's pixel (px, py) is shown.
func pagePoint(t *testing.T, ctx context.Context, tab *cdp.Tab, id target.ID, px, py int) cdp.Point {
	t.Helper()
	var p cdp.Point
	expr := fmt.Sprintf(`(() => { const g = window.vibespace.panes.get(%q).geometry();
		return {X: g.r.left + g.ox + (%d + 0.5) * g.s, Y: g.r.top + g.oy + (%d + 0.5) * g.s}; })()`, string(id), px, py)
	if err := tab.EvalInto(ctx, expr, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// viewportPoints maps a point (x, y) of tab id's viewport to where the
// viewer page v's pane of it shows it: the picture is the viewport,
// scaled. It reads the viewport as the agent, so call it before a takeover.
func viewportPoints(t *testing.T, ctx context.Context, h *liveHarness, v *cdp.Tab, id target.ID) func(x, y float64) cdp.Point {
	t.Helper()
	var viewport struct{ W, H float64 }
	ev := h.ok(t, daemon.Request{Verb: "browser.eval", Session: "agent", Target: string(id)}.With(args.Eval{Expr: "({W: innerWidth, H: innerHeight})"}))
	if err := json.Unmarshal(ev.Value, &viewport); err != nil || viewport.W == 0 {
		t.Fatalf("the viewport: %s %v", ev.Value, err)
	}
	var geo struct{ VW, VH float64 }
	if err := v.EvalInto(ctx, fmt.Sprintf(`(() => { const v = window.vibespace.panes.get(%q).video;
		return {VW: v.videoWidth, VH: v.videoHeight}; })()`, string(id)), &geo); err != nil {
		t.Fatal(err)
	}
	return func(x, y float64) cdp.Point {
		return pagePoint(t, ctx, v, id, int(x*geo.VW/viewport.W), int(y*geo.VH/viewport.H))
	}
}

// panePipelines are the hub's pipelines of panes (the full tier): a page
// also watches every target's thumbnail, at the thumb tier.
func panePipelines(hub *rtc.Hub) []rtc.PipelineStats {
	var out []rtc.PipelineStats
	for _, p := range hub.Pipelines() {
		if p.Tier == rtc.TierFull {
			out = append(out, p)
		}
	}
	return out
}

// paneViewers counts the viewers of panes (not of thumbnails).
func paneViewers(hub *rtc.Hub) int {
	n := 0
	for _, p := range panePipelines(hub) {
		n += p.Viewers
	}
	return n
}

// get fetches path of the live view with auth as the Authorization header.
func get(t *testing.T, method, u, auth, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/sdp")
	}
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestLiveViewWindow: the printed address opens in a real browser, the page
// decodes frames of the GTK fixture, a second viewer shares the pipeline,
// Take over from the page pauses the agent and lets the page's click land
// in the app, a second viewer cannot take over, Hand back tells the agent
// once, nothing the agent typed reaches the page, and a viewer that
// vanishes frees the pipeline.
func TestLiveViewWindow(t *testing.T) {
	h := startLiveDaemon(t, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	id, flog := h.openFixture(t, ctx, "agent")

	// The agent types a marker; nothing the page can fetch may carry it.
	var mb [6]byte
	_, _ = rand.Read(mb[:])
	marker := "SECRET" + hex.EncodeToString(mb[:])
	entry := h.node(t, "agent", id, func(n *target.Node) bool { return n.Role == "text" && n.Name == "Name" })
	h.ok(t, daemon.Request{Verb: "type", Session: "agent", Target: string(id)}.With(args.Type{Ref: entry.Ref, Text: marker}))
	if _, err := flog.WaitFrom(ctx, 0, func(e testenv.Event) bool { return e.Type == "text" && e.Text == marker }); err != nil {
		t.Fatalf("the agent's text never reached the app: %v", err)
	}
	// The agent clicks at a point: the page draws its cursor there.
	alpha := h.node(t, "agent", id, func(n *target.Node) bool { return n.Role == "push button" && n.Name == "Alpha" })
	shot := h.ok(t, daemon.Request{Verb: "screenshot", Session: "agent", Target: string(id)})
	ax, ay := alpha.Bounds.X+alpha.Bounds.W/2-shot.Bounds.X, alpha.Bounds.Y+alpha.Bounds.H/2-shot.Bounds.Y
	from := flog.Len()
	h.ok(t, daemon.Request{Verb: "click", Session: "agent", Target: string(id)}.With(args.Click{At: fmt.Sprintf("%d,%d", ax, ay)}))
	if _, err := flog.WaitFrom(ctx, from, func(e testenv.Event) bool { return e.Type == "click" && e.Widget == "alpha" }); err != nil {
		t.Fatalf("the agent's click: %v", err)
	}

	// status says the live view is not started; watch starts it.
	if st := h.ok(t, daemon.Request{Verb: "status", Session: "agent"}).Status; !strings.Contains(st.Live, "not started") {
		t.Fatalf("status before watch: %q", st.Live)
	}
	w := h.ok(t, daemon.Request{Verb: "watch", Session: "agent", Target: string(id)})
	u, err := url.Parse(w.URL)
	if err != nil || u.Scheme != "http" || !strings.HasPrefix(u.Host, "127.0.0.1:") {
		t.Fatalf("watch answered %q", w.URL)
	}
	frag, _ := url.ParseQuery(u.Fragment)
	token := frag.Get("token")
	if len(token) < 32 || frag.Get("target") != string(id) {
		t.Fatalf("watch's fragment %q", u.Fragment)
	}
	if w2 := h.ok(t, daemon.Request{Verb: "watch", Session: "agent"}); !strings.HasPrefix(w2.URL, "http://"+u.Host+"/#token="+token) {
		t.Fatalf("a second watch answered another server: %q", w2.URL)
	}
	// The video's ICE-TCP road: its port is a fact of watch's answer, and
	// status names it.
	icePort := fmt.Sprint(w.Facts["ice_tcp_port"])
	if n, err := strconv.Atoi(icePort); err != nil || n <= 0 || n > 65535 || "127.0.0.1:"+icePort == u.Host {
		t.Fatalf("watch's ice_tcp_port fact is %q (the page is on %s): %+v", icePort, u.Host, w.Facts)
	}
	st := h.ok(t, daemon.Request{Verb: "status", Session: "agent"}).Status
	if !strings.Contains(st.Live, "serving on "+u.Host) || !strings.Contains(st.Live, "ICE-TCP on 127.0.0.1:"+icePort) || strings.Contains(st.Live, token) {
		t.Fatalf("status after watch: %q", st.Live)
	}
	base := "http://" + u.Host

	// The token guards everything but the page itself.
	if code, body := get(t, "GET", base+"/", "", ""); code != 200 || !strings.Contains(body, "app.js") {
		t.Fatalf("the page without a token: %d", code)
	}
	for _, c := range []struct{ method, path, body string }{
		{"GET", "/api/targets", ""},
		{"POST", "/api/whep/" + string(id), "v=0\r\n"},
		{"POST", "/api/takeover/" + string(id), ""},
		{"POST", "/api/handback/" + string(id), ""},
	} {
		if code, _ := get(t, c.method, base+c.path, "", c.body); code != http.StatusUnauthorized {
			t.Errorf("%s %s without a token: %d, want 401", c.method, c.path, code)
		}
		if code, _ := get(t, c.method, base+c.path, "Bearer "+strings.Repeat("x", len(token)), c.body); code != http.StatusForbidden {
			t.Errorf("%s %s with a wrong token: %d, want 403", c.method, c.path, code)
		}
	}
	code, body := get(t, "GET", base+"/api/targets", "Bearer "+token, "")
	if code != 200 || !strings.Contains(body, string(id)) {
		t.Fatalf("targets: %d %s", code, body)
	}

	// Two viewers: the page opened at the printed address, and a second
	// page of the overview that opens the same pane.
	b := cdptest.LaunchViewer(t, ctx)
	v1 := openPage(t, ctx, b, w.URL)
	live := func(s paneState) bool {
		return s.State == "live" && s.W > 0 && s.H > 0 && s.Frames >= 1 && s.Decoded >= 1
	}
	s1 := waitPane(t, ctx, v1, id, "live with frames", live)
	if s1.W != shot.Bounds.W || s1.H != shot.Bounds.H {
		t.Errorf("the video is %dx%d, the window %dx%d", s1.W, s1.H, shot.Bounds.W, shot.Bounds.H)
	}
	// The answer the page got offers the ICE-TCP candidate beside UDP.
	var sdp string
	if err := v1.EvalInto(ctx, fmt.Sprintf("window.vibespace.panes.get(%q).pc.remoteDescription.sdp", string(id)), &sdp); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sdp, " tcp ") || !strings.Contains(sdp, " 127.0.0.1 "+icePort+" typ host tcptype passive") || !strings.Contains(sdp, " udp ") {
		t.Fatalf("the page's answer offers no passive TCP candidate on 127.0.0.1:%s beside UDP:\n%s", icePort, sdp)
	}
	v2 := openPage(t, ctx, b, base+"/#token="+token)
	if _, err := v2.Eval(ctx, fmt.Sprintf("window.vibespace.open(%q) && true", string(id))); err != nil {
		t.Fatal(err)
	}
	waitPane(t, ctx, v2, id, "live with frames", live)
	hub := h.view.Hub()
	ps := panePipelines(hub)
	if len(ps) != 1 || ps[0].Viewers != 2 || ps[0].Key != string(id) {
		t.Fatalf("pipelines %+v, want one of %s with two viewers", ps, id)
	}
	s1 = waitPane(t, ctx, v1, id, "showing the agent and two viewers", func(s paneState) bool {
		return strings.HasPrefix(s.Badge, "Agent is driving") && s.Viewers == "2 viewers" && s.Cursor && strings.Contains(s.AgentAct, "click")
	})
	// The agent cursor is drawn where the agent clicked.
	want := pagePoint(t, ctx, v1, id, ax, ay)
	var stage cdp.Point
	if err := v1.EvalInto(ctx, fmt.Sprintf(`(() => { const r = window.vibespace.panes.get(%q).stage.getBoundingClientRect(); return {X: r.left, Y: r.top}; })()`, string(id)), &stage); err != nil {
		t.Fatal(err)
	}
	if dx, dy := stage.X+s1.CursorX-want.X, stage.Y+s1.CursorY-want.Y; dx*dx+dy*dy > 9 {
		t.Errorf("the agent cursor is at %.1f,%.1f of the page, the agent clicked at %.1f,%.1f", stage.X+s1.CursorX, stage.Y+s1.CursorY, want.X, want.Y)
	}

	// The agent clicks a node by ref after a text snapshot: the page is
	// told the node's box, in the picture's pixels.
	beta := h.node(t, "agent", id, func(n *target.Node) bool { return n.Role == "push button" && n.Name == "Beta" })
	h.ok(t, daemon.Request{Verb: "snapshot", Session: "agent", Target: string(id)})
	h.ok(t, daemon.Request{Verb: "click", Session: "agent", Target: string(id)}.With(args.Click{Ref: beta.Ref}))
	var seen struct {
		Targets []struct {
			ID    target.ID
			Agent struct {
				Verb, Ref string
				Box       *target.Rect
			}
		}
	}
	_, body = get(t, "GET", base+"/api/targets", "Bearer "+token, "")
	if err := json.Unmarshal([]byte(body), &seen); err != nil || len(seen.Targets) != 1 {
		t.Fatalf("targets %s: %v", body, err)
	}
	wantBox := target.Rect{X: beta.Bounds.X - shot.Bounds.X, Y: beta.Bounds.Y - shot.Bounds.Y, W: beta.Bounds.W, H: beta.Bounds.H}
	if a := seen.Targets[0].Agent; a.Ref != beta.Ref || a.Box == nil || *a.Box != wantBox {
		t.Fatalf("the agent's last act %+v, want %s at %+v", a, beta.Ref, wantBox)
	}
	waitPane(t, ctx, v1, id, "showing the agent's ref click", func(s paneState) bool { return strings.Contains(s.AgentAct, beta.Ref) })

	// Take over with the page's own button.
	clickSelector(t, ctx, v1, ".pane .takeover")
	waitPane(t, ctx, v1, id, "driven by us", func(s paneState) bool { return s.Driving && s.Badge == "You are driving" })
	resp := h.call(t, daemon.Request{Verb: "click", Session: "agent", Target: string(id)}.With(args.Click{At: fmt.Sprintf("%d,%d", ax, ay)}))
	if resp.OK || resp.Code != target.CodeWindowPaused {
		t.Fatalf("the agent's click while the user drives: %+v", resp)
	}
	// The second viewer may not take over, nor drive.
	if _, err := v2.Eval(ctx, fmt.Sprintf("window.vibespace.panes.get(%q).takeover()", string(id))); err != nil {
		t.Fatal(err)
	}
	if s := pane(t, ctx, v2, id); s.Answer != string(target.CodeWindowPaused) || s.Driving {
		t.Fatalf("a second viewer's takeover: %+v", s)
	}
	// Nor hand it back: only the viewer that took over does.
	if _, err := v2.Eval(ctx, fmt.Sprintf("window.vibespace.panes.get(%q).handback()", string(id))); err != nil {
		t.Fatal(err)
	}
	if s := pane(t, ctx, v2, id); s.Answer != string(target.CodeWindowPaused) {
		t.Fatalf("a second viewer's handback: %+v", s)
	}
	waitPane(t, ctx, v1, id, "still driven by us", func(s paneState) bool { return s.Driving })
	_, dropped0 := h.view.Counts()
	if _, err := v2.Eval(ctx, fmt.Sprintf(`window.vibespace.panes.get(%q).input.send(JSON.stringify({t: 'click', x: %d, y: %d, button: 1})) || true`, string(id), ax, ay)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the second viewer's click to be dropped", func() (bool, string) {
		_, d := h.view.Counts()
		return d > dropped0, fmt.Sprintf("dropped %d", d)
	})

	// A real click on the video, at the Alpha button, lands in the app.
	from = flog.Len()
	p := pagePoint(t, ctx, v1, id, ax, ay)
	if err := v1.ClickAt(ctx, p); err != nil {
		t.Fatal(err)
	}
	if _, err := flog.WaitFrom(ctx, from, func(e testenv.Event) bool { return e.Type == "click" && e.Widget == "alpha" }); err != nil {
		t.Fatalf("the page's click did not land in the app: %v", err)
	}
	if acc, _ := h.view.Counts(); acc == 0 {
		t.Fatal("no viewer input was counted as acted on")
	}

	// Nothing the agent typed is in any answer the page reads, nor in the page.
	for _, path := range []string{"/api/targets", "/", "/app.js", "/style.css"} {
		if _, body := get(t, "GET", base+path, "Bearer "+token, ""); strings.Contains(body, marker) {
			t.Fatalf("%s carries what the agent typed", path)
		}
	}
	var html string
	if err := v1.EvalInto(ctx, "document.documentElement.outerHTML + JSON.stringify(window.vibespace.targets())", &html); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(html, marker) {
		t.Fatal("the page shows what the agent typed")
	}

	// Hand back with the page's button: the agent is told once.
	clickSelector(t, ctx, v1, ".pane .handback")
	waitPane(t, ctx, v1, id, "back with the agent", func(s paneState) bool { return !s.Driving && strings.HasPrefix(s.Badge, "Agent is driving") })
	resp = h.ok(t, daemon.Request{Verb: "snapshot", Session: "agent", Target: string(id)})
	if resp.Note == "" || !strings.Contains(resp.Note, "viewer-") {
		t.Fatalf("the agent was not told of the handback: %+v", resp.Note)
	}
	if again := h.ok(t, daemon.Request{Verb: "snapshot", Session: "agent", Target: string(id)}); again.Note != "" {
		t.Fatalf("the agent was told twice: %q", again.Note)
	}
	// Input after the handback is dropped.
	acc0, dropped0 := h.view.Counts()
	if _, err := v1.Eval(ctx, fmt.Sprintf(`window.vibespace.panes.get(%q).input.send(JSON.stringify({t: 'click', x: %d, y: %d, button: 1})) || true`, string(id), ax, ay)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "input after the handback to be dropped", func() (bool, string) {
		a, d := h.view.Counts()
		return d > dropped0 && a == acc0, fmt.Sprintf("acted %d, dropped %d", a, d)
	})

	// The viewer browser vanishes: every viewer and the pipeline go.
	b.Close()
	waitFor(t, ctx, "the pipeline to stop", func() (bool, string) {
		ps := hub.Pipelines()
		return len(ps) == 0 && hub.Viewers() == 0, fmt.Sprintf("%d pipelines, %d viewers", len(ps), hub.Viewers())
	})
	if d := h.ok(t, daemon.Request{Verb: "doctor", Session: "agent"}); !hasCheck(d.Checks, "live view") {
		t.Fatalf("doctor does not report the live view: %+v", d.Checks)
	}
}

func hasCheck(cs []daemon.Check, name string) bool {
	for _, c := range cs {
		if c.Name == name && c.OK {
			return true
		}
	}
	return false
}

// TestLiveViewDriverLeaves: a viewer that took over and then vanished does
// not block another viewer's takeover; a driver that vanishes hands back
// by itself after the idle time, and the agent is told once.
func TestLiveViewDriverLeaves(t *testing.T) {
	h := startLiveDaemon(t, func(c *daemon.Config) { c.IdleHandback = 4 * time.Second })
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	id, _ := h.openFixture(t, ctx, "agent")
	w := h.ok(t, daemon.Request{Verb: "watch", Session: "agent", Target: string(id)})
	b := cdptest.LaunchViewer(t, ctx)
	live := func(s paneState) bool { return s.State == "live" && s.Frames >= 1 }
	c1, v1 := openPageIn(t, ctx, b, w.URL)
	waitPane(t, ctx, v1, id, "live", live)
	c2, v2 := openPageIn(t, ctx, b, w.URL)
	waitPane(t, ctx, v2, id, "live", live)

	clickSelector(t, ctx, v1, ".pane .takeover")
	waitPane(t, ctx, v1, id, "driven by us", func(s paneState) bool { return s.Driving })
	hub := h.view.Hub()
	// The first viewer goes away while it drives: the target stays the
	// user's (the agent is still paused) until a handback or the idle time.
	if err := c1.Close(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the first viewer to leave", func() (bool, string) {
		return paneViewers(hub) == 1, fmt.Sprintf("%d viewers of panes", paneViewers(hub))
	})
	// The second viewer's page says so before it is clicked, as a person
	// sees it (its bar is laid out again when the count changes).
	waitPane(t, ctx, v2, id, "watched by one viewer", func(s paneState) bool { return s.Viewers == "1 viewer" })
	clickSelector(t, ctx, v2, ".pane .takeover")
	s := waitPane(t, ctx, v2, id, "driven by the second viewer", func(s paneState) bool { return s.Answer != "" })
	if s.Answer != "ok" {
		t.Fatalf("the second viewer's takeover after the first left: %+v", s)
	}
	resp := h.call(t, daemon.Request{Verb: "key", Session: "agent", Target: string(id)}.With(args.Key{Chord: "Tab"}))
	if resp.OK || resp.Code != target.CodeWindowPaused {
		t.Fatalf("the agent while a viewer drives: %+v", resp)
	}
	// The driver vanishes too: after the idle time control comes back.
	if err := c2.Close(ctx); err != nil {
		t.Fatal(err)
	}
	var note string
	waitFor(t, ctx, "the idle handback", func() (bool, string) {
		r := h.call(t, daemon.Request{Verb: "key", Session: "agent", Target: string(id)}.With(args.Key{Chord: "Tab"}))
		if r.Note != "" {
			note = r.Note
		}
		return r.OK, fmt.Sprintf("%s %s", r.Code, r.Message)
	})
	if !strings.Contains(note, "idle") || !strings.Contains(note, "viewer-") {
		t.Fatalf("the agent's note: %q", note)
	}
	if r := h.ok(t, daemon.Request{Verb: "key", Session: "agent", Target: string(id)}.With(args.Key{Chord: "Tab"})); r.Note != "" {
		t.Fatalf("told twice: %q", r.Note)
	}

	// A watched target that goes away: the page says so, the pipeline stops.
	_, v3 := openPageIn(t, ctx, b, w.URL)
	s3 := waitPane(t, ctx, v3, id, "live", live)
	// The stream is cut under the page: it says so and reconnects on request.
	base := strings.SplitN(w.URL, "#", 2)[0]
	if code, body := get(t, "DELETE", base+"api/whep/"+string(id)+"/"+s3.Viewer, "Bearer "+tokenOf(t, w.URL), ""); code != http.StatusOK {
		t.Fatalf("DELETE of the viewer: %d %s", code, body)
	}
	waitPane(t, ctx, v3, id, "lost", func(s paneState) bool { return s.State == "lost" })
	var lost string
	if err := v3.EvalInto(ctx, `document.querySelector('.pane .msg').textContent`, &lost); err != nil || !strings.HasPrefix(lost, "Stream lost") {
		t.Fatalf("the pane says %q (%v)", lost, err)
	}
	clickSelector(t, ctx, v3, ".pane .reconnect")
	waitPane(t, ctx, v3, id, "live again", func(s paneState) bool { return s.State == "live" && s.Frames >= 1 && s.Viewer != s3.Viewer })
	h.ok(t, daemon.Request{Verb: "close", Session: "agent", Target: string(id)})
	waitPane(t, ctx, v3, id, "gone", func(s paneState) bool { return s.State == "gone" })
	var msg string
	if err := v3.EvalInto(ctx, `document.querySelector('.pane .msg').textContent`, &msg); err != nil || msg != "Target gone" {
		t.Fatalf("the pane says %q (%v)", msg, err)
	}
	waitFor(t, ctx, "the pipeline to stop", func() (bool, string) {
		return len(hub.Pipelines()) == 0, fmt.Sprintf("%+v", hub.Pipelines())
	})
}

// TestLiveViewTab: a tab of the daemon's browser is watched like a window:
// the page decodes the tab's screencast, Take over pauses the agent
// (browser_paused), a click from the page lands in the tab (its page
// reports to our server), nothing the agent filled reaches the page, and
// Hand back tells the agent once.
func TestLiveViewTab(t *testing.T) {
	pool := chromium.New(chromium.Options{StartTimeout: 60 * time.Second})
	h := startLiveDaemon(t, func(c *daemon.Config) { c.Browser = pool })
	t.Cleanup(func() { pool.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()

	var (
		mu   sync.Mutex
		hits []string
	)
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<!doctype html><title>Live tab</title>
<body style="margin:0;background:#246">
<input id="secret" aria-label="Secret" style="position:absolute;left:20px;top:20px">
<button id="b" style="position:absolute;left:100px;top:120px;width:160px;height:80px"
 onclick="fetch('/report?v=clicked')">Press</button></body>`)
	})
	mux.HandleFunc("/report", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits = append(hits, r.URL.Query().Get("v"))
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})
	site := httptest.NewServer(mux)
	defer site.Close()
	clicked := func() int {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, h := range hits {
			if h == "clicked" {
				n++
			}
		}
		return n
	}

	open := h.ok(t, daemon.Request{Verb: "browser.open", Session: "agent"}.With(args.OpenURL{URL: site.URL + "/page"}))
	id := open.Target.ID
	if id.Kind() != target.KindTab {
		t.Fatalf("browser.open answered target %s", id)
	}
	var mb [6]byte
	_, _ = rand.Read(mb[:])
	marker := "SECRET" + hex.EncodeToString(mb[:])
	snap := h.ok(t, daemon.Request{Verb: "browser.snapshot", Session: "agent", Target: string(id)})
	ref := ""
	for _, line := range strings.Split(snap.Text, "\n") {
		if strings.Contains(line, `"Secret"`) {
			for _, f := range strings.Fields(line) {
				if strings.HasPrefix(f, "@e") {
					ref = f
				}
			}
		}
	}
	if ref == "" {
		t.Fatalf("no Secret field in:\n%s", snap.Text)
	}
	h.ok(t, daemon.Request{Verb: "browser.fill", Session: "agent", Target: string(id)}.With(args.Fill{Ref: ref, Text: marker}))

	w := h.ok(t, daemon.Request{Verb: "watch", Session: "agent", Target: string(id)})
	b := cdptest.LaunchViewer(t, ctx)
	v := openPage(t, ctx, b, w.URL)
	waitPane(t, ctx, v, id, "live with frames", func(s paneState) bool {
		return s.State == "live" && s.W > 0 && s.H > 0 && s.Frames >= 2 && s.Decoded >= 2
	})
	if ps := panePipelines(h.view.Hub()); len(ps) != 1 || ps[0].Key != string(id) {
		t.Fatalf("pipelines %+v", ps)
	}
	at := viewportPoints(t, ctx, h, v, id)

	clickSelector(t, ctx, v, ".pane .takeover")
	waitPane(t, ctx, v, id, "driven by us", func(s paneState) bool { return s.Driving && s.Badge == "You are driving" })
	resp := h.call(t, daemon.Request{Verb: "browser.click", Session: "agent", Target: string(id)}.With(args.Click{At: "180,160"}))
	if resp.OK || resp.Code != target.CodeBrowserPaused {
		t.Fatalf("the agent's click while the user drives: %+v", resp)
	}
	if clicked() != 0 {
		t.Fatal("a refused click reached the page")
	}

	// The button's centre (180,160 of the viewport) as a point of the
	// picture: the picture is the viewport, scaled.
	if err := v.ClickAt(ctx, at(180, 160)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the page's click to land in the tab", func() (bool, string) {
		return clicked() == 1, fmt.Sprintf("%d clicks", clicked())
	})

	for _, path := range []string{"/api/targets", "/", "/app.js"} {
		if _, body := get(t, "GET", strings.TrimSuffix(strings.SplitN(w.URL, "#", 2)[0], "/")+path, "Bearer "+tokenOf(t, w.URL), ""); strings.Contains(body, marker) {
			t.Fatalf("%s carries what the agent filled", path)
		}
	}

	clickSelector(t, ctx, v, ".pane .handback")
	waitPane(t, ctx, v, id, "back with the agent", func(s paneState) bool { return !s.Driving && strings.HasPrefix(s.Badge, "Agent is driving") })
	r := h.ok(t, daemon.Request{Verb: "browser.get", Session: "agent", Target: string(id)}.With(args.Get{What: "title"}))
	if !strings.Contains(r.Note, "viewer-") {
		t.Fatalf("the agent was not told of the handback: %q", r.Note)
	}
	if r := h.ok(t, daemon.Request{Verb: "browser.get", Session: "agent", Target: string(id)}.With(args.Get{What: "title"})); r.Note != "" {
		t.Fatalf("told twice: %q", r.Note)
	}
}

func tokenOf(t *testing.T, u string) string {
	t.Helper()
	pu, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := url.ParseQuery(pu.Fragment)
	return q.Get("token")
}
