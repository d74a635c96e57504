package portaltest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"golang.org/x/sys/unix"

	"github.com/vibespace/vibespace/internal/busdial"
)

// The frontend's names (upstream org.freedesktop.portal.*, version 2 of
// RemoteDesktop, 4 of ScreenCast).
const (
	DesktopName     = "org.freedesktop.portal.Desktop"
	DesktopPath     = dbus.ObjectPath("/org/freedesktop/portal/desktop")
	IfaceRemote     = "org.freedesktop.portal.RemoteDesktop"
	IfaceScreenCast = "org.freedesktop.portal.ScreenCast"
	IfaceRequest    = "org.freedesktop.portal.Request"
	IfaceSession    = "org.freedesktop.portal.Session"
	ifaceProps      = "org.freedesktop.DBus.Properties"
	errAccess       = "org.freedesktop.DBus.Error.AccessDenied"
	errInvalid      = "org.freedesktop.DBus.Error.InvalidArgs"
)

// Answer is how the fake's "dialog" answers.
type Answer int

// The answers: Response 0, 1, 2, or none at all.
const (
	Grant Answer = iota
	Cancel
	Fail
	Never
)

// Stream is one stream the fake grants.
type Stream struct {
	Node       uint32
	SourceType uint32
	Position   [2]int32
	Size       [2]int32
	ID         string
}

// Policy is how the fake answers; set it per test with SetPolicy.
type Policy struct {
	// Answer applies to Step ("" means Start); other steps are granted.
	Answer Answer
	Step   string
	// Devices granted (0: what SelectDevices asked for, within the
	// available types).
	Devices uint32
	// Streams granted when sources were selected (nil: one monitor, node
	// 42, 1280x720).
	Streams []Stream
	// CloseAfterStart: the portal closes the session (Session.Closed)
	// right after Start answered.
	CloseAfterStart bool
	// OtherHandle: Request handles differ from the predicted path (as
	// portals older than 0.9 did).
	OtherHandle bool
}

// FakeOptions configure the fake's properties.
type FakeOptions struct {
	RemoteDesktopVersion uint32 // default 2
	ScreenCastVersion    uint32 // default 4
	Devices              uint32 // AvailableDeviceTypes, default 7
	Sources              uint32 // AvailableSourceTypes, default 7
	Cursors              uint32 // AvailableCursorModes, default 7
}

// Call is one entry of the fake's event log: a method call it received
// (Iface, Method, Sender, Session, Options, Args) or a signal it emitted
// (Iface "signal", Method "Response"/"Closed").
type Call struct {
	Iface   string
	Method  string
	Sender  string
	Session dbus.ObjectPath // the session handle argument, or the object path
	Options map[string]any  // the a{sv} argument, values unwrapped
	Args    []any           // the other arguments, in order
	serial  uint32          // the message's serial on the sender's connection (0: not kept)
}

func (c Call) String() string {
	return fmt.Sprintf("%s.%s(%s, %v, %v)", c.Iface, c.Method, c.Session, c.Options, c.Args)
}

// Fake is a Go fake of xdg-desktop-portal's frontend on a bus.
type Fake struct {
	conn *exportConn
	opts FakeOptions

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced on every log entry
	policy   Policy
	log      []Call
	dialogs  int
	seq      int
	tokens   map[string]grant // valid restore tokens
	sessions map[dbus.ObjectPath]*fakeSession
	requests map[dbus.ObjectPath]bool
	files    []*os.File
}

type grant struct {
	devices uint32
	streams []Stream
}

type fakeSession struct {
	path     dbus.ObjectPath
	owner    string
	devsAsk  uint32
	persist  uint32
	restored *grant
	sources  bool
	started  bool
	eis      bool
	g        grant
}

// NewFake starts a Fake on the bus at addr for t and stops it when t ends.
func NewFake(t testing.TB, addr string, o FakeOptions) *Fake {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	f, err := StartFake(ctx, addr, o)
	if err != nil {
		t.Fatalf("portaltest: %v", err)
	}
	t.Cleanup(f.Close)
	return f
}

// StartFake connects to addr, exports the Desktop object and claims
// org.freedesktop.portal.Desktop.
func StartFake(ctx context.Context, addr string, o FakeOptions) (*Fake, error) {
	if o.RemoteDesktopVersion == 0 {
		o.RemoteDesktopVersion = 2
	}
	if o.ScreenCastVersion == 0 {
		o.ScreenCastVersion = 4
	}
	if o.Devices == 0 {
		o.Devices = 7
	}
	if o.Sources == 0 {
		o.Sources = 7
	}
	if o.Cursors == 0 {
		o.Cursors = 7
	}
	conn, err := connect(ctx, addr)
	if err != nil {
		return nil, err
	}
	f := &Fake{conn: conn, opts: o, changed: make(chan struct{}), tokens: map[string]grant{},
		sessions: map[dbus.ObjectPath]*fakeSession{}, requests: map[dbus.ObjectPath]bool{}}
	for iface, v := range map[string]any{IfaceRemote: fakeRD{f}, IfaceScreenCast: fakeSC{f}, ifaceProps: fakeProps{f}} {
		if err := conn.Export(v, DesktopPath, iface); err != nil {
			conn.Close()
			return nil, err
		}
	}
	if err := claim(conn, DesktopName); err != nil {
		conn.Close()
		return nil, err
	}
	return f, nil
}

// connect opens a private connection bounded by ctx.
func connect(ctx context.Context, addr string) (*exportConn, error) {
	c, err := busdial.Dial(ctx, addr)
	if err != nil {
		return nil, fmt.Errorf("portaltest: %w", err)
	}
	return &exportConn{Conn: c}, nil
}

// exportConn is a bus connection whose exports are taken one at a time.
// godbus (v5.2.4) reads its object table without its lock when it exports
// or unexports (PathExists), so two exports on one connection from two
// goroutines race: the fakes export a Request from one handler while a
// Session's Closed unexports from another.
type exportConn struct {
	*dbus.Conn
	exportMu sync.Mutex
}

func (c *exportConn) Export(v any, path dbus.ObjectPath, iface string) error {
	c.exportMu.Lock()
	defer c.exportMu.Unlock()
	return c.Conn.Export(v, path, iface)
}

func claim(conn *exportConn, name string) error {
	r, err := conn.RequestName(name, dbus.NameFlagDoNotQueue)
	if err != nil {
		return fmt.Errorf("portaltest: RequestName(%s): %w", name, err)
	}
	if r != dbus.RequestNameReplyPrimaryOwner {
		return fmt.Errorf("portaltest: %s is already owned", name)
	}
	return nil
}

// Close leaves the bus.
func (f *Fake) Close() {
	f.conn.Close()
	f.mu.Lock()
	for _, fl := range f.files {
		fl.Close()
	}
	f.files = nil
	f.mu.Unlock()
}

// UniqueName is the fake's unique bus name.
func (f *Fake) UniqueName() string { return f.conn.Names()[0] }

// SetPolicy sets how the fake answers from now on.
func (f *Fake) SetPolicy(p Policy) {
	f.mu.Lock()
	f.policy = p
	f.mu.Unlock()
}

// Log is every entry so far.
func (f *Fake) Log() []Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Call(nil), f.log...)
}

// Calls are the log entries for one method (or signal) name.
func (f *Fake) Calls(method string) []Call {
	var out []Call
	for _, c := range f.Log() {
		if c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

// Dialogs is how many consent dialogs the fake has "shown".
func (f *Fake) Dialogs() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.dialogs
}

// Wait waits until a log entry from index from on matches.
func (f *Fake) Wait(ctx context.Context, from int, match func(Call) bool) (Call, error) {
	for {
		f.mu.Lock()
		for _, c := range f.log[min(from, len(f.log)):] {
			if match(c) {
				f.mu.Unlock()
				return c, nil
			}
		}
		ch := f.changed
		n := len(f.log)
		f.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return Call{}, fmt.Errorf("portaltest: no matching call among %d: %w", n, ctx.Err())
		}
	}
}

// CloseSession closes a session from the portal's side: Session.Closed.
func (f *Fake) CloseSession(path dbus.ObjectPath) error {
	f.mu.Lock()
	s := f.sessions[path]
	delete(f.sessions, path)
	f.mu.Unlock()
	if s == nil {
		return fmt.Errorf("portaltest: no session %s", path)
	}
	return f.closed(s)
}

func (f *Fake) closed(s *fakeSession) error {
	f.conn.Export(nil, s.path, IfaceSession)
	f.record(Call{Iface: "signal", Method: "Closed", Session: s.path})
	return f.conn.Emit(s.path, IfaceSession+".Closed", map[string]dbus.Variant{})
}

func (f *Fake) record(c Call) {
	f.mu.Lock()
	f.log = append(f.log, c)
	close(f.changed)
	f.changed = make(chan struct{})
	f.mu.Unlock()
}

func unwrap(o map[string]dbus.Variant) map[string]any {
	m := make(map[string]any, len(o))
	for k, v := range o {
		m[k] = v.Value()
	}
	return m
}

func senderElem(s dbus.Sender) string {
	return strings.ReplaceAll(strings.TrimPrefix(string(s), ":"), ".", "_")
}

func validToken(t string) bool {
	if t == "" {
		return false
	}
	for _, r := range t {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// newRequest makes the Request object of one call and answers it (in a
// goroutine, after the call's reply) with answer(), unless the policy says
// never.
func (f *Fake) newRequest(sender dbus.Sender, step string, noDialog bool, opts map[string]dbus.Variant, answer func(p Policy) (uint32, map[string]dbus.Variant)) (dbus.ObjectPath, *dbus.Error) {
	tok, _ := opts["handle_token"].Value().(string)
	f.mu.Lock()
	f.seq++
	if tok == "" {
		tok = fmt.Sprintf("t%d", f.seq)
	}
	p := f.policy
	if p.OtherHandle {
		tok = fmt.Sprintf("other%d", f.seq)
	}
	f.mu.Unlock()
	if !validToken(tok) {
		return "", dbus.NewError(errInvalid, []any{"invalid handle_token"})
	}
	path := dbus.ObjectPath("/org/freedesktop/portal/desktop/request/" + senderElem(sender) + "/" + tok)
	f.mu.Lock()
	f.requests[path] = true
	f.mu.Unlock()
	f.conn.Export(fakeRequest{f, path}, path, IfaceRequest)
	step0 := p.Step
	if step0 == "" {
		step0 = "Start"
	}
	ans := Grant
	if step == step0 && !noDialog {
		ans = p.Answer
	}
	if ans == Never {
		return path, nil
	}
	var code uint32
	var results map[string]dbus.Variant
	switch ans {
	case Cancel:
		code, results = 1, map[string]dbus.Variant{}
	case Fail:
		code, results = 2, map[string]dbus.Variant{}
	default:
		code, results = answer(p)
	}
	go func() {
		f.mu.Lock()
		live := f.requests[path]
		delete(f.requests, path)
		f.mu.Unlock()
		if !live {
			return
		}
		f.conn.Export(nil, path, IfaceRequest)
		f.record(Call{Iface: "signal", Method: "Response", Session: path, Args: []any{code}, Options: unwrap(results)})
		f.conn.Emit(path, IfaceRequest+".Response", code, results)
	}()
	return path, nil
}

// session finds a session the sender owns.
func (f *Fake) session(sender dbus.Sender, path dbus.ObjectPath) (*fakeSession, *dbus.Error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.sessions[path]
	if s == nil {
		return nil, dbus.NewError(errInvalid, []any{"no such session"})
	}
	if s.owner != string(sender) {
		return nil, dbus.NewError(errAccess, []any{"not your session"})
	}
	return s, nil
}

func (f *Fake) createSession(sender dbus.Sender, iface string, opts map[string]dbus.Variant) (dbus.ObjectPath, *dbus.Error) {
	f.record(Call{Iface: iface, Method: "CreateSession", Sender: string(sender), Options: unwrap(opts)})
	stok, _ := opts["session_handle_token"].Value().(string)
	f.mu.Lock()
	f.seq++
	if stok == "" {
		stok = fmt.Sprintf("s%d", f.seq)
	}
	f.mu.Unlock()
	if !validToken(stok) {
		return "", dbus.NewError(errInvalid, []any{"invalid session_handle_token"})
	}
	sp := dbus.ObjectPath("/org/freedesktop/portal/desktop/session/" + senderElem(sender) + "/" + stok)
	return f.newRequest(sender, "CreateSession", false, opts, func(Policy) (uint32, map[string]dbus.Variant) {
		s := &fakeSession{path: sp, owner: string(sender), devsAsk: f.opts.Devices}
		f.mu.Lock()
		f.sessions[sp] = s
		f.mu.Unlock()
		f.conn.Export(fakeSessionObj{f, sp}, sp, IfaceSession)
		return 0, map[string]dbus.Variant{"session_handle": dbus.MakeVariant(string(sp))}
	})
}

func (f *Fake) start(sender dbus.Sender, iface string, session dbus.ObjectPath, parent string, opts map[string]dbus.Variant) (dbus.ObjectPath, *dbus.Error) {
	f.record(Call{Iface: iface, Method: "Start", Sender: string(sender), Session: session, Options: unwrap(opts), Args: []any{parent}})
	s, derr := f.session(sender, session)
	if derr != nil {
		return "", derr
	}
	f.mu.Lock()
	if s.started {
		f.mu.Unlock()
		return "", dbus.NewError(errAccess, []any{"session already started"})
	}
	restored := s.restored
	if restored == nil {
		f.dialogs++
	}
	f.mu.Unlock()
	return f.newRequest(sender, "Start", restored != nil, opts, func(p Policy) (uint32, map[string]dbus.Variant) {
		f.mu.Lock()
		defer func() {
			if p.CloseAfterStart {
				go func() {
					f.mu.Lock()
					live := f.sessions[s.path] == s
					delete(f.sessions, s.path)
					f.mu.Unlock()
					if live {
						f.closed(s)
					}
				}()
			}
		}()
		defer f.mu.Unlock()
		var g grant
		if restored != nil {
			g = *restored
		} else {
			g.devices = p.Devices
			if g.devices == 0 {
				g.devices = s.devsAsk
			}
			g.devices &= f.opts.Devices
			if s.sources {
				g.streams = p.Streams
				if g.streams == nil {
					g.streams = []Stream{{Node: 42, SourceType: 1, Size: [2]int32{1280, 720}, ID: "0"}}
				}
			}
		}
		s.g = g
		s.started = true
		res := map[string]dbus.Variant{"devices": dbus.MakeVariant(g.devices)}
		if len(g.streams) > 0 {
			type st struct {
				Node  uint32
				Props map[string]dbus.Variant
			}
			var ss []st
			for _, x := range g.streams {
				ss = append(ss, st{x.Node, map[string]dbus.Variant{
					"position":    dbus.MakeVariant(struct{ A, B int32 }{x.Position[0], x.Position[1]}),
					"size":        dbus.MakeVariant(struct{ A, B int32 }{x.Size[0], x.Size[1]}),
					"source_type": dbus.MakeVariant(x.SourceType),
					"id":          dbus.MakeVariant(x.ID),
				}})
			}
			res["streams"] = dbus.MakeVariant(ss)
		}
		if f.opts.RemoteDesktopVersion >= 2 && s.persist > 0 {
			var b [8]byte
			_, _ = rand.Read(b[:])
			t := "fake-token-" + hex.EncodeToString(b[:])
			f.tokens[t] = g
			res["restore_token"] = dbus.MakeVariant(t)
		}
		return 0, res
	})
}

// notify checks a Notify call the way the frontend does.
func (f *Fake) notify(sender dbus.Sender, method string, session dbus.ObjectPath, opts map[string]dbus.Variant, need uint32, args ...any) *dbus.Error {
	f.record(Call{Iface: IfaceRemote, Method: method, Sender: string(sender), Session: session, Options: unwrap(opts), Args: args})
	s, derr := f.session(sender, session)
	if derr != nil {
		return derr
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case !s.started:
		return dbus.NewError(errAccess, []any{"session not started"})
	case s.eis:
		return dbus.NewError(errAccess, []any{"session is connected to EIS"})
	case s.g.devices&need == 0:
		return dbus.NewError(errAccess, []any{fmt.Sprintf("device type %d not granted", need)})
	}
	if method == "NotifyPointerMotionAbsolute" || method == "NotifyTouchDown" || method == "NotifyTouchMotion" {
		node := args[0].(uint32)
		ok := false
		for _, st := range s.g.streams {
			ok = ok || st.Node == node
		}
		if !ok {
			return dbus.NewError(errInvalid, []any{"unknown stream"})
		}
	}
	return nil
}

func (f *Fake) socketFD(session dbus.ObjectPath, what string) (dbus.UnixFD, *dbus.Error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return 0, dbus.MakeFailedError(err)
	}
	ours := os.NewFile(uintptr(fds[0]), what+"-server")
	theirs := os.NewFile(uintptr(fds[1]), what+"-client")
	// The oracle of fd passing: the client reads this line from its end.
	fmt.Fprintf(ours, "%s %s\n", what, session)
	f.mu.Lock()
	f.files = append(f.files, ours, theirs)
	f.mu.Unlock()
	return dbus.UnixFD(theirs.Fd()), nil
}

type fakeRD struct{ f *Fake }

func (r fakeRD) CreateSession(sender dbus.Sender, opts map[string]dbus.Variant) (dbus.ObjectPath, *dbus.Error) {
	return r.f.createSession(sender, IfaceRemote, opts)
}

func (r fakeRD) SelectDevices(sender dbus.Sender, session dbus.ObjectPath, opts map[string]dbus.Variant) (dbus.ObjectPath, *dbus.Error) {
	f := r.f
	f.record(Call{Iface: IfaceRemote, Method: "SelectDevices", Sender: string(sender), Session: session, Options: unwrap(opts)})
	s, derr := f.session(sender, session)
	if derr != nil {
		return "", derr
	}
	f.mu.Lock()
	if t, ok := opts["types"].Value().(uint32); ok {
		s.devsAsk = t
	}
	if f.opts.RemoteDesktopVersion >= 2 {
		if pm, ok := opts["persist_mode"].Value().(uint32); ok {
			s.persist = pm
		}
		if t, ok := opts["restore_token"].Value().(string); ok {
			if g, valid := f.tokens[t]; valid {
				delete(f.tokens, t) // single use
				s.restored = &g
			}
		}
	}
	f.mu.Unlock()
	return f.newRequest(sender, "SelectDevices", false, opts, func(Policy) (uint32, map[string]dbus.Variant) {
		return 0, map[string]dbus.Variant{}
	})
}

func (r fakeRD) Start(sender dbus.Sender, session dbus.ObjectPath, parent string, opts map[string]dbus.Variant) (dbus.ObjectPath, *dbus.Error) {
	return r.f.start(sender, IfaceRemote, session, parent, opts)
}

func (r fakeRD) NotifyPointerMotion(sender dbus.Sender, session dbus.ObjectPath, opts map[string]dbus.Variant, dx, dy float64) *dbus.Error {
	return r.f.notify(sender, "NotifyPointerMotion", session, opts, 2, dx, dy)
}

func (r fakeRD) NotifyPointerMotionAbsolute(sender dbus.Sender, session dbus.ObjectPath, opts map[string]dbus.Variant, stream uint32, x, y float64) *dbus.Error {
	return r.f.notify(sender, "NotifyPointerMotionAbsolute", session, opts, 2, stream, x, y)
}

func (r fakeRD) NotifyPointerButton(sender dbus.Sender, session dbus.ObjectPath, opts map[string]dbus.Variant, button int32, state uint32) *dbus.Error {
	return r.f.notify(sender, "NotifyPointerButton", session, opts, 2, button, state)
}

func (r fakeRD) NotifyPointerAxis(sender dbus.Sender, session dbus.ObjectPath, opts map[string]dbus.Variant, dx, dy float64) *dbus.Error {
	return r.f.notify(sender, "NotifyPointerAxis", session, opts, 2, dx, dy)
}

func (r fakeRD) NotifyPointerAxisDiscrete(sender dbus.Sender, session dbus.ObjectPath, opts map[string]dbus.Variant, axis uint32, steps int32) *dbus.Error {
	return r.f.notify(sender, "NotifyPointerAxisDiscrete", session, opts, 2, axis, steps)
}

func (r fakeRD) NotifyKeyboardKeycode(sender dbus.Sender, session dbus.ObjectPath, opts map[string]dbus.Variant, keycode int32, state uint32) *dbus.Error {
	return r.f.notify(sender, "NotifyKeyboardKeycode", session, opts, 1, keycode, state)
}

func (r fakeRD) NotifyKeyboardKeysym(sender dbus.Sender, session dbus.ObjectPath, opts map[string]dbus.Variant, keysym int32, state uint32) *dbus.Error {
	return r.f.notify(sender, "NotifyKeyboardKeysym", session, opts, 1, keysym, state)
}

func (r fakeRD) NotifyTouchDown(sender dbus.Sender, session dbus.ObjectPath, opts map[string]dbus.Variant, stream, slot uint32, x, y float64) *dbus.Error {
	return r.f.notify(sender, "NotifyTouchDown", session, opts, 4, stream, slot, x, y)
}

func (r fakeRD) NotifyTouchMotion(sender dbus.Sender, session dbus.ObjectPath, opts map[string]dbus.Variant, stream, slot uint32, x, y float64) *dbus.Error {
	return r.f.notify(sender, "NotifyTouchMotion", session, opts, 4, stream, slot, x, y)
}

func (r fakeRD) NotifyTouchUp(sender dbus.Sender, session dbus.ObjectPath, opts map[string]dbus.Variant, slot uint32) *dbus.Error {
	return r.f.notify(sender, "NotifyTouchUp", session, opts, 4, slot)
}

// ConnectToEIS (version 2): an fd to an EIS server, only after Start; the
// session's Notify calls fail from then on.
func (r fakeRD) ConnectToEIS(sender dbus.Sender, session dbus.ObjectPath, opts map[string]dbus.Variant) (dbus.UnixFD, *dbus.Error) {
	f := r.f
	f.record(Call{Iface: IfaceRemote, Method: "ConnectToEIS", Sender: string(sender), Session: session, Options: unwrap(opts)})
	if f.opts.RemoteDesktopVersion < 2 {
		return 0, dbus.NewError("org.freedesktop.DBus.Error.UnknownMethod", []any{"no ConnectToEIS in version 1"})
	}
	s, derr := f.session(sender, session)
	if derr != nil {
		return 0, derr
	}
	f.mu.Lock()
	started := s.started
	s.eis = started
	f.mu.Unlock()
	if !started {
		return 0, dbus.NewError(errAccess, []any{"session not started"})
	}
	return f.socketFD(session, "eis")
}

type fakeSC struct{ f *Fake }

func (c fakeSC) CreateSession(sender dbus.Sender, opts map[string]dbus.Variant) (dbus.ObjectPath, *dbus.Error) {
	return c.f.createSession(sender, IfaceScreenCast, opts)
}

func (c fakeSC) SelectSources(sender dbus.Sender, session dbus.ObjectPath, opts map[string]dbus.Variant) (dbus.ObjectPath, *dbus.Error) {
	f := c.f
	f.record(Call{Iface: IfaceScreenCast, Method: "SelectSources", Sender: string(sender), Session: session, Options: unwrap(opts)})
	s, derr := f.session(sender, session)
	if derr != nil {
		return "", derr
	}
	if t, ok := opts["types"].Value().(uint32); ok && t&^f.opts.Sources != 0 {
		return "", dbus.NewError(errInvalid, []any{"unsupported source types"})
	}
	f.mu.Lock()
	s.sources = true
	f.mu.Unlock()
	return f.newRequest(sender, "SelectSources", false, opts, func(Policy) (uint32, map[string]dbus.Variant) {
		return 0, map[string]dbus.Variant{}
	})
}

func (c fakeSC) Start(sender dbus.Sender, session dbus.ObjectPath, parent string, opts map[string]dbus.Variant) (dbus.ObjectPath, *dbus.Error) {
	return c.f.start(sender, IfaceScreenCast, session, parent, opts)
}

func (c fakeSC) OpenPipeWireRemote(sender dbus.Sender, session dbus.ObjectPath, opts map[string]dbus.Variant) (dbus.UnixFD, *dbus.Error) {
	f := c.f
	f.record(Call{Iface: IfaceScreenCast, Method: "OpenPipeWireRemote", Sender: string(sender), Session: session, Options: unwrap(opts)})
	s, derr := f.session(sender, session)
	if derr != nil {
		return 0, derr
	}
	f.mu.Lock()
	started := s.started
	f.mu.Unlock()
	if !started {
		return 0, dbus.NewError(errAccess, []any{"session not started"})
	}
	return f.socketFD(session, "pipewire")
}

type fakeRequest struct {
	f    *Fake
	path dbus.ObjectPath
}

func (r fakeRequest) Close(sender dbus.Sender) *dbus.Error {
	r.f.record(Call{Iface: IfaceRequest, Method: "Close", Sender: string(sender), Session: r.path})
	r.f.mu.Lock()
	delete(r.f.requests, r.path)
	r.f.mu.Unlock()
	r.f.conn.Export(nil, r.path, IfaceRequest)
	return nil
}

type fakeSessionObj struct {
	f    *Fake
	path dbus.ObjectPath
}

func (s fakeSessionObj) Close(sender dbus.Sender) *dbus.Error {
	f := s.f
	f.record(Call{Iface: IfaceSession, Method: "Close", Sender: string(sender), Session: s.path})
	if _, derr := f.session(sender, s.path); derr != nil {
		return derr
	}
	f.mu.Lock()
	delete(f.sessions, s.path)
	f.mu.Unlock()
	f.conn.Export(nil, s.path, IfaceSession)
	return nil
}

type fakeProps struct{ f *Fake }

func (p fakeProps) all(iface string) (map[string]dbus.Variant, *dbus.Error) {
	o := p.f.opts
	switch iface {
	case IfaceRemote:
		return map[string]dbus.Variant{"version": dbus.MakeVariant(o.RemoteDesktopVersion),
			"AvailableDeviceTypes": dbus.MakeVariant(o.Devices)}, nil
	case IfaceScreenCast:
		return map[string]dbus.Variant{"version": dbus.MakeVariant(o.ScreenCastVersion),
			"AvailableSourceTypes": dbus.MakeVariant(o.Sources), "AvailableCursorModes": dbus.MakeVariant(o.Cursors)}, nil
	}
	return nil, dbus.NewError("org.freedesktop.DBus.Error.UnknownInterface", []any{iface})
}

func (p fakeProps) Get(iface, name string) (dbus.Variant, *dbus.Error) {
	m, derr := p.all(iface)
	if derr != nil {
		return dbus.Variant{}, derr
	}
	v, ok := m[name]
	if !ok {
		return dbus.Variant{}, dbus.NewError("org.freedesktop.DBus.Error.UnknownProperty", []any{name})
	}
	return v, nil
}

func (p fakeProps) GetAll(iface string) (map[string]dbus.Variant, *dbus.Error) { return p.all(iface) }

func (p fakeProps) Set(iface, name string, v dbus.Variant) *dbus.Error {
	return dbus.NewError("org.freedesktop.DBus.Error.PropertyReadOnly", []any{name})
}
