package portaltest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// The backend's names (org.freedesktop.impl.portal.*, as Debian 12's
// frontend 1.16 calls them).
const (
	BackendName         = "org.freedesktop.impl.portal.desktop.vibespacefake"
	IfaceImplRemote     = "org.freedesktop.impl.portal.RemoteDesktop"
	IfaceImplScreenCast = "org.freedesktop.impl.portal.ScreenCast"
	IfaceImplRequest    = "org.freedesktop.impl.portal.Request"
	IfaceImplSession    = "org.freedesktop.impl.portal.Session"
	// FrontendProgram is Debian's xdg-desktop-portal frontend.
	FrontendProgram = "/usr/libexec/xdg-desktop-portal"
)

// Backend is a Go fake of a portal backend (what xdg-desktop-portal-gnome
// is to the real frontend): impl RemoteDesktop + ScreenCast, impl Request
// and Session objects, answering by its Policy (Answer Grant, Cancel or
// Fail; Devices; Streams) and logging every call.
type Backend struct {
	conn *exportConn

	mu       sync.Mutex
	changed  chan struct{}
	policy   Policy
	log      []Call
	sessions map[dbus.ObjectPath]*backendSession
}

type backendSession struct {
	devices uint32
	sources bool
}

// NewBackend starts a Backend on the bus at addr for t.
func NewBackend(t testing.TB, addr string) *Backend {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b, err := StartBackend(ctx, addr)
	if err != nil {
		t.Fatalf("portaltest: %v", err)
	}
	t.Cleanup(b.Close)
	return b
}

// StartBackend connects to addr, exports the backend's Desktop object and
// claims BackendName.
func StartBackend(ctx context.Context, addr string) (*Backend, error) {
	conn, err := connect(ctx, addr)
	if err != nil {
		return nil, err
	}
	b := &Backend{conn: conn, changed: make(chan struct{}), sessions: map[dbus.ObjectPath]*backendSession{}}
	for iface, v := range map[string]any{IfaceImplRemote: implRD{b}, IfaceImplScreenCast: implSC{b}, ifaceProps: implProps{}} {
		if err := conn.Export(v, DesktopPath, iface); err != nil {
			conn.Close()
			return nil, err
		}
	}
	if err := claim(conn, BackendName); err != nil {
		conn.Close()
		return nil, err
	}
	return b, nil
}

// Close leaves the bus.
func (b *Backend) Close() { b.conn.Close() }

// SetPolicy sets how the backend answers from now on (Answer Never is not
// supported: the frontend's calls to a backend are method calls).
func (b *Backend) SetPolicy(p Policy) {
	b.mu.Lock()
	b.policy = p
	b.mu.Unlock()
}

// Log is every call so far.
func (b *Backend) Log() []Call {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]Call(nil), b.log...)
}

// Wait waits until a log entry from index from on matches.
func (b *Backend) Wait(ctx context.Context, from int, match func(Call) bool) (Call, error) {
	for {
		b.mu.Lock()
		for _, c := range b.log[min(from, len(b.log)):] {
			if match(c) {
				b.mu.Unlock()
				return c, nil
			}
		}
		ch, n := b.changed, len(b.log)
		b.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return Call{}, fmt.Errorf("portaltest: backend: no matching call among %d: %w", n, ctx.Err())
		}
	}
}

func (b *Backend) record(c Call) {
	b.mu.Lock()
	i := len(b.log)
	for c.serial != 0 && i > 0 && b.log[i-1].Sender == c.Sender && b.log[i-1].serial > c.serial {
		i-- // sent after c, answered before it
	}
	b.log = slices.Insert(b.log, i, c)
	close(b.changed)
	b.changed = make(chan struct{})
	b.mu.Unlock()
}

// CloseSession closes a session from the backend's side (impl
// Session.Closed), as a compositor ending the session would.
func (b *Backend) CloseSession(path dbus.ObjectPath) error {
	b.mu.Lock()
	_, ok := b.sessions[path]
	delete(b.sessions, path)
	b.mu.Unlock()
	if !ok {
		return fmt.Errorf("portaltest: backend: no session %s", path)
	}
	b.record(Call{Iface: "signal", Method: "Closed", Session: path})
	err := b.conn.Emit(path, IfaceImplSession+".Closed")
	b.conn.Export(nil, path, IfaceImplSession)
	return err
}

// Sessions are the backend's live session handles.
func (b *Backend) Sessions() []dbus.ObjectPath {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []dbus.ObjectPath
	for p := range b.sessions {
		out = append(out, p)
	}
	return out
}

func (b *Backend) answer(step string) (Answer, Policy) {
	b.mu.Lock()
	p := b.policy
	b.mu.Unlock()
	s := p.Step
	if s == "" {
		s = "Start"
	}
	if s == step {
		return p.Answer, p
	}
	return Grant, p
}

func code(a Answer) uint32 {
	switch a {
	case Cancel:
		return 1
	case Fail, Never:
		return 2
	}
	return 0
}

// request exports the impl Request object of one call for its duration.
func (b *Backend) request(handle dbus.ObjectPath) func() {
	b.conn.Export(implRequest{b, handle}, handle, IfaceImplRequest)
	return func() { b.conn.Export(nil, handle, IfaceImplRequest) }
}

type implRD struct{ b *Backend }

func (r implRD) CreateSession(handle, session dbus.ObjectPath, appID string, opts map[string]dbus.Variant) (uint32, map[string]dbus.Variant, *dbus.Error) {
	return r.b.createSession(IfaceImplRemote, handle, session, appID, opts)
}

func (b *Backend) createSession(iface string, handle, session dbus.ObjectPath, appID string, opts map[string]dbus.Variant) (uint32, map[string]dbus.Variant, *dbus.Error) {
	b.record(Call{Iface: iface, Method: "CreateSession", Session: session, Options: unwrap(opts), Args: []any{handle, appID}})
	defer b.request(handle)()
	a, _ := b.answer("CreateSession")
	if a == Grant {
		b.mu.Lock()
		b.sessions[session] = &backendSession{devices: 7}
		b.mu.Unlock()
		b.conn.Export(implSession{b, session}, session, IfaceImplSession)
	}
	return code(a), map[string]dbus.Variant{}, nil
}

func (r implRD) SelectDevices(handle, session dbus.ObjectPath, appID string, opts map[string]dbus.Variant) (uint32, map[string]dbus.Variant, *dbus.Error) {
	b := r.b
	b.record(Call{Iface: IfaceImplRemote, Method: "SelectDevices", Session: session, Options: unwrap(opts), Args: []any{handle, appID}})
	defer b.request(handle)()
	b.mu.Lock()
	if s := b.sessions[session]; s != nil {
		if t, ok := opts["types"].Value().(uint32); ok {
			s.devices = t
		}
	}
	b.mu.Unlock()
	a, _ := b.answer("SelectDevices")
	return code(a), map[string]dbus.Variant{}, nil
}

func (r implRD) Start(handle, session dbus.ObjectPath, appID, parent string, opts map[string]dbus.Variant) (uint32, map[string]dbus.Variant, *dbus.Error) {
	b := r.b
	b.record(Call{Iface: IfaceImplRemote, Method: "Start", Session: session, Options: unwrap(opts), Args: []any{handle, appID, parent}})
	defer b.request(handle)()
	a, p := b.answer("Start")
	if a != Grant {
		return code(a), map[string]dbus.Variant{}, nil
	}
	b.mu.Lock()
	s := b.sessions[session]
	b.mu.Unlock()
	if s == nil {
		return 2, map[string]dbus.Variant{}, nil
	}
	devs := p.Devices
	if devs == 0 {
		devs = s.devices
	}
	res := map[string]dbus.Variant{"devices": dbus.MakeVariant(devs)}
	if s.sources {
		streams := p.Streams
		if streams == nil {
			streams = []Stream{{Node: 42, SourceType: 1, Size: [2]int32{1280, 720}}}
		}
		type st struct {
			Node  uint32
			Props map[string]dbus.Variant
		}
		var ss []st
		for _, x := range streams {
			ss = append(ss, st{x.Node, map[string]dbus.Variant{
				"position":    dbus.MakeVariant(struct{ A, B int32 }{x.Position[0], x.Position[1]}),
				"size":        dbus.MakeVariant(struct{ A, B int32 }{x.Size[0], x.Size[1]}),
				"source_type": dbus.MakeVariant(x.SourceType),
			}})
		}
		res["streams"] = dbus.MakeVariant(ss)
	}
	return 0, res, nil
}

// notify records one Notify* call. The bus delivers a connection's calls
// in the order they were sent, but godbus answers each in a goroutine of
// its own, so two calls sent back to back (a key's press and release) can
// reach record in either order: they are logged in the order of their
// serials on the sender's connection, the order the sender sent them.
func (r implRD) notify(msg dbus.Message, method string, session dbus.ObjectPath, opts map[string]dbus.Variant, args ...any) *dbus.Error {
	sender, _ := msg.Headers[dbus.FieldSender].Value().(string)
	r.b.record(Call{Iface: IfaceImplRemote, Method: method, Sender: sender, Session: session, Options: unwrap(opts), Args: args, serial: msg.Serial()})
	return nil
}

func (r implRD) NotifyPointerMotion(msg dbus.Message, session dbus.ObjectPath, opts map[string]dbus.Variant, dx, dy float64) *dbus.Error {
	return r.notify(msg, "NotifyPointerMotion", session, opts, dx, dy)
}

func (r implRD) NotifyPointerMotionAbsolute(msg dbus.Message, session dbus.ObjectPath, opts map[string]dbus.Variant, stream uint32, x, y float64) *dbus.Error {
	return r.notify(msg, "NotifyPointerMotionAbsolute", session, opts, stream, x, y)
}

func (r implRD) NotifyPointerButton(msg dbus.Message, session dbus.ObjectPath, opts map[string]dbus.Variant, button int32, state uint32) *dbus.Error {
	return r.notify(msg, "NotifyPointerButton", session, opts, button, state)
}

func (r implRD) NotifyPointerAxis(msg dbus.Message, session dbus.ObjectPath, opts map[string]dbus.Variant, dx, dy float64) *dbus.Error {
	return r.notify(msg, "NotifyPointerAxis", session, opts, dx, dy)
}

func (r implRD) NotifyPointerAxisDiscrete(msg dbus.Message, session dbus.ObjectPath, opts map[string]dbus.Variant, axis uint32, steps int32) *dbus.Error {
	return r.notify(msg, "NotifyPointerAxisDiscrete", session, opts, axis, steps)
}

func (r implRD) NotifyKeyboardKeycode(msg dbus.Message, session dbus.ObjectPath, opts map[string]dbus.Variant, keycode int32, state uint32) *dbus.Error {
	return r.notify(msg, "NotifyKeyboardKeycode", session, opts, keycode, state)
}

func (r implRD) NotifyKeyboardKeysym(msg dbus.Message, session dbus.ObjectPath, opts map[string]dbus.Variant, keysym int32, state uint32) *dbus.Error {
	return r.notify(msg, "NotifyKeyboardKeysym", session, opts, keysym, state)
}

func (r implRD) NotifyTouchDown(msg dbus.Message, session dbus.ObjectPath, opts map[string]dbus.Variant, stream, slot uint32, x, y float64) *dbus.Error {
	return r.notify(msg, "NotifyTouchDown", session, opts, stream, slot, x, y)
}

func (r implRD) NotifyTouchMotion(msg dbus.Message, session dbus.ObjectPath, opts map[string]dbus.Variant, stream, slot uint32, x, y float64) *dbus.Error {
	return r.notify(msg, "NotifyTouchMotion", session, opts, stream, slot, x, y)
}

func (r implRD) NotifyTouchUp(msg dbus.Message, session dbus.ObjectPath, opts map[string]dbus.Variant, slot uint32) *dbus.Error {
	return r.notify(msg, "NotifyTouchUp", session, opts, slot)
}

type implSC struct{ b *Backend }

func (c implSC) CreateSession(handle, session dbus.ObjectPath, appID string, opts map[string]dbus.Variant) (uint32, map[string]dbus.Variant, *dbus.Error) {
	return c.b.createSession(IfaceImplScreenCast, handle, session, appID, opts)
}

func (c implSC) SelectSources(handle, session dbus.ObjectPath, appID string, opts map[string]dbus.Variant) (uint32, map[string]dbus.Variant, *dbus.Error) {
	b := c.b
	b.record(Call{Iface: IfaceImplScreenCast, Method: "SelectSources", Session: session, Options: unwrap(opts), Args: []any{handle, appID}})
	defer b.request(handle)()
	b.mu.Lock()
	if s := b.sessions[session]; s != nil {
		s.sources = true
	}
	b.mu.Unlock()
	a, _ := b.answer("SelectSources")
	return code(a), map[string]dbus.Variant{}, nil
}

func (c implSC) Start(handle, session dbus.ObjectPath, appID, parent string, opts map[string]dbus.Variant) (uint32, map[string]dbus.Variant, *dbus.Error) {
	return implRD(c).Start(handle, session, appID, parent, opts)
}

type implRequest struct {
	b    *Backend
	path dbus.ObjectPath
}

func (r implRequest) Close() *dbus.Error {
	r.b.record(Call{Iface: IfaceImplRequest, Method: "Close", Session: r.path})
	return nil
}

type implSession struct {
	b    *Backend
	path dbus.ObjectPath
}

func (s implSession) Close() *dbus.Error {
	s.b.record(Call{Iface: IfaceImplSession, Method: "Close", Session: s.path})
	s.b.mu.Lock()
	delete(s.b.sessions, s.path)
	s.b.mu.Unlock()
	s.b.conn.Export(nil, s.path, IfaceImplSession)
	return nil
}

type implProps struct{}

func (implProps) all(iface string) (map[string]dbus.Variant, *dbus.Error) {
	switch iface {
	case IfaceImplRemote:
		return map[string]dbus.Variant{"version": dbus.MakeVariant(uint32(1)), "AvailableDeviceTypes": dbus.MakeVariant(uint32(7))}, nil
	case IfaceImplScreenCast:
		return map[string]dbus.Variant{"version": dbus.MakeVariant(uint32(4)),
			"AvailableSourceTypes": dbus.MakeVariant(uint32(3)), "AvailableCursorModes": dbus.MakeVariant(uint32(7))}, nil
	case IfaceImplSession:
		return map[string]dbus.Variant{"version": dbus.MakeVariant(uint32(1))}, nil
	}
	return map[string]dbus.Variant{}, nil
}

func (p implProps) Get(iface, name string) (dbus.Variant, *dbus.Error) {
	m, _ := p.all(iface)
	if v, ok := m[name]; ok {
		return v, nil
	}
	return dbus.Variant{}, dbus.NewError("org.freedesktop.DBus.Error.UnknownProperty", []any{name})
}

func (p implProps) GetAll(iface string) (map[string]dbus.Variant, *dbus.Error) { return p.all(iface) }

func (implProps) Set(iface, name string, v dbus.Variant) *dbus.Error {
	return dbus.NewError("org.freedesktop.DBus.Error.PropertyReadOnly", []any{name})
}

// Frontend is Debian's real xdg-desktop-portal, run on a private bus in
// front of a Backend, found through XDG_DESKTOP_PORTAL_DIR and
// XDG_CURRENT_DESKTOP=fake.
type Frontend struct {
	cmd  *exec.Cmd
	wait chan error
	Log  string // its stderr
	once sync.Once
}

// PID is the frontend's process id.
func (f *Frontend) PID() int { return f.cmd.Process.Pid }

// NewFrontend starts the real frontend on bus for t (the Backend must
// already own BackendName) and kills it by PID when t ends.
func NewFrontend(t testing.TB, bus *Bus) *Frontend {
	t.Helper()
	Need(t, FrontendProgram)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	f, err := StartFrontend(ctx, bus.Addr, t.TempDir())
	if err != nil {
		t.Fatalf("portaltest: %v", err)
	}
	t.Cleanup(f.Close)
	return f
}

// StartFrontend runs FrontendProgram on the bus at addr with its portal
// directory, HOME and runtime directory in dir, and waits until it owns
// org.freedesktop.portal.Desktop.
func StartFrontend(ctx context.Context, addr, dir string) (*Frontend, error) {
	pdir := filepath.Join(dir, "portals")
	if err := os.MkdirAll(pdir, 0o700); err != nil {
		return nil, err
	}
	spec := "[portal]\nDBusName=" + BackendName + "\nInterfaces=" + IfaceImplRemote + ";" + IfaceImplScreenCast + ";\nUseIn=fake\n"
	if err := os.WriteFile(filepath.Join(pdir, "fake.portal"), []byte(spec), 0o600); err != nil {
		return nil, err
	}
	logPath := filepath.Join(dir, "frontend.log")
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cmd := exec.Command(FrontendProgram, "--replace", "--verbose")
	cmd.Env = []string{
		"PATH=/usr/bin:/bin",
		"HOME=" + dir,
		"XDG_RUNTIME_DIR=" + dir,
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"),
		"XDG_DATA_HOME=" + filepath.Join(dir, "data"),
		"DBUS_SESSION_BUS_ADDRESS=" + addr,
		// No system bus: nothing the frontend asks there can reach the machine's.
		"DBUS_SYSTEM_BUS_ADDRESS=unix:path=" + filepath.Join(dir, "no-system-bus"),
		"XDG_DESKTOP_PORTAL_DIR=" + pdir,
		"XDG_CURRENT_DESKTOP=fake",
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("portaltest: %s: %w", FrontendProgram, err)
	}
	f := &Frontend{cmd: cmd, wait: make(chan error, 1), Log: logPath}
	go func() { f.wait <- cmd.Wait() }()
	conn, err := connect(ctx, addr)
	if err != nil {
		f.Close()
		return nil, err
	}
	defer conn.Close()
	for delay := 10 * time.Millisecond; ; delay = min(delay*2, 200*time.Millisecond) {
		var has bool
		err := conn.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.NameHasOwner", 0, DesktopName).Store(&has)
		if err == nil && has {
			return f, nil
		}
		select {
		case werr := <-f.wait:
			f.wait <- werr
			b, _ := os.ReadFile(logPath)
			return nil, fmt.Errorf("portaltest: the frontend exited (%v) before owning %s: %s", werr, DesktopName, b)
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("portaltest: the frontend never owned %s: %w", DesktopName, errors.Join(ctx.Err(), err))
		case <-time.After(delay):
		}
	}
}

// Close kills the frontend by its PID and reaps it.
func (f *Frontend) Close() { f.once.Do(func() { reap(f.cmd.Process, f.wait) }) }
