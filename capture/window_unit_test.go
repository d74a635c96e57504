package capture_test

import (
	"context"
	"errors"
	"image"
	"sync"
	"testing"
	"time"

	"github.com/vibespace/vibespace/capture"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/x11"
)

// fakeReader serves a settable picture, or an error.
type fakeReader struct {
	mu    sync.Mutex
	img   *image.RGBA
	err   error
	reads int
}

func (f *fakeReader) set(img *image.RGBA, err error) {
	f.mu.Lock()
	f.img, f.err = img, err
	f.mu.Unlock()
}

func (f *fakeReader) Capture(ctx context.Context, id x11.WindowID) (*x11.Capture, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	if f.err != nil {
		return nil, f.err
	}
	cp := image.NewRGBA(f.img.Rect)
	copy(cp.Pix, f.img.Pix)
	return &x11.Capture{Image: cp, Window: id}, nil
}

func solid(w, h int, v byte) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = v
	}
	return img
}

// nextAsync runs src.Next in a goroutine.
func nextAsync(ctx context.Context, src capture.Source) <-chan result {
	ch := make(chan result, 1)
	go func() {
		f, err := src.Next(ctx)
		ch <- result{f, err}
	}()
	return ch
}

type result struct {
	f   capture.Frame
	err error
}

// waitFor polls cond until it holds or ctx ends.
func waitFor(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("gave up waiting for %s: %v", what, ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func TestWindowSkipsUnchangedAndAnswersKeyframe(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	fr := &fakeReader{}
	fr.set(solid(30, 20, 7), nil)
	src := capture.NewWindow(fr, 0x42, capture.WindowOptions{FPS: 60})
	defer src.Close()

	f, err := src.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if f.Width != 30 || f.Height != 20 || f.Format != capture.FormatRGBA || f.Seq != 1 || f.Forced {
		t.Fatalf("first frame: %+v", f)
	}

	// Unchanged: Next keeps waiting while ticks are skipped.
	ch := nextAsync(ctx, src)
	waitFor(t, ctx, "three skipped ticks", func() bool { return src.Skipped() >= 3 })
	select {
	case r := <-ch:
		t.Fatalf("an unchanged picture was delivered: %+v %v", r.f, r.err)
	default:
	}
	// A keyframe request is answered with the unchanged picture.
	src.RequestKeyframe()
	r := <-ch
	if r.err != nil || !r.f.Forced || r.f.Seq != 2 {
		t.Fatalf("keyframe request: %+v %v", r.f, r.err)
	}

	// A change is delivered, not forced; a new size too.
	fr.set(solid(30, 20, 9), nil)
	if f, err = src.Next(ctx); err != nil || f.Forced || f.Pix[0] != 9 {
		t.Fatalf("changed picture: %+v %v", f, err)
	}
	fr.set(solid(31, 21, 9), nil)
	if f, err = src.Next(ctx); err != nil || f.Width != 31 || f.Height != 21 {
		t.Fatalf("resized picture: %+v %v", f, err)
	}
}

func TestWindowUnreadableThenGone(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	fr := &fakeReader{}
	fr.set(nil, target.Refuse(target.CodeWindowNotVisible, "unmapped"))
	src := capture.NewWindow(fr, 0x42, capture.WindowOptions{FPS: 60})
	defer src.Close()

	ch := nextAsync(ctx, src)
	waitFor(t, ctx, "unreadable ticks", func() bool { return src.Unreadable() >= 2 })
	fr.set(nil, target.Refuse(target.CodeWindowGone, "gone"))
	r := <-ch
	if target.CodeOf(r.err) != target.CodeWindowGone {
		t.Fatalf("want window_gone, got %v", r.err)
	}
}

func TestWindowClose(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	fr := &fakeReader{}
	fr.set(solid(4, 4, 1), nil)
	src := capture.NewWindow(fr, 0x42, capture.WindowOptions{FPS: 30})
	if _, err := src.Next(ctx); err != nil {
		t.Fatal(err)
	}
	ch := nextAsync(ctx, src)
	src.Close()
	if r := <-ch; !errors.Is(r.err, capture.ErrClosed) {
		t.Fatalf("after Close: %v", r.err)
	}
	if _, err := src.Next(ctx); !errors.Is(err, capture.ErrClosed) {
		t.Fatalf("Next after Close: %v", err)
	}
}

// fakeDamage is a damage road for fakeReader: signal fires C.
type fakeDamage struct {
	c      chan struct{}
	closed chan struct{}
}

func (g *fakeDamage) C() <-chan struct{} { return g.c }
func (g *fakeDamage) Close() error {
	select {
	case <-g.closed:
	default:
		close(g.closed)
	}
	return nil
}
func (g *fakeDamage) signal() {
	select {
	case g.c <- struct{}{}:
	default:
	}
}

type damagedReader struct {
	fakeReader
	g *fakeDamage
}

func (r *damagedReader) WatchDamage(ctx context.Context, id x11.WindowID) (capture.Damage, error) {
	return r.g, nil
}

func (r *damagedReader) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reads
}

// TestWindowWaitsForDamage: with a damage road, Next reads nothing until a
// signal or a keyframe request; a signal whose read finds the same pixels
// delivers nothing; Close ends the watch.
func TestWindowWaitsForDamage(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	fr := &damagedReader{g: &fakeDamage{c: make(chan struct{}, 1), closed: make(chan struct{})}}
	fr.set(solid(8, 8, 1), nil)
	src := capture.NewWindow(fr, 0x42, capture.WindowOptions{FPS: 60})
	if _, err := src.Next(ctx); err != nil {
		t.Fatal(err)
	}
	if !src.Damaged() || src.DamageError() != nil {
		t.Fatalf("not damage-driven: %v", src.DamageError())
	}
	ch := nextAsync(ctx, src)
	// A signal with unchanged pixels: one read, skipped, nothing delivered.
	fr.g.signal()
	waitFor(t, ctx, "the signalled read", func() bool { return src.Skipped() == 1 })
	if n := fr.count(); n != 2 || src.Captures() != 2 {
		t.Fatalf("reads %d (Captures %d), want 2", n, src.Captures())
	}
	select {
	case r := <-ch:
		t.Fatalf("unchanged pixels delivered: %+v %v", r.f, r.err)
	default:
	}
	src.RequestKeyframe()
	if r := <-ch; r.err != nil || !r.f.Forced {
		t.Fatalf("keyframe: %+v %v", r.f, r.err)
	}
	fr.set(solid(8, 8, 2), nil)
	fr.g.signal()
	if f, err := src.Next(ctx); err != nil || f.Pix[0] != 2 || f.Forced {
		t.Fatalf("damaged: %+v %v", f, err)
	}
	if n := src.Captures(); n != 4 {
		t.Errorf("Captures %d, want 4 (first, skipped, keyframe, damage)", n)
	}
	src.Close()
	select {
	case <-fr.g.closed:
	default:
		t.Error("Close left the damage watch open")
	}
}

// TestWindowSetFPS: SetFPS changes Period, clamped as FPS is; ticking at
// 60 fps a change of rate takes effect at the next wait (counted: frames
// keep coming).
func TestWindowSetFPS(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	fr := &fakeReader{}
	fr.set(solid(4, 4, 1), nil)
	src := capture.NewWindow(fr, 0x42, capture.WindowOptions{FPS: 60})
	defer src.Close()
	if p := src.Period(); p != time.Second/60 {
		t.Fatalf("period %v", p)
	}
	if src.DamageError() != nil || src.Damaged() {
		t.Fatal("damage state before the first Next")
	}
	if _, err := src.Next(ctx); err != nil {
		t.Fatal(err)
	}
	if src.Damaged() || src.DamageError() == nil {
		t.Fatal("a reader without a damage road is not said to tick")
	}
	for _, c := range []struct {
		fps  int
		want time.Duration
	}{{2, time.Second / 2}, {0, time.Second / 15}, {1000, time.Second / 60}, {-3, time.Second}, {30, time.Second / 30}} {
		src.SetFPS(c.fps)
		if p := src.Period(); p != c.want {
			t.Errorf("SetFPS(%d): period %v, want %v", c.fps, p, c.want)
		}
	}
	for i := range 3 { // frames still come at the new rate
		src.RequestKeyframe()
		if f, err := src.Next(ctx); err != nil || !f.Forced {
			t.Fatalf("frame %d at 30 fps: %+v %v", i, f, err)
		}
	}
}

// bgrxReader is a fakeReader that also hands its pixels over unconverted:
// its B, G, R, X bytes are the picture's R, G, B swapped.
type bgrxReader struct {
	*fakeReader
	bgrxReads int
}

func (b *bgrxReader) CaptureBGRX(ctx context.Context, id x11.WindowID) (*x11.Capture, error) {
	c, err := b.Capture(ctx, id)
	if err != nil {
		return nil, err
	}
	b.bgrxReads++
	px := c.Image.Pix
	for i := 0; i < len(px); i += 4 {
		px[i], px[i+2] = px[i+2], px[i]
	}
	r := c.Image.Rect
	return &x11.Capture{BGRX: px, Window: id, Area: x11.Geometry{Width: r.Dx(), Height: r.Dy()}}, nil
}

// TestWindowReadsBGRX: a reader that can hand its pixels over unconverted
// is read that way, and the frames say so (FormatBGRX, rows of 4×width).
func TestWindowReadsBGRX(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	img := image.NewRGBA(image.Rect(0, 0, 6, 4))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = 10, 20, 30, 255
	}
	br := &bgrxReader{fakeReader: &fakeReader{}}
	br.set(img, nil)
	src := capture.NewWindow(br, 1, capture.WindowOptions{FPS: 60})
	defer src.Close()
	f, err := src.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if br.bgrxReads != 1 || f.Format != capture.FormatBGRX || f.Width != 6 || f.Height != 4 || f.Stride != 24 || len(f.Pix) != 96 {
		t.Fatalf("%d BGRX reads; frame %v %dx%d stride %d, %d bytes; want 1, FormatBGRX 6x4 stride 24, 96 bytes",
			br.bgrxReads, f.Format, f.Width, f.Height, f.Stride, len(f.Pix))
	}
	if f.Pix[0] != 30 || f.Pix[1] != 20 || f.Pix[2] != 10 {
		t.Fatalf("first pixel %v, want B G R = 30 20 10", f.Pix[:4])
	}
	// A plain reader's frames stay RGBA.
	plain := capture.NewWindow(br.fakeReader, 1, capture.WindowOptions{FPS: 60})
	defer plain.Close()
	if f, err = plain.Next(ctx); err != nil || f.Format != capture.FormatRGBA || f.Pix[0] != 10 {
		t.Fatalf("plain reader: %v %v %v", f.Format, f.Pix[:4], err)
	}
}

// TestWindowCrop: a source with a Crop delivers that part of the window
// only, its pixels in place (the window's stride), and a change outside
// that part is no change: nothing is delivered until the part changes.
func TestWindowCrop(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	// A 10×8 window: rows 0–2 the browser's bar (value 1), the rest the
	// page (value 2), its pixel at (4,5) marked 3.
	paint := func(bar, page byte) *image.RGBA {
		img := solid(10, 8, page)
		for y := 0; y < 3; y++ {
			for x := 0; x < 10; x++ {
				img.Pix[y*img.Stride+4*x] = bar
			}
		}
		img.Pix[5*img.Stride+4*4] = 3
		return img
	}
	fr := &fakeReader{}
	fr.set(paint(1, 2), nil)
	src := capture.NewWindow(fr, 0x42, capture.WindowOptions{FPS: 60, Crop: image.Rect(2, 3, 10, 8)})
	defer src.Close()
	f, err := src.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if f.Width != 8 || f.Height != 5 || f.Stride != 40 {
		t.Fatalf("frame %dx%d stride %d; want 8x5 stride 40", f.Width, f.Height, f.Stride)
	}
	if got := f.Pix[0]; got != 2 {
		t.Fatalf("the part's first pixel is %d, want the page's 2", got)
	}
	if got := f.Pix[2*f.Stride+4*2]; got != 3 {
		t.Fatalf("the part's pixel (2,2), the window's (4,5), is %d, want the mark 3", got)
	}
	if need := f.Stride*(f.Height-1) + 4*f.Width; len(f.Pix) < need {
		t.Fatalf("%d bytes of pixels, the part needs %d", len(f.Pix), need)
	}
	// The bar changes: nothing is delivered.
	fr.set(paint(9, 2), nil)
	ch := nextAsync(ctx, src)
	waitFor(t, ctx, "three skipped ticks", func() bool { return src.Skipped() >= 3 })
	select {
	case r := <-ch:
		t.Fatalf("a change of the bar alone was delivered: %+v %v", r.f, r.err)
	default:
	}
	// The page changes: delivered.
	fr.set(paint(9, 4), nil)
	r := <-ch
	if r.err != nil || r.f.Forced || r.f.Pix[0] != 4 {
		t.Fatalf("the page's change: %+v %v", r.f, r.err)
	}
	// A window smaller than where the part begins delivers nothing.
	fr.set(solid(2, 2, 5), nil)
	ch = nextAsync(ctx, src)
	waitFor(t, ctx, "an unreadable tick", func() bool { return src.Unreadable() >= 1 })
	select {
	case r := <-ch:
		t.Fatalf("a window without the part delivered %+v %v", r.f, r.err)
	default:
	}
	src.Close()
	if r := <-ch; !errors.Is(r.err, capture.ErrClosed) {
		t.Fatalf("after Close: %v", r.err)
	}
}
