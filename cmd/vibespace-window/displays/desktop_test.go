package displays_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/portal/portaltest"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
	"github.com/vibespace/vibespace/x11"
)

// personsDesktop is an Xvfb of the test's own standing in for the user's
// desktop: the daemon does not own it, and reaches it only through the
// environment of a terminal of it (DISPLAY, XAUTHORITY, the session bus).
// The person's applications are started by launch; then its localuser
// rule is taken back, so only a client holding the cookie of its
// Xauthority gets in: as on a real desktop.
func personsDesktop(t *testing.T, launch func(ctx context.Context, d *testenv.Desktop)) (desk *testenv.Desktop, env []string) {
	t.Helper()
	desk = testenv.NewDesktop(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	launch(ctx, desk)
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	xhost := exec.CommandContext(ctx, "xhost", "-si:localuser:"+u.Username)
	xhost.Env = append(desk.Env(), "XAUTHORITY="+desk.Xauthority())
	if out, err := xhost.CombinedOutput(); err != nil {
		t.Fatalf("xhost: %v: %s", err, out)
	}
	env = []string{"DISPLAY=" + desk.Display, "XAUTHORITY=" + desk.Xauthority(), "DBUS_SESSION_BUS_ADDRESS=" + desk.BusAddress}
	return desk, env
}

// listed is the target of the list row titled title, or "".
func listed(e *env, s, title string) wire.TargetInfo {
	e.T.Helper()
	for _, t := range e.Answer(s, "list").Targets {
		if t.Title == title {
			return t
		}
	}
	return wire.TargetInfo{}
}

// listedPID is the target of the list row of the window process pid made,
// or the zero value.
func listedPID(e *env, s string, pid int) wire.TargetInfo {
	e.T.Helper()
	for _, t := range e.Answer(s, "list").Targets {
		if t.PID == pid {
			return t
		}
	}
	return wire.TargetInfo{}
}

// auditRows are the audit log's rows.
func auditRows(t *testing.T, e *env) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.Home, "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var row map[string]any
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		rows = append(rows, row)
	}
	return rows
}

// TestYourDesktop drives the user's own desktop on the X11 road: off by
// default, opened by the operator, its windows listed and marked for every
// session, a click by ref landing in the person's app, --at only with the
// pixels grant, the person's own key pausing the agent before its next
// character, the setting kept across a restart, and off forgetting it all.
func TestYourDesktop(t *testing.T) {
	e := newEnv(t)
	var app, second *testenv.Fixture
	_, denv := personsDesktop(t, func(ctx context.Context, d *testenv.Desktop) {
		var err error
		if app, err = testenv.LaunchFixture(ctx, d); err != nil { // the person's own apps
			t.Fatal(err)
		}
		if second, err = testenv.LaunchFixture(ctx, d); err != nil {
			t.Fatal(err)
		}
	})
	e.StartServe()
	const title = "vibespace fixture"

	// Off by default: nothing of the desktop is listed or addressable.
	if got := listedPID(e, "s1", app.Window.PID); got.ID != "" {
		t.Fatalf("the person's window is listed before anyone opted in: %+v", got)
	}
	e.Refused("desktop_off", "s1", "open", "--display", "desktop", "xterm")
	e.Refused("desktop_off", "s1", "desktop", "pixels", "win:1")
	if out := e.OK("s1", "desktop"); !strings.Contains(out, "not open to agents") {
		t.Fatalf("desktop status: %s", out)
	}
	doc := e.CLIEnv("s1", denv, "doctor")
	if !strings.Contains(doc.Out, "X11: your X server at") || !strings.Contains(doc.Out, "not open to agents") {
		t.Fatalf("doctor does not name the X11 road to this desktop:\n%s", doc.Out)
	}
	// Without a desktop's environment, desktop on says what is missing.
	e.Refused("bad_request", "s1", "desktop", "on")

	// The operator opts in from a terminal of their desktop.
	on := e.CLIEnv("operator", denv, "desktop", "on")
	if on.Code != 0 || !strings.Contains(on.Out, "is open to agents") || !strings.Contains(on.Out, "keyboard and pointer are watched") {
		t.Fatalf("desktop on: exit %d\n%s%s", on.Code, on.Out, on.Errout)
	}
	win := listedPID(e, "s2", app.Window.PID)
	if win.ID == "" || !win.Desktop || win.Origin != "" {
		t.Fatalf("the person's window is not listed for another session, marked: %+v", win)
	}
	id := string(win.ID)
	if out := e.OK("s2", "list"); !strings.Contains(out, id+` "`+title+`" · your desktop`) {
		t.Fatalf("list does not mark the window as your desktop:\n%s", out)
	}
	e.Refused("your_desktop", "s2", "open", "--display", "desktop", "xterm")

	// Acting on a node is the normal road; every answer says your desktop.
	snap := e.Snapshot("s2", id)
	from := app.Log.Len()
	out := e.OK("s2", "click", id, node(t, snap, "push button", "Alpha").Ref)
	if !strings.Contains(out, "[by tree]") || !strings.Contains(out, "· your desktop · lease: yours") {
		t.Fatalf("click answer: %s", out)
	}
	wait(t, app.Log, from, "the click on Alpha", func(ev testenv.Event) bool { return ev.Type == "click" && ev.Widget == "alpha" })

	// A point needs the operator's pixels grant for this window.
	notes := node(t, snap, "text", "Notes")
	at := e.Centre(t, "s2", id, notes)
	from = app.Log.Len()
	r := e.Refused("no_pixels_grant", "s2", "click", id, "--at", at)
	if !strings.Contains(r.Errout, "desktop pixels "+id) {
		t.Fatalf("no_pixels_grant does not say how to grant: %s", r.Errout)
	}
	e.Refused("no_pixels_grant", "s2", "scroll", id, "down", "--at", at)
	e.Refused("no_pixels_grant", "s2", "scroll", id, "down") // at the window's centre: a point too
	if evs, _ := app.Log.Events(); len(evs) > from {
		t.Fatalf("a refused point verb reached the app: %v", evs[from:])
	}
	e.OK("operator", "desktop", "pixels", id)
	if out := e.OK("s2", "click", id, "--at", at); !strings.Contains(out, "[by point]") || !strings.Contains(out, "your desktop (pixels granted)") {
		t.Fatalf("click --at with the grant: %s", out)
	}
	wait(t, app.Log, from, "focus on the notes", func(ev testenv.Event) bool { return ev.Type == "focus" && ev.Widget == "notes" })

	// The person touches their own keyboard while the agent types: the
	// agent is paused before its next character, until an explicit
	// handback.
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	desk := personDisplay(denv)
	person, err := testenv.NewPerson(ctx, desk, personXauth(denv))
	if err != nil {
		t.Fatal(err)
	}
	defer person.Close()
	var greek strings.Builder
	for i := range 1000 {
		greek.WriteRune('α' + rune(i%24))
	}
	long := strings.Repeat("desktop-secret ", 25) + greek.String()
	from = app.Log.Len()
	typed := make(chan result, 1)
	go func() { typed <- e.CLI("s2", "type", id, long) }()
	wait(t, app.Log, from, "typing to begin", func(ev testenv.Event) bool { return ev.Type == "text" && ev.Widget == "notes" })
	other := string(listedPID(e, "s3", second.Window.PID).ID)
	if other == "" {
		t.Fatal("the person's second window is not listed")
	}
	touched := time.Now()
	if err := person.Key(ctx, 0xffe1); err != nil { // Shift_L
		t.Fatal(err)
	}
	tr := <-typed
	// Another agent cannot slip into the moment either: a window nobody
	// held when the person touched their keyboard takes no keys for a
	// while (personQuiet, 2 s; asked first thing after the touch).
	if r := e.Refused("user_active", "s3", "key", other, "End"); !strings.Contains(r.Errout, "ago") {
		t.Fatalf("a key into another desktop window right after the person's touch: %s", r.Errout)
	}
	t.Logf("the person's key to the agent's type answering user_active: %v", time.Since(touched).Round(time.Millisecond))
	if tr.Code != 1 || !strings.Contains(tr.Errout, "[user_active]") || !strings.Contains(tr.Errout, "partial=true") {
		t.Fatalf("the type in flight when the person pressed a key: exit %d\n%s%s", tr.Code, tr.Out, tr.Errout)
	}
	last := ""
	evs, _ := app.Log.Events()
	for _, ev := range evs {
		if ev.Type == "text" && ev.Widget == "notes" {
			last = ev.Text
		}
	}
	if len(last) >= len(long) {
		t.Fatal("the whole text arrived: the person's key did not pause the agent")
	}
	t.Logf("the agent had typed %d of %d characters when it was paused", len([]rune(last)), len([]rune(long)))
	r = e.Refused("user_active", "s2", "key", id, "End")
	if !strings.Contains(r.Errout, person.Name) {
		t.Fatalf("user_active does not name the person's device: %s", r.Errout)
	}
	if got := listedPID(e, "s2", app.Window.PID); !strings.Contains(got.Lease, "own keyboard or pointer") {
		t.Fatalf("the lease does not say the person drives: %s", got.Lease)
	}
	e.Refused("window_paused", "s2", "handback", id, "--as", "you") // the paused agent cannot resume itself
	e.OK("operator", "handback", id, "--as", "you")
	if first := e.OK("s2", "key", id, "End"); strings.Count(first, "control came back") != 1 {
		t.Fatalf("the first answer after the handback: %s", first)
	}

	// The setting lasts across a restart of the daemon.
	e.Stop()
	e.StartServe()
	if got := listedPID(e, "s3", app.Window.PID); got.ID != win.ID || !got.Desktop || !got.Pixels {
		t.Fatalf("after a restart the window is %+v; want %s, your desktop, pixels granted", got, id)
	}

	// Off: every window forgotten, every lease on one closed at once.
	e.OK("s2", "attach", id)
	if out := e.OK("operator", "desktop", "off"); !strings.Contains(out, "lease(s) closed ("+id+" by s2)") {
		t.Fatalf("desktop off: %s", out)
	}
	if got := listedPID(e, "s2", app.Window.PID); got.ID != "" {
		t.Fatalf("listed after desktop off: %+v", got)
	}
	e.Refused("desktop_off", "s2", "snapshot", id)

	// The person's app survived every read and act of ours.
	if err := syscall.Kill(app.Window.PID, 0); err != nil {
		t.Fatalf("the person's app is gone: %v", err)
	}

	// The audit has every setting and the person's pause, by point where
	// a point was used, and never a character typed.
	var settings []string
	byPoint := false
	for _, row := range auditRows(t, e) {
		if s, _ := row["setting"].(string); s != "" {
			settings = append(settings, s)
		}
		if row["verb"] == "click" && row["by"] == "point" && row["desktop"] == true && row["ok"] == true {
			byPoint = true
		}
	}
	joined := strings.Join(settings, " | ")
	for _, want := range []string{"on: x11 " + desk, "pixels on", "direct: a key on", "on: restored from the setting", "off"} {
		if !strings.Contains(joined, want) {
			t.Errorf("the audit lacks %q: %s", want, joined)
		}
	}
	if !byPoint {
		t.Error("the audit has no click by:point on the desktop window")
	}
	e.CheckAudit(t, "desktop-secret")
}

func personDisplay(env []string) string { return envValue(env, "DISPLAY") }
func personXauth(env []string) string   { return envValue(env, "XAUTHORITY") }

func envValue(env []string, key string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v
		}
	}
	return ""
}

// TestYourOwnBrowser is tier 3: the person's own Chromium, running on their
// desktop, found as a window of it and driven through its accessibility
// tree alone — no CDP, no automation flag — every answer saying so. The
// page's own effect (its title, which the X server has as the window's)
// is the oracle.
func TestYourOwnBrowser(t *testing.T) {
	e := newEnv(t)
	page := filepath.Join(e.Dir, "page.html")
	if err := os.WriteFile(page, []byte(`<!doctype html><title>before</title><button onclick="document.title='clicked'">Press me</button>`), 0o644); err != nil {
		t.Fatal(err)
	}
	argv := []string{"chromium", "--user-data-dir=" + filepath.Join(e.Dir, "persons-profile"), "--no-first-run", "--no-default-browser-check",
		"--disable-gpu", "--force-renderer-accessibility", "file://" + page}
	if os.Geteuid() == 0 {
		argv = append(argv, "--no-sandbox") // Chromium refuses to run as root with its sandbox
	}
	var browser *testenv.App
	desk, denv := personsDesktop(t, func(ctx context.Context, d *testenv.Desktop) {
		var err error
		if browser, err = d.Launch(ctx, argv...); err != nil { // the person's own browser
			t.Fatal(err)
		}
	})
	defer browser.Stop()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	e.StartServe()
	e.CLIEnv("operator", denv, "desktop", "on")

	var win wire.TargetInfo
	for win.ID == "" && ctx.Err() == nil {
		for _, w := range e.Answer("s1", "list").Targets {
			if strings.HasPrefix(w.Title, "before") {
				win = w
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if win.Browser != "chromium" || !win.Desktop {
		t.Fatalf("the person's Chromium is listed as %+v; want a desktop window naming its browser", win)
	}
	id := string(win.ID)
	if out := e.OK("s1", "list"); !strings.Contains(out, "your own chromium: driven through its accessibility tree, never CDP, never an automation flag") {
		t.Fatalf("list does not say how the person's browser is driven:\n%s", out)
	}
	// The page reaches the tree once Chromium has built it.
	var ref string
	for ref == "" && ctx.Err() == nil {
		if r := e.Answer("s1", "snapshot", id); r.OK && r.Snapshot != nil {
			if n := r.Snapshot.Root.Find(func(n *target.Node) bool { return n.Role == "push button" && n.Name == "Press me" }); n != nil {
				ref = n.Ref
			}
		}
		if ref == "" {
			time.Sleep(200 * time.Millisecond)
		}
	}
	if ref == "" {
		t.Fatal("the page's button never reached the person's Chromium's accessibility tree")
	}
	if out := e.OK("s1", "click", id, ref); !strings.Contains(out, "[by tree]") || !strings.Contains(out, "never CDP") {
		t.Fatalf("click answer: %s", out)
	}
	x, err := x11.OpenWith(ctx, desk.Display, x11.Options{Xauthority: desk.Xauthority()})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	for {
		w, err := x.Window(ctx, x11.WindowID(parseWinKey(t, e, id)))
		if err == nil && strings.HasPrefix(w.Title, "clicked") {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the page's title did not change after the click: %q (%v)", w.Title, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, a := range argv {
		if strings.Contains(a, "remote-debugging") || strings.Contains(a, "enable-automation") {
			t.Fatalf("the person's browser was started with an automation flag: %s", a)
		}
	}
	select {
	case <-browser.Exited():
		t.Fatal("the person's browser did not survive")
	default:
	}
}

// parseWinKey is the X id the daemon's state file keeps for target id.
func parseWinKey(t *testing.T, e *env, id string) uint32 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.Home, "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Targets []struct{ ID, Key string } `json:"targets"`
	}
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	for _, tg := range st.Targets {
		if tg.ID == id {
			n, err := strconv.ParseUint(strings.TrimPrefix(tg.Key, "0x"), 16, 32)
			if err != nil {
				t.Fatal(err)
			}
			return uint32(n)
		}
	}
	t.Fatalf("no %s in the state file", id)
	return 0
}

// TestYourWaylandDesktop is the Wayland road through the CLIs, on the real
// headless GNOME stack (mutter, pipewire, xdg-desktop-portal 1.16 and its
// GNOME backend): opted in from the session's environment, the person's
// Wayland window is listed and marked, a click by ref lands through its
// tree, a key goes through the RemoteDesktop portal once the person (the
// test, in their place) allows its dialog, and Take over pauses the agent.
func TestYourWaylandDesktop(t *testing.T) {
	e := newEnv(t)
	w := testenv.NewWayland(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	app, err := w.LaunchFixture(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer app.Stop()
	// The person's own keyboard and pointer: the seat has them, so their
	// compositor focuses the window.
	hand, err := w.Mutter(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer hand.Close()
	if _, err := app.Log.WaitFrom(ctx, 0, func(ev testenv.Event) bool { return ev.Type == "focus" }); err != nil {
		t.Fatal(err)
	}
	// Not its XDG_RUNTIME_DIR: that is where the CLIs find our daemon, and
	// a person's terminal has the one they always have.
	denv := []string{"WAYLAND_DISPLAY=" + w.Display(), "DBUS_SESSION_BUS_ADDRESS=" + w.BusAddress(), "XDG_SESSION_TYPE=wayland"}
	e.StartServe()
	if doc := e.CLIEnv("s1", denv, "doctor"); !strings.Contains(doc.Out, "RemoteDesktop v1") {
		t.Fatalf("doctor does not name the portal of this Wayland session: exit %d\n%s%s", doc.Code, doc.Out, doc.Errout)
	}
	if on := e.CLIEnv("operator", denv, "desktop", "on"); on.Code != 0 || !strings.Contains(on.Out, "wayland") || !strings.Contains(on.Out, "cannot be observed") {
		t.Fatalf("desktop on: exit %d\n%s%s", on.Code, on.Out, on.Errout)
	}
	const title = "vibespace fixture"
	var win wire.TargetInfo
	for win.ID == "" && ctx.Err() == nil {
		win = listed(e, "s1", title)
		if win.ID == "" {
			time.Sleep(100 * time.Millisecond)
		}
	}
	if !win.Desktop || win.PID != app.PID {
		t.Fatalf("the person's Wayland window is listed as %+v", win)
	}
	id := string(win.ID)
	snap := e.Snapshot("s1", id)
	from := app.Log.Len()
	if out := e.OK("s1", "click", id, node(t, snap, "push button", "Alpha").Ref); !strings.Contains(out, "[by tree]") || !strings.Contains(out, "your desktop") {
		t.Fatalf("click answer: %s", out)
	}
	wait(t, app.Log, from, "the click on Alpha", func(ev testenv.Event) bool { return ev.Type == "click" && ev.Widget == "alpha" })

	// A key: the portal asks the person first.
	consent := make(chan error, 1)
	go func() { consent <- w.Consent(ctx, true) }()
	from = app.Log.Len()
	key := e.CLI("s1", "key", id, "q")
	if cerr := <-consent; cerr != nil {
		t.Fatalf("answering the portal's dialog: %v", cerr)
	}
	if key.Code != 0 {
		t.Fatalf("key through the portal: exit %d\n%s%s", key.Code, key.Out, key.Errout)
	}
	// Mutter may drop a new virtual device's first events: pressed again
	// (the session stands, no new dialog) until the window logs it.
	for {
		wctx, wcancel := context.WithTimeout(ctx, time.Second)
		_, err := app.Log.WaitFrom(wctx, from, func(ev testenv.Event) bool { return ev.Type == "key" && ev.Keysym == "q" })
		wcancel()
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the key never reached the Wayland window: %v", err)
		}
		e.OK("s1", "key", id, "q")
	}

	// Take over: the agent is paused; hand back resumes it.
	e.OK("operator", "takeover", id, "--as", "ada")
	e.Refused("window_paused", "s1", "key", id, "q")
	e.OK("operator", "handback", id, "--as", "ada")
	e.OK("operator", "desktop", "off")
	e.Refused("desktop_off", "s1", "snapshot", id)
}

// TestYourDesktopPortalToken: the portal's restore token (RemoteDesktop v2,
// a Go fake of the portal frontend on the person's session bus, whose
// AT-SPI bus and app are real) is the person's standing grant: kept by the
// daemon alone (0600, in none of its files, logs or answers), the newest
// always, and each use is an audit row naming the session and the verb it
// served.
func TestYourDesktopPortalToken(t *testing.T) {
	e := newEnv(t)
	desk := testenv.NewDesktop(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	app, err := testenv.LaunchFixture(ctx, desk)
	if err != nil {
		t.Fatal(err)
	}
	// The toolkit's X display only puts the window on screen: the road is
	// Wayland's (no DISPLAY below), keys go to the focused window.
	x, err := x11.Open(ctx, desk.Display)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if err := x.Focus(ctx, app.Window.ID); err != nil {
		t.Fatal(err)
	}
	fake := portaltest.NewFake(t, desk.BusAddress, portaltest.FakeOptions{})
	denv := []string{"WAYLAND_DISPLAY=wayland-test", "DBUS_SESSION_BUS_ADDRESS=" + desk.BusAddress}
	e.StartServe()
	e.CLIEnv("operator", denv, "desktop", "on")
	var win wire.TargetInfo
	for win.ID == "" && ctx.Err() == nil {
		if win = listed(e, "s1", "vibespace fixture"); win.ID == "" {
			time.Sleep(100 * time.Millisecond)
		}
	}
	id := string(win.ID)
	var said []string
	said = append(said, e.OK("s1", "key", id, "Return"))
	tokenFile := filepath.Join(e.Home, "desktop-portal-token")
	firstRaw, err := os.ReadFile(tokenFile)
	first := []byte(strings.TrimSpace(string(firstRaw)))
	if err != nil || len(first) == 0 {
		t.Fatalf("no restore token kept after a granted v2 session: %v", err)
	}
	if fi, _ := os.Stat(tokenFile); fi.Mode().Perm() != 0o600 {
		t.Fatalf("the token file is %v, want 0600", fi.Mode().Perm())
	}
	firstID := id
	// Opened anew, the next session starts with the token: no dialog.
	e.OK("operator", "desktop", "off")
	e.CLIEnv("operator", denv, "desktop", "on")
	win = listed(e, "s2", "vibespace fixture")
	id = string(win.ID)
	dialogs := fake.Dialogs()
	said = append(said, e.OK("s2", "key", id, "Return"))
	if fake.Dialogs() != dialogs {
		t.Fatal("a session started with the stored token still showed the dialog")
	}
	secondRaw, err := os.ReadFile(tokenFile)
	second := []byte(strings.TrimSpace(string(secondRaw)))
	if err != nil || len(second) == 0 || string(second) == string(first) {
		t.Fatalf("the token kept is not the newest (single use): %v", err)
	}
	var rows []string
	for _, row := range auditRows(t, e) {
		if s, _ := row["setting"].(string); strings.HasPrefix(s, "portal restore token") {
			rows = append(rows, fmt.Sprintf("%v %v %s", row["session"], row["target"], s))
		}
	}
	joined := strings.Join(rows, " | ")
	for _, want := range []string{"s1 " + firstID + " portal restore token saved (for key)", "s2 " + id + " portal restore token used (for key)", "s2 " + id + " portal restore token saved (for key)"} {
		if !strings.Contains(joined, want) {
			t.Errorf("the audit lacks %q: %s", want, joined)
		}
	}
	for _, f := range []string{"audit.jsonl", "state.json", "daemon.log"} {
		b, _ := os.ReadFile(filepath.Join(e.Home, f))
		for _, tok := range [][]byte{first, second} {
			if strings.Contains(string(b), string(tok)) {
				t.Fatalf("a restore token is in %s", f)
			}
		}
	}
	for _, s := range said {
		if strings.Contains(s, string(first)) || strings.Contains(s, string(second)) {
			t.Fatalf("a restore token is in an answer: %s", s)
		}
	}
}
