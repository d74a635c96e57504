package capture

import (
	"bytes"
	"context"
	"fmt"
	"hash/maphash"
	"image"
	"image/draw"
	"image/png"
	"sync"
	"time"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/target"
)

// TabScreencaster starts a screencast of one browser tab. *cdp.Tab is one.
type TabScreencaster interface {
	ID() string
	StartScreencast(ctx context.Context, o cdp.ScreencastOptions) (*cdp.Screencast, error)
}

// TabOptions configure a Tab source. The zero value is usable.
type TabOptions struct {
	// FPS is the highest delivery rate in frames per second; 0 means 15.
	// It is clamped to 1..60.
	FPS int
	// Format is the screencast's picture format: "jpeg" (the default:
	// cheaper to decode) or "png" (lossless).
	Format string
	// Quality is the JPEG quality, 1..100; 0 means 85.
	Quality int
	// MaxWidth and MaxHeight bound the pictures' size; 0 means the
	// viewport's.
	MaxWidth, MaxHeight int
	// EveryNthFrame has the browser send one compositor frame in n; 0
	// means every one.
	EveryNthFrame int
	// CallTimeout bounds starting and stopping the screencast and each
	// acknowledgement; 0 means 5 s.
	CallTimeout time.Duration
}

// Tab is the Source of one browser tab, read through a CDP screencast
// (Page.startScreencast). The browser sends a picture only when the page
// changes; a picture whose bytes equal the last delivered one is skipped
// too. A keyframe request re-delivers the last picture when nothing new
// came, so a still page still answers. A tab that closes ends the stream
// with tab_gone.
type Tab struct {
	id      string
	sc      *cdp.Screencast
	period  time.Duration
	timeout time.Duration
	seed    maphash.Seed

	kick      chan struct{} // a keyframe was requested
	closed    chan struct{}
	closeOnce sync.Once

	// Used by Next only (one goroutine at a time).
	started     bool
	lastAt      time.Time // when the picture of the last delivered frame was taken
	last        Frame     // the last delivered frame (its Pix is never written)
	lastHash    uint64
	seq         uint64
	skipped     uint64
	undecodable uint64
}

// NewTab starts a screencast of t and returns its Source. Starting is
// bounded by o.CallTimeout; a tab that is gone is tab_gone.
func NewTab(t TabScreencaster, o TabOptions) (*Tab, error) {
	to := o.CallTimeout
	if to <= 0 {
		to = 5 * time.Second
	}
	q := o.Quality
	if q <= 0 {
		q = 85
	}
	ctx, cancel := context.WithTimeout(context.Background(), to)
	defer cancel()
	sc, err := t.StartScreencast(ctx, cdp.ScreencastOptions{
		Format: o.Format, Quality: q, MaxWidth: o.MaxWidth, MaxHeight: o.MaxHeight,
		EveryNthFrame: o.EveryNthFrame, CallTimeout: to,
	})
	if err != nil {
		return nil, err
	}
	return &Tab{
		id:      t.ID(),
		sc:      sc,
		period:  framePeriod(o.FPS),
		timeout: to,
		seed:    maphash.MakeSeed(),
		kick:    make(chan struct{}, 1),
		closed:  make(chan struct{}),
	}, nil
}

// ID is the CDP target id of the tab.
func (t *Tab) ID() string { return t.id }

// Period is the shortest interval between two delivered frames.
func (t *Tab) Period() time.Duration { return t.period }

// Skipped counts the pictures that were dropped because their bytes had
// not changed (read it from the goroutine calling Next).
func (t *Tab) Skipped() uint64 { return t.skipped }

// Undecodable counts the pictures that could not be decoded (read it from
// the goroutine calling Next).
func (t *Tab) Undecodable() uint64 { return t.undecodable }

// RequestKeyframe makes the next due frame be delivered even if the page
// did not change: the last picture is delivered again.
func (t *Tab) RequestKeyframe() {
	select {
	case t.kick <- struct{}{}:
	default:
	}
}

// Close stops the screencast (bounded by CallTimeout). A Next in progress
// returns ErrClosed. It is safe to call more than once.
func (t *Tab) Close() error {
	var err error
	t.closeOnce.Do(func() {
		close(t.closed)
		ctx, cancel := context.WithTimeout(context.Background(), t.timeout)
		defer cancel()
		err = t.sc.Stop(ctx)
	})
	return err
}

// Next waits for a changed picture (or a keyframe request) no sooner than
// Period after the last delivered frame, and returns it. The first Next
// waits for the browser's first picture.
func (t *Tab) Next(ctx context.Context) (Frame, error) {
	if err := t.stopped(ctx); err != nil {
		return Frame{}, err
	}
	if t.started {
		// Pace: at most one frame per period.
		if wait := t.period - time.Since(t.lastAt); wait > 0 {
			timer := time.NewTimer(wait)
			select {
			case <-timer.C:
			case <-t.closed:
				timer.Stop()
				return Frame{}, ErrClosed
			case <-ctx.Done():
				timer.Stop()
				return Frame{}, ctx.Err()
			}
		}
	}
	for {
		// A page that keeps changing always has a picture waiting, and a
		// decode can take longer than a period: the end of ctx is checked
		// on every turn, not only when Next waits.
		if err := t.stopped(ctx); err != nil {
			return Frame{}, err
		}
		// A picture that is already waiting wins over a re-delivery.
		var (
			sf     cdp.ScreencastFrame
			ok     bool
			forced bool
		)
		select {
		case sf, ok = <-t.sc.Frames():
		default:
			select {
			case sf, ok = <-t.sc.Frames():
			case <-t.kick:
				forced = true
			case <-t.closed:
				return Frame{}, ErrClosed
			case <-ctx.Done():
				return Frame{}, ctx.Err()
			}
		}
		if forced {
			if !t.started {
				// Nothing to re-deliver yet: the first picture will do.
				continue
			}
			return t.deliver(t.last, true, time.Now()), nil
		}
		// The period runs from when a picture is taken, not from when it
		// is delivered: its decoding is part of the period, not added to
		// it (a 1280×720 JPEG took ~35 ms to decode here with image/jpeg,
		// ~5 with libjpeg-turbo, and paced from the delivery the pane ran
		// at ~13 frames a second).
		taken := time.Now()
		if !ok {
			return Frame{}, t.ended()
		}
		h := maphash.Bytes(t.seed, sf.Data)
		// A keyframe request pending with an unchanged picture: deliver it.
		pending := false
		select {
		case <-t.kick:
			pending = true
		default:
		}
		if t.started && h == t.lastHash && !pending {
			t.skipped++
			continue
		}
		f, err := decodeTabFrame(sf)
		if err != nil {
			// One undecodable picture is not the end of the stream.
			t.undecodable++
			if pending {
				t.RequestKeyframe()
			}
			continue
		}
		f.Time = sf.Received
		changed := !t.started || h != t.lastHash
		t.lastHash = h
		return t.deliver(f, !changed, taken), nil
	}
}

// stopped is why Next must not go on: the source closed, or ctx ended.
func (t *Tab) stopped(ctx context.Context) error {
	select {
	case <-t.closed:
		return ErrClosed
	default:
	}
	return ctx.Err()
}

// deliver numbers f, remembers it as the last frame and returns it; the
// next frame is due a period after taken.
func (t *Tab) deliver(f Frame, forced bool, taken time.Time) Frame {
	t.started = true
	t.seq++
	f.Seq = t.seq
	f.Forced = forced
	now := time.Now()
	if forced || f.Time.IsZero() || !f.Time.After(t.last.Time) {
		f.Time = now
	}
	t.last = f
	t.lastAt = taken
	return f
}

// ended is why the screencast stopped: ErrClosed after Close, tab_gone
// when the tab went.
func (t *Tab) ended() error {
	select {
	case <-t.closed:
		return ErrClosed
	default:
	}
	if err := t.sc.Err(); err != nil {
		return err
	}
	return target.Refuse(target.CodeTabGone, "the screencast of tab %s stopped", t.id).With("tab", t.id)
}

// decodeTabFrame decodes a screencast picture into an RGBA frame (a JPEG
// by libjpeg-turbo when built in, jpeg_cgo.go).
func decodeTabFrame(sf cdp.ScreencastFrame) (Frame, error) {
	var (
		f   Frame
		err error
	)
	switch sf.Format {
	case "png":
		var img image.Image
		if img, err = png.Decode(bytes.NewReader(sf.Data)); err == nil {
			f = rgbaFrame(img)
		}
	default:
		f, err = decodeJPEG(sf.Data)
	}
	if err != nil {
		return Frame{}, fmt.Errorf("capture: decoding a %s screencast picture: %w", sf.Format, err)
	}
	return f, nil
}

// rgbaFrame is img as an RGBA frame (converted unless it is one).
func rgbaFrame(img image.Image) Frame {
	b := img.Bounds()
	rgba, ok := img.(*image.RGBA)
	if !ok || rgba.Rect.Min != (image.Point{}) {
		rgba = image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
		draw.Draw(rgba, rgba.Rect, img, b.Min, draw.Src)
	}
	return Frame{Format: FormatRGBA, Width: b.Dx(), Height: b.Dy(), Stride: rgba.Stride, Pix: rgba.Pix}
}
