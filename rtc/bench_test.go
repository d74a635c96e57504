package rtc_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/pion/rtcp"
	"github.com/pion/webrtc/v4"

	"github.com/vibespace/vibespace/capture"
	"github.com/vibespace/vibespace/rtc"
	"github.com/vibespace/vibespace/testenv"
	"github.com/vibespace/vibespace/x11"
)

// BenchmarkLiveView watches a real window through the whole pipeline
// (MIT-SHM capture at 15 fps → I420 → VP8 or H.264 → pion) into a pion
// receiver, for b.N × 100 ms, and reports what a viewer receives (bytes/s,
// frames/s) and the process CPU per encoded frame, per codec. "still" is
// the fixture app doing nothing; "animated" is gtk3-widget-factory, whose
// spinners and progress bars move. The side-by-side comparison with JPEG
// over WebSocket and agent-browser's stream is rtc/livebench.
func BenchmarkLiveView(b *testing.B) {
	testenv.NeedIntegration(b, "gtk3-widget-factory")
	if !rtc.VP8Available() {
		b.Skip("SKIP: this build has no VP8 encoder")
	}
	d := testenv.SharedDesktop(b)
	cases := []struct {
		name   string
		launch func(ctx context.Context) (*testenv.App, error)
	}{
		{"still-fixture", func(ctx context.Context) (*testenv.App, error) {
			fx, err := testenv.LaunchFixture(ctx, d)
			if err != nil {
				return nil, err
			}
			return fx.App, nil
		}},
		{"animated-widget-factory", func(ctx context.Context) (*testenv.App, error) {
			return d.Launch(ctx, "gtk3-widget-factory")
		}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			ctx, cancel := context.WithTimeout(b.Context(), 5*time.Minute)
			defer cancel()
			app, err := c.launch(ctx)
			if err != nil {
				b.Fatal(err)
			}
			defer app.Stop()
			disp, err := x11.Open(ctx, d.Display)
			if err != nil {
				b.Fatal(err)
			}
			defer disp.Close()
			b.Run("vp8", func(b *testing.B) { benchWatch(b, ctx, disp, app.Window, rtc.Options{NoH264: true}) })
			b.Run("h264", func(b *testing.B) { benchWatch(b, ctx, disp, app.Window, rtc.Options{}) })
		})
	}
}

func benchWatch(b *testing.B, ctx context.Context, disp *x11.Display, win x11.Window, o rtc.Options) {
	hub := rtc.New(o)
	defer hub.Close()
	srv := httptest.NewServer(hub.WHEP(func(*http.Request) (string, rtc.OpenFunc, error) {
		return "win", func(context.Context) (capture.Source, error) {
			return capture.NewWindow(disp, win.ID, capture.WindowOptions{FPS: 15}), nil
		}, nil
	}))
	defer srv.Close()

	pc := pionViewer(b)
	var bytes, frames atomic.Int64
	pc.OnTrack(func(tr *webrtc.TrackRemote, _ *webrtc.RTPReceiver) {
		for {
			p, _, err := tr.ReadRTP()
			if err != nil {
				return
			}
			bytes.Add(int64(p.MarshalSize()))
			if p.Marker {
				frames.Add(1)
			}
		}
	})
	offerTo(b, ctx, pc, srv.URL+"/whep/win")
	// Ask for the first keyframe as a browser would, until pictures come.
	for frames.Load() == 0 {
		for _, r := range pc.GetReceivers() {
			if tr := r.Track(); tr != nil {
				_ = pc.WriteRTCP([]rtcp.Packet{&rtcp.PictureLossIndication{MediaSSRC: uint32(tr.SSRC())}})
			}
		}
		select {
		case <-ctx.Done():
			b.Fatal("no picture arrived")
		case <-time.After(100 * time.Millisecond):
		}
	}

	b.ResetTimer()
	before, _ := hub.Stats("win")
	b0, f0 := bytes.Load(), frames.Load()
	cpu0 := cpuTime()
	start := time.Now()
	select { // the measurement window
	case <-time.After(time.Duration(b.N) * 100 * time.Millisecond):
	case <-ctx.Done():
		b.Fatal(ctx.Err())
	}
	elapsed := time.Since(start).Seconds()
	cpu := (cpuTime() - cpu0).Seconds()
	after, _ := hub.Stats("win")
	b.StopTimer()

	enc := float64(after.Frames - before.Frames)
	b.ReportMetric(float64(bytes.Load()-b0)/elapsed, "bytes/s")
	b.ReportMetric(float64(frames.Load()-f0)/elapsed, "frames/s")
	b.ReportMetric(100*cpu/elapsed, "cpu%")
	if enc > 0 {
		b.ReportMetric(1000*cpu/enc, "cpu-ms/frame")
	}
	b.Logf("%s %s %dx%d: %.0f bytes/s, %.1f frames/s received, %.0f frames encoded, %.0f%% of one core",
		after.Codec, win.Title, win.Geometry.Width, win.Geometry.Height, float64(bytes.Load()-b0)/elapsed,
		float64(frames.Load()-f0)/elapsed, enc, 100*cpu/elapsed)
}

// cpuTime is this process's user + system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
