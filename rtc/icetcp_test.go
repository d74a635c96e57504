package rtc_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pion/logging"
	"github.com/pion/webrtc/v4"

	"github.com/vibespace/vibespace/capture"
	"github.com/vibespace/vibespace/rtc"
	"github.com/vibespace/vibespace/testenv"
)

// droppingUDP is a UDP socket behind a firewall that drops every packet:
// what is sent to it is read and thrown away, what is written never
// leaves. The hub's UDP candidate is still offered, and unreachable.
type droppingUDP struct {
	net.PacketConn
}

func (d droppingUDP) ReadFrom(p []byte) (int, net.Addr, error) {
	for {
		if _, _, err := d.PacketConn.ReadFrom(p); err != nil {
			return 0, nil, err
		}
	}
}

func (d droppingUDP) WriteTo(p []byte, _ net.Addr) (int, error) { return len(p), nil }

// TestLiveViewOverICETCP: two viewers whose UDP is dropped both ways
// still get the fixture's window, decoded by a real headless Chromium at
// the window's size, over the hub's passive ICE-TCP candidate, one
// listener for both: each page's own selected candidate pair is TCP, to
// the listener's address. Closing the hub closes the listener.
func TestLiveViewOverICETCP(t *testing.T) {
	testenv.NeedIntegration(t, "chromium")
	needVP8(t)
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Second)
	defer cancel()
	disp, win := fixtureWindow(t, ctx)
	W, H := win.Geometry.Width, win.Geometry.Height

	udp, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	udpMux := webrtc.NewICEUDPMux(logging.NewDefaultLoggerFactory().NewLogger("dropped"), droppingUDP{udp})
	defer udpMux.Close()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tcpAddr := ln.Addr().String()
	hub := rtc.New(rtc.Options{Logger: testLogger(t), ICEUDPMux: udpMux, ICETCPListener: ln})
	closed := false
	defer func() {
		if !closed {
			hub.Close()
		}
	}()
	if a := hub.ICETCPAddr(); a == nil || a.String() != tcpAddr {
		t.Fatalf("the hub's ICE-TCP address is %v, the listener's %s", a, tcpAddr)
	}
	resolve := func(*http.Request) (string, rtc.OpenFunc, error) {
		return "win", func(context.Context) (capture.Source, error) {
			return capture.NewWindow(disp, win.ID, capture.WindowOptions{FPS: 10}), nil
		}, nil
	}
	vs := newViewerServer(t, hub.WHEP(resolve))
	launchViewer(t, vs.URL+"/viewer?page=tcp&n=2")

	// Two viewers, both over the one listener.
	for i := range 2 {
		rp, err := vs.wait(ctx, "tcp", i, func(r report) bool { return r.Frames >= 1 && r.Width > 0 && r.Remote != "" })
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("viewer %d: %dx%d, %d frames decoded, %s, pair %q → %q", i, rp.Width, rp.Height, rp.Frames, rp.State, rp.Local, rp.Remote)
		if rp.Width != W || rp.Height != H {
			t.Fatalf("viewer %d decoded %dx%d, the window is %dx%d", i, rp.Width, rp.Height, W, H)
		}
		if want := fmt.Sprintf("tcp %s passive", tcpAddr); strings.TrimSpace(rp.Remote) != want || !strings.HasPrefix(rp.Local, "tcp") {
			t.Fatalf("viewer %d's selected pair is %q → %q, want tcp → %q", i, rp.Local, rp.Remote, want)
		}
	}
	if n := hub.Viewers(); n != 2 {
		t.Fatalf("the hub has %d viewers, want 2", n)
	}

	// Close ends the viewers and the listener.
	if err := hub.Close(); err != nil {
		t.Fatal(err)
	}
	closed = true
	if c, err := net.DialTimeout("tcp4", tcpAddr, 5*time.Second); err == nil {
		c.Close()
		t.Fatalf("the ICE-TCP listener %s still accepts after the hub's Close", tcpAddr)
	}
}
