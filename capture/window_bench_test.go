package capture_test

import (
	"context"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jezek/xgb"

	"github.com/vibespace/vibespace/capture"
	"github.com/vibespace/vibespace/testenv"
	"github.com/vibespace/vibespace/x11"
)

// captureOnly hides the display's damage road: the source ticks.
type captureOnly struct{ d *x11.Display }

func (c captureOnly) Capture(ctx context.Context, id x11.WindowID) (*x11.Capture, error) {
	return c.d.Capture(ctx, id)
}

// BenchmarkStaticWindows: four still windows (80x60) read at 15 fps, each
// op one second of all four, ticking and damage-driven; cpu-ms/s is the
// process's CPU time (user + system, getrusage) per second, reads/s the
// captures made.
//
//	VIBESPACE_INTEGRATION=1 go test -run '^$' -bench StaticWindows -benchtime 10x ./capture/
func BenchmarkStaticWindows(b *testing.B) {
	d := testenv.NewDesktop(b)
	ctx := b.Context()
	disp, err := x11.Open(ctx, d.Display)
	if err != nil {
		b.Fatal(err)
	}
	defer disp.Close()
	if err := disp.KeepOwnPixels(ctx); err != nil {
		b.Fatal(err)
	}
	c, err := xgb.NewConnDisplay(d.Display)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	var ids []x11.WindowID
	for i := range 4 {
		w := newOwnWindow(b, c, 20+100*i, 20)
		w.paint(0x102030 * uint32(i+1))
		ids = append(ids, x11.WindowID(w.id))
	}
	for _, mode := range []string{"tick", "damage"} {
		b.Run(mode, func(b *testing.B) {
			var r capture.WindowReader = disp
			if mode == "tick" {
				r = captureOnly{disp}
			}
			srcs := make([]*capture.Window, len(ids))
			for i, id := range ids {
				srcs[i] = capture.NewWindow(r, id, capture.WindowOptions{FPS: 15})
				if _, err := srcs[i].Next(ctx); err != nil {
					b.Fatal(err)
				}
			}
			before := cpu()
			b.ResetTimer()
			for range b.N {
				run, cancel := context.WithTimeout(ctx, time.Second)
				var wg sync.WaitGroup
				for _, s := range srcs {
					wg.Go(func() {
						for {
							if _, err := s.Next(run); err != nil {
								return
							}
						}
					})
				}
				wg.Wait()
				cancel()
			}
			b.StopTimer()
			used := cpu() - before
			var reads uint64
			for _, s := range srcs {
				reads += s.Captures() - 1
				s.Close()
			}
			b.ReportMetric(float64(used.Milliseconds())/float64(b.N), "cpu-ms/s")
			b.ReportMetric(float64(reads)/float64(b.N), "reads/s")
		})
	}
}

func cpu() time.Duration {
	var u syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &u)
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
