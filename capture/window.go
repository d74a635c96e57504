package capture

import (
	"context"
	"errors"
	"hash/maphash"
	"image"
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

// BGRXReader is a WindowReader that can also hand a window's pixels over
// as the server lays them out, B, G, R, X (*x11.Display's CaptureBGRX):
// a Window reading through one delivers FormatBGRX frames, which cost a
// copy where RGBA costs a conversion of every pixel.
type BGRXReader interface {
	CaptureBGRX(ctx context.Context, id x11.WindowID) (*x11.Capture, error)
}

// DamageWatcher is a WindowReader that can also say when a window's pixels
// changed. *x11.Display is one (through an adapter: its WatchDamage returns
// *x11.Damage).
type DamageWatcher interface {
	WatchDamage(ctx context.Context, id x11.WindowID) (Damage, error)
}

// Damage signals on C when the watched window's pixels changed (and once
// more when the watch ends); Close ends the watch.
type Damage interface {
	C() <-chan struct{}
	Close() error
}

// x11Damage is *x11.Display's WatchDamage.
type x11Damage interface {
	WatchDamage(ctx context.Context, id x11.WindowID) (*x11.Damage, error)
}

type x11DamageAdapter struct{ x x11Damage }

func (a x11DamageAdapter) WatchDamage(ctx context.Context, id x11.WindowID) (Damage, error) {
	g, err := a.x.WatchDamage(ctx, id)
	if err != nil {
		return nil, err
	}
	return g, nil
}

// damageWatcherOf is r's damage road, or nil.
func damageWatcherOf(r WindowReader) DamageWatcher {
	switch v := r.(type) {
	case DamageWatcher:
		return v
	case x11Damage:
		return x11DamageAdapter{v}
	}
	return nil
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
	// Crop, when not empty, is the part of the window delivered, in the
	// window's pixels (from the top left of what was read: the window's
	// own corner while it lies wholly on the screen), cut down to what was
	// read. A headed browser's tab is its window less the browser's own
	// bar above the page. Whether the pixels changed is judged on that
	// part alone. The frame shares the read's pixels (no copy): Stride is
	// the window's row.
	Crop image.Rectangle
}

// Window is the Source of one X11 window. A tick on which the window is
// momentarily unreadable (unmapped, off screen, a capture that timed out)
// delivers nothing; a window that is gone ends the stream with window_gone.
//
// When its reader can watch the window's damage (DamageWatcher, or
// *x11.Display), Next reads the window only after the X server said its
// pixels changed, or a keyframe was asked for, at most once a period: a
// still window costs no read at all. Otherwise (or when the watch could
// not be made: DamageError says why) it reads on every tick.
type Window struct {
	r       WindowReader
	id      x11.WindowID
	crop    image.Rectangle
	period  atomic.Int64 // time.Duration
	timeout time.Duration
	seed    maphash.Seed

	keyframe atomic.Bool
	kfc      chan struct{} // wakes a Next waiting for damage
	closed   chan struct{}
	close    sync.Once

	captures atomic.Uint64
	dmgMu    sync.Mutex
	dmgErr   error
	dmgOn    atomic.Bool
	dmgC     Damage // the watch, for Close (guarded by dmgMu)
	isClosed bool   // guarded by dmgMu

	// Used by Next only (one goroutine at a time).
	started    bool
	dmg        Damage
	lastRead   time.Time
	ticker     *time.Ticker
	tickPeriod time.Duration
	retry      bool   // the last read failed for now: try again next period
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
		crop:    o.Crop,
		timeout: to,
		seed:    maphash.MakeSeed(),
		kfc:     make(chan struct{}, 1),
		closed:  make(chan struct{}),
	}
	w.period.Store(int64(framePeriod(o.FPS)))
	w.keyframe.Store(true) // the first frame is always delivered
	return w
}

// ID is the window this source reads.
func (w *Window) ID() x11.WindowID { return w.id }

// Period is the (shortest) interval between two captures.
func (w *Window) Period() time.Duration { return time.Duration(w.period.Load()) }

// SetFPS sets the capture rate (0 means 15; clamped to 1..60) from the next
// wait on. It is safe from any goroutine.
func (w *Window) SetFPS(fps int) { w.period.Store(int64(framePeriod(fps))) }

// Captures counts the reads of the window made.
func (w *Window) Captures() uint64 { return w.captures.Load() }

// Damaged reports whether Next waits for damage (rather than ticking).
func (w *Window) Damaged() bool { return w.dmgOn.Load() }

// DamageError is why Next ticks instead of waiting for damage: the reader
// has no damage road, or the watch failed. Nil while damage-driven (or
// before the first Next).
func (w *Window) DamageError() error {
	w.dmgMu.Lock()
	defer w.dmgMu.Unlock()
	return w.dmgErr
}

// errNoDamage is DamageError of a reader without a damage road.
var errNoDamage = errors.New("capture: the reader cannot watch damage")

// Skipped counts the ticks whose pixels had not changed.
func (w *Window) Skipped() uint64 { return w.skipped.Load() }

// Unreadable counts the ticks on which the window could not be read
// (unmapped, off screen, timed out).
func (w *Window) Unreadable() uint64 { return w.unreadable.Load() }

// RequestKeyframe makes the next capture deliver a frame even if
// unchanged, and wakes a Next waiting for damage.
func (w *Window) RequestKeyframe() {
	w.keyframe.Store(true)
	select {
	case w.kfc <- struct{}{}:
	default:
	}
}

// Close ends the source. It is safe to call more than once.
func (w *Window) Close() error {
	w.close.Do(func() {
		close(w.closed)
		w.dmgMu.Lock()
		w.isClosed = true
		g := w.dmgC
		w.dmgMu.Unlock()
		if g != nil {
			g.Close()
		}
	})
	return nil
}

// ErrClosed is returned by Next after Close.
var ErrClosed = errors.New("capture: source closed")

// Next waits for the next tick with a changed picture (or a requested
// keyframe) and returns it. The ticker drops ticks while Next is not being
// called, so a slow consumer lowers the rate instead of queueing frames.
func (w *Window) Next(ctx context.Context) (Frame, error) {
	if !w.started {
		w.started = true
		w.startDamage(ctx)
		w.ticker = time.NewTicker(w.Period())
		w.tickPeriod = w.Period()
	} else if err := w.wait(ctx, false); err != nil {
		return Frame{}, err
	}
	for {
		f, ok, err := w.grab(ctx)
		if err != nil || ok {
			return f, err
		}
		// A window that could not be read (unmapped, off screen) is
		// tried again next period, damage or not.
		if err := w.wait(ctx, w.retry); err != nil {
			return Frame{}, err
		}
	}
}

// startDamage makes the damage watch, or records why there is none.
func (w *Window) startDamage(ctx context.Context) {
	dw := damageWatcherOf(w.r)
	var err error
	if dw == nil {
		err = errNoDamage
	} else {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), w.timeout)
		w.dmg, err = dw.WatchDamage(cctx, w.id)
		cancel()
	}
	w.dmgMu.Lock()
	w.dmgErr = err
	if err == nil {
		w.dmgC = w.dmg
	}
	closed := w.isClosed
	w.dmgMu.Unlock()
	if closed && err == nil {
		w.dmg.Close()
	}
	w.dmgOn.Store(err == nil)
}

// wait blocks until the next capture is due: the next tick without damage;
// with damage, a change or a keyframe request (or, if retry, the next
// period), and no sooner than a period after the last read.
func (w *Window) wait(ctx context.Context, retry bool) error {
	if w.dmg == nil {
		if p := w.Period(); p != w.tickPeriod {
			w.ticker.Reset(p)
			w.tickPeriod = p
		}
		select {
		case <-w.ticker.C:
			return nil
		case <-w.closed:
			return w.stop()
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if !retry {
		select {
		case <-w.dmg.C():
		case <-w.kfc:
		case <-w.closed:
			return w.stop()
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if d := time.Until(w.lastRead.Add(w.Period())); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-w.closed:
			return w.stop()
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// stop releases the ticker once closed (Close ends the damage watch).
func (w *Window) stop() error {
	w.ticker.Stop()
	return ErrClosed
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
	w.retry = false
	select { // this read answers any keyframe request made so far
	case <-w.kfc:
	default:
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), w.timeout)
	w.lastRead = time.Now()
	w.captures.Add(1)
	var c *x11.Capture
	var err error
	if br, ok := w.r.(BGRXReader); ok {
		c, err = br.CaptureBGRX(cctx, w.id)
	} else {
		c, err = w.r.Capture(cctx, w.id)
	}
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return Frame{}, false, ctx.Err()
		}
		switch target.CodeOf(err) {
		case target.CodeWindowNotVisible, target.CodeTimeout:
			w.unreadable.Add(1)
			w.retry = true
			return Frame{}, false, nil
		}
		return Frame{}, false, err
	}
	format, pix, stride, wd, ht := FormatBGRX, c.BGRX, 4*c.Area.Width, c.Area.Width, c.Area.Height
	if pix == nil {
		img := c.Image
		format, pix, stride, wd, ht = FormatRGBA, img.Pix, img.Stride, img.Rect.Dx(), img.Rect.Dy()
	}
	if !w.crop.Empty() {
		pix, wd, ht = cropPix(pix, stride, w.crop.Intersect(image.Rect(0, 0, wd, ht)))
		if pix == nil { // the window is smaller than where the part begins
			w.unreadable.Add(1)
			w.retry = true
			return Frame{}, false, nil
		}
	}
	h := maphash.Bytes(w.seed, pix)
	forced := w.keyframe.Swap(false)
	if !forced && h == w.last && wd == w.lastW && ht == w.lastH {
		w.skipped.Add(1)
		return Frame{}, false, nil
	}
	changed := h != w.last || wd != w.lastW || ht != w.lastH
	w.last, w.lastW, w.lastH = h, wd, ht
	w.seq++
	return Frame{
		Format: format,
		Width:  wd,
		Height: ht,
		Stride: stride,
		Pix:    pix,
		Time:   time.Now(),
		Seq:    w.seq,
		Forced: forced && !changed,
	}, true, nil
}

// cropPix is the part r of pixels of 4 bytes rows of stride bytes, sharing
// them: from r's first pixel to its last, rows still stride bytes apart.
// An empty r is no pixels.
func cropPix(pix []byte, stride int, r image.Rectangle) ([]byte, int, int) {
	if r.Empty() {
		return nil, 0, 0
	}
	start := r.Min.Y*stride + 4*r.Min.X
	end := (r.Max.Y-1)*stride + 4*r.Max.X
	return pix[start:end:end], r.Dx(), r.Dy()
}
