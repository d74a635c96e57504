package firefox_test

import (
	"context"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon/kind"
)

// BenchmarkLiveFrames is the rate the live view's source of a Firefox tab
// gives (capture.Shots over browsingContext.captureScreenshot, JPEG, asked
// for 30 a second) on a page that changes on every animation frame, and
// the time from one delivered frame to the next, decode included.
func BenchmarkLiveFrames(b *testing.B) {
	ctx, cancel := context.WithTimeout(b.Context(), 5*time.Minute)
	defer cancel()
	s := newSite(b, map[string]string{"/anim": `<title>Anim</title><body style="margin:0">
<div id=d style="font:80px sans-serif">0</div>
<script>let n = 0; const d = document.getElementById("d");
(function tick() { d.textContent = ++n; d.style.background = n % 2 ? "#fff" : "#000"; requestAnimationFrame(tick); })();</script>`})
	tab := newTab(b, ctx)
	if err := tab.Navigate(ctx, s.URL+"/anim"); err != nil {
		b.Fatal(err)
	}
	src, err := tab.Frames(ctx, kind.FrameOptions{FPS: 30})
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	if _, err := src.Next(ctx); err != nil { // the first picture, untimed
		b.Fatal(err)
	}
	start, frames := time.Now(), 0
	for b.Loop() {
		if _, err := src.Next(ctx); err != nil {
			b.Fatal(err)
		}
		frames++
	}
	b.ReportMetric(float64(frames)/time.Since(start).Seconds(), "frames/s")
}
