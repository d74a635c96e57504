package rtc

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vibespace/vibespace/capture"
)

// sharedSource is the one capture of a target, shared by every pipeline of
// it (every tier, every codec): one goroutine reads the source and keeps
// the newest frame; each pipeline reads it through a subscriber of its own
// (sub). It is closed when its last subscriber is.
type sharedSource struct {
	hub        *Hub
	key        string
	src        capture.Source
	fullFPS    int           // the source's own rate, before any SetFPS
	fullPeriod time.Duration // and its period

	cancel context.CancelFunc
	done   chan struct{} // the reader has returned

	// subs is guarded by hub.mu.
	subs map[*sub]struct{}

	mu     sync.Mutex
	frame  capture.Frame // the newest; its Pix is never written again
	seq    uint64        // frames read so far
	err    error         // why the source ended
	notify chan struct{} // closed and replaced at each frame and at the end
}

// defaultPeriod is a source's period when it does not tell it.
const defaultPeriod = time.Second / 15

func newShared(h *Hub, key string, src capture.Source) *sharedSource {
	period := defaultPeriod
	if ps, ok := src.(interface{ Period() time.Duration }); ok && ps.Period() > 0 {
		period = ps.Period()
	}
	ctx, cancel := context.WithCancel(h.base)
	s := &sharedSource{
		hub: h, key: key, src: src, fullFPS: max(int(time.Second/period), 1), fullPeriod: period,
		cancel: cancel, done: make(chan struct{}), subs: make(map[*sub]struct{}), notify: make(chan struct{}),
	}
	go s.read(ctx)
	return s
}

// read is the capture loop: it ends when ctx ends or the source fails;
// a failure ends every subscriber with it.
func (s *sharedSource) read(ctx context.Context) {
	defer close(s.done)
	for {
		f, err := s.src.Next(ctx)
		s.mu.Lock()
		if err != nil {
			s.err = err
		} else {
			s.frame, s.seq = f, s.seq+1
		}
		close(s.notify)
		s.notify = make(chan struct{})
		s.mu.Unlock()
		if err != nil {
			if ctx.Err() == nil {
				s.hub.sourceEnded(s)
			}
			return
		}
	}
}

// stop ends the reader, waits for it and closes the source.
func (s *sharedSource) stop() {
	s.cancel()
	<-s.done
	_ = s.src.Close()
}

// setRate asks the source, if it can be told, for the highest rate its
// subscribers' tiers need: a thumbnails-only target is captured at the
// thumbnail rate. Called with hub.mu held.
func (s *sharedSource) setRate() {
	sf, ok := s.src.(interface{ SetFPS(int) })
	if !ok || len(s.subs) == 0 {
		return
	}
	fps := 0
	for u := range s.subs {
		fps = max(fps, u.fps)
	}
	sf.SetFPS(fps)
}

// sub is one pipeline's view of a shared source: the newest frame it has
// not seen yet, at most one per period of its tier.
type sub struct {
	s      *sharedSource
	period time.Duration
	fps    int
	gap    time.Duration // the shortest time between two deliveries

	seen  uint64      // the seq last delivered; only Next touches it
	last  time.Time   // when it was delivered
	asked atomic.Bool // its pipeline asked a picture since the last delivery

	closeOnce sync.Once
	closed    chan struct{}
}

// Period is the tier's period (the pipeline's encoder is told its rate).
func (u *sub) Period() time.Duration { return u.period }

// RequestKeyframe asks the shared source for a picture: a thumbnail's PLI
// is answered on a still target. The still picture that answers it goes
// only to the subscribers that asked (Next): the others have it already.
func (u *sub) RequestKeyframe() {
	u.asked.Store(true)
	u.s.src.RequestKeyframe()
}

// Next waits out its tier's period since the last delivery, then returns
// the newest frame not delivered yet, waiting for one if need be.
func (u *sub) Next(ctx context.Context) (capture.Frame, error) {
	if wait := u.gap - time.Since(u.last); u.seen > 0 && wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return capture.Frame{}, ctx.Err()
		case <-u.closed:
			t.Stop()
			return capture.Frame{}, capture.ErrClosed
		}
	}
	for {
		u.s.mu.Lock()
		f, seq, err, ch := u.s.frame, u.s.seq, u.s.err, u.s.notify
		u.s.mu.Unlock()
		if err != nil { // the target is gone: no point in its last picture
			return capture.Frame{}, err
		}
		if seq > u.seen {
			// A still picture read for another subscriber's request, right
			// after the one this subscriber was given, is the same picture:
			// it is not delivered (it would be encoded and sent again).
			if f.Forced && seq == u.seen+1 && !u.asked.Load() {
				u.seen = seq
				continue
			}
			u.asked.Store(false)
			u.seen, u.last = seq, time.Now()
			return f, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return capture.Frame{}, ctx.Err()
		case <-u.closed:
			return capture.Frame{}, capture.ErrClosed
		}
	}
}

// Close leaves the shared source; the last subscriber to leave closes it.
func (u *sub) Close() error {
	u.closeOnce.Do(func() {
		close(u.closed)
		u.s.hub.release(u)
	})
	return nil
}

// newSub is a subscriber of s at tier t. Called with hub.mu held.
func (s *sharedSource) newSub(t Tier) *sub {
	u := &sub{s: s, period: s.fullPeriod, fps: s.fullFPS, closed: make(chan struct{})}
	if t == TierThumb {
		u.fps = min(s.hub.o.ThumbFPS, s.fullFPS)
		u.period = time.Second / time.Duration(u.fps)
		// A little less than the period, so that a source captured at this
		// very rate is not thinned to half of it by its jitter.
		u.gap = u.period * 9 / 10
	}
	s.subs[u] = struct{}{}
	s.setRate()
	return u
}
