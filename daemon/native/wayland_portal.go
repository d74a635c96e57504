package native

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/vibespace/vibespace/capture"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/portal"
	"github.com/vibespace/vibespace/target"
)

// The Wayland road's input and pixels: xdg-desktop-portal's RemoteDesktop
// (keyboard and pointer) with a ScreenCast source, on the person's session
// bus. Nothing is asked of the person until a verb needs it: the first key,
// type without a ref, click --at or scroll starts a session, and the person
// answers the portal's own dialog within that verb's deadline. A granted
// session serves every later verb until the portal (or the person, through
// their desktop's indicator) ends it; the verb after that says so, and the
// one after asks again.

// Events a restore token goes through, for the core's audit
// (kind.TokenWatcher). The
// token itself is never part of one.
const (
	TokenUsed    = "used"    // a stored token was sent with Start (no dialog, if the portal honours it)
	TokenSaved   = "saved"   // Start returned a token: it replaced the stored one
	TokenCleared = "cleared" // the stored token was refused or spent without a successor: forgotten
	// TokenSetAside begins the event of a stored token that could not be
	// read back whole (damaged, or writable by another user): set aside,
	// not sent; the words after it say why.
	TokenSetAside = "set aside"
	// TokenNotSaved begins the event of a token Start returned that could
	// not be saved (a read-only directory); the words after it say why.
	TokenNotSaved = "not saved"
)

// pixelsOverPipeWire opens the frames of a ScreenCast stream
// (capture.OpenPipeWire): remote is the portal's PipeWire remote
// (ScreenCast.OpenPipeWireRemote), closed here once the stream holds its
// own copy, node the stream's PipeWire node.
func pixelsOverPipeWire(ctx context.Context, remote *os.File, node uint32) (*capture.PipeWireStream, error) {
	defer remote.Close()
	s, err := capture.OpenPipeWire(ctx, remote, "", node)
	if err != nil {
		return nil, target.Refuse(target.CodeNoCapture, "the window's stream (PipeWire node %d) could not be read: %v", node, err).Wrap(err)
	}
	return s, nil
}

// cropOf is the crop kept of stream k (cropKept, windowFrames).
func (r *portalRoad) cropOf(k streamKey) *streamCrop {
	c, _ := r.crops.LoadOrStore(k, &streamCrop{})
	return c.(*streamCrop)
}

// forgetCrops drops the crops kept of session s's streams, once it ended
// (a node's id may name another stream after it).
func (r *portalRoad) forgetCrops(s *portal.Session) {
	r.crops.Range(func(k, _ any) bool {
		if k.(streamKey).s == s {
			r.crops.Delete(k)
		}
		return true
	})
}

// noPixelsWhy is why the Wayland road has no pixels in a build without
// PipeWire.
const noPixelsWhy = "pixels over PipeWire are not built in (a build without cgo, or with the vibespace_nopipewire tag): the Wayland road reads no pixels, no screenshot, no live frames"

// portalRoad is the portal of the person's session bus, and the one
// remote-desktop session we hold there.
type portalRoad struct {
	c      *portal.Client // nil when there is no portal
	info   portal.Info
	why    string             // why there is no portal road (c == nil)
	tokens *portal.TokenStore // nil: no token store configured
	o      Options
	// current is XDG_CURRENT_DESKTOP where desktop on ran (it names the
	// compositor when its bus names do not); screencast is the operator's
	// ask for pixels where the compositor's ScreenCast is known to fail
	// (screenCastWhy).
	current    string
	screencast bool
	now        func() time.Time

	sem chan struct{} // one Start at a time

	// pixels reads each stream of the session once, for every Frames of
	// it (wlWindow.Frames).
	pixels capture.Share
	crops  sync.Map // streamKey → *streamCrop: each shared stream's newest crop

	mu       sync.Mutex
	sess     *portal.Session
	declined time.Time                               // when the person declined the dialog (it stands)
	heard    func(ctx context.Context, event string) // the core's ear for token events (kind.TokenWatcher)
	held     held                                    // what our session holds pressed (wayland_input.go)
}

// portalCallTimeout bounds each of our calls to the portal.
const portalCallTimeout = 5 * time.Second

// dialPortal reaches the portal on env's session bus and probes it. No
// portal is not an error: the road is then absent and why says so.
func dialPortal(ctx context.Context, env kind.DesktopEnv, o Options) *portalRoad {
	bus := env.Bus
	r := &portalRoad{o: o, now: time.Now, sem: make(chan struct{}, 1), current: env.Current, screencast: env.ScreenCast}
	if o.TokenPath != "" {
		r.tokens = portal.OpenTokenStore(o.TokenPath)
	}
	if bus == "" {
		r.why = "your session bus is not known (DBUS_SESSION_BUS_ADDRESS was not set where desktop on ran), so the portal cannot be asked"
		return r
	}
	c, err := portal.Dial(ctx, bus, portal.Options{CallTimeout: portalCallTimeout, ConsentTimeout: o.ConsentTimeout})
	if err != nil {
		r.why = "your session bus did not answer: " + err.Error()
		return r
	}
	info, err := c.Probe(ctx)
	if err != nil {
		c.Close()
		r.why = "no RemoteDesktop portal on your session bus (" + err.Error() + ")"
		return r
	}
	r.c, r.info = c, info
	return r
}

// injectionWhy is why the portal road cannot inject now ("" when it can:
// a session is held, or one will be asked for).
func (r *portalRoad) injectionWhy() string {
	if r.c == nil {
		return r.why
	}
	if r.info.Devices&(portal.Keyboard|portal.Pointer) == 0 {
		return fmt.Sprintf("the RemoteDesktop portal on your session bus offers no keyboard or pointer (AvailableDeviceTypes %s)", r.info.Devices)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.declined.IsZero() {
		return fmt.Sprintf("the person declined the portal's dialog at %s; it is not asked again until your desktop is opened anew (desktop off, then desktop on)", r.declined.Format(time.RFC3339))
	}
	return ""
}

// shell names the compositor, as the bus's names say (portal.Shell), else
// as XDG_CURRENT_DESKTOP does: every refusal of this road names it.
func (r *portalRoad) shell() string {
	switch {
	case r.info.Shell.Compositor != "":
		return r.info.Shell.Compositor
	case r.current != "":
		return r.current + " (XDG_CURRENT_DESKTOP)"
	}
	return "an unnamed compositor"
}

// The compositors whose portal is known to fail, and why.
const kwinName = "KWin"

// screenCastWhy is why the portal's ScreenCast is not asked of this
// compositor ("" when it is): on KWin, unless the operator asked for it.
// xdg-desktop-portal-kde 5.27's chooser draws live thumbnails of every
// window, and headless KWin 5.27 dies of SIGSEGV as it does (QPainter and
// llvmpipe alike): asking for a source there would end the person's
// session. Input alone asks nothing there.
func (r *portalRoad) screenCastWhy() string {
	if r.info.Shell.Compositor != kwinName || r.screencast {
		return ""
	}
	return "KWin's ScreenCast is not asked for: xdg-desktop-portal-kde 5.27's chooser draws live window thumbnails, and KWin 5.27 without a GPU crashes as it does, taking the person's session with it; keys ask for keyboard and pointer alone (no dialog on KWin). The operator may ask for pixels all the same: desktop off, then desktop on --screencast"
}

// source is the ScreenCast sources a session offers the person to pick
// from in the dialog: a window and a monitor where the portal offers them
// (the person chooses; point verbs and pixels then need the window they
// picked: windowStream), else none. A compositor may offer windows it
// cannot list (bare mutter has no window picker): a monitor can still be
// picked there, and keys work.
func (r *portalRoad) source() portal.SourceTypes {
	if r.info.ScreenCast == 0 || r.screenCastWhy() != "" {
		return 0
	}
	return r.info.Sources & (portal.Window | portal.Monitor)
}

// pointWhy is why a point of a window cannot be placed on this road
// before any session ("" when it may be).
func (r *portalRoad) pointWhy() string {
	if why := r.screenCastWhy(); why != "" {
		return why
	}
	if r.source()&portal.Window == 0 {
		return "the portal offers no window source (ScreenCast AvailableSourceTypes " + sources(r.info.Sources) + "): on Wayland a window's place on a monitor is unknown to us, so a point of this window cannot be placed; act on its nodes (@ref) instead"
	}
	return ""
}

// session is the live remote-desktop session, started (the person answers
// the portal's dialog, bounded by ctx) when there is none. A session the
// portal ended since the last verb is said, once, by this verb's refusal.
func (r *portalRoad) session(ctx context.Context) (*portal.Session, error) {
	if why := r.injectionWhy(); why != "" {
		return nil, r.noInjection(why)
	}
	select {
	case r.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, target.Refuse(target.CodeTimeout, "another verb is waiting for the person to answer the portal's dialog; this one ran out of time").Wrap(ctx.Err())
	}
	defer func() { <-r.sem }()
	r.mu.Lock()
	s := r.sess
	r.mu.Unlock()
	if s != nil {
		select {
		case <-s.Done():
			r.mu.Lock()
			r.sess = nil
			r.mu.Unlock()
			r.forgetCrops(s)
			why := "it ended"
			if err := s.Err(); err != nil {
				why = err.Error()
			}
			return nil, r.noInjection("the portal's remote-desktop session ended (" + why + "); the next verb asks the person again through the portal's dialog")
		default:
			return s, nil
		}
	}
	return r.start(ctx)
}

// start asks the portal for keyboard and pointer and a ScreenCast source,
// with the stored restore token where the portal takes one (v2), and keeps
// the newest token it answers.
func (r *portalRoad) start(ctx context.Context) (*portal.Session, error) {
	req := portal.Request{Devices: r.info.Devices & (portal.Keyboard | portal.Pointer), Sources: r.source()}
	v2 := r.info.RemoteDesktop >= 2
	usedToken := false
	if v2 && r.tokens != nil {
		req.Persist = true
		tok, err := r.tokens.Load()
		switch {
		case err != nil:
			// Never sent, never a crash: set aside, and said (audited);
			// the portal's dialog comes back once.
			r.token(ctx, TokenSetAside+" ("+err.Error()+"): the portal's dialog comes back once")
		case tok != "":
			req.RestoreToken = tok
			usedToken = true
			r.token(ctx, TokenUsed)
		}
	}
	s, err := r.c.Start(ctx, req)
	if err != nil {
		if usedToken {
			// A restore token is single use: whatever the portal did with
			// it, it is spent.
			if r.tokens.Clear() == nil {
				r.token(ctx, TokenCleared)
			}
		}
		return nil, r.startRefusal(err)
	}
	if v2 && r.tokens != nil {
		if tok := s.RestoreToken(); tok != "" {
			if err := r.tokens.Save(tok); err != nil {
				r.token(ctx, TokenNotSaved+" ("+err.Error()+"): the portal's dialog comes back on the next session")
			} else {
				r.token(ctx, TokenSaved)
			}
		} else if usedToken && r.tokens.Clear() == nil {
			r.token(ctx, TokenCleared)
		}
	}
	r.mu.Lock()
	r.sess = s
	r.mu.Unlock()
	return s, nil
}

// token tells the core (onToken) what happened to the stored token, in
// the verb's ctx.
func (r *portalRoad) token(ctx context.Context, event string) {
	r.mu.Lock()
	heard := r.heard
	r.mu.Unlock()
	if heard != nil {
		heard(ctx, event)
	}
}

// startRefusal is Start's failure as the verb's refusal; a decline is
// remembered (it stands: the person is not asked again and again).
func (r *portalRoad) startRefusal(err error) error {
	switch {
	case errors.Is(err, portal.ErrCancelled):
		at := r.now()
		r.mu.Lock()
		r.declined = at
		r.mu.Unlock()
		return r.noInjection(fmt.Sprintf("the person declined the portal's dialog at %s; it is not asked again until your desktop is opened anew (desktop off, then desktop on)", at.Format(time.RFC3339))).Wrap(err)
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return target.Refuse(target.CodeTimeout, "the person did not answer the portal's consent dialog (remote desktop: allow remote interaction) in time; nothing was sent, and the next verb that needs input asks again").Wrap(err)
	case errors.Is(err, portal.ErrNoPortal):
		return r.noInjection("no RemoteDesktop portal on your session bus (" + err.Error() + ")").Wrap(err)
	}
	return r.noInjection("the portal did not start a remote-desktop session: " + err.Error()).Wrap(err)
}

// noInjection is no_injection_backend for why, naming the compositor
// whose portal it is.
func (r *portalRoad) noInjection(why string) *target.Refusal {
	return target.Refuse(target.CodeNoInjectionBackend, "no injection through %s's portal: %s", r.shell(), why).With("reason", why).With("shell", r.shell())
}

// windowStream is the session's window stream, or why a point of a window
// of size w×h cannot be placed on it. A stream may be larger than its
// window: mutter (GNOME Shell) casts a window in a stream the size of its
// monitor, the window at the stream's top left (a window may grow, a
// stream cannot); a point of the window is the same point of the stream
// either way. A stream smaller than the window is another window, and a
// window of no known size is none of the person's shared one.
func (r *portalRoad) windowStream(s *portal.Session, w, h int) (portal.Stream, error) {
	if w <= 0 || h <= 0 {
		// A window with no size on the accessibility bus (GNOME Shell's
		// own) cannot be told from the one the person shared: its
		// pixels would be that window's.
		return portal.Stream{}, r.noInjection("this window has no size on the accessibility bus, so it cannot be told to be the window the person shared in the portal's dialog: its pixels and points are refused")
	}
	for _, st := range s.Streams() {
		if st.SourceType != portal.Window {
			continue
		}
		if st.Size[0] > 0 && w > 0 && (w-int(st.Size[0]) > sizeSlack || h-int(st.Size[1]) > sizeSlack) {
			return st, r.noInjection(fmt.Sprintf("the window the person shared in the portal's dialog is %dx%d and this one is %dx%d: it is not this window, and a point of this one cannot be placed", st.Size[0], st.Size[1], w, h))
		}
		return st, nil
	}
	return portal.Stream{}, r.noInjection("the portal granted no window stream (only a monitor, or none): on Wayland a window's place on a monitor is unknown to us, so a point of this window cannot be placed; act on its nodes (@ref) instead")
}

// sizeSlack is how far a shared window's stream size may differ from its
// accessible frame's extents (client-side decorations and shadows).
const sizeSlack = 64

func sources(s portal.SourceTypes) string {
	var out string
	for _, x := range []struct {
		b portal.SourceTypes
		n string
	}{{portal.Monitor, "monitor"}, {portal.Window, "window"}, {portal.Virtual, "virtual"}} {
		if s&x.b != 0 {
			if out != "" {
				out += "|"
			}
			out += x.n
		}
	}
	if out == "" {
		return "none"
	}
	return out
}

// close ends our session (nothing of the person's stops) and the bus
// connection.
func (r *portalRoad) close() error {
	if r.c == nil {
		return nil
	}
	r.mu.Lock()
	s := r.sess
	r.sess = nil
	r.mu.Unlock()
	var errs []error
	if s != nil {
		ctx, cancel := context.WithTimeout(context.Background(), portalCallTimeout)
		errs = append(errs, s.Close(ctx))
		cancel()
		r.forgetCrops(s)
	}
	errs = append(errs, r.c.Close())
	return errors.Join(errs...)
}
