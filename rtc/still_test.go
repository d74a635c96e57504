package rtc_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/vibespace/vibespace/capture"
	"github.com/vibespace/vibespace/rtc"
	"github.com/vibespace/vibespace/testenv"
)

// stillWindow is how long TestStillSourceInChromium watches a still
// target: more than twice Chromium's 3 s wait for a frame before it asks
// for a keyframe.
const stillWindow = 8 * time.Second

// TestStillSourceInChromium: a real headless Chromium watches a target
// that stands still. After its first picture the pipeline sends nothing
// for stillWindow but the keyframes viewers ask for because they lost
// something (on loopback: none); Chromium's own request for a keyframe
// after 3 s without a frame is seen and left unanswered, once, after which
// it stops asking. When the target changes, the change is sent and
// Chromium decodes it (its picture references the one it kept).
func TestStillSourceInChromium(t *testing.T) {
	testenv.NeedIntegration(t, "chromium")
	needVP8(t)
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	hub := rtc.New(rtc.Options{Logger: testLogger(t), NoH264: true})
	defer hub.Close()
	srcs := make(chan *synthSource, 1)
	vs := newViewerServer(t, hub.WHEP(func(*http.Request) (string, rtc.OpenFunc, error) {
		return "still", func(context.Context) (capture.Source, error) {
			s := newSynth(640, 360, 30, true)
			srcs <- s
			return s, nil
		}, nil
	}))
	launchViewer(t, vs.URL+"/viewer?page=s&n=1")
	first, err := vs.wait(ctx, "s", 0, func(r report) bool { return r.Frames >= 1 })
	if err != nil {
		t.Fatal(err)
	}
	src := <-srcs
	// The keyframes asked at the start (offer, bind, connected) come within
	// the keyframe interval of each other: let them settle.
	time.Sleep(time.Second)
	a, ok := hub.Stats("still")
	if !ok {
		t.Fatal("no pipeline")
	}
	time.Sleep(stillWindow)
	b, _ := hub.Stats("still")
	t.Logf("over %v still: %d frames sent (%d keyframes), %d keyframe requests answered, %d stall probes left unanswered",
		stillWindow, b.Frames-a.Frames, b.Keyframes-a.Keyframes, b.Asked-a.Asked, b.Probes-a.Probes)
	if sent, asked := b.Frames-a.Frames, b.Asked-a.Asked; sent > asked {
		t.Errorf("a still target sent %d frames in %v, and was asked for %d", sent, stillWindow, asked)
	}
	if b.Probes-a.Probes == 0 {
		// Chromium asks 3 s after its last frame: that request must have
		// been seen as a probe (else it was answered, and brought the next).
		t.Errorf("no keyframe request in %v still was taken for a stall probe (%d answered, %d frames sent)", stillWindow, b.Asked-a.Asked, b.Frames-a.Frames)
	}

	// The target changes: the change goes out and is decoded.
	seen, err := vs.wait(ctx, "s", 0, func(r report) bool { return r.Frames >= first.Frames })
	if err != nil {
		t.Fatal(err)
	}
	src.change.Store(true)
	got, err := vs.wait(ctx, "s", 0, func(r report) bool { return r.Frames > seen.Frames })
	if err != nil {
		t.Fatalf("the change after %v still was not decoded: %v", stillWindow, err)
	}
	c, _ := hub.Stats("still")
	t.Logf("the change: %d frames sent, Chromium decoded %d then %d", c.Frames-b.Frames, seen.Frames, got.Frames)
	if c.Frames <= b.Frames {
		t.Errorf("the change sent no frame")
	}
}
