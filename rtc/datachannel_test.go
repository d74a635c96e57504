package rtc_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path"
	"sync"
	"testing"
	"time"

	"github.com/pion/webrtc/v4"

	"github.com/vibespace/vibespace/capture"
	"github.com/vibespace/vibespace/rtc"
)

// TestInputDataChannels: a viewer's "pointer" and "input" DataChannels reach
// the hub's InputHandler with the viewer's id and target key; malformed
// events, non-moves on the pointer channel and unknown channels are dropped
// and counted, and never reach the handler.
func TestInputDataChannels(t *testing.T) {
	needVP8(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	hub := rtc.New(rtc.Options{Logger: testLogger(t)})
	defer hub.Close()
	var (
		mu  sync.Mutex
		got []rtc.InputEvent
		who []string
	)
	hub.OnInput(func(viewerID, key string, ev rtc.InputEvent) {
		mu.Lock()
		got = append(got, ev)
		who = append(who, viewerID+"|"+key)
		mu.Unlock()
	})
	src := newSynth(64, 48, 10, false)
	srv := httptest.NewServer(hub.WHEP(func(*http.Request) (string, rtc.OpenFunc, error) {
		return "win:7", func(context.Context) (capture.Source, error) { return src, nil }, nil
	}))
	defer srv.Close()

	pc := pionViewer(t)
	// pionViewer logs state changes with t.Logf, which may come after the
	// test ended (the close is reported on another goroutine): quiet it.
	pc.OnConnectionStateChange(func(webrtc.PeerConnectionState) {})
	ordered, retrans := false, uint16(0)
	pointer, err := pc.CreateDataChannel(rtc.ChannelPointer, &webrtc.DataChannelInit{Ordered: &ordered, MaxRetransmits: &retrans})
	if err != nil {
		t.Fatal(err)
	}
	input, err := pc.CreateDataChannel(rtc.ChannelInput, nil)
	if err != nil {
		t.Fatal(err)
	}
	stray, err := pc.CreateDataChannel("stray", nil)
	if err != nil {
		t.Fatal(err)
	}
	opened := make(chan string, 3)
	for _, dc := range []*webrtc.DataChannel{pointer, input, stray} {
		dc.OnOpen(func() { opened <- dc.Label() })
	}
	_, loc := offerTo(t, ctx, pc, srv.URL+"/whep/win:7")
	viewerID := path.Base(loc)
	for range 2 {
		select {
		case <-opened:
		case <-ctx.Done():
			t.Fatal("the data channels never opened")
		}
	}
	if key, ok := hub.ViewerKey(viewerID); !ok || key != "win:7" {
		t.Fatalf("ViewerKey(%s) = %q %v", viewerID, key, ok)
	}
	send := func(dc *webrtc.DataChannel, s string) {
		t.Helper()
		if err := dc.SendText(s); err != nil {
			t.Fatal(err)
		}
	}
	send(pointer, `{"t":"move","x":10,"y":12}`)
	send(pointer, `{"t":"click","x":1,"y":2}`) // not a move: dropped
	send(input, `{"t":"bogus"}`)               // dropped
	send(input, `not json`)                    // dropped
	send(input, `{"t":"text","text":""}`)      // dropped
	send(input, `{"t":"click","x":3,"y":4}`)
	send(input, `{"t":"key","chord":"ctrl+a"}`)
	send(input, `{"t":"text","text":"héllo"}`)
	send(input, `{"t":"down","x":5,"y":6,"button":3}`)
	send(input, `{"t":"wheel","x":5,"y":6,"dy":-2}`)
	eventually(t, ctx, "six events and four rejections", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(got) == 6 && hub.InputRejected() == 4
	})
	mu.Lock()
	defer mu.Unlock()
	// The reliable channel keeps its order; the move came over the other.
	want := []rtc.InputEvent{
		{Type: "click", X: 3, Y: 4, Button: 1, Count: 1, Channel: rtc.ChannelInput},
		{Type: "key", Chord: "ctrl+a", Channel: rtc.ChannelInput},
		{Type: "text", Text: "héllo", Channel: rtc.ChannelInput},
		{Type: "down", X: 5, Y: 6, Button: 3, Channel: rtc.ChannelInput},
		{Type: "wheel", X: 5, Y: 6, DY: -2, Channel: rtc.ChannelInput},
	}
	var reliable []rtc.InputEvent
	moves := 0
	for i, ev := range got {
		if who[i] != viewerID+"|win:7" {
			t.Errorf("event %d from %q", i, who[i])
		}
		if ev.Channel == rtc.ChannelPointer {
			moves++
			if ev.Type != "move" || ev.X != 10 || ev.Y != 12 {
				t.Errorf("pointer event %+v", ev)
			}
			continue
		}
		reliable = append(reliable, ev)
	}
	if moves != 1 || len(reliable) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if reliable[i] != want[i] {
			t.Errorf("event %d: %+v, want %+v", i, reliable[i], want[i])
		}
	}
	if s := (rtc.InputEvent{Type: "text", Text: "secret"}).String(); s != "text (6 characters)" {
		t.Errorf("an event's log line shows its text: %q", s)
	}
}
