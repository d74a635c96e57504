package capture

import (
	"context"
	"errors"
	"hash/maphash"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/x11"
)

// WindowReader reads one window's pixels. *x11.Display is one.
type WindowReader interface {
	Capture(ctx context.Context, id x11.WindowID) (*x11.Capture, error)
}

// WindowOptions configure a Window source. The zero value is usable.
type WindowOptions struct {
	// FPS is the capture rate in frames per second; 0 means 15. It is
	// clamped to 1..60.
	FPS int
	// CaptureTimeout bounds one read of the window; 0 means 1 s. A read
	// in progress is finished (within this bound) even when Next's context
	// ends, so Next returns at most this late.
	CaptureTimeout time.Duration
}

// Window is the Source of one X11 window. A tick on which the window is
// momentarily unreadable (unmapped, off screen, a capture that timed out)
// delivers nothing; a window that is gone ends the stream with window_gone.
type Window struct {
	r       WindowReader
	id      x11.WindowID
	period  time.Duration
	timeout time.Duration
	seed    maphash.Seed

	keyframe atomic.Bool
	closed   chan struct{}
	close    sync.Once

	// Used by Next only (one goroutine at a time).
	ticker     *time.Ticker
	last       uint64 // hash of the last delivered pixels
	lastW      int
	lastH      int
	seq        uint64
	skipped    atomic.Uint64
	unreadable atomic.Uint64
}

// framePeriod is the time between frames at fps frames a second: 0 means
// 15, and the rate is kept within 1 to 60.
func framePeriod(fps int) time.Duration {
	if fps == 0 {
		fps = 15
	}
	return time.Second / time.Duration(min(max(fps, 1), 60))
}

// NewWindow returns a Source of window id read through r. The first Next
// delivers a frame at once.
func NewWindow(r WindowReader, id x11.WindowID, o WindowOptions) *Window {
	to := o.CaptureTimeout
	if to <= 0 {
		to = time.Second
	}
	w := &Window{
		r:       r,
		id:      id,
		period:  framePeriod(o.FPS),
		timeout: to,
		seed:    maphash.MakeSeed(),
		closed:  make(chan struct{}),
	}
	w.keyframe.Store(true) // the first frame is always delivered
	return w
}

// ID is the window this source reads.
func (w *Window) ID() x11.WindowID { return w.id }

// Period is the interval between two captures.
func (w *Window) Period() time.Duration { return w.period }

// Skipped counts the ticks whose pixels had not changed.
func (w *Window) Skipped() uint64 { return w.skipped.Load() }

// Unreadable counts the ticks on which the window could not be read
// (unmapped, off screen, timed out).
func (w *Window) Unreadable() uint64 { return w.unreadable.Load() }

// RequestKeyframe makes the next tick deliver a frame even if unchanged.
func (w *Window) RequestKeyframe() { w.keyframe.Store(true) }

// Close ends the source. It is safe to call more than once.
func (w *Window) Close() error {
	w.close.Do(func() { close(w.closed) })
	return nil
}

// ErrClosed is returned by Next after Close.
var ErrClosed = errors.New("capture: source closed")

// Next waits for the next tick with a changed picture (or a requested
// keyframe) and returns it. The ticker drops ticks while Next is not being
// called, so a slow consumer lowers the rate instead of queueing frames.
func (w *Window) Next(ctx context.Context) (Frame, error) {
	if w.ticker == nil {
		w.ticker = time.NewTicker(w.period)
	} else if err := w.wait(ctx); err != nil {
		return Frame{}, err
	}
	for {
		f, ok, err := w.grab(ctx)
		if err != nil || ok {
			return f, err
		}
		if err := w.wait(ctx); err != nil {
			return Frame{}, err
		}
	}
}

// wait blocks until the next tick.
func (w *Window) wait(ctx context.Context) error {
	select {
	case <-w.ticker.C:
		return nil
	case <-w.closed:
		w.ticker.Stop()
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}

// grab reads the window once. ok is false when the tick delivers nothing.
func (w *Window) grab(ctx context.Context) (Frame, bool, error) {
	select {
	case <-w.closed:
		return Frame{}, false, ErrClosed
	default:
	}
	// The read is bounded by its own timeout but not cut short by ctx: a
	// capture abandoned half-way leaves the reader touching its shared
	// segment after we return (and, on x11, races the display's Close).
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), w.timeout)
	c, err := w.r.Capture(cctx, w.id)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return Frame{}, false, ctx.Err()
		}
		switch target.CodeOf(err) {
		case target.CodeWindowNotVisible, target.CodeTimeout:
			w.unreadable.Add(1)
			return Frame{}, false, nil
		}
		return Frame{}, false, err
	}
	img := c.Image
	wd, ht := img.Rect.Dx(), img.Rect.Dy()
	h := maphash.Bytes(w.seed, img.Pix)
	forced := w.keyframe.Swap(false)
	if !forced && h == w.last && wd == w.lastW && ht == w.lastH {
		w.skipped.Add(1)
		return Frame{}, false, nil
	}
	changed := h != w.last || wd != w.lastW || ht != w.lastH
	w.last, w.lastW, w.lastH = h, wd, ht
	w.seq++
	return Frame{
		Format: FormatRGBA,
		Width:  wd,
		Height: ht,
		Stride: img.Stride,
		Pix:    img.Pix,
		Time:   time.Now(),
		Seq:    w.seq,
		Forced: forced && !changed,
	}, true, nil
}
