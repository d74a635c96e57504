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
