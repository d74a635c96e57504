package daemon

import (
	"cmp"
	"context"
	"encoding/json"
	"github.com/vibespace/vibespace/daemon/args"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/vibespace/vibespace/daemon/chromium"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/kind/kindtest"
	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/target"
)

// launchProvider is a fake display provider that records the command line
// of every launch on its displays (a program that is not on PATH here is
// launched as the fake's "fake-" one).
type launchProvider struct {
	*kindtest.Provider
	mu    sync.Mutex
	argvs [][]string
	fail  error // when set, every launch is refused so (after it is recorded)
}

// failWith makes every launch from now on refused with err (nil: launched).
func (p *launchProvider) failWith(err error) {
	p.mu.Lock()
	p.fail = err
	p.mu.Unlock()
}

func (p *launchProvider) Start(ctx context.Context) (kind.Display, error) {
	kd, err := p.Provider.Start(ctx)
	if err != nil {
		return nil, err
	}
	return &launchDisplay{Display: kd.(*kindtest.Display), p: p}, nil
}

func (p *launchProvider) Reattach(ctx context.Context, rec json.RawMessage) (kind.Display, error) {
	kd, err := p.Provider.Reattach(ctx, rec)
	if err != nil {
		return nil, err
	}
	return &launchDisplay{Display: kd.(*kindtest.Display), p: p}, nil
}

// launched is every command line launched so far.
func (p *launchProvider) launched() [][]string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.argvs)
}

type launchDisplay struct {
	*kindtest.Display
	p *launchProvider
}

func (d *launchDisplay) Launch(ctx context.Context, argv []string) (kind.Target, error) {
	d.p.mu.Lock()
	d.p.argvs = append(d.p.argvs, slices.Clone(argv))
	fail := d.p.fail
	d.p.mu.Unlock()
	if fail != nil {
		return nil, fail
	}
	return d.Display.Launch(ctx, append([]string{"fake-" + filepath.Base(argv[0])}, argv[1:]...))
}

// countingBrowser is the fake browser, counting the contexts asked of it;
// it runs desktop apps as daemon/chromium's Pool does, of its program
// (binary, "" chromium's default), and calls onRecord, when set, each time
// the daemon persists its state (which asks for its Record first).
type countingBrowser struct {
	*kindtest.Browser
	asked    atomic.Int32
	binary   string
	onRecord atomic.Pointer[func()]
}

func (b *countingBrowser) AppDisplay() string         { return chromium.DefaultAppDisplay }
func (b *countingBrowser) AppURL(app kind.App) string { return chromium.AppURL(app) }
func (b *countingBrowser) CheckApp(url, size string) (kind.App, error) {
	return chromium.CheckApp(url, size)
}
func (b *countingBrowser) AppArgv(dir string, app kind.App) []string {
	return chromium.AppArgv(cmp.Or(b.binary, chromium.DefaultBinary), dir, app)
}

func (b *countingBrowser) Record() json.RawMessage {
	if f := b.onRecord.Load(); f != nil {
		(*f)()
	}
	return b.Browser.Record()
}

func (b *countingBrowser) Context(ctx context.Context, key kind.BrowserKey) (kind.BrowserContext, func(), error) {
	b.asked.Add(1)
	return b.Browser.Context(ctx, key)
}

// startApps runs a daemon with a fake "xvfb" display first (the default of
// open), a fake "xpra" one, and a counting fake browser.
func startApps(t *testing.T, dir string, xvfb, xpra *launchProvider, tune ...func(*Config)) (*testDaemon, *countingBrowser) {
	t.Helper()
	br := &countingBrowser{Browser: kindtest.NewBrowser()}
	td := startDaemonWith(t, nil, dir, func(c *Config) {
		c.Displays = []kind.DisplayProvider{xvfb, xpra}
		c.Browser = br
		for _, f := range tune {
			f(c)
		}
	})
	return td, br
}

func newProviders() (xvfb, xpra *launchProvider) {
	return &launchProvider{Provider: &kindtest.Provider{NameIs: "xvfb"}}, &launchProvider{Provider: &kindtest.Provider{NameIs: chromium.DefaultAppDisplay, PerSessionIs: true}}
}

// TestDesktopAppNew: new --backend desktop-app starts Chromium on the xpra
// display (not the default one) with its own profile directory, its
// accessibility on, the size asked and no DevTools or automation switch;
// its window is a target of the session, leased to it, in the mode asked.
// The profile is registered and attached with its backend; every page
// verb on it is refused no_cdp_on_this_backend, naming the window and the
// verbs that drive it; nothing of the CDP browser is asked. A second new
// takes the running one again.
func TestDesktopAppNew(t *testing.T) {
	xvfb, xpra := newProviders()
	td, br := startApps(t, "", xvfb, xpra)
	resp := td.call(t, Request{Verb: "browser.new", Session: "s1"}.With(args.New{Label: "shop", Backend: "desktop-app", URL: "file:///srv/page.html", Size: "800x600", Mode: "tree"}))
	wantCode(t, resp, "")
	if resp.Target == nil || resp.Target.ID.Kind() != target.KindWindow || resp.Target.Holder != "s1" || resp.Target.Mode != target.ModeTree {
		t.Fatalf("new's target: %+v", resp.Target)
	}
	win := resp.Target.ID
	p := resp.Profile
	if p == nil || p.Label != "shop" || p.Backend != "desktop-app" || p.Window != win || !p.Running || p.Handle != "shop" {
		t.Fatalf("new's profile: %+v", p)
	}
	for _, w := range []string{"desktop app in " + string(win), "vibespace-window snapshot " + string(win) + " -i", "300x200 pixels (800x600 was asked"} {
		if !strings.Contains(resp.Did, w) {
			t.Errorf("new's answer does not say %q: %s", w, resp.Did)
		}
	}

	// The launch: on xpra alone, as it was asked.
	if xvfb.Started() != 0 || len(xvfb.launched()) != 0 {
		t.Fatalf("the default display was used: started %d, launched %v", xvfb.Started(), xvfb.launched())
	}
	argvs := xpra.launched()
	if len(argvs) != 1 {
		t.Fatalf("launched on xpra: %v", argvs)
	}
	argv := argvs[0]
	dir := filepath.Join(td.cfg.StateDir, "profiles", p.ID)
	for _, w := range []string{"--user-data-dir=" + dir, "--force-renderer-accessibility", "--window-size=800,600", "--app=file:///srv/page.html", "--no-first-run"} {
		if !slices.Contains(argv, w) {
			t.Errorf("the command line lacks %s: %q", w, argv)
		}
	}
	if argv[0] != "chromium" {
		t.Errorf("launched %q, want chromium", argv[0])
	}
	for _, a := range argv {
		for _, bad := range []string{"--remote-debugging", "--enable-automation", "--headless"} {
			if strings.HasPrefix(a, bad) {
				t.Errorf("the command line has %s: %q", a, argv)
			}
		}
	}

	// The window is the session's, driven with the window verbs.
	snap := td.call(t, Request{Verb: "snapshot", Session: "s1", Target: string(win)})
	wantCode(t, snap, "")
	wantCode(t, td.call(t, Request{Verb: "click", Session: "s1", Target: string(win)}.With(args.Click{At: "5,5"})), target.CodeModeTree)
	wantCode(t, td.call(t, Request{Verb: "snapshot", Session: "s2", Target: string(win)}), target.CodeNotExposed)

	// Every page verb is refused by name, naming the window.
	for _, req := range []Request{
		Request{Verb: "browser.snapshot"}, Request{Verb: "browser.open"}.With(args.OpenURL{URL: "http://127.0.0.1:1/"}), Request{Verb: "browser.eval"}.With(args.Eval{Expr: "1"}),
		Request{Verb: "browser.click"}.With(args.Click{Ref: "@e2"}), Request{Verb: "browser.fill"}.With(args.Fill{Ref: "@e2", Text: "x"}), Request{Verb: "browser.tab"}.With(args.Tab{Action: "new"}),
		Request{Verb: "browser.get"}.With(args.Get{What: "url"}), Request{Verb: "browser.screenshot"}, Request{Verb: "browser.snapshot", Profile: "shop"},
	} {
		req.Session = "s1"
		got := td.call(t, req)
		wantCode(t, got, target.CodeNoCDPOnThisBackend)
		if !strings.Contains(got.Message, "profile shop runs as a desktop app ("+string(win)+"), which has no DevTools") ||
			!strings.Contains(got.Message, "vibespace-window snapshot "+string(win)+" -i") || !strings.Contains(got.Message, "click "+string(win)+" @eN") {
			t.Errorf("%s: %s", req.Verb, got.Message)
		}
		if got.Facts["target"] != string(win) || got.Profile == nil || got.Profile.Window != win || got.Profile.Backend != "desktop-app" {
			t.Errorf("%s: facts %v, profile %+v", req.Verb, got.Facts, got.Profile)
		}
	}
	if n := br.asked.Load(); n != 0 {
		t.Fatalf("the CDP browser was asked for %d context(s) for a desktop app", n)
	}

	// profiles and attachments say what it is.
	list := td.call(t, Request{Verb: "browser.profiles", Session: "s1"})
	if len(list.Profiles) != 1 || list.Profiles[0].Backend != "desktop-app" || list.Profiles[0].Window != win || !list.Profiles[0].Running {
		t.Fatalf("profiles: %+v", list.Profiles)
	}
	other := td.call(t, Request{Verb: "browser.profiles", Session: "s2"})
	if len(other.Profiles) != 1 || other.Profiles[0].Backend != "desktop-app" || other.Profiles[0].Window != win {
		t.Fatalf("profiles for another session: %+v", other.Profiles)
	}

	// new again takes the same running window; nothing is launched.
	again := td.call(t, Request{Verb: "browser.new", Session: "s1"}.With(args.New{Label: "shop", Backend: "desktop-app"}))
	wantCode(t, again, "")
	if again.Target == nil || again.Target.ID != win || !strings.Contains(again.Did, "runs already") || len(xpra.launched()) != 1 {
		t.Fatalf("new again: %+v (launched %d)", again, len(xpra.launched()))
	}
	// From another session it is not exposed, and that new changes
	// nothing: no attachment, the same settings.
	wantCode(t, td.call(t, Request{Verb: "browser.new", Session: "s2"}.With(args.New{Label: "shop", Backend: "desktop-app", URL: "https://elsewhere.example/"})), target.CodeNotExposed)
	if len(xpra.launched()) != 1 {
		t.Fatal("a refused new launched")
	}
	if got := td.call(t, Request{Verb: "browser.attachments", Session: "s2"}); len(got.Attachments) != 0 {
		t.Fatalf("a refused new attached: %+v", got.Attachments)
	}
	reg, _ := td.browsing.Registry()
	if kept, _ := reg.Find("shop"); kept.App.URL != "file:///srv/page.html" || kept.App.Width != 800 || kept.App.Mode != "tree" {
		t.Fatalf("the profile's settings after a refused new: %+v", kept.App)
	}
}

// TestDesktopAppStops: close <label> stops the desktop app's Chromium (its
// window goes), after which page verbs say it is not running and how to
// start it; new starts it again, as it was asked the first time; the
// window's own close stops it too.
func TestDesktopAppStops(t *testing.T) {
	xvfb, xpra := newProviders()
	td, _ := startApps(t, "", xvfb, xpra)
	first := td.call(t, Request{Verb: "browser.new", Session: "s1"}.With(args.New{Label: "shop", Backend: "desktop-app", Size: "1024x768", Mode: "pixels"}))
	wantCode(t, first, "")
	win := first.Target.ID
	key := td.keyOf(t, win)
	if xpra.Display().PID(key) == 0 {
		t.Fatal("no window on the display")
	}
	wantCode(t, td.call(t, Request{Verb: "browser.close", Session: "s2"}.With(args.Close{Label: "shop"})), target.CodeNotExposed)
	closed := td.call(t, Request{Verb: "browser.close", Session: "s1"}.With(args.Close{Label: "shop"}))
	wantCode(t, closed, "")
	if !strings.Contains(closed.Did, "stopped") || xpra.Display().PID(key) != 0 {
		t.Fatalf("close: %+v; window still there: %v", closed, xpra.Display().PID(key) != 0)
	}
	gone := td.call(t, Request{Verb: "browser.snapshot", Session: "s1"})
	wantCode(t, gone, target.CodeNoCDPOnThisBackend)
	if !strings.Contains(gone.Message, "it is not running") || gone.Facts["start"] != "vibespace-browser new shop --backend desktop-app" {
		t.Fatalf("refusal once stopped: %s %v", gone.Message, gone.Facts)
	}
	if got := td.call(t, Request{Verb: "browser.close", Session: "s1"}.With(args.Close{Label: "shop"})); !got.OK || !strings.Contains(got.Did, "not running") {
		t.Fatalf("close of a stopped one: %+v", got)
	}

	second := td.call(t, Request{Verb: "browser.new", Session: "s1"}.With(args.New{Label: "shop", Backend: "desktop-app"}))
	wantCode(t, second, "")
	if second.Target.ID == win || second.Target.Mode != target.ModePixels {
		t.Fatalf("started again: %+v", second.Target)
	}
	argvs := xpra.launched()
	if len(argvs) != 2 || !slices.Contains(argvs[1], "--window-size=1024,768") || !slices.Contains(argvs[1], "--app=about:blank") {
		t.Fatalf("the second start: %q", argvs)
	}
	out := td.call(t, Request{Verb: "close", Session: "s1", Target: string(second.Target.ID)})
	wantCode(t, out, "")
	list := td.call(t, Request{Verb: "browser.profiles", Session: "s1"})
	if len(list.Profiles) != 1 || list.Profiles[0].Running || list.Profiles[0].Window != "" || list.Profiles[0].Backend != "desktop-app" {
		t.Fatalf("profiles after the window's close: %+v", list.Profiles)
	}
	// close of a CDP profile is refused.
	wantCode(t, td.call(t, Request{Verb: "browser.new", Session: "s1"}.With(args.New{Label: "work"})), "")
	wantCode(t, td.call(t, Request{Verb: "browser.close", Session: "s1"}.With(args.Close{Label: "work"})), target.CodeBadRequest)
}

// TestDesktopAppRefusals: new's words are checked before anything is
// registered or started: a desktop app needs the xpra display, a backend
// is one of two, --url/--size/--mode are a desktop app's and are checked,
// and a CDP profile's label is taken.
func TestDesktopAppRefusals(t *testing.T) {
	xvfb := &launchProvider{Provider: &kindtest.Provider{NameIs: "xvfb"}}
	td := startDaemonWith(t, nil, "", func(c *Config) {
		c.Displays = []kind.DisplayProvider{xvfb}
		c.Browser = &countingBrowser{Browser: kindtest.NewBrowser()}
	})
	r := td.call(t, Request{Verb: "browser.new", Session: "s1"}.With(args.New{Label: "shop", Backend: "desktop-app"}))
	wantCode(t, r, target.CodeNoDisplay)
	if !strings.Contains(r.Message, "xpra") {
		t.Fatalf("no_display: %s", r.Message)
	}
	if got := td.call(t, Request{Verb: "browser.profiles", Session: "s1"}); len(got.Profiles) != 0 || xvfb.Started() != 0 {
		t.Fatalf("a refused new registered %+v or started a display", got.Profiles)
	}

	xvfb2, xpra := newProviders()
	td2, _ := startApps(t, "", xvfb2, xpra)
	for _, tc := range []struct {
		req  args.New
		code target.Code
	}{
		{args.New{Backend: "firefox"}, target.CodeBadRequest},
		{args.New{URL: "https://shop.example/"}, target.CodeBadRequest},
		{args.New{Size: "800x600"}, target.CodeBadRequest},
		{args.New{Mode: "tree"}, target.CodeBadRequest},
		{args.New{Backend: "desktop-app", Mode: "colour"}, target.CodeBadMode},
		{args.New{Backend: "desktop-app", Size: "800"}, target.CodeBadRequest},
		{args.New{Backend: "desktop-app", Size: "10x10"}, target.CodeBadRequest},
		{args.New{Backend: "desktop-app", Size: "99999x600"}, target.CodeBadRequest},
		{args.New{Backend: "desktop-app", URL: "javascript:alert(1)"}, target.CodeBadRequest},
		{args.New{Backend: "desktop-app", URL: "ttp://shop.example/"}, target.CodeBadRequest},
		{args.New{Backend: "desktop-app", URL: "ftp://ada:secret@shop.example/"}, target.CodeBadRequest},
		{args.New{Backend: "desktop-app", URL: "https://ada:secret@shop.example/"}, target.CodeBadRequest},
		{args.New{Backend: "desktop-app", URL: "--no-sandbox"}, target.CodeBadRequest},
	} {
		tc.req.Label = "shop"
		got := td2.call(t, Request{Verb: "browser.new", Session: "s1"}.With(tc.req))
		wantCode(t, got, tc.code)
		if strings.Contains(got.Message, "secret") {
			t.Errorf("a refusal repeats the password: %s", got.Message)
		}
	}
	if got := td2.call(t, Request{Verb: "browser.profiles", Session: "s1"}); len(got.Profiles) != 0 || len(xpra.launched()) != 0 {
		t.Fatalf("refused news registered %+v or launched %v", got.Profiles, xpra.launched())
	}
	wantCode(t, td2.call(t, Request{Verb: "browser.new", Session: "s1"}.With(args.New{Label: "work"})), "")
	taken := td2.call(t, Request{Verb: "browser.new", Session: "s1"}.With(args.New{Label: "Work", Backend: "desktop-app"}))
	wantCode(t, taken, target.CodeLabelTaken)
	if taken.Facts["backend"] != "cdp" || len(xpra.launched()) != 0 {
		t.Fatalf("label_taken: %+v", taken)
	}
	// A desktop app's label is taken for a CDP profile, naming its backend.
	wantCode(t, td2.call(t, Request{Verb: "browser.new", Session: "s1"}.With(args.New{Label: "shop", Backend: "desktop-app"})), "")
	if got := td2.call(t, Request{Verb: "browser.new", Session: "s1"}.With(args.New{Label: "shop"})); got.Code != target.CodeLabelTaken || got.Facts["backend"] != "desktop-app" {
		t.Fatalf("a CDP new over a desktop app: %+v", got)
	}
}

// TestDesktopAppAfterRestart: a daemon that restarts finds the desktop
// app's window again and still knows which profile it runs: the refusal
// names it, and new does not start a second Chromium on the profile.
func TestDesktopAppAfterRestart(t *testing.T) {
	dir := t.TempDir()
	xvfb, xpra := newProviders()
	td, _ := startApps(t, dir, xvfb, xpra)
	win := td.call(t, Request{Verb: "browser.new", Session: "s1"}.With(args.New{Label: "shop", Backend: "desktop-app"})).Target.ID
	td.Detach()
	<-td.done
	td2, _ := startApps(t, dir, xvfb, xpra)
	got := td2.call(t, Request{Verb: "browser.snapshot", Session: "s1"})
	wantCode(t, got, target.CodeNoCDPOnThisBackend)
	if got.Facts["target"] != string(win) {
		t.Fatalf("after a restart: %s %v", got.Message, got.Facts)
	}
	again := td2.call(t, Request{Verb: "browser.new", Session: "s1"}.With(args.New{Label: "shop", Backend: "desktop-app"}))
	wantCode(t, again, "")
	if again.Target.ID != win || len(xpra.launched()) != 1 {
		t.Fatalf("new after a restart: %+v, launched %d", again.Target, len(xpra.launched()))
	}
}

// appWindows are the daemon's windows that are a desktop app's.
func appWindows(td *testDaemon) []target.Target {
	var out []target.Target
	for _, e := range td.entries(func(e *entry) bool {
		return e.rec.Kind == target.KindWindow && (e.rec.Profile != "" || e.rec.App == chromium.DefaultBinary)
	}) {
		td.mu.Lock()
		out = append(out, e.rec)
		td.mu.Unlock()
	}
	return out
}

// TestDesktopAppRefusedNewChangesNothing: a new that is refused — its
// Chromium exits before it shows a window, or the per-session display
// ceiling is reached — leaves nothing behind: no profile (nor its
// directory), no attachment, no window, so the session's bare page verbs
// still run in its own context. A stopped desktop app whose start again is
// refused keeps its settings and its attachments as they were. (Before,
// the profile was registered and attached before the window opened: it
// stayed, as the session's default, and bare page verbs were refused
// no_cdp_on_this_backend.)
func TestDesktopAppRefusedNewChangesNothing(t *testing.T) {
	xvfb, xpra := newProviders()
	td, _ := startApps(t, "", xvfb, xpra, func(c *Config) { c.MaxSessionDisplays = 2 })
	dirs := filepath.Join(td.cfg.StateDir, "profiles")
	nothingLeft := func(what, session string) {
		t.Helper()
		if got := td.call(t, Request{Verb: "browser.profiles", Session: session}); len(got.Profiles) != 0 {
			t.Fatalf("%s registered %+v", what, got.Profiles)
		}
		if got := td.call(t, Request{Verb: "browser.attachments", Session: session}); len(got.Attachments) != 0 {
			t.Fatalf("%s attached %+v", what, got.Attachments)
		}
		if ents, _ := os.ReadDir(dirs); len(ents) != 0 {
			t.Fatalf("%s left a profile directory: %v", what, ents)
		}
		if w := appWindows(td); len(w) != 0 {
			t.Fatalf("%s left a window: %+v", what, w)
		}
		wantCode(t, td.call(t, Request{Verb: "browser.open", Session: session}.With(args.OpenURL{URL: "http://127.0.0.1:1/"})), "")
	}

	// Chromium exits before its window shows.
	xpra.failWith(target.Refuse(target.CodeAppExited, "chromium exited (status 1) before it showed a window"))
	wantCode(t, td.call(t, Request{Verb: "browser.new", Session: "s1"}.With(args.New{Label: "shop", Backend: "desktop-app", URL: "https://shop.example/"})), target.CodeAppExited)
	if len(xpra.launched()) != 1 {
		t.Fatalf("launched %d times", len(xpra.launched()))
	}
	nothingLeft("a new whose Chromium exited", "s1")
	xpra.failWith(nil)

	// Both per-session displays the daemon allows run, s1's (idle, until
	// its idle stop) and s9's.
	wantCode(t, td.call(t, Request{Verb: "open", Session: "s9"}.With(args.Open{App: "fake-app", Display: chromium.DefaultAppDisplay})), "")
	wantCode(t, td.call(t, Request{Verb: "browser.new", Session: "s2"}.With(args.New{Label: "cart", Backend: "desktop-app"})), target.CodeDisplayLimit)
	if xpra.Started() != 2 || len(xpra.launched()) != 2 {
		t.Fatalf("a refused new started %d displays, launched %d", xpra.Started(), len(xpra.launched()))
	}
	nothingLeft("a new refused display_limit", "s2")

	// A desktop app that ran, stopped, and whose start again is refused.
	first := td.call(t, Request{Verb: "browser.new", Session: "s1"}.With(args.New{Label: "shop", Backend: "desktop-app", URL: "https://shop.example/", Size: "800x600"}))
	wantCode(t, first, "")
	wantCode(t, td.call(t, Request{Verb: "browser.close", Session: "s1"}.With(args.Close{Label: "shop"})), "")
	xpra.failWith(target.Refuse(target.CodeAppExited, "chromium exited (status 1) before it showed a window"))
	for _, session := range []string{"s1", "s9"} {
		wantCode(t, td.call(t, Request{Verb: "browser.new", Session: session}.With(args.New{Label: "shop", Backend: "desktop-app", URL: "https://elsewhere.example/", Size: "1024x768", Mode: "pixels"})), target.CodeAppExited)
	}
	reg, _ := td.browsing.Registry()
	if kept, _ := reg.Find("shop"); kept.App.URL != "https://shop.example/" || kept.App.Width != 800 || kept.App.Mode != "" {
		t.Fatalf("a refused start again changed the settings: %+v", kept.App)
	}
	if got := reg.SessionsOf(first.Profile.ID); !slices.Equal(got, []string{"s1"}) {
		t.Fatalf("after a refused start again the profile is attached to %v", got)
	}
	if w := appWindows(td); len(w) != 0 {
		t.Fatalf("windows after refused starts: %+v", w)
	}
}

// TestDesktopAppWindowKnowsItsProfile: the desktop app's window is never
// persisted without its profile — checked at every persist the new does
// (the daemon asks the browser's Record first, and the state file then
// holds the one before) and after it — so a daemon killed at any moment
// knows the window is the profile's. (Before, the window was persisted
// first without it, then again with it.)
func TestDesktopAppWindowKnowsItsProfile(t *testing.T) {
	xvfb, xpra := newProviders()
	td, br := startApps(t, "", xvfb, xpra)
	store, err := lease.OpenStore(td.cfg.StateDir, stateFile)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var bare []target.Target
	check := func() {
		st, err := store.Load()
		if err != nil {
			return
		}
		for _, rec := range st.Targets {
			if rec.Kind == target.KindWindow && rec.Profile == "" {
				mu.Lock()
				bare = append(bare, rec)
				mu.Unlock()
			}
		}
	}
	br.onRecord.Store(&check)
	resp := td.call(t, Request{Verb: "browser.new", Session: "s1"}.With(args.New{Label: "shop", Backend: "desktop-app"}))
	wantCode(t, resp, "")
	br.onRecord.Store(nil)
	check()
	st, err := store.Load()
	if err != nil || len(st.Targets) != 1 || st.Targets[0].ID != resp.Target.ID || st.Targets[0].Profile != resp.Profile.ID {
		t.Fatalf("the state file: %+v (%v)", st.Targets, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(bare) != 0 {
		t.Fatalf("a desktop app's window was persisted without its profile: %+v", bare)
	}
}

// TestDesktopAppOwnDisplay: each session's desktop app is a window of that
// session's own xpra display, and the program started is the daemon's
// browser's (serve --chromium).
func TestDesktopAppOwnDisplay(t *testing.T) {
	xvfb, xpra := newProviders()
	td, _ := startApps(t, "", xvfb, xpra, func(c *Config) { c.Browser.(*countingBrowser).binary = "/opt/chromium-test/chrome" })
	a := td.call(t, Request{Verb: "browser.new", Session: "s1"}.With(args.New{Label: "shop", Backend: "desktop-app"}))
	wantCode(t, a, "")
	b := td.call(t, Request{Verb: "browser.new", Session: "s2"}.With(args.New{Label: "cart", Backend: "desktop-app"}))
	wantCode(t, b, "")
	disps := xpra.Displays()
	if len(disps) != 2 || xpra.Started() != 2 {
		t.Fatalf("two sessions' desktop apps started %d displays", xpra.Started())
	}
	for i, r := range []Response{a, b} {
		td.mu.Lock()
		e := td.targets[r.Target.ID]
		rec, on := e.rec, e.disp.Kind().Name()
		td.mu.Unlock()
		if on != disps[i].Name() || disps[i].PID(rec.Key) != rec.PID {
			t.Errorf("%s (session s%d) is on %s, not on its own display %s", r.Target.ID, i+1, on, disps[i].Name())
		}
		if !strings.Contains(r.Did, "your session's own") {
			t.Errorf("the answer does not say whose display: %s", r.Did)
		}
	}
	for _, argv := range xpra.launched() {
		if argv[0] != "/opt/chromium-test/chrome" {
			t.Errorf("launched %q, want the daemon's browser's program", argv[0])
		}
	}
}
