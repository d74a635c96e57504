package reach_test

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cmd/vibespace-daemon/stages"
	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/chromium"
	"github.com/vibespace/vibespace/daemon/daemontest"
	"github.com/vibespace/vibespace/daemon/handoff"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/native"
	"github.com/vibespace/vibespace/daemon/pool"
	"github.com/vibespace/vibespace/daemon/reach"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// The pages of the ladder's test, each its own kind of page.
var pages = map[string]string{
	"/static": `<!doctype html><title>Opening hours</title><h1>Opening hours</h1>
<p>The library opens at nine and closes at five, every day but Sunday.</p>`,
	"/script": `<!doctype html><title>Orders</title><div id=app></div><script src="/app.js"></script>`,
	"/app.js": `document.getElementById('app').innerHTML = '<h1>Orders</h1><p>Order 4711 shipped on Monday to Ada Lovelace.</p>';`,
	"/canvas": `<!doctype html><title>Sales</title><h1>Sales</h1><canvas id=c width=300 height=150></canvas>
<script>const g = document.getElementById('c').getContext('2d'); g.fillStyle = '#ff0000'; g.fillRect(0, 0, 300, 150);</script>`,
	"/upload": `<!doctype html><title>Upload</title><h1>Send us your file</h1>
<p>Pick the file to send: your browser shows its own file dialog.</p>
<input type=file id=f style="display:none"><button id=up onclick="document.getElementById('f').click()">Upload</button>`,
	"/still": `<!doctype html><title>Still</title><h1>Still</h1><p>Nothing on this page changes when you press its button.</p>
<script>window.clicks = 0</script><button onclick="window.clicks++">Nothing</button>`,
	"/human": `<!doctype html><title>Human check</title><h1>Human check</h1>
<p>Please verify you are human before you go on: tick the box below.</p>
<label><input type=checkbox id=robot> I am not a robot</label>`,
}

// site serves pages on 127.0.0.1 and logs each request: its path and its
// User-Agent (a plain fetch's, a headless or a headed browser's).
type site struct {
	*httptest.Server
	mu  sync.Mutex
	log []string
}

func newSite(t *testing.T) *site {
	s := &site{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.log = append(s.log, r.URL.Path+" "+r.UserAgent())
		s.mu.Unlock()
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		ctype := "text/html; charset=utf-8"
		if strings.HasSuffix(r.URL.Path, ".js") {
			ctype = "text/javascript"
		}
		w.Header().Set("Content-Type", ctype)
		fmt.Fprint(w, body)
	}))
	t.Cleanup(s.Close)
	return s
}

// requests are the logged requests of path, and clears the log.
func (s *site) requests(path string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, l := range s.log {
		if strings.HasPrefix(l, path+" ") {
			out = append(out, strings.TrimPrefix(l, path+" "))
		}
	}
	s.log = nil
	return out
}

func signals(a *wire.ReachAnswer) string {
	var out []string
	for _, s := range a.Signals {
		out = append(out, fmt.Sprintf("%d:%s", s.Rung, s.Signal))
	}
	return strings.Join(out, " ")
}

// TestLadder: the ladder on local pages of the test's own, in a served
// daemon with a real headless Chromium and a pool of one Xvfb desktop. A
// static page stays on rung 1 (the server saw no browser); a
// script-rendered page climbs to 2 on script_only (the page's own DOM
// holds what its script wrote); a canvas page to 3 (the picture's pixels
// are the canvas's red); a page whose flow opens a native file dialog to 4
// (the dialog is a window of the desktop's X server, as xwininfo lists
// it); a human check to 5, the hand-off, which a person stand-in at the
// live view takes over and hands back.
func TestLadder(t *testing.T) {
	testenv.NeedIntegration(t, "chromium", "xwininfo")
	site := newSite(t)
	no := native.Options{Logf: t.Logf}
	p := pool.New(pool.Config{Desks: 1, Kind: native.ProviderName, Inner: native.Xvfb(no), Logf: t.Logf,
		MemFree: func() (int64, error) { return 1 << 40, nil }})
	br := chromium.New(chromium.Options{Binary: "chromium"})
	t.Cleanup(func() { br.Close() })
	desk := handoff.New() // the hand-offs the live view shows a person
	dir := t.TempDir()
	sv := daemontest.Start(t, daemon.Config{StateDir: dir, SocketPath: filepath.Join(dir, "run", "r.sock"),
		Displays: append([]kind.DisplayProvider{native.Xvfb(no)}, p.Desks()...), Browser: br,
		Stages: stages.Of(p, desk), VerbTimeout: 3 * time.Minute})
	reachOf := func(session, path, goal string) wire.Response {
		t.Helper()
		r := sv.Call(t, daemon.Request{Verb: "browser.reach", Session: session}.With(args.Reach{URL: site.URL + path, Goal: goal}))
		if !r.OK || r.Reach == nil {
			t.Fatalf("reach %s: %+v", path, r)
		}
		t.Logf("reach %s:\n%s\n%s", path, r.Did, r.Text)
		return r
	}
	var table []string
	row := func(path string, r wire.Response) {
		table = append(table, fmt.Sprintf("| %s | %d (%s, %s) | %s |", path, r.Reach.Rung, r.Reach.RungName, r.Reach.Outcome, signals(r.Reach)))
	}
	defer func() {
		t.Logf("the ladder's table:\n| page | rung reached | signals (rung:signal) |\n|---|---|---|\n%s", strings.Join(table, "\n"))
	}()

	t.Run("static", func(t *testing.T) {
		r := reachOf("st", "/static", "")
		row("/static", r)
		if r.Reach.Rung != 1 || len(r.Reach.Signals) != 0 || !strings.Contains(r.Text, "opens at nine") {
			t.Fatalf("a static page: rung %d, signals %q, text %q", r.Reach.Rung, signals(r.Reach), r.Text)
		}
		// The server's own log: one plain fetch, no browser.
		got := site.requests("/static")
		if len(got) != 1 || got[0] != reach.UserAgent {
			t.Fatalf("the server saw /static fetched by %q, want once by the plain fetch", got)
		}
	})

	t.Run("script", func(t *testing.T) {
		r := reachOf("sc", "/script", "")
		row("/script", r)
		if r.Reach.Rung != 2 || signals(r.Reach) != "1:script_only" || !strings.Contains(r.Text, "Order 4711") {
			t.Fatalf("a script-rendered page: rung %d, signals %q, text %q", r.Reach.Rung, signals(r.Reach), r.Text)
		}
		// The page's own DOM holds what its script wrote, in the tab the
		// ladder left current; the server saw a browser load the script.
		ev := sv.OK(t, daemon.Request{Verb: "browser.eval", Session: "sc"}.With(args.Eval{Expr: "document.body.innerText"}))
		if !strings.Contains(string(ev.Value), "Order 4711 shipped") {
			t.Fatalf("the page's DOM: %s", ev.Value)
		}
		if js := site.requests("/app.js"); len(js) != 1 || !strings.Contains(js[0], "Chrome") {
			t.Fatalf("the server saw /app.js fetched by %q, want once by a browser", js)
		}
	})

	t.Run("canvas", func(t *testing.T) {
		r := reachOf("cv", "/canvas", "")
		row("/canvas", r)
		if r.Reach.Rung != 3 || !strings.Contains(signals(r.Reach), "2:canvas") || len(r.PNG) == 0 {
			t.Fatalf("a canvas page: rung %d, signals %q, %d bytes of picture", r.Reach.Rung, signals(r.Reach), len(r.PNG))
		}
		// The picture shows what the canvas drew: red where the page's own
		// layout places the canvas.
		img, err := png.Decode(bytes.NewReader(r.PNG))
		if err != nil {
			t.Fatal(err)
		}
		ev := sv.OK(t, daemon.Request{Verb: "browser.eval", Session: "cv"}.With(args.Eval{Expr: "(() => { const b = document.getElementById('c').getBoundingClientRect(); return [Math.round(b.x + b.width / 2), Math.round(b.y + b.height / 2)]; })()"}))
		var x, y int
		if _, err := fmt.Sscanf(string(ev.Value), "[%d,%d]", &x, &y); err != nil {
			t.Fatalf("the canvas's middle: %s: %v", ev.Value, err)
		}
		if cr, cg, cb, _ := img.At(x, y).RGBA(); cr>>8 < 200 || cg>>8 > 60 || cb>>8 > 60 {
			t.Fatalf("the picture at the canvas's middle (%d,%d) is %d,%d,%d, not the canvas's red", x, y, cr>>8, cg>>8, cb>>8)
		}
	})

	t.Run("upload", func(t *testing.T) {
		r := reachOf("up", "/upload", "click Upload")
		row("/upload (--goal \"click Upload\")", r)
		if r.Reach.Rung != 4 || r.Reach.GoalMet == nil || !*r.Reach.GoalMet ||
			signals(r.Reach) != "2:no_visible_change_repeated 3:no_visible_change_repeated" {
			t.Fatalf("a page opening a file dialog: rung %d, signals %q, goal %v %q", r.Reach.Rung, signals(r.Reach), r.Reach.GoalMet, r.Reach.GoalWhy)
		}
		// The desktop's X server lists the file dialog among its windows.
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		display := deskDisplay(t, p, r.Reach.Desk)
		for {
			cmd := exec.CommandContext(ctx, "xwininfo", "-root", "-tree")
			cmd.Env = append(os.Environ(), "DISPLAY="+display)
			out, err := cmd.Output()
			if err == nil && strings.Contains(string(out), "\"Open File\"") {
				break
			}
			if ctx.Err() != nil {
				t.Fatalf("no file dialog on %s (%s): %v\n%s", r.Reach.Desk, display, err, out)
			}
			time.Sleep(100 * time.Millisecond) // polling the X server's window list until the deadline
		}
		sv.OK(t, daemon.Request{Verb: "return", Session: "up"})
	})

	t.Run("human", func(t *testing.T) {
		// A person stand-in at the live view: once the desktop's window
		// shows "needs you", it takes the window over and hands it back,
		// as the page's buttons do.
		person := make(chan error, 1)
		go func() {
			ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
			defer cancel()
			for {
				for id := range desk.Asks() {
					hands := daemon.LiveHandsOf(sv.D)
					if r := hands.Takeover(ctx, id, "pat"); !r.OK {
						person <- fmt.Errorf("takeover of %s: %s %s", id, r.Code, r.Message)
						return
					}
					if r := hands.Handback(ctx, id, "pat"); !r.OK {
						person <- fmt.Errorf("handback of %s: %s %s", id, r.Code, r.Message)
						return
					}
					person <- nil
					return
				}
				select {
				case <-ctx.Done():
					person <- fmt.Errorf("nothing asked for a person: %w", ctx.Err())
					return
				case <-time.After(50 * time.Millisecond): // polling the desk until the deadline
				}
			}
		}()
		r := reachOf("hu", "/human", "")
		row("/human", r)
		if err := <-person; err != nil {
			t.Fatal(err)
		}
		if r.Reach.Rung != 5 || r.Reach.Outcome != reach.OutcomeHandedOff ||
			signals(r.Reach) != "1:bot_check 2:bot_check 3:bot_check 4:bot_check" || !strings.Contains(r.Did, "came back through a person (pat)") {
			t.Fatalf("a human check: rung %d %s, signals %q: %s", r.Reach.Rung, r.Reach.Outcome, signals(r.Reach), r.Did)
		}
		if len(desk.Asks()) != 0 {
			t.Fatalf("the hand-off still asks: %v", desk.Asks())
		}
		// Each rung was really tried: the plain fetch, the headless tab and
		// the headed browser on the desktop each asked the server.
		got := strings.Join(site.requests("/human"), "\n")
		if !strings.Contains(got, reach.UserAgent) || !strings.Contains(got, "HeadlessChrome") || strings.Count(got, "Chrome/") < 2 {
			t.Fatalf("the server saw /human fetched by:\n%s", got)
		}
		sv.OK(t, daemon.Request{Verb: "return", Session: "hu"})
	})
}

// TestNextRungHint: acting verbs that meet a signal are told the next
// rung: a click on a tab that shows no visible change, again (the page's
// own counter says both clicks landed), and a snapshot of a window with no
// accessibility tree (no_tree).
func TestNextRungHint(t *testing.T) {
	testenv.NeedIntegration(t, "chromium")
	site := newSite(t)
	bin, err := testenv.XClientBinary()
	if err != nil {
		t.Fatal(err)
	}
	br := chromium.New(chromium.Options{Binary: "chromium"})
	t.Cleanup(func() { br.Close() })
	dir := t.TempDir()
	sv := daemontest.Start(t, daemon.Config{StateDir: dir, SocketPath: filepath.Join(dir, "run", "h.sock"),
		Displays: []kind.DisplayProvider{native.Xvfb(native.Options{Logf: t.Logf})}, Browser: br, VerbTimeout: time.Minute})
	sv.OK(t, daemon.Request{Verb: "browser.open", Session: "h"}.With(args.OpenURL{URL: site.URL + "/still"}))
	snap := sv.OK(t, daemon.Request{Verb: "browser.snapshot", Session: "h"}.With(args.Snapshot{Observe: args.Observe{Interactive: true}}))
	m := regexp.MustCompile(`push button "Nothing" (@e\d+)`).FindStringSubmatch(snap.Text)
	if m == nil {
		t.Fatalf("no button in:\n%s", snap.Text)
	}
	click := func() wire.Response {
		r := sv.OK(t, daemon.Request{Verb: "browser.click", Session: "h"}.With(args.Click{Ref: m[1]}))
		if r.Effect == nil || r.Effect.Word != target.EffectNoVisibleChange {
			t.Fatalf("a click on a button that changes nothing: %+v", r.Effect)
		}
		return r
	}
	if first := click(); strings.Contains(first.Note, "next rung") {
		t.Fatalf("the first click is told a next rung: %q", first.Note)
	}
	if second := click(); !strings.Contains(second.Note, "no_visible_change_repeated: next rung 3 (pixels") {
		t.Fatalf("the same click again, no change again: note %q", second.Note)
	}
	if ev := sv.OK(t, daemon.Request{Verb: "browser.eval", Session: "h"}.With(args.Eval{Expr: "window.clicks"})); string(ev.Value) != "2" {
		t.Fatalf("the page counted %s clicks, want 2", ev.Value)
	}

	w := sv.OK(t, daemon.Request{Verb: "open", Session: "h"}.With(args.Open{App: bin, Args: []string{"--log", filepath.Join(t.TempDir(), "x.jsonl")}}))
	r := sv.Call(t, daemon.Request{Verb: "snapshot", Session: "h", Target: string(w.Target.ID)})
	if r.OK || r.Code != target.CodeNoTree || !strings.Contains(r.Note, "no_tree: next rung 3 (pixels") {
		t.Fatalf("a snapshot of a window with no tree: %+v", r)
	}
}

// deskDisplay is the X display the desktop name runs, as its processes'
// environment has it.
func deskDisplay(t *testing.T, p *pool.Pool, name string) string {
	t.Helper()
	for _, pid := range p.Processes(t.Context(), name) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if err != nil {
			continue
		}
		for _, kv := range strings.Split(string(b), "\x00") {
			if v, ok := strings.CutPrefix(kv, "DISPLAY="); ok {
				return v
			}
		}
	}
	t.Fatalf("no process of %s names its display", name)
	return ""
}
