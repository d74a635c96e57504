package x11_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/vibespace/vibespace/testenv"
	"github.com/vibespace/vibespace/x11"
)

// TestWindowRole: the multi-window fixture's untitled message dialog says it
// is a dialog, transient for the main window (the X window the fixture logs
// as its main one); its other windows are normal and transient for none;
// its plain X window (--bare) says nothing of itself.
func TestWindowRole(t *testing.T) {
	d := testenv.SharedDesktop(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	x, err := x11.Open(ctx, d.Display)
	if err != nil {
		t.Fatalf("open %s: %v", d.Display, err)
	}
	defer x.Close()
	script, err := testenv.Script(d, "multiwin")
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), "multiwin.jsonl")
	app, err := d.Launch(ctx, testenv.FixturePython, script, "--log", logPath, "--bare")
	if err != nil {
		t.Fatal(err)
	}
	defer app.Stop()
	log := testenv.OpenFixtureLog(logPath)
	if _, err := log.WaitFrom(ctx, 0, func(e testenv.Event) bool { return e.Type == "ready" }); err != nil {
		t.Fatal(err)
	}
	evs, err := log.Events()
	if err != nil {
		t.Fatal(err)
	}
	xid := map[string]x11.WindowID{}
	for _, e := range evs {
		if e.Type == "window" {
			xid[e.Widget] = x11.WindowID(e.XID)
		}
	}
	for name, want := range map[string]x11.Role{
		"dialog":  {Type: "dialog", TransientFor: xid["main"]},
		"main":    {Type: "normal"},
		"twin-a":  {Type: "normal"},
		"changer": {Type: "normal"},
		"bare":    {},
	} {
		if xid[name] == 0 {
			t.Fatalf("the fixture logged no window %q: %v", name, evs)
		}
		got, err := x.WindowRole(ctx, xid[name])
		if err != nil {
			t.Fatalf("WindowRole(%s %v): %v", name, xid[name], err)
		}
		if got != want || got.Dialog() != (name == "dialog") {
			t.Errorf("WindowRole(%s %v) = %+v (dialog %v), want %+v", name, xid[name], got, got.Dialog(), want)
		}
	}
}

// TestRoleDialog: a window is a dialog by its type, or transient for
// another with no type or type normal (ICCCM's dialog, as EWMH reads it);
// a transient utility window or menu is not.
func TestRoleDialog(t *testing.T) {
	for _, c := range []struct {
		r    x11.Role
		want bool
	}{
		{x11.Role{Type: "dialog"}, true},
		{x11.Role{Type: "dialog", TransientFor: 7}, true},
		{x11.Role{TransientFor: 7}, true},
		{x11.Role{Type: "normal", TransientFor: 7}, true},
		{x11.Role{Type: "utility", TransientFor: 7}, false},
		{x11.Role{Type: "popup_menu", TransientFor: 7}, false},
		{x11.Role{Type: "normal"}, false},
		{x11.Role{}, false},
	} {
		if got := c.r.Dialog(); got != c.want {
			t.Errorf("%+v.Dialog() = %v, want %v", c.r, got, c.want)
		}
	}
}
