package displays_test

import (
	"context"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/testenv"
)

// TestYourGnomeShellDesktop is the Wayland road through the CLIs on real
// GNOME Shell 43 (its Introspect service lists windows to the portal's
// picker, so one window can be shared): opted in from the session's
// environment, the person's window is listed and marked; snapshot, click
// @ref and type @ref go through its tree; the first key asks the person
// in portal-gnome's own dialog, where they pick this window and allow
// remote interaction (the test answers it by the dialog's accessibility
// tree); then keys, a screenshot from the window's own stream at the
// window's size (mutter casts a window in a monitor-sized stream), and,
// with the operator's pixels grant, click --at in the window's own
// coordinates. Every effect is read from the fixture's own log.
func TestYourGnomeShellDesktop(t *testing.T) {
	e := newEnv(t)
	w := testenv.NewShell(t, testenv.GnomeShell)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	app, err := w.LaunchFixture(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer app.Stop()
	// The person's own keyboard and pointer bring the window out of the
	// overview GNOME Shell starts in, focused.
	hand, err := w.Mutter(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer hand.Close()
	if err := w.Bring(ctx, hand); err != nil {
		t.Fatal(err)
	}
	if _, err := app.Log.WaitFrom(ctx, 0, func(ev testenv.Event) bool { return ev.Type == "focus" }); err != nil {
		t.Fatal(err)
	}
	denv := []string{"WAYLAND_DISPLAY=" + w.Display(), "DBUS_SESSION_BUS_ADDRESS=" + w.BusAddress(), "XDG_SESSION_TYPE=wayland"}
	e.StartServe()
	if doc := e.CLIEnv("s1", denv, "doctor"); !strings.Contains(doc.Out, "RemoteDesktop v1") || !strings.Contains(doc.Out, "sources monitor|window") {
		t.Fatalf("doctor does not say what GNOME Shell's portal offers: exit %d\n%s%s", doc.Code, doc.Out, doc.Errout)
	}
	if on := e.CLIEnv("operator", denv, "desktop", "on"); on.Code != 0 || !strings.Contains(on.Out, "wayland") {
		t.Fatalf("desktop on: exit %d\n%s%s", on.Code, on.Out, on.Errout)
	}
	const title = "vibespace fixture"
	var win wire.TargetInfo
	for win.ID == "" && ctx.Err() == nil {
		if win = listed(e, "s1", title); win.ID == "" {
			time.Sleep(100 * time.Millisecond)
		}
	}
	if !win.Desktop || win.PID != app.PID {
		t.Fatalf("the person's window is listed as %+v", win)
	}
	id := string(win.ID)
	if out := e.OK("s1", "list"); !strings.Contains(out, id+` "`+title+`" · your desktop`) {
		t.Fatalf("list does not mark the window as your desktop:\n%s", out)
	}

	// The tree: snapshot, click @ref, type @ref.
	snap := e.Snapshot("s1", id)
	from := app.Log.Len()
	if out := e.OK("s1", "click", id, node(t, snap, "push button", "Alpha").Ref); !strings.Contains(out, "[by tree]") || !strings.Contains(out, "your desktop") {
		t.Fatalf("click answer: %s", out)
	}
	wait(t, app.Log, from, "the click on Alpha", func(ev testenv.Event) bool { return ev.Type == "click" && ev.Widget == "alpha" })
	from = app.Log.Len()
	e.OK("s1", "type", id, node(t, snap, "text", "Name").Ref, "wayland ok")
	wait(t, app.Log, from, "the text in the entry", func(ev testenv.Event) bool {
		return ev.Type == "text" && ev.Widget == "entry" && ev.Text == "wayland ok"
	})

	// A key: the portal asks the person, who picks this window.
	cctx, ccancel := context.WithCancel(ctx)
	defer ccancel()
	consent := make(chan error, 1)
	go func() { consent <- w.ConsentTo(cctx, testenv.Answer{AllowInput: true, Window: title}) }()
	from = app.Log.Len()
	key := e.CLI("s1", "key", id, "q")
	if key.Code != 0 {
		t.Fatalf("key through the portal: exit %d\n%s%s", key.Code, key.Out, key.Errout)
	}
	if cerr := <-consent; cerr != nil {
		t.Fatalf("answering the portal's dialog: %v", cerr)
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
			t.Fatalf("the key never reached the window: %v", err)
		}
		e.OK("s1", "key", id, "q")
	}

	// Pixels: the window's own stream, at the window's size.
	shotPath := filepath.Join(e.Dir, "gnome-shell-window.png")
	if shot := e.Answer("s1", "screenshot", id, "--out", shotPath); !shot.OK {
		t.Fatalf("screenshot: %+v", shot)
	}
	f, err := os.Open(shotPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the screenshot of the window: %dx%d", cfg.Width, cfg.Height)
	if cfg.Width >= testenv.WaylandWidth || cfg.Width < 800 || cfg.Height < 600 {
		t.Fatalf("the screenshot is %dx%d: not the fixture's window alone (the monitor is %dx%d)", cfg.Width, cfg.Height, testenv.WaylandWidth, testenv.WaylandHeight)
	}

	// A point: only with the operator's pixels grant, then in the window's
	// own coordinates: (450, 340) is on the list of rows, 313 px down the
	// window (the same point of the monitor is above it: the window sits
	// under the shell's top bar).
	from = app.Log.Len()
	e.Refused("no_pixels_grant", "s1", "click", id, "--at", "450,340")
	e.OK("operator", "desktop", "pixels", id)
	for {
		if out := e.OK("s1", "click", id, "--at", "450,340"); !strings.Contains(out, "[by point]") {
			t.Fatalf("click --at: %s", out)
		}
		wctx, wcancel := context.WithTimeout(ctx, time.Second)
		_, err := app.Log.WaitFrom(wctx, from, func(ev testenv.Event) bool { return ev.Type == "select" && ev.Widget == "list" })
		wcancel()
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the click --at never reached the window's list: %v", err)
		}
	}
	e.OK("operator", "desktop", "off")
	e.Refused("desktop_off", "s1", "snapshot", id)
}
