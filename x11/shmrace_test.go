package x11_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/vibespace/vibespace/x11"
)

// TestFirstCaptureWhileAnotherConnectionReadsEvents: a connection's first
// capture sets up MIT-SHM while another connection of the process reads a
// stream of events. xgb keeps extension decoders in process-wide maps that
// every reader reads; registering them again per connection was a data
// race (-race reports it; Go may abort on it).
func TestFirstCaptureWhileAnotherConnectionReadsEvents(t *testing.T) {
	fx := newFixture(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()

	// Connection B maps and unmaps a window of its own, reading the
	// events that makes, until the captures are done.
	b, err := xgb.NewConnDisplay(fx.d.Display)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	root := xproto.Setup(b).DefaultScreen(b).Root
	win, err := xproto.NewWindowId(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := xproto.CreateWindowChecked(b, 0, win, root, 1500, 900, 20, 20, 0, xproto.WindowClassInputOutput, 0,
		xproto.CwEventMask, []uint32{xproto.EventMaskStructureNotify}).Check(); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			xproto.MapWindow(b, win)
			xproto.UnmapWindow(b, win)
			xproto.GetInputFocus(b).Reply() // a round trip: the events are read by now
		}
	}()
	go func() {
		defer wg.Done()
		for {
			ev, err := b.WaitForEvent()
			if ev == nil && err == nil {
				return // closed
			}
		}
	}()
	for i := 0; i < 20; i++ {
		c, err := x11.Open(ctx, fx.d.Display)
		if err != nil {
			t.Fatal(err)
		}
		cp, err := c.Capture(ctx, fx.f.Window.ID)
		c.Close()
		if err != nil {
			t.Fatalf("capture %d: %v", i, err)
		}
		if cp.Image.Bounds().Dx() < 100 {
			t.Fatalf("capture %d is %v", i, cp.Image.Bounds())
		}
	}
	close(stop)
	b.Close()
	wg.Wait()
}
