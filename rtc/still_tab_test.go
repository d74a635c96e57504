package rtc_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/vibespace/vibespace/capture"
	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/rtc"
	"github.com/vibespace/vibespace/testenv"
)

// reportLag is longer than the viewer page's report interval (200 ms).
const reportLag = 500 * time.Millisecond

// TestStillTabInChromium: a tab is silent as a still window is. A page
// that draws once, in a headless Chromium tab, screencast into the hub
// (capture.Tab, the daemon's tab source) and watched by a second, real
// Chromium over WebRTC: after its first picture, the pipeline sends, over
// stillWindow, no more frames than the keyframes viewers asked for, and
// the viewer decodes no more than that either (its own count, the oracle
// apart from the hub's). Then the page changes (its text, set over CDP):
// the change is sent and the viewer decodes it.
func TestStillTabInChromium(t *testing.T) {
	testenv.NeedIntegration(t, "chromium")
	needVP8(t)
	ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
	defer cancel()
	b, err := cdp.Launch(context.WithoutCancel(ctx), cdp.Options{Headless: true, StartTimeout: 60 * time.Second})
	if err != nil {
		t.Fatalf("launch: %v", err)
	}
	defer func() {
		pid := b.PID()
		if err := b.Close(); err != nil {
			t.Errorf("closing the browser: %v", err)
		}
		if left := cdp.GroupProcesses(pid); len(left) > 0 {
			t.Errorf("the browser left processes %v", left)
		}
	}()
	bc, err := b.NewContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<!doctype html><title>still</title><body style="margin:0;background:#eee">
<div id="n" style="font:48px monospace">still</div>`))
	}))
	defer page.Close()
	tab, err := bc.NewTab(ctx, page.URL)
	if err != nil {
		t.Fatal(err)
	}

	hub := rtc.New(rtc.Options{Logger: testLogger(t), NoH264: true})
	defer hub.Close()
	key := "tab:" + tab.ID()
	vs := newViewerServer(t, hub.WHEP(func(*http.Request) (string, rtc.OpenFunc, error) {
		return key, func(context.Context) (capture.Source, error) {
			return capture.NewTab(tab, capture.TabOptions{FPS: 30})
		}, nil
	}))
	launchViewer(t, vs.URL+"/viewer?page=s&n=1")
	if _, err := vs.wait(ctx, "s", 0, func(r report) bool { return r.Frames >= 1 }); err != nil {
		t.Fatal(err)
	}
	// The keyframes asked at the start (offer, bind, connected) and the
	// page's last paints of its load: let them settle.
	time.Sleep(time.Second)
	a, ok := hub.Stats(key)
	if !ok {
		t.Fatal("no pipeline")
	}
	// The viewer reports every 200 ms: its count is read half a second
	// after the hub's, so that it has decoded all the hub had sent.
	time.Sleep(reportLag)
	seen, err := vs.wait(ctx, "s", 0, func(report) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(stillWindow)
	st, _ := hub.Stats(key)
	time.Sleep(reportLag)
	after, err := vs.wait(ctx, "s", 0, func(report) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	st2, _ := hub.Stats(key) // the requests the viewer's last count may include
	sent, asked, decoded := st.Frames-a.Frames, st.Asked-a.Asked, after.Frames-seen.Frames
	t.Logf("over %v still: %d frames sent (%d keyframes), %d keyframe requests answered, %d stall probes left unanswered; the viewer decoded %d",
		stillWindow, sent, st.Keyframes-a.Keyframes, asked, st.Probes-a.Probes, decoded)
	if sent > asked {
		t.Errorf("a still tab sent %d frames in %v, and was asked for %d", sent, stillWindow, asked)
	}
	if asked2 := st2.Asked - a.Asked; decoded < 0 || uint64(decoded) > asked2 {
		t.Errorf("the viewer decoded %d frames of a still tab in %v, %d were asked for", decoded, stillWindow, asked2)
	}

	// The page changes: the change goes out and is decoded.
	if _, err := tab.Eval(ctx, `document.getElementById('n').textContent = 'changed'`); err != nil {
		t.Fatal(err)
	}
	got, err := vs.wait(ctx, "s", 0, func(r report) bool { return r.Frames > after.Frames })
	if err != nil {
		t.Fatalf("the change after %v still was not decoded: %v", stillWindow, err)
	}
	// The hub counts a frame once its write returned; the viewer may report
	// the frame first (CI once read the count in between, on a loaded
	// machine). Read it until it moves, bounded.
	c, _ := hub.Stats(key)
	for deadline := time.Now().Add(5 * time.Second); c.Frames <= st.Frames && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		c, _ = hub.Stats(key)
	}
	t.Logf("the change: %d frames sent, the viewer decoded %d then %d", c.Frames-st.Frames, after.Frames, got.Frames)
	if c.Frames <= st.Frames {
		t.Errorf("the change sent no frame in 5 s, though the viewer decoded one more (hub before the still window: %d frames, %d keyframes)", a.Frames, a.Keyframes)
	}
}
