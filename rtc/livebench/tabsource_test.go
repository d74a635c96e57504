package livebench

import (
	"context"
	"image"
	"testing"
	"time"

	"github.com/vibespace/vibespace/capture"
	"github.com/vibespace/vibespace/testenv"
)

// BenchmarkTabSource splits where a tab pane's frame spends its time
// before the encoder, on the heavy page: from the page's paint (the
// timestamp its cells carry) to the screencast picture's arrival over CDP
// (the browser's render, capture and JPEG encode, and the pipe), and from
// its arrival to capture.Tab delivering it decoded (our decode). It reads
// the source alone, as fast as it delivers, with no encoder or viewer.
func BenchmarkTabSource(b *testing.B) {
	testenv.NeedIntegration(b, "chromium")
	ctx, cancel := context.WithTimeout(b.Context(), 5*time.Minute)
	defer cancel()
	srv := newServer(b)
	_, tab := openContentTab(b, ctx, srv.URL+"/content.html")
	src, err := capture.NewTab(tab, capture.TabOptions{FPS: captureFPS})
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	var (
		mark     image.Point
		haveMark bool
		arrive   []float64 // paint → arrival, ms
		decode   []float64 // arrival → delivered, ms
		n        int
	)
	measureFor := 8 * time.Second
	warm := time.Now().Add(2 * time.Second)
	var start time.Time
	for {
		f, err := src.Next(ctx)
		if err != nil {
			b.Fatal(err)
		}
		now := time.Now()
		if now.Before(warm) {
			continue
		}
		if start.IsZero() {
			start = now
		}
		if now.Sub(start) > measureFor {
			break
		}
		n++
		if !haveMark {
			img := &image.RGBA{Pix: f.Pix, Stride: f.Stride, Rect: image.Rect(0, 0, f.Width, f.Height)}
			if mark, haveMark = findMarker(img); !haveMark {
				continue
			}
		}
		if ts, ok := decodeCells(f, mark); ok {
			arrive = append(arrive, float64(ms(f.Time)-ts))
			decode = append(decode, float64(now.Sub(f.Time))/1e6)
		}
	}
	el := time.Since(start).Seconds()
	b.ReportMetric(float64(n)/el, "frames/s")
	b.ReportMetric(pct(arrive, 50), "paint-to-arrival-p50-ms")
	b.ReportMetric(pct(decode, 50), "arrival-to-delivered-p50-ms")
	b.Logf("%d frames in %.1f s, %d stamped; paint → arrival p50 %.0f p90 %.0f ms; arrival → delivered p50 %.1f p90 %.1f ms; %d skipped unchanged",
		n, el, len(arrive), pct(arrive, 50), pct(arrive, 90), pct(decode, 50), pct(decode, 90), src.Skipped())
}
