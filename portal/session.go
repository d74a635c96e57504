package portal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/godbus/dbus/v5"
)

// Stream is one screen-cast stream Start returned.
type Stream struct {
	Node       uint32 // the PipeWire node id
	SourceType SourceTypes
	Position   [2]int32 // in the compositor's logical space, if given
	Size       [2]int32
	ID         string // the portal's stream id, if given
}

// Session is one started remote-desktop session.
type Session struct {
	c      *Client
	handle dbus.ObjectPath
	done   chan struct{}

	mu      sync.Mutex
	live    bool // Start answered yes
	devices DeviceTypes
	streams []Stream
	token   string
	err     error
	once    sync.Once
}

// Handle is the session's object path.
func (s *Session) Handle() dbus.ObjectPath { return s.handle }

// Devices are the device types the person granted.
func (s *Session) Devices() DeviceTypes {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.devices
}

// Streams are the screen-cast streams the person granted.
func (s *Session) Streams() []Stream {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Stream(nil), s.streams...)
}

// RestoreToken is the single-use token Start returned (version 2 with
// Persist only; "" otherwise). Keep only the newest.
func (s *Session) RestoreToken() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.token
}

// Done is closed when the session ends: the portal closed it, Close was
// called, or the bus connection dropped. Err says which.
func (s *Session) Done() <-chan struct{} { return s.done }

// Err is why the session ended (nil while it is live).
func (s *Session) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

func (s *Session) finish(why error) {
	s.once.Do(func() {
		s.mu.Lock()
		s.err = why
		s.live = false
		s.mu.Unlock()
		s.c.mu.Lock()
		delete(s.c.sessions, s.handle)
		s.c.mu.Unlock()
		close(s.done)
	})
}

// started records Start's results.
func (s *Session) started(res map[string]dbus.Variant, v2 bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok := res["devices"]; ok {
		d, ok := v.Value().(uint32)
		if !ok {
			return fmt.Errorf("devices is %s, not u", v.Signature())
		}
		s.devices = DeviceTypes(d)
	}
	if v, ok := res["streams"]; ok {
		var raw []struct {
			Node  uint32
			Props map[string]dbus.Variant
		}
		if err := v.Store(&raw); err != nil {
			return fmt.Errorf("streams: %w", err)
		}
		for _, r := range raw {
			st := Stream{Node: r.Node}
			if p, ok := r.Props["source_type"]; ok {
				u, _ := p.Value().(uint32)
				st.SourceType = SourceTypes(u)
			}
			st.Position = pair(r.Props["position"])
			st.Size = pair(r.Props["size"])
			if p, ok := r.Props["id"]; ok {
				st.ID, _ = p.Value().(string)
			}
			s.streams = append(s.streams, st)
		}
	}
	if v, ok := res["restore_token"]; ok && v2 {
		s.token, _ = v.Value().(string)
	}
	select {
	case <-s.done:
		// Closed by the portal before Start returned: the caller gets the
		// session with Done already closed.
	default:
		s.live = true
	}
	return nil
}

func pair(v dbus.Variant) [2]int32 {
	var out [2]int32
	if xs, ok := v.Value().([]any); ok && len(xs) == 2 {
		out[0], _ = xs[0].(int32)
		out[1], _ = xs[1].(int32)
	}
	return out
}

// notify makes one Notify call, with no options, if the session is live
// and granted need.
func (s *Session) notify(ctx context.Context, need DeviceTypes, method string, args ...any) error {
	return s.notifyWith(ctx, need, method, map[string]dbus.Variant{}, args...)
}

// notifyWith is notify with the call's options.
func (s *Session) notifyWith(ctx context.Context, need DeviceTypes, method string, opts map[string]dbus.Variant, args ...any) error {
	s.mu.Lock()
	live, granted, why := s.live, s.devices, s.err
	s.mu.Unlock()
	if !live {
		if why == nil {
			why = ErrClosed
		}
		return &StepError{method, fmt.Errorf("%w: %w", ErrNotGranted, why)}
	}
	if granted&need == 0 {
		return &StepError{method, fmt.Errorf("%w: the session has %s, not %s", ErrNotGranted, granted, need)}
	}
	cctx, cancel := context.WithTimeout(ctx, s.c.opts.CallTimeout)
	defer cancel()
	all := append([]any{s.handle, opts}, args...)
	if err := s.c.conn.Object(BusName, ObjectPath).CallWithContext(cctx, IfaceRemote+"."+method, 0, all...).Err; err != nil {
		return &StepError{method, err}
	}
	return nil
}

func state(pressed bool) uint32 {
	if pressed {
		return 1
	}
	return 0
}

// PointerMotionAbsolute moves the pointer to (x, y) in stream's logical
// coordinates (stream is a Stream's Node).
func (s *Session) PointerMotionAbsolute(ctx context.Context, stream uint32, x, y float64) error {
	return s.notify(ctx, Pointer, "NotifyPointerMotionAbsolute", stream, x, y)
}

// PointerMotion moves the pointer by (dx, dy).
func (s *Session) PointerMotion(ctx context.Context, dx, dy float64) error {
	return s.notify(ctx, Pointer, "NotifyPointerMotion", dx, dy)
}

// PointerButton presses or releases an evdev button (BTN_LEFT is 0x110).
func (s *Session) PointerButton(ctx context.Context, button int32, pressed bool) error {
	return s.notify(ctx, Pointer, "NotifyPointerButton", button, state(pressed))
}

// PointerAxisDiscrete scrolls steps on axis (0 vertical, 1 horizontal).
func (s *Session) PointerAxisDiscrete(ctx context.Context, axis uint32, steps int32) error {
	return s.notify(ctx, Pointer, "NotifyPointerAxisDiscrete", axis, steps)
}

// PointerAxis is a smooth scroll by (dx, dy); finish ends a series.
func (s *Session) PointerAxis(ctx context.Context, dx, dy float64, finish bool) error {
	opts := map[string]dbus.Variant{}
	if finish {
		opts["finish"] = dbus.MakeVariant(true)
	}
	return s.notifyWith(ctx, Pointer, "NotifyPointerAxis", opts, dx, dy)
}

// KeyboardKeysym presses or releases an X keysym.
func (s *Session) KeyboardKeysym(ctx context.Context, keysym int32, pressed bool) error {
	return s.notify(ctx, Keyboard, "NotifyKeyboardKeysym", keysym, state(pressed))
}

// KeyboardKeycode presses or releases an evdev key code.
func (s *Session) KeyboardKeycode(ctx context.Context, code int32, pressed bool) error {
	return s.notify(ctx, Keyboard, "NotifyKeyboardKeycode", code, state(pressed))
}

// OpenPipeWireRemote asks ScreenCast for a PipeWire remote restricted to
// this session's streams; the caller owns the returned file.
func (s *Session) OpenPipeWireRemote(ctx context.Context) (*os.File, error) {
	const method = "OpenPipeWireRemote"
	s.mu.Lock()
	live, why := s.live, s.err
	s.mu.Unlock()
	if !live {
		if why == nil {
			why = ErrClosed
		}
		return nil, &StepError{method, fmt.Errorf("%w: %w", ErrNotGranted, why)}
	}
	if !s.c.conn.SupportsUnixFDs() {
		return nil, &StepError{method, errors.New("the bus connection cannot pass file descriptors")}
	}
	cctx, cancel := context.WithTimeout(ctx, s.c.opts.CallTimeout)
	defer cancel()
	var fd dbus.UnixFD
	if err := s.c.conn.Object(BusName, ObjectPath).CallWithContext(cctx, IfaceScreenCast+"."+method, 0, s.handle, map[string]dbus.Variant{}).Store(&fd); err != nil {
		return nil, &StepError{method, err}
	}
	return os.NewFile(uintptr(fd), "pipewire-remote"), nil
}

// Close closes the session (Session.Close); closing a closed session is a
// no-op.
func (s *Session) Close(ctx context.Context) error {
	select {
	case <-s.done:
		return nil
	default:
	}
	s.finish(fmt.Errorf("%w: closed by the client", ErrClosed))
	cctx, cancel := context.WithTimeout(ctx, s.c.opts.CallTimeout)
	defer cancel()
	if err := s.c.conn.Object(BusName, s.handle).CallWithContext(cctx, IfaceSession+".Close", 0).Err; err != nil {
		return &StepError{"Session.Close", err}
	}
	return nil
}
