package capture

import (
	"context"
	"errors"
	"hash/maphash"
	"sync"
	"time"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/target"
)

// Shooter takes one picture of a target: a compressed image and its
// format ("jpeg" or "png"). A Firefox tab's is one
// browsingContext.captureScreenshot (WebDriver BiDi has no screencast).
type Shooter interface {
	Shoot(ctx context.Context) (data []byte, format string, err error)
}

// ShotsOptions configure a Shots source. The zero value is usable.
type ShotsOptions struct {
	// FPS is the highest rate of pictures taken, a second; 0 means 15,
	// clamped to 1..60. A browser answers a picture in tens of
	// milliseconds at best: the rate reached is what it gives.
	FPS int
	// Idle is the longest time between two pictures of a target whose
	// pictures stay the same: the wait after an unchanged one doubles
	// from the period up to it, and a keyframe request or Wake ends it;
	// 0 means 500 ms.
	Idle time.Duration
	// CallTimeout bounds each picture; 0 means 5 s.
	CallTimeout time.Duration
	// MaxFailures is how many pictures in a row may fail (a page being
	// replaced) before Next answers the failure; 0 means 10. A refusal
	// (the target went: tab_gone) ends the stream at once.
	MaxFailures int
}

// Shots is the Source of a target read picture by picture through a
// Shooter, paced: a picture at most every period, then, while the
// pictures do not change, a wait that doubles up to Idle, so a still page
// costs a picture every Idle instead of FPS a second. A picture whose
// bytes equal the last delivered one is not delivered (unless a keyframe
// was asked for).
type Shots struct {
	sh      Shooter
	period  time.Duration
	idle    time.Duration
	timeout time.Duration
	maxFail int
	seed    maphash.Seed

	kick      chan struct{} // a keyframe was requested
	wake      chan struct{} // input went in: a change may come
	closed    chan struct{}
	closeOnce sync.Once

	// Used by Next only (one goroutine at a time).
	shotAt   time.Time // when the last picture was asked for
	still    int       // pictures in a row that did not change
	failed   int       // pictures in a row that failed
	lastHash uint64
	seq      uint64
	shots    uint64
}

// NewShots returns a Source of the pictures sh takes. The first Next
// takes one at once.
func NewShots(sh Shooter, o ShotsOptions) *Shots {
	s := &Shots{
		sh: sh, period: framePeriod(o.FPS), idle: o.Idle, timeout: o.CallTimeout, maxFail: o.MaxFailures,
		seed: maphash.MakeSeed(), kick: make(chan struct{}, 1), wake: make(chan struct{}, 1), closed: make(chan struct{}),
	}
	if s.idle <= 0 {
		s.idle = 500 * time.Millisecond
	}
	if s.timeout <= 0 {
		s.timeout = 5 * time.Second
	}
	if s.maxFail <= 0 {
		s.maxFail = 10
	}
	return s
}

// Period is the shortest interval between two pictures.
func (s *Shots) Period() time.Duration { return s.period }

// Shots counts the pictures taken (read it from the goroutine calling
// Next).
func (s *Shots) Shots() uint64 { return s.shots }

// RequestKeyframe makes the next picture be delivered even if it did not
// change, and taken without the idle wait.
func (s *Shots) RequestKeyframe() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// Wake ends an idle wait: input went in and the picture may change
// (a takeover's click, an agent's act). Safe from any goroutine.
func (s *Shots) Wake() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Close ends the source; a Next in progress returns ErrClosed.
func (s *Shots) Close() error {
	s.closeOnce.Do(func() { close(s.closed) })
	return nil
}

// wait is how long after the last picture the next one is due.
func (s *Shots) wait() time.Duration {
	d := s.period
	for i := 0; i < s.still && d < s.idle; i++ {
		d *= 2
	}
	return min(d, max(s.idle, s.period))
}

// Next takes pictures, paced, until one changed (or a keyframe was asked
// for), and returns it decoded.
func (s *Shots) Next(ctx context.Context) (Frame, error) {
	for {
		forced := false
		if s.seq > 0 || s.failed > 0 {
			timer := time.NewTimer(max(0, s.wait()-time.Since(s.shotAt)))
			select {
			case <-timer.C:
			case <-s.kick:
				forced = true
			case <-s.wake:
				s.still = 0
			case <-s.closed:
				timer.Stop()
				return Frame{}, ErrClosed
			case <-ctx.Done():
				timer.Stop()
				return Frame{}, ctx.Err()
			}
			timer.Stop()
			if forced || s.still == 0 {
				// Not sooner than a period after the last picture.
				if d := s.period - time.Since(s.shotAt); d > 0 {
					select {
					case <-time.After(d):
					case <-s.closed:
						return Frame{}, ErrClosed
					case <-ctx.Done():
						return Frame{}, ctx.Err()
					}
				}
			}
		}
		select {
		case <-s.kick:
			forced = true
		default:
		}
		s.shotAt = time.Now()
		sctx, cancel := context.WithTimeout(ctx, s.timeout)
		data, format, err := s.sh.Shoot(sctx)
		cancel()
		s.shots++
		if err != nil {
			if ctx.Err() != nil {
				return Frame{}, ctx.Err()
			}
			var r *target.Refusal
			if s.failed++; errors.As(err, &r) || s.failed >= s.maxFail {
				return Frame{}, err
			}
			if forced {
				s.RequestKeyframe()
			}
			continue
		}
		s.failed = 0
		h := maphash.Bytes(s.seed, data)
		changed := s.seq == 0 || h != s.lastHash
		if !changed && !forced {
			s.still++
			continue
		}
		f, err := decodeTabFrame(cdp.ScreencastFrame{Data: data, Format: format})
		if err != nil {
			if s.failed++; s.failed >= s.maxFail {
				return Frame{}, err
			}
			continue
		}
		if changed {
			s.still = 0
		}
		s.lastHash = h
		s.seq++
		f.Seq, f.Forced, f.Time = s.seq, !changed, s.shotAt
		return f, nil
	}
}
