package rtc

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vibespace/vibespace/capture"
	"github.com/vibespace/vibespace/target"
)

// stillSource delivers one picture, then another only when asked for a
// keyframe (Forced: the same picture again, as a still window's capture
// answers), or fails when told to; it records the rates it is set to.
type stillSource struct {
	mu     sync.Mutex
	fps    []int
	n      int
	ask    chan struct{}
	fail   chan error
	closed atomic.Int32
}

func newStill() *stillSource {
	return &stillSource{ask: make(chan struct{}, 1), fail: make(chan error, 1)}
}

func (s *stillSource) Period() time.Duration { return time.Second / 10 }
func (s *stillSource) RequestKeyframe() {
	select {
	case s.ask <- struct{}{}:
	default:
	}
}
func (s *stillSource) Close() error { s.closed.Add(1); return nil }
func (s *stillSource) SetFPS(fps int) {
	s.mu.Lock()
	s.fps = append(s.fps, fps)
	s.mu.Unlock()
}
func (s *stillSource) lastFPS() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.fps) == 0 {
		return 0
	}
	return s.fps[len(s.fps)-1]
}
func (s *stillSource) Next(ctx context.Context) (capture.Frame, error) {
	if s.n > 0 {
		select {
		case <-s.ask:
		case err := <-s.fail:
			return capture.Frame{}, err
		case <-ctx.Done():
			return capture.Frame{}, ctx.Err()
		}
	}
	s.n++
	pix := make([]byte, 4*8*6)
	return capture.Frame{Format: capture.FormatRGBA, Width: 8, Height: 6, Stride: 32, Pix: pix, Time: time.Now(), Seq: uint64(s.n), Forced: s.n > 1}, nil
}

// TestSharedSource: one source for every tier of a target, opened once;
// its rate follows the highest tier; a thumbnail's keyframe request on a
// still source yields a picture for the subscribers that asked, not for the
// others (they have that picture already); the last one to
// leave closes it; a failing source ends every subscriber with its error.
func TestSharedSource(t *testing.T) {
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	h := New(Options{})
	defer h.Close()
	src := newStill()
	opens := 0
	open := func(context.Context) (capture.Source, error) { opens++; return src, nil }

	thumb, err := h.acquire(ctx, "k", TierThumb, open)
	if err != nil {
		t.Fatal(err)
	}
	if got := src.lastFPS(); got != 2 {
		t.Fatalf("thumbnails only: the source was set to %d fps, want 2", got)
	}
	full, err := h.acquire(ctx, "k", TierFull, open)
	if err != nil {
		t.Fatal(err)
	}
	thumb2, err := h.acquire(ctx, "k", TierThumb, open)
	if err != nil {
		t.Fatal(err)
	}
	if opens != 1 || h.SourceOpens("k") != 1 || h.Sources() != 1 {
		t.Fatalf("three subscribers: %d opens (hub counts %d), %d sources; want 1, 1, 1", opens, h.SourceOpens("k"), h.Sources())
	}
	if got := src.lastFPS(); got != 10 {
		t.Fatalf("with a full viewer the source was set to %d fps, want its own 10", got)
	}
	if thumb.Period() != time.Second/2 || full.Period() != time.Second/10 {
		t.Fatalf("periods: thumb %s, full %s", thumb.Period(), full.Period())
	}
	var seqs [3]uint64
	for i, u := range []*sub{thumb, full, thumb2} {
		f, err := u.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		seqs[i] = f.Seq
	}
	if seqs != [3]uint64{1, 1, 1} {
		t.Fatalf("first pictures %v, want the source's first for each", seqs)
	}
	// The still source delivers nothing more until asked: a thumbnail's
	// request yields the picture again, for it and not for the full tier,
	// whose next picture is the one it asks itself.
	thumb.RequestKeyframe()
	if f, err := thumb.Next(ctx); err != nil || f.Seq != 2 {
		t.Fatalf("after a keyframe request: picture %d (%v), want 2", f.Seq, err)
	}
	quiet, cancelQuiet := context.WithTimeout(ctx, 300*time.Millisecond)
	f, err := full.Next(quiet)
	cancelQuiet()
	if err == nil {
		t.Fatalf("the full tier, which did not ask, was given the still picture %d again", f.Seq)
	}
	full.RequestKeyframe()
	if f, err := full.Next(ctx); err != nil || f.Seq != 3 {
		t.Fatalf("the full tier's own request: picture %d (%v), want 3", f.Seq, err)
	}
	_ = full.Close()
	if got := src.lastFPS(); got != 2 {
		t.Fatalf("the full viewer left: the source is at %d fps, want 2", got)
	}
	// The source fails: every subscriber ends with its error.
	gone := target.Refuse(target.CodeWindowGone, "gone")
	src.fail <- gone
	for _, u := range []*sub{thumb, thumb2} {
		if _, err := u.Next(ctx); target.CodeOf(err) != target.CodeWindowGone {
			t.Fatalf("after the source failed: %v, want window_gone", err)
		}
	}
	if src.closed.Load() != 0 {
		t.Fatal("the source was closed while subscribers remain")
	}
	_ = thumb.Close()
	_ = thumb2.Close()
	if src.closed.Load() != 1 || h.Sources() != 0 {
		t.Fatalf("the last subscriber left: source closed %d times, %d sources open", src.closed.Load(), h.Sources())
	}
	// A new viewer opens the target anew.
	src2 := newStill()
	u, err := h.acquire(ctx, "k", TierFull, func(context.Context) (capture.Source, error) { return src2, nil })
	if err != nil {
		t.Fatal(err)
	}
	if h.SourceOpens("k") != 2 {
		t.Fatalf("opens %d, want 2", h.SourceOpens("k"))
	}
	_ = u.Close()
	if src2.closed.Load() != 1 {
		t.Fatal("second source not closed")
	}
	h.Close()
	for i := 0; runtime.NumGoroutine() > before; i++ {
		if i == 100 {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestThumbScale: a known picture (a horizontal luma ramp, chroma a
// vertical one) scaled to a thumbnail: libyuv's scale (when built in) and
// the pure-Go box filter agree, and both give the ramp's means.
func TestThumbScale(t *testing.T) {
	tw, th, ok := thumbSize(1280, 720, 320)
	if !ok || tw != 320 || th != 180 {
		t.Fatalf("thumbSize(1280, 720) = %d×%d %v", tw, th, ok)
	}
	if tw, th, _ := thumbSize(1000, 333, 320); tw != 320 || th%2 != 0 || th != 108 {
		t.Fatalf("thumbSize(1000, 333) = %d×%d, want 320×108", tw, th)
	}
	if _, _, ok := thumbSize(300, 200, 320); ok {
		t.Fatal("a 300 px picture is scaled")
	}
	var src I420
	src.sizePlanes(1280, 720)
	for y := range 720 {
		for x := range 1280 {
			src.Y[y*1280+x] = byte(x / 5) // 0..255
		}
	}
	for y := range 360 {
		for x := range 640 {
			src.U[y*640+x] = byte(16 + y/2)
			src.V[y*640+x] = 128
		}
	}
	var a, b I420
	a.Width, a.Height = tw, th
	b.Width, b.Height = tw, th
	if err := scaleI420(&a, &src); err != nil {
		t.Fatal(err)
	}
	scaleI420Go(&b, &src)
	for _, c := range []struct {
		name   string
		pa, pb []byte
		w, h   int
		want   func(x, y int) int
	}{
		{"Y", a.Y, b.Y, 320, 180, func(x, y int) int { // the mean of sx/5 over the 4 columns it covers
			sum := 0
			for sx := 4 * x; sx < 4*x+4; sx++ {
				sum += sx / 5
			}
			return (sum + 2) / 4
		}},
		{"U", a.U, b.U, 160, 90, func(x, y int) int { return 16 + (4*y+1)/2 }},
		{"V", a.V, b.V, 160, 90, func(x, y int) int { return 128 }},
	} {
		for y := range c.h {
			for x := range c.w {
				va, vb := int(c.pa[y*c.w+x]), int(c.pb[y*c.w+x])
				want := c.want(x, y)
				if d := va - vb; d > 2 || d < -2 {
					t.Fatalf("%s(%d,%d): libyuv %d, Go %d", c.name, x, y, va, vb)
				}
				if d := vb - want; d > 2 || d < -2 {
					t.Fatalf("%s(%d,%d): Go %d, want about %d", c.name, x, y, vb, want)
				}
			}
		}
	}
}

// BenchmarkThumbScale is the thumbnail's downscale of a 1280×720 picture:
// libyuv when built in (scaleI420) against the pure-Go box filter.
func BenchmarkThumbScale(b *testing.B) {
	var src I420
	src.sizePlanes(1280, 720)
	for i := range src.Y {
		src.Y[i] = byte(i)
	}
	for _, c := range []struct {
		name  string
		scale func(dst, src *I420)
	}{
		{"scaleI420", func(d, s *I420) { _ = scaleI420(d, s) }},
		{"Go", scaleI420Go},
	} {
		b.Run(c.name, func(b *testing.B) {
			dst := I420{Width: 320, Height: 180}
			for b.Loop() {
				c.scale(&dst, &src)
			}
		})
	}
}
