package conformance_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/chromium"
	"github.com/vibespace/vibespace/daemon/daemontest"
	"github.com/vibespace/vibespace/daemon/firefox"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/native"
	"github.com/vibespace/vibespace/daemon/yourdesktop"
	"github.com/vibespace/vibespace/provider"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// event is one thing the application itself says it received, the same
// shape for every kind: the fixture's log line, the page's report.
type event struct {
	Type   string `json:"type"`   // click, text, key, scroll, removed, ready
	Widget string `json:"widget"` // alpha, entry, doomed, …
	// Text is a field's whole value after a change, a key's name, a
	// scroll's direction.
	Text string `json:"text"`
}

// oracle is the application's own record of what it received.
type oracle interface {
	// events is everything received so far, in order.
	events() []event
}

// subject is one target of one kind, driven as its own command line drives
// it, with the application's own oracle.
type subject struct {
	name    string
	kind    target.Kind
	sv      *daemontest.Served
	session string
	id      target.ID
	app     oracle
	// ask fills a request as the kind's command line sends it: a window's
	// handle (vibespace-window), or "browser.<word>" on the current tab.
	ask func(daemon.Request) daemon.Request
	// wrongKind is the other command line's word naming this target's
	// handle; wrongCLI the command line its refusal must name.
	wrongKind daemon.Request
	wrongCLI  string
	// alphaAt is the centre of the Alpha button in the target's own
	// pixels (what --at takes).
	alphaAt func(t *testing.T) daemon.Point
	// alive says whether the application still runs and answers.
	alive func(t *testing.T) bool
	// vanish makes the target go away as it would by itself: the
	// application is killed, the tab is closed.
	vanish func(t *testing.T)
	// afterGone is the refusal of the kind's next verb once the target
	// went (its handle names nothing; the browser has no current tab).
	afterGone target.Code
	// outside is the refusal of a point outside the target's picture.
	outside target.Code
	// stranger, when set, is this subject's own answer to another
	// session's verb on its target, where its kind answers differently by
	// design (the default: not_exposed or not_your_tab, learning nothing).
	stranger *expectation
}

// expectation is a subject's own answer to one row of the table, where the
// kind answers it differently by design: the code it is refused with
// instead, and why. The row checks it as strictly as the default and says
// so in its output: never a silent skip.
type expectation struct {
	code target.Code
	why  string
}

func (s *subject) call(t *testing.T, r daemon.Request) daemon.Response {
	t.Helper()
	r.Session = s.session
	return s.sv.Call(t, s.ask(r))
}

func (s *subject) ok(t *testing.T, r daemon.Request) daemon.Response {
	t.Helper()
	resp := s.call(t, r)
	if !resp.OK {
		t.Fatalf("%s: %s [%s] %v", r.Verb, resp.Message, resp.Code, resp.Facts)
	}
	return resp
}

func (s *subject) refused(t *testing.T, r daemon.Request, code target.Code) daemon.Response {
	t.Helper()
	resp := s.call(t, r)
	if resp.OK || resp.Code != code {
		t.Fatalf("%s: ok=%v %s [%s] %v, want %s", r.Verb, resp.OK, resp.Message, resp.Code, resp.Facts, code)
	}
	return resp
}

// mark is where the application's record is now.
func (s *subject) mark() int { return len(s.app.events()) }

// wait waits until the application records an event matching from index
// from on, and returns it.
func (s *subject) wait(t *testing.T, from int, what string, match func(event) bool) event {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	for {
		evs := s.app.events()
		for _, e := range evs[min(from, len(evs)):] {
			if match(e) {
				return e
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: the application never reported %s (it reported %+v)", s.name, what, evs[min(from, len(evs)):])
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// none checks that the application recorded nothing of type from from on,
// after giving it a moment.
func (s *subject) none(t *testing.T, from int, types ...string) {
	t.Helper()
	time.Sleep(300 * time.Millisecond)
	evs := s.app.events()
	for _, e := range evs[min(from, len(evs)):] {
		if slices.Contains(types, e.Type) {
			t.Fatalf("%s: the application received %+v", s.name, e)
		}
	}
}

// typeInFlight starts typing longText as keys into the focused node and
// returns once some keys are in, so the verb is in flight: where the
// application's record was before, and where the verb's answer comes.
func (s *subject) typeInFlight(t *testing.T) (int, <-chan daemon.Response) {
	t.Helper()
	from := s.mark()
	done := make(chan daemon.Response, 1)
	go func() {
		done <- s.sv.Call(t, s.ask(daemon.Request{Verb: "type", Session: s.session}.With(args.Type{Text: longText})))
	}()
	s.wait(t, from, "the first typed key", func(e event) bool { return e.Type == "key" && e.Text == "o" })
	return from, done
}

// keys counts the key events the application received from index from on.
func (s *subject) keys(from int) int {
	n := 0
	evs := s.app.events()
	for _, e := range evs[min(from, len(evs)):] {
		if e.Type == "key" {
			n++
		}
	}
	return n
}

// ref finds the ref of the first node of one of roles named name in the
// target's JSON snapshot.
func (s *subject) ref(t *testing.T, name string, roles ...string) string {
	t.Helper()
	snap := s.ok(t, daemon.Request{Verb: "snapshot", JSON: true}).Snapshot
	n := snap.Root.Find(func(n *target.Node) bool { return n.Name == name && slices.Contains(roles, n.Role) && n.Ref != "" })
	if n == nil {
		t.Fatalf("%s: no %v %q with a ref in:\n%s", s.name, roles, name, snap.Text())
	}
	return n.Ref
}

// ---- the daemon ------------------------------------------------------------

// suite is one daemon with every kind registered, as the daemon command
// registers them: Chromium's tabs, and Firefox's beside them.
type suite struct {
	sv   *daemontest.Served
	pool *chromium.Pool
	ff   *firefox.Pool
}

func newSuite(t *testing.T) *suite {
	t.Helper()
	testenv.NeedIntegration(t, "chromium", "xpra", "firefox-esr")
	dir := t.TempDir()
	pool := chromium.New(chromium.Options{StartTimeout: 60 * time.Second})
	ff := firefox.NewPool(firefox.Options{StartTimeout: 2 * time.Minute})
	br := firefox.Beside(pool, ff)
	t.Cleanup(func() { br.Close() })
	sv := daemontest.Start(t, daemon.Config{
		StateDir: dir, SocketPath: filepath.Join(dir, "run", "d.sock"),
		Displays: []kind.DisplayProvider{native.Xvfb(native.Options{Logf: t.Logf}), native.Xpra(native.Options{Logf: t.Logf})},
		Browser:  br, Desktop: yourdesktop.New(native.Desktop(native.Options{Logf: t.Logf})),
		// A Firefox with a fresh profile takes 20-30 s to start on a
		// loaded machine, inside the first open of its profile.
		VerbTimeout: 2 * time.Minute, IdleHandback: -1,
	})
	return &suite{sv: sv, pool: pool, ff: ff}
}

// ---- a window on our Xvfb --------------------------------------------------

type fixtureOracle struct{ log *testenv.FixtureLog }

func (o fixtureOracle) events() []event {
	evs, _ := o.log.Events()
	out := make([]event, 0, len(evs))
	for _, e := range evs {
		ev := event{Type: e.Type, Widget: e.Widget, Text: e.Text}
		switch e.Type {
		case "key":
			ev.Text = e.Keysym
		case "scroll":
			ev.Text = e.Direction
		}
		out = append(out, ev)
	}
	return out
}

// windowSubject opens the GTK fixture on our Xvfb as session.
func (st *suite) windowSubject(t *testing.T, session string) *subject {
	t.Helper()
	return st.windowOn(t, session, "")
}

// xpraSubject opens the GTK fixture on the session's own Xpra display.
func (st *suite) xpraSubject(t *testing.T, session string) *subject {
	t.Helper()
	return st.windowOn(t, session, native.XpraName)
}

// windowOn opens the GTK fixture on display ("" the default) as session.
func (st *suite) windowOn(t *testing.T, session, display string) *subject {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("..", "..", "testenv", "fixture", "fixture.py"))
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), "fixture.jsonl")
	resp := st.sv.OK(t, daemon.Request{Verb: "open", Session: session}.With(args.Open{Display: display, App: testenv.FixturePython, Args: []string{script, "--log", logPath}}))
	flog := testenv.OpenFixtureLog(logPath)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if _, err := flog.WaitFrom(ctx, 0, func(e testenv.Event) bool { return e.Type == "ready" }); err != nil {
		t.Fatal(err)
	}
	id, pid := resp.Target.ID, resp.Target.PID
	// The window maps before its application is on the accessibility bus
	// (a loaded machine, a display of its own starting its bus), and open
	// stops waiting for the tree after a grace: the rows start once the
	// window's snapshot answers (no_tree until then).
	for {
		r := st.sv.Call(t, daemon.Request{Verb: "snapshot", Session: session, Target: string(id)})
		if r.OK {
			break
		}
		if r.Code != target.CodeNoTree {
			t.Fatalf("snapshot: refused %s: %s", r.Code, r.Message)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the fixture never reached the accessibility bus: %s %s", r.Code, r.Message)
		case <-time.After(100 * time.Millisecond):
		}
	}
	s := &subject{
		name: "window", kind: target.KindWindow, sv: st.sv, session: session, id: id, app: fixtureOracle{flog},
		ask:       func(r daemon.Request) daemon.Request { r.Target = string(id); return r },
		wrongKind: daemon.Request{Verb: "browser.tab", Target: string(id)}.With(args.Tab{Action: "select"}),
		wrongCLI:  "vibespace-window",
		alive: func(t *testing.T) bool {
			return syscall.Kill(pid, 0) == nil && st.sv.Call(t, daemon.Request{Verb: "list", Session: session}).OK
		},
		vanish:    func(t *testing.T) { syscall.Kill(pid, syscall.SIGKILL) },
		afterGone: target.CodeUnknownTarget,
		outside:   target.CodeOutsideWindow,
	}
	s.alphaAt = func(t *testing.T) daemon.Point { return alphaInShot(t, s) }
	return s
}

// alphaInShot is the centre of the fixture's Alpha button in its window's
// own screenshot: the node's bounds less the window's.
func alphaInShot(t *testing.T, s *subject) daemon.Point {
	t.Helper()
	snap := s.ok(t, daemon.Request{Verb: "snapshot", JSON: true}).Snapshot
	n := snap.Root.Find(func(n *target.Node) bool { return n.Role == "push button" && n.Name == "Alpha" })
	shot := s.ok(t, daemon.Request{Verb: "screenshot"})
	if n == nil || n.Bounds == nil || shot.Bounds == nil {
		t.Fatalf("no bounds of Alpha or of the window")
	}
	return daemon.Point{X: n.Bounds.X - shot.Bounds.X + n.Bounds.W/2, Y: n.Bounds.Y - shot.Bounds.Y + n.Bounds.H/2}
}

// ---- a tab of the shared browser --------------------------------------------

// page serves the suite's page and keeps what it reports, in its own order.
type page struct {
	*httptest.Server
	mu      sync.Mutex
	reports map[int]event // by the page's own sequence number
	alpha   daemon.Point  // Alpha's centre, as the page measured it
}

func (p *page) events() []event {
	p.mu.Lock()
	defer p.mu.Unlock()
	seqs := make([]int, 0, len(p.reports))
	for s := range p.reports {
		seqs = append(seqs, s)
	}
	sort.Ints(seqs)
	out := make([]event, 0, len(seqs))
	for _, s := range seqs {
		out = append(out, p.reports[s])
	}
	return out
}

const pageHTML = `<!doctype html>
<html><head><title>Conformance page</title>
<style>body{margin:8px;font:16px sans-serif} #area{width:240px;height:60px;background:#ddd}</style></head>
<body>
<h1>Conformance page</h1>
<button id="alpha">Alpha</button>
<button id="doomed">Remove me</button>
<p><input id="entry" aria-label="Name" type="text"></p>
<div id="area">Press area</div>
<div style="height:3000px"></div>
<script>
let seq = 0;
function report(e) { e.seq = ++seq; fetch('/report', {method: 'POST', body: JSON.stringify(e), keepalive: true}); }
document.getElementById('alpha').onclick = () => report({type: 'click', widget: 'alpha'});
document.getElementById('doomed').onclick = (ev) => { report({type: 'click', widget: 'doomed'}); ev.target.remove(); report({type: 'removed', widget: 'doomed'}); };
const entry = document.getElementById('entry');
entry.oninput = () => report({type: 'text', widget: 'entry', text: entry.value});
document.addEventListener('keydown', (e) => report({type: 'key', widget: document.activeElement && document.activeElement.id || '', text: e.key}));
let lastY = 0, pending = false;
window.addEventListener('scroll', () => {
  if (pending) return;
  pending = true;
  requestAnimationFrame(() => {
    pending = false;
    const y = window.scrollY;
    if (y !== lastY) { report({type: 'scroll', widget: 'window', text: y > lastY ? 'down' : 'up'}); lastY = y; }
  });
});
const r = document.getElementById('alpha').getBoundingClientRect();
report({type: 'ready', widget: 'page', text: Math.round(r.left + r.width / 2) + ',' + Math.round(r.top + r.height / 2)});
</script>
</body></html>`

func newPage(t *testing.T) *page {
	t.Helper()
	p := &page{reports: map[int]event{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, pageHTML)
	})
	mux.HandleFunc("/framed", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, framedHTML)
	})
	mux.HandleFunc("POST /report", func(w http.ResponseWriter, r *http.Request) {
		var e struct {
			event
			Seq int `json:"seq"`
		}
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&e); err == nil {
			p.mu.Lock()
			p.reports[e.Seq] = e.event
			if e.Type == "ready" {
				fmt.Sscanf(e.Text, "%d,%d", &p.alpha.X, &p.alpha.Y)
			}
			p.mu.Unlock()
		}
		w.WriteHeader(http.StatusNoContent)
	})
	p.Server = httptest.NewServer(mux)
	t.Cleanup(p.Close)
	return p
}

// framedHTML holds the suite's page in an <iframe> covering its whole
// viewport, at its corner: the page's content is only in the frame, and
// a point of the frame is the same point of the tab.
const framedHTML = `<!doctype html>
<html><head><title>Conformance page</title></head>
<body style="margin:0"><iframe src="/page" title="The page" style="position:fixed;left:0;top:0;width:100vw;height:100vh;border:0"></iframe></body></html>`

// tabSubject opens the suite's page in session's own browser context.
func (st *suite) tabSubject(t *testing.T, session string) *subject {
	return st.tabSubjectAt(t, session, "/page")
}

// tabSubjectAt opens the suite's page at path (its own, or the one that
// holds it in a frame) in session's own browser context.
func (st *suite) tabSubjectAt(t *testing.T, session, path string) *subject {
	t.Helper()
	pg := newPage(t)
	resp := st.sv.OK(t, daemon.Request{Verb: "browser.open", Session: session}.With(args.OpenURL{URL: pg.URL + path}))
	id := resp.Target.ID
	s := &subject{
		name: "tab", kind: target.KindTab, sv: st.sv, session: session, id: id, app: pg,
		ask:       func(r daemon.Request) daemon.Request { r.Verb = "browser." + r.Verb; return r },
		wrongKind: daemon.Request{Verb: "snapshot", Target: string(id)},
		wrongCLI:  "vibespace-browser",
		alive: func(t *testing.T) bool {
			r := st.sv.Call(t, daemon.Request{Verb: "browser.get", Session: session}.With(args.Get{What: "title"}))
			return r.OK && r.Text == "Conformance page"
		},
		vanish: func(t *testing.T) {
			// The tab is closed from outside while the verb runs (as a
			// person closing it would): the agent's verb holds the
			// target, a close does not wait for it.
			st.sv.OK(t, daemon.Request{Verb: "browser.tab", Session: session, Target: string(id)}.With(args.Tab{Action: "close"}))
		},
		afterGone: target.CodeNoTab,
		outside:   target.CodeOutsidePage,
	}
	s.wait(t, 0, "the page loading", func(e event) bool { return e.Type == "ready" })
	s.alphaAt = func(t *testing.T) daemon.Point {
		pg.mu.Lock()
		defer pg.mu.Unlock()
		return pg.alpha
	}
	return s
}

// firefoxSubject opens the suite's page in a Firefox tab: session's own
// user context in the Firefox of a profile of provider firefox, driven by
// the same words as a Chromium tab.
func (st *suite) firefoxSubject(t *testing.T, session string) *subject {
	return st.firefoxAt(t, session, "/page", "firefox")
}

// firefoxFramedSubject is firefoxSubject with the suite's page only inside
// an <iframe> of the page the tab opens: every row reads and acts through
// the frame.
func (st *suite) firefoxFramedSubject(t *testing.T, session string) *subject {
	return st.firefoxAt(t, session, "/framed", "firefox-framed")
}

func (st *suite) firefoxAt(t *testing.T, session, path, name string) *subject {
	t.Helper()
	id := st.sv.OK(t, daemon.Request{Verb: "browser.new", Session: session}.With(args.New{Label: "ff-" + session, Provider: provider.Firefox})).Profile.ID
	st.sv.OK(t, daemon.Request{Verb: "browser.use", Session: session}.With(args.Use{Label: id}))
	// Started outside the first open's call (a fresh Firefox takes 20-30 s
	// on a loaded machine, more with the race detector).
	if err := st.ff.Start(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	s := st.tabSubjectAt(t, session, path)
	s.name = name
	return s
}
