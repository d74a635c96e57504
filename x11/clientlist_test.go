package x11_test

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/vibespace/vibespace/testenv"
	"github.com/vibespace/vibespace/x11"
)

func ids(ws []x11.Window) []x11.WindowID {
	out := make([]x11.WindowID, len(ws))
	for i, w := range ws {
		out[i] = w.ID
	}
	return out
}

func TestClientList(t *testing.T) {
	d := testenv.NewDesktop(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	x, err := x11.Open(ctx, d.Display)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	xc := dial(t, d.Display)
	a := xc.window(0, 10, 10, 100, 100)
	xc.mapWindow(a)
	frame, b := xc.framed(200, 50, true)
	hidden := xc.window(0, 0, 0, 50, 50) // never mapped
	gone := xc.window(0, 0, 0, 50, 50)
	if err := xproto.DestroyWindowChecked(xc.c, gone).Check(); err != nil {
		t.Fatal(err)
	}

	// No manager: the root's mapped children, a frame's client in its
	// place, bottom first.
	got, err := x.ClientList(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []x11.WindowID{x11.WindowID(a), x11.WindowID(b)}; !slices.Equal(ids(got), want) {
		t.Fatalf("ClientList without a manager = %v, want %v (the server's stack: %v)", ids(got), want, xc.children())
	}

	// A manager's list, in its own order (not the stack's), with a window
	// it has not mapped and one that is gone.
	list := []xproto.Window{b, hidden, gone, a}
	data := make([]byte, 4*len(list))
	for i, w := range list {
		xgb.Put32(data[4*i:], uint32(w))
	}
	if err := xproto.ChangePropertyChecked(xc.c, xproto.PropModeReplace, xc.scr.Root, xc.atom("_NET_CLIENT_LIST"),
		xproto.AtomWindow, 32, uint32(len(list)), data).Check(); err != nil {
		t.Fatal(err)
	}
	got, err = x.ClientList(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []x11.WindowID{x11.WindowID(b), x11.WindowID(hidden), x11.WindowID(a)}; !slices.Equal(ids(got), want) {
		t.Fatalf("ClientList = %v, want %v", ids(got), want)
	}
	if got[0].Frame != x11.WindowID(frame) || got[2].Frame != 0 {
		t.Errorf("frames %v and %v, want %v and 0", got[0].Frame, got[2].Frame, x11.WindowID(frame))
	}
	if !got[0].Viewable || got[1].Mapped || !got[2].Viewable {
		t.Errorf("map states: %+v", got)
	}
	if got[0].Geometry.X != 200 || got[0].Geometry.Y != 50 {
		t.Errorf("the framed window is at %v, want its frame's 200,50", got[0].Geometry)
	}
	for _, w := range got {
		if w.PID != os.Getpid() { // the test's connection made them (X-Resource)
			t.Errorf("%v: PID %d, want %d", w.ID, w.PID, os.Getpid())
		}
	}
	// A window the caller knows already is skipped.
	got, err = x.ClientList(ctx, func(id x11.WindowID) bool { return id == x11.WindowID(b) })
	if err != nil {
		t.Fatal(err)
	}
	if want := []x11.WindowID{x11.WindowID(hidden), x11.WindowID(a)}; !slices.Equal(ids(got), want) {
		t.Fatalf("ClientList skipping %v = %v, want %v", x11.WindowID(b), ids(got), want)
	}
}
