package rtc

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vibespace/vibespace/capture"
)

// askSource delivers a first picture, then one each time it is asked for a
// keyframe, or the marker picture (all white) when the test pushes it.
type askSource struct {
	mu      sync.Mutex
	pending bool
	marker  bool
	wake    chan struct{}
	asks    atomic.Int32
	n       int
}

func (s *askSource) Period() time.Duration { return time.Second / 10 }
func (s *askSource) Close() error          { return nil }
func (s *askSource) poke(marker bool) {
	s.mu.Lock()
	if marker {
		s.marker = true
	} else {
		s.pending = true
	}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}
func (s *askSource) RequestKeyframe() { s.asks.Add(1); s.poke(false) }
func (s *askSource) Next(ctx context.Context) (capture.Frame, error) {
	for {
		s.mu.Lock()
		first, ask, marker := s.n == 0, s.pending, s.marker
		s.pending = false
		if !ask {
			s.marker = false
		} else {
			marker = false
		}
		s.mu.Unlock()
		if first || ask || marker {
			s.n++
			pix := make([]byte, 4*16*16)
			if marker {
				for i := range pix {
					pix[i] = 255
				}
			}
			return capture.Frame{Format: capture.FormatRGBA, Width: 16, Height: 16, Stride: 64, Pix: pix, Time: time.Now(), Seq: uint64(s.n)}, nil
		}
		select {
		case <-s.wake:
		case <-ctx.Done():
			return capture.Frame{}, ctx.Err()
		}
	}
}

// skipEncoder drops every picture, as an encoder holding its bitrate does.
type skipEncoder struct {
	calls    *atomic.Int32
	markerAt *atomic.Int32
}

func (e skipEncoder) Encode(img *I420, _ time.Duration, _ bool) (Encoded, error) {
	n := e.calls.Add(1)
	if img.Y[0] > 200 {
		e.markerAt.CompareAndSwap(0, n)
	}
	return Encoded{}, nil
}
func (skipEncoder) SetBitrate(int) error { return nil }
func (skipEncoder) Close() error         { return nil }

// TestSkippedStillPictureBounded: an encoder that drops every picture of a
// still target has the source asked again maxResends times, not forever:
// the next picture it is given is the one the test pushes.
func TestSkippedStillPictureBounded(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var calls, markerAt atomic.Int32
	h := New(Options{NoH264: true, NewEncoder: func(EncoderOptions) (Encoder, error) {
		return skipEncoder{&calls, &markerAt}, nil
	}})
	defer h.Close()
	src := &askSource{wake: make(chan struct{}, 1)}
	if _, err := h.pipeline(ctx, pipeKey{"k", CodecVP8, TierFull}, func(context.Context) (capture.Source, error) { return src, nil }); err != nil {
		t.Fatal(err)
	}
	for calls.Load() < 1+maxResends {
		select {
		case <-ctx.Done():
			t.Fatalf("%d pictures encoded, want %d", calls.Load(), 1+maxResends)
		case <-time.After(10 * time.Millisecond):
		}
	}
	// Leave any request that was coming time to reach the source first.
	time.Sleep(200 * time.Millisecond)
	src.poke(true)
	for markerAt.Load() == 0 {
		select {
		case <-ctx.Done():
			t.Fatal("the pushed picture was never encoded")
		case <-time.After(10 * time.Millisecond):
		}
	}
	if got := markerAt.Load(); got != 2+maxResends || src.asks.Load() != maxResends {
		t.Fatalf("the pushed picture was encoding %d (want %d), the source asked %d times (want %d)", got, 2+maxResends, src.asks.Load(), maxResends)
	}
}
