package cdp

import (
	"context"
	"sync"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"

	"github.com/vibespace/vibespace/target"
)

// ScreencastOptions configure Tab.StartScreencast. The zero value is
// usable.
type ScreencastOptions struct {
	// Format is "jpeg" (the default) or "png".
	Format string
	// Quality is the JPEG quality, 1..100; 0 means 80.
	Quality int
	// MaxWidth and MaxHeight bound the pictures' size; 0 means the
	// viewport's.
	MaxWidth, MaxHeight int
	// EveryNthFrame sends one compositor frame in n; 0 means every one.
	EveryNthFrame int
	// CallTimeout bounds each acknowledgement and the stop; 0 means 5 s.
	CallTimeout time.Duration
}

// ScreencastFrame is one picture of a screencast.
type ScreencastFrame struct {
	// Data is the compressed picture, in Format.
	Data   []byte
	Format string
	// DeviceWidth and DeviceHeight are the viewport's size in CSS pixels
	// (DIP); ScrollX and ScrollY its scroll position.
	DeviceWidth, DeviceHeight float64
	ScrollX, ScrollY          float64
	// Received is when the frame arrived.
	Received time.Time
	// Seq counts the frames of the screencast, from 1.
	Seq uint64
}

// Screencast is a running Page.startScreencast of a tab. Every frame is
// acknowledged as it arrives (Page.screencastFrameAck), so the browser
// keeps sending; Frames holds only the newest one not yet taken. Safe for
// concurrent use.
type Screencast struct {
	t       *Tab
	o       ScreencastOptions
	frames  chan ScreencastFrame
	quit    chan struct{}
	done    chan struct{}
	unsub   func()
	stop    sync.Once
	stopErr error
	err     error // why it ended; set before done closes
}

// StartScreencast starts a screencast of the tab (Page.startScreencast).
// It ends when Stop is called or the tab goes (Err is then tab_gone).
func (t *Tab) StartScreencast(ctx context.Context, o ScreencastOptions) (*Screencast, error) {
	switch o.Format {
	case "":
		o.Format = "jpeg"
	case "jpeg", "png":
	default:
		return nil, target.Refuse(target.CodeBadRequest, "a screencast is jpeg or png, not %q", o.Format)
	}
	if o.Quality <= 0 {
		o.Quality = 80
	}
	o.Quality = min(o.Quality, 100)
	if o.CallTimeout <= 0 {
		o.CallTimeout = 5 * time.Second
	}
	events, unsub := t.sess.Subscribe(page.ScreencastFrame.Method)
	s := &Screencast{
		t:      t,
		o:      o,
		frames: make(chan ScreencastFrame, 1),
		quit:   make(chan struct{}),
		done:   make(chan struct{}),
		unsub:  unsub,
	}
	q := int64(o.Quality)
	p := &page.StartScreencastParams{
		Format:        page.StartScreencastFormat(o.Format),
		MaxWidth:      int64(max(o.MaxWidth, 0)),
		MaxHeight:     int64(max(o.MaxHeight, 0)),
		EveryNthFrame: int64(max(o.EveryNthFrame, 1)),
	}
	if o.Format == "jpeg" {
		p.Quality = &q
	}
	if err := t.sess.Call(ctx, page.CommandStartScreencast, p, nil); err != nil {
		unsub()
		return nil, t.fail(err)
	}
	go s.run(events)
	return s, nil
}

// Frames yields the newest frame not yet taken. It is closed when the
// screencast ends (see Err).
func (s *Screencast) Frames() <-chan ScreencastFrame { return s.frames }

// Done is closed when the screencast has ended.
func (s *Screencast) Done() <-chan struct{} { return s.done }

// Err is why the screencast ended: nil after Stop, tab_gone when the tab
// closed. It is nil while the screencast runs.
func (s *Screencast) Err() error {
	select {
	case <-s.done:
		return s.err
	default:
		return nil
	}
}

// Stop ends the screencast (Page.stopScreencast, bounded by ctx and the
// call timeout) and waits for its reader. A tab that is gone is not an
// error. It is safe to call more than once.
func (s *Screencast) Stop(ctx context.Context) error {
	s.stop.Do(func() {
		close(s.quit)
		<-s.done
		if s.t.closed() {
			return
		}
		cctx, cancel := context.WithTimeout(ctx, s.o.CallTimeout)
		defer cancel()
		if err := s.t.sess.Call(cctx, page.CommandStopScreencast, nil, nil); err != nil {
			if err = s.t.fail(err); target.CodeOf(err) != target.CodeTabGone {
				s.stopErr = err
			}
		}
	})
	return s.stopErr
}

// run reads the frames, acknowledges each and keeps the newest in frames.
func (s *Screencast) run(events <-chan jsonv2.Value) {
	defer func() {
		s.unsub()
		close(s.done)
		close(s.frames)
	}()
	var seq uint64
	for {
		select {
		case <-s.quit:
			return
		case <-s.t.sess.gone:
			s.err = s.t.fail(ErrSessionGone)
			return
		case v, ok := <-events:
			if !ok { // the connection closed
				s.err = s.t.fail(ErrClosed)
				if target.CodeOf(s.err) == "" {
					s.err = target.Refuse(target.CodeTabGone, "tab %s is unreachable: the browser connection closed", s.t.ID()).With("tab", s.t.ID()).Wrap(s.err)
				}
				return
			}
			var e page.EventScreencastFrame
			if err := jsonv2.Unmarshal(v, &e); err != nil {
				continue
			}
			seq++
			f := ScreencastFrame{Data: e.Data, Format: s.o.Format, Received: time.Now(), Seq: seq}
			if m := e.Metadata; m != nil {
				f.DeviceWidth, f.DeviceHeight = m.DeviceWidth, m.DeviceHeight
				f.ScrollX, f.ScrollY = m.ScrollOffsetX, m.ScrollOffsetY
			}
			// Latest wins: drop the frame nobody took. The frame is handed
			// on before it is acknowledged, so its reader does not wait
			// for the acknowledgement's round trip.
			select {
			case <-s.frames:
			default:
			}
			s.frames <- f
			if err := s.ack(e.SessionID); err != nil {
				if target.CodeOf(err) == target.CodeTabGone {
					s.err = err
					return
				}
				// A lost acknowledgement stalls the screencast until the
				// next one; the frame itself is still good.
			}
		}
	}
}

// ack acknowledges frame id, bounded by the call timeout.
func (s *Screencast) ack(id int64) error {
	ctx, cancel := context.WithTimeout(context.Background(), s.o.CallTimeout)
	defer cancel()
	return s.t.fail(s.t.sess.Call(ctx, page.CommandScreencastFrameAck, &page.ScreencastFrameAckParams{SessionID: id}, nil))
}
