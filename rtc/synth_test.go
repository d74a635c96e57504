package rtc_test

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vibespace/vibespace/capture"
)

// synthSource is a capture.Source of made-up pictures: a patterned
// background with a bar that moves one step a frame (or stands still).
type synthSource struct {
	w, h   int
	period time.Duration
	still  bool

	ticker    *time.Ticker
	n         int
	keyReq    atomic.Bool
	keyAsked  atomic.Int32
	change    atomic.Bool // a still source delivers its next picture anyway
	closeOnce sync.Once
	closed    chan struct{}
}

func newSynth(w, h, fps int, still bool) *synthSource {
	return &synthSource{w: w, h: h, period: time.Second / time.Duration(fps), still: still, closed: make(chan struct{})}
}

func (s *synthSource) Period() time.Duration { return s.period }

func (s *synthSource) RequestKeyframe() {
	s.keyAsked.Add(1)
	s.keyReq.Store(true)
}

func (s *synthSource) Close() error {
	s.closeOnce.Do(func() { close(s.closed) })
	return nil
}

func (s *synthSource) Next(ctx context.Context) (capture.Frame, error) {
	if s.ticker == nil {
		s.ticker = time.NewTicker(s.period)
	}
	for {
		select {
		case <-s.ticker.C:
		case <-s.closed:
			s.ticker.Stop()
			return capture.Frame{}, capture.ErrClosed
		case <-ctx.Done():
			return capture.Frame{}, ctx.Err()
		}
		forced := s.keyReq.Swap(false)
		if s.still && s.n > 0 && !forced && !s.change.Swap(false) {
			continue
		}
		s.n++
		return s.paint(), nil
	}
}

// paint draws frame s.n.
func (s *synthSource) paint() capture.Frame {
	stride := 4 * s.w
	pix := make([]byte, stride*s.h)
	bar := (s.n * 8) % s.w
	for y := range s.h {
		row := pix[y*stride:]
		for x := range s.w {
			v := byte(200)
			if (x/6+y/14)%5 == 0 { // a text-like texture
				v = 40
			}
			r, g, b := v, v, v
			if x >= bar && x < bar+24 {
				r, g, b = 220, 40, 40
			}
			row[4*x], row[4*x+1], row[4*x+2], row[4*x+3] = r, g, b, 255
		}
	}
	return capture.Frame{Format: capture.FormatRGBA, Width: s.w, Height: s.h, Stride: stride, Pix: pix, Time: time.Now(), Seq: uint64(s.n)}
}

// atomicU8 is an atomic byte (sync/atomic has none).
type atomicU8 struct{ v atomic.Uint32 }

func (a *atomicU8) Load() uint8   { return uint8(a.v.Load()) }
func (a *atomicU8) Store(b uint8) { a.v.Store(uint32(b)) }
