package displays_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/cdp/cdptest"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// shellToolkit is one fixture application on a real shell's Wayland
// desktop, as yourShellDesktop drives it: what it is called, the nodes
// clicked and typed into, and a point of its window whose click it logs.
type shellToolkit struct {
	name, script, title string
	// monitor is the stack's virtual monitor (the zero Monitor:
	// testenv's default, 1280×720).
	monitor testenv.Monitor
	// button is a push button's name (its click is logged as
	// buttonWidget); entry a text field's (its text logged as
	// entryWidget).
	button, buttonWidget string
	entry, entryWidget   string
	// minW×minH is the least a screenshot of the window is (it is the
	// window's, smaller than the monitor).
	minW, minH int
	// content is where the window's content (the (0,0) of its nodes'
	// bounds) begins in its surface, in logical pixels: the toolkit's own
	// decoration round it, which no interface tells (measured on GNOME
	// Shell 43 with each toolkit's default: none for GTK 3, whose
	// accessible frame is its whole surface; GTK 4's shadow; Qt 5's
	// title bar, qtwayland's bradient decoration). pressLogged says the
	// fixture logs each press's position (in its content's logical
	// pixels).
	content     [2]int
	pressLogged bool
	// at is a point of the window's own pixels (its screenshot's) and hit
	// says the fixture logged a click there.
	at  [2]int
	hit func(ev testenv.Event) bool
	// scrolled says the fixture logged a wheel turn down.
	scrolled func(ev testenv.Event) bool
	// pane is a point of the window a person clicks in its live pane, and
	// paneHit says the fixture logged that click (another than at's: a
	// list logs a row selected only when it changes).
	pane    [2]int
	paneHit func(ev testenv.Event) bool
}

// wheelDown is a toolkit fixture's logged wheel turn down (X's button 5,
// as gtk4.py and qt5.py log it).
func wheelDown(ev testenv.Event) bool { return ev.Type == "button" && ev.Button == 5 }

// near is a fixture's logged button-1 press within slack px of (x, y).
func near(x, y, slack float64) func(ev testenv.Event) bool {
	return func(ev testenv.Event) bool {
		return ev.Type == "button" && ev.Button == 1 && math.Abs(ev.X-x) <= slack && math.Abs(ev.Y-y) <= slack
	}
}

// gnomeShellToolkits are the fixtures TestYourGnomeShellDesktop drives:
// GTK 3 (fixture.py), GTK 4 (gtk4.py, GDK's wayland backend) and Qt 5
// (qt5.py, qtwayland5's wayland platform), each a native Wayland client.
var gnomeShellToolkits = []shellToolkit{
	{
		name: "gtk3", script: "fixture", title: "vibespace fixture",
		button: "Alpha", buttonWidget: "alpha", entry: "Name", entryWidget: "entry",
		minW: 800, minH: 600,
		// Its window (952×740 with its shadow) is taller than the default
		// monitor, and mutter's stream of a window is its monitor's size:
		// on 1280×720 its bottom would not be in the stream.
		monitor: testenv.Monitor{Width: 1280, Height: 800},
		// (450, 340) is on the list of rows, 313 px down the window; the
		// same point of the monitor is above it (the window sits under
		// the shell's top bar).
		at:  [2]int{450, 340},
		hit: func(ev testenv.Event) bool { return ev.Type == "select" && ev.Widget == "list" },
		scrolled: func(ev testenv.Event) bool {
			return ev.Type == "scroll" && ev.Widget == "list" && (ev.Direction == "down" || ev.DY > 0)
		},
		// (450, 390) is a row below the one click --at selected (a
		// list logs a row selected only when it changes).
		pane:    [2]int{450, 390},
		paneHit: func(ev testenv.Event) bool { return ev.Type == "select" && ev.Widget == "list" },
	},
	{
		name: "gtk4", script: "gtk4", title: "vibespace gtk4 fixture",
		button: "Press me", buttonWidget: "press", entry: "Name", entryWidget: "name",
		minW: 380, minH: 280, content: [2]int{14, 12}, pressLogged: true,
		// (200, 200) of the screenshot is (200, 200) of the surface, less
		// the shadow.
		at: [2]int{200, 200}, hit: near(200-14, 200-12, 0.5), scrolled: wheelDown,
		pane: [2]int{150, 250}, paneHit: near(150-14, 250-12, 2),
	}, {
		name: "qt5", script: "qt5", title: "vibespace qt5 fixture",
		button: "Press me", buttonWidget: "press", entry: "Name", entryWidget: "name",
		minW: 380, minH: 280, content: [2]int{3, 30}, pressLogged: true,
		at: [2]int{200, 200}, hit: near(200-3, 200-30, 0.5), scrolled: wheelDown,
		pane: [2]int{150, 250}, paneHit: near(150-3, 250-30, 2),
	},
}

// TestYourGnomeShellDesktop is the Wayland road through the CLIs on real
// GNOME Shell 43 (its Introspect service lists windows to the portal's
// picker, so one window can be shared), for each toolkit: opted in from
// the session's environment, the person's window is listed and marked;
// snapshot, click @ref and type @ref go through its tree; the first key
// asks the person in portal-gnome's own dialog, where they pick this
// window and allow remote interaction (the test answers it by the dialog's
// accessibility tree); then keys, a screenshot from the window's own
// stream at the window's size (mutter casts a window in a monitor-sized
// stream), and, with the operator's pixels grant, click --at in the
// window's own coordinates. Every effect is read from the fixture's own
// log.
func TestYourGnomeShellDesktop(t *testing.T) {
	for _, tk := range gnomeShellToolkits {
		t.Run(tk.name, func(t *testing.T) { yourShellDesktop(t, testenv.GnomeShell, tk) })
	}
}

// shellDesktop starts shell's stack with the fixture script on it,
// brought forward where the shell does not focus a new window (GNOME
// Shell's overview: the person's own pointer clicks it), a served daemon,
// and the environment of a terminal of that session.
func shellDesktop(t *testing.T, ctx context.Context, shell testenv.Shell, script string) (*env, *testenv.Wayland, *testenv.WaylandFixture, []string) {
	t.Helper()
	return shellDesktopOn(t, ctx, shell, testenv.Monitor{}, script)
}

// shellDesktopOn is shellDesktop on the virtual monitor m.
func shellDesktopOn(t *testing.T, ctx context.Context, shell testenv.Shell, m testenv.Monitor, script string) (*env, *testenv.Wayland, *testenv.WaylandFixture, []string) {
	t.Helper()
	e := newEnv(t)
	w := testenv.NewShellOn(t, shell, m)
	app, err := w.LaunchScript(ctx, script)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(app.Stop)
	if shell == testenv.GnomeShell {
		hand, err := w.Mutter(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { hand.Close() })
		if err := w.Bring(ctx, hand); err != nil {
			t.Fatal(err)
		}
	}
	denv := []string{"WAYLAND_DISPLAY=" + w.Display(), "DBUS_SESSION_BUS_ADDRESS=" + w.BusAddress(), "XDG_SESSION_TYPE=wayland", "XDG_CURRENT_DESKTOP=" + w.Shell().Desktop()}
	e.StartServe()
	return e, w, app, denv
}

// openedWindow opens the desktop to agents (desktop on with flags, from
// denv) and answers the handle of the window titled title, once listed
// and marked as the person's.
func openedWindow(t *testing.T, ctx context.Context, e *env, denv []string, title string, pid int, flags ...string) string {
	t.Helper()
	if on := e.CLIEnv("operator", denv, append([]string{"desktop", "on"}, flags...)...); on.Code != 0 || !strings.Contains(on.Out, "wayland") {
		t.Fatalf("desktop on: exit %d\n%s%s", on.Code, on.Out, on.Errout)
	}
	var win wire.TargetInfo
	for win.ID == "" && ctx.Err() == nil {
		if win = listed(e, "s1", title); win.ID == "" {
			time.Sleep(100 * time.Millisecond)
		}
	}
	if !win.Desktop || win.PID != pid {
		t.Fatalf("the person's window is listed as %+v", win)
	}
	id := string(win.ID)
	if out := e.OK("s1", "list"); !strings.Contains(out, id+` "`+title+`" · your desktop`) {
		t.Fatalf("list does not mark the window as your desktop:\n%s", out)
	}
	return id
}

// findNode is the node of role whose name holds name (GTK 4.8 names a
// button with a mnemonic twice over: "_Press me Press me").
func findNode(t *testing.T, s *target.Snapshot, role, name string) *target.Node {
	t.Helper()
	n := s.Root.Find(func(n *target.Node) bool { return n.Role == role && strings.Contains(n.Name, name) })
	if n == nil {
		t.Fatalf("no %s %q in the snapshot", role, name)
	}
	return n
}

// treeVerbs: snapshot, click @ref on tk's button, type @ref into its
// entry, each effect in the fixture's log.
func treeVerbs(t *testing.T, e *env, app *testenv.WaylandFixture, id string, tk shellToolkit) {
	t.Helper()
	snap := e.Snapshot("s1", id)
	from := app.Log.Len()
	if out := e.OK("s1", "click", id, findNode(t, snap, "push button", tk.button).Ref); !strings.Contains(out, "[by tree]") || !strings.Contains(out, "your desktop") {
		t.Fatalf("click answer: %s", out)
	}
	wait(t, app.Log, from, "the click on "+tk.button, func(ev testenv.Event) bool { return ev.Type == "click" && ev.Widget == tk.buttonWidget })
	from = app.Log.Len()
	e.OK("s1", "type", id, findNode(t, snap, "text", tk.entry).Ref, "wayland ok")
	wait(t, app.Log, from, "the text in the entry", func(ev testenv.Event) bool {
		return ev.Type == "text" && ev.Widget == tk.entryWidget && ev.Text == "wayland ok"
	})
}

// keyUntil presses q in id until the fixture logs it: the first press
// waits (not_focused) until the shell has given the window the focus, and
// may ask the person in the portal's dialog (answered by consent, started
// before); mutter may drop a new virtual device's first events, so it is
// pressed again (the session stands, no new dialog) until the window logs
// it.
func keyUntil(t *testing.T, ctx context.Context, e *env, app *testenv.WaylandFixture, id string) {
	t.Helper()
	from := app.Log.Len()
	for {
		key := e.CLI("s1", "key", id, "q")
		if key.Code == 0 {
			break
		}
		if !strings.Contains(key.Errout, "[not_focused]") || ctx.Err() != nil {
			t.Fatalf("key through the portal: exit %d\n%s%s", key.Code, key.Out, key.Errout)
		}
		time.Sleep(100 * time.Millisecond)
	}
	for {
		wctx, wcancel := context.WithTimeout(ctx, time.Second)
		_, err := app.Log.WaitFrom(wctx, from, func(ev testenv.Event) bool { return ev.Type == "key" && ev.Keysym == "q" })
		wcancel()
		if err == nil {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("the key never reached the window: %v", err)
		}
		e.OK("s1", "key", id, "q")
	}
}

// shareWindow presses a key in id: the portal asks the person, who picks
// this window (title) in its dialog and allows remote interaction.
func shareWindow(t *testing.T, ctx context.Context, e *env, w *testenv.Wayland, app *testenv.WaylandFixture, id, title string) {
	t.Helper()
	cctx, ccancel := context.WithCancel(ctx)
	defer ccancel()
	consent := make(chan error, 1)
	go func() { consent <- w.ConsentTo(cctx, testenv.Answer{AllowInput: true, Window: title}) }()
	keyUntil(t, ctx, e, app, id)
	if cerr := <-consent; cerr != nil {
		t.Fatalf("answering the portal's dialog: %v", cerr)
	}
}

// yourShellDesktop is TestYourGnomeShellDesktop's flow for one toolkit.
func yourShellDesktop(t *testing.T, shell testenv.Shell, tk shellToolkit) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	e, w, app, denv := shellDesktopOn(t, ctx, shell, tk.monitor, tk.script)
	if doc := e.CLIEnv("s1", denv, "doctor"); !strings.Contains(doc.Out, "GNOME Shell (its portal: xdg-desktop-portal-gnome") || !strings.Contains(doc.Out, "RemoteDesktop v1") || !strings.Contains(doc.Out, "sources monitor|window") {
		t.Fatalf("doctor does not say what GNOME Shell's portal offers: exit %d\n%s%s", doc.Code, doc.Out, doc.Errout)
	}
	id := openedWindow(t, ctx, e, denv, tk.title, app.PID)
	treeVerbs(t, e, app, id, tk)

	shareWindow(t, ctx, e, w, app, id, tk.title)

	// Pixels: the window's own stream, the window whole.
	snap := e.Snapshot("s1", id)
	cfg := wholeShot(t, e, id, tk, snap, 1)
	if cfg.Width >= testenv.WaylandWidth || cfg.Width < tk.minW || cfg.Height < tk.minH {
		t.Fatalf("the screenshot is %dx%d: not the fixture's window alone (the monitor is %dx%d)", cfg.Width, cfg.Height, testenv.WaylandWidth, testenv.WaylandHeight)
	}

	// A point: only with the operator's pixels grant, then in the window's
	// own coordinates.
	at := fmt.Sprintf("%d,%d", tk.at[0], tk.at[1])
	e.Refused("no_pixels_grant", "s1", "click", id, "--at", at)
	e.OK("operator", "desktop", "pixels", id)
	untilLogged(t, ctx, e, app, "click --at "+at, tk.hit, "click", id, "--at", at)
	clickNode(t, ctx, e, app, id, tk, snap, 1)
	untilLogged(t, ctx, e, app, "scroll --at "+at, tk.scrolled, "scroll", id, "down", "--at", at)
	if tk.paneHit != nil {
		livePane(t, ctx, e, app, id, tk, cfg.Width, cfg.Height)
	}
	e.OK("operator", "desktop", "off")
	e.Refused("desktop_off", "s1", "snapshot", id)
}

// untilLogged runs the verb args as s1 until the fixture logs what logged
// says (a new virtual device's first events may be dropped), and logs it.
func untilLogged(t *testing.T, ctx context.Context, e *env, app *testenv.WaylandFixture, what string, logged func(testenv.Event) bool, args ...string) {
	t.Helper()
	from := app.Log.Len()
	for {
		if out := e.OK("s1", args...); !strings.Contains(out, "[by point]") {
			t.Fatalf("%s: %s", what, out)
		}
		wctx, wcancel := context.WithTimeout(ctx, time.Second)
		ev, err := app.Log.WaitFrom(wctx, from, logged)
		wcancel()
		if err == nil {
			t.Logf("%s: the fixture logged %s", what, ev)
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("%s never reached the window: %v", what, err)
		}
	}
}

// TestYourKWinDesktop is the Wayland road through the CLIs on real KWin
// 5.27 with xdg-desktop-portal-kde: doctor names KWin and says its
// ScreenCast is not asked for; keys ask for keyboard and pointer alone
// (portal-kde asks the person nothing for input alone: no chooser opens,
// so the compositor stands), and reach the focused window, as the
// fixture's own log says; pixels and points are refused, naming KWin and
// why (its chooser crashes headless KWin).
func TestYourKWinDesktop(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	tk := gnomeShellToolkits[0]
	e, _, app, denv := shellDesktop(t, ctx, testenv.KWin, tk.script)
	doc := e.CLIEnv("s1", denv, "doctor")
	if !strings.Contains(doc.Out, "KWin (its portal: xdg-desktop-portal-kde; XDG_CURRENT_DESKTOP KDE)") || !strings.Contains(doc.Out, "KWin's ScreenCast is not asked for") {
		t.Fatalf("doctor does not name KWin and what it is not asked for: exit %d\n%s%s", doc.Code, doc.Out, doc.Errout)
	}
	t.Logf("doctor:\n%s", doc.Out)
	id := openedWindow(t, ctx, e, denv, tk.title, app.PID)
	treeVerbs(t, e, app, id, tk)
	keyUntil(t, ctx, e, app, id)

	for _, r := range []struct {
		code string
		args []string
	}{
		{"no_capture", []string{"screenshot", id, "--out", filepath.Join(e.Dir, "kwin.png")}},
		{"no_injection_backend", []string{"click", id, "--at", "450,340"}},
	} {
		if r.code == "no_injection_backend" {
			e.OK("operator", "desktop", "pixels", id)
		}
		out := e.Refused(r.code, "s1", r.args...)
		if !strings.Contains(out.Errout, "KWin") || !strings.Contains(out.Errout, "desktop on --screencast") {
			t.Fatalf("%v is refused without naming KWin and the operator's way: %s", r.args, out.Errout)
		}
		t.Logf("%s: %s", r.args[0], out.Errout)
	}
	// The compositor stood (its clients die with it): the window still
	// answers, and keys still reach it.
	e.OK("s1", "snapshot", id)
	keyUntil(t, ctx, e, app, id)
	e.OK("operator", "desktop", "off")
}

// livePane: the window's live pane, decoded by a real viewer (a headless
// Chromium on the live view's page) at the window's size (its
// screenshot's, w×h); a person takes the window over from the pane (its
// Take over button's handler), and the agent is paused; the person's
// click through the pane (a real mouse click on the picture, through the
// portal) lands where they clicked, as the fixture's own log says; their
// handback from the pane resumes the agent.
func livePane(t *testing.T, ctx context.Context, e *env, app *testenv.WaylandFixture, id string, tk shellToolkit, w, h int) {
	t.Helper()
	watch := e.Answer("s1", "watch", id)
	if !watch.OK {
		t.Fatalf("watch: %+v", watch)
	}
	tab, closeTab := openViewer(t, ctx, cdptest.LaunchViewer(t, ctx), watch.URL)
	defer closeTab()
	var st remotePane
	opened := time.Now()
	// The wait ends 10 s before ctx, so that the page can still be asked
	// what the pane says, and the daemon's live view what it did.
	wctx, wcancel := context.WithCancel(ctx)
	if d, ok := ctx.Deadline(); ok {
		wctx, wcancel = context.WithDeadline(ctx, d.Add(-10*time.Second))
	}
	defer wcancel()
	for {
		if st = readRemotePane(t, ctx, tab, id); st.State == "live" && st.Decoded >= 1 && st.W > 0 {
			break
		}
		select {
		case <-wctx.Done():
			var msg string // what the pane says to the person
			_ = tab.EvalInto(ctx, fmt.Sprintf(`window.vibespace.panes.get(%q).q('.msg').textContent`, id), &msg)
			var said []string
			b, _ := os.ReadFile(filepath.Join(e.Dir, "serve.log"))
			for _, l := range strings.Split(string(b), "\n") {
				if strings.Contains(l, "live view") {
					said = append(said, l)
				}
			}
			t.Fatalf("the pane of %s showed no video in %s: last %+v, saying %q; the daemon's live view:\n%s", id, time.Since(opened).Round(time.Second), st, msg, strings.Join(said, "\n"))
		case <-time.After(100 * time.Millisecond):
		}
	}
	t.Logf("the live pane, %s after the viewer opened: %+v", time.Since(opened).Round(100*time.Millisecond), st)
	if st.W != w+w%2 || st.H != h+h%2 {
		// (The encoders take even sizes: a side of odd length is grown
		// by its last row or column repeated, rtc's padEven.)
		t.Errorf("the pane's video is %dx%d, the window's screenshot %dx%d", st.W, st.H, w, h)
	}
	control := func(what string) {
		t.Helper()
		var r struct {
			Driving bool
			Answer  string
		}
		expr := fmt.Sprintf(`(async () => { const p = window.vibespace.panes.get(%q); await p.%s();
			return {Driving: !!p.driving, Answer: p.lastAnswer ? (p.lastAnswer.code || 'ok') : ''}; })()`, id, what)
		if err := tab.EvalInto(ctx, expr, &r); err != nil || r.Answer != "ok" || r.Driving != (what == "takeover") {
			t.Fatalf("%s from the pane: %+v %v", what, r, err)
		}
	}
	control("takeover")
	e.Refused("window_paused", "s1", "key", id, "q")
	var p cdp.Point
	expr := fmt.Sprintf(`(() => { const g = window.vibespace.panes.get(%q).geometry();
		return {X: g.r.left + g.ox + (%d + 0.5) * g.s, Y: g.r.top + g.oy + (%d + 0.5) * g.s}; })()`, id, tk.pane[0], tk.pane[1])
	if err := tab.EvalInto(ctx, expr, &p); err != nil {
		t.Fatal(err)
	}
	from := app.Log.Len()
	for {
		if err := tab.ClickAt(ctx, p); err != nil {
			t.Fatal(err)
		}
		wctx, wcancel := context.WithTimeout(ctx, time.Second)
		ev, err := app.Log.WaitFrom(wctx, from, tk.paneHit)
		wcancel()
		if err == nil {
			t.Logf("the person's click at %v of the pane: the fixture logged %s", tk.pane, ev)
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the person's click through the pane never reached the window: %v", err)
		}
	}
	control("handback")
	e.OK("s1", "snapshot", id)
}
