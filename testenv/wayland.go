package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/vibespace/vibespace/xvfb"
)

// Wayland is a real headless Wayland desktop of the kind a user runs,
// private to one test: its own session bus (a dbus-daemon of its own) and
// XDG_RUNTIME_DIR, pipewire and wireplumber, a compositor (Shell: bare
// mutter, GNOME Shell or KDE's KWin) with one virtual monitor (1280×720
// unless a Monitor says otherwise),
// the AT-SPI bus, and xdg-desktop-portal with the shell's backend (whose
// consent dialog is a window on that compositor). Every process carries
// the VIBESPACE_TESTENV marker and is ended by PID on Close.
type Wayland struct {
	shell   Shell
	id      string
	dir     string
	run     string // XDG_RUNTIME_DIR, 0700
	display string // WAYLAND_DISPLAY
	bus     string
	sysbus  string // a private "system bus" (GNOME Shell and KWin want one), or ""
	a11y    string
	mon     Monitor
	logf    func(format string, args ...any)

	// Startup is how long StartWayland took to have every part ready.
	Startup time.Duration

	mu     sync.Mutex
	procs  []*wproc
	units  *dbus.Conn // systemd's stand-in (units.go), or nil
	closed bool
}

// WaylandWidth and WaylandHeight are the virtual monitor's size.
const WaylandWidth, WaylandHeight = 1280, 720

// WaylandMonitor is the connector name mutter (and GNOME Shell) give
// their virtual monitor.
const WaylandMonitor = "Meta-0"

// wproc is one child of the stack.
type wproc struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
	log  string
}

// NeedWayland is NeedIntegration for the mutter stack's programs too.
func NeedWayland(t testing.TB) { NeedShell(t, Mutter) }

// NeedShell is NeedIntegration for the programs of shell's stack too.
func NeedShell(t testing.TB, shell Shell) {
	t.Helper()
	NeedIntegration(t, shell.spec().programs()...)
}

// NewWayland starts the mutter stack for t alone (NewShell).
func NewWayland(t testing.TB) *Wayland { t.Helper(); return NewShell(t, Mutter) }

// NewShell starts shell's stack for t alone and closes it when t ends;
// Main's leak check covers it as it does a Desktop.
func NewShell(t testing.TB, shell Shell) *Wayland {
	t.Helper()
	return NewShellOn(t, shell, Monitor{})
}

// NewShellOn is NewShell with the virtual monitor m.
func NewShellOn(t testing.TB, shell Shell, m Monitor) *Wayland {
	t.Helper()
	NeedShell(t, shell)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	w, err := StartShellOn(ctx, shell, m, "", t.Logf)
	if err != nil {
		t.Fatalf("testenv: %s: %v", shell, err)
	}
	track(&xvfb.Desktop{ID: w.id, Dir: w.dir})
	t.Cleanup(func() {
		if err := w.Close(); err != nil {
			t.Errorf("testenv: close wayland: %v", err)
		}
	})
	return w
}

// StartWayland is StartShell of bare mutter.
func StartWayland(ctx context.Context, parent string, logf func(format string, args ...any)) (*Wayland, error) {
	return StartShell(ctx, Mutter, parent, logf)
}

// StartShell brings shell's stack up under a fresh temp dir in parent (""
// is os.TempDir()) and returns once the Wayland socket, pipewire's socket,
// the compositor's own bus names, the AT-SPI bus and both portal
// processes' bus names are there, or ctx ends. On error everything started
// is ended. logf (nil: quiet) gets progress lines.
func StartShell(ctx context.Context, shell Shell, parent string, logf func(format string, args ...any)) (*Wayland, error) {
	return StartShellOn(ctx, shell, Monitor{}, parent, logf)
}

// StartShellOn is StartShell with the virtual monitor m.
func StartShellOn(ctx context.Context, shell Shell, m Monitor, parent string, logf func(format string, args ...any)) (*Wayland, error) {
	m = m.withDefaults()
	var idb [6]byte
	_, _ = rand.Read(idb[:])
	id := hex.EncodeToString(idb[:])
	dir, err := os.MkdirTemp(parent, "vibespace-wayland-"+id+"-")
	if err != nil {
		return nil, err
	}
	w := &Wayland{shell: shell, id: id, dir: dir, run: filepath.Join(dir, "run"), display: "wayland-vs-" + id, mon: m, logf: logf}
	for _, sub := range []string{"run", "config", "cache", "data", "home", "logs", "dbus-services", "no-services", "bin"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o700); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	if err := w.writeSettings(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	t0 := time.Now()
	if err := w.up(ctx); err != nil {
		return nil, errors.Join(err, w.Close())
	}
	w.Startup = time.Since(t0)
	w.log("%s stack %s up in %v: WAYLAND_DISPLAY=%s, bus %s, monitor %s, RSS %d MB",
		shell, id, w.Startup.Round(time.Millisecond), w.display, w.bus, m, w.RSS()>>20)
	return w, nil
}

func (w *Wayland) log(format string, args ...any) {
	if w.logf != nil {
		w.logf("testenv: "+format, args...)
	}
}

func (w *Wayland) up(ctx context.Context) error {
	sp := w.shell.spec()
	if err := w.startBus(ctx); err != nil {
		return err
	}
	if sp.systemBus {
		var err error
		if w.sysbus, err = w.startDaemon(ctx, "system-bus", filepath.Join(w.run, "system-bus"), filepath.Join(w.dir, "no-services")); err != nil {
			return err
		}
	}
	conn, err := dbus.Connect(w.bus, dbus.WithContext(ctx))
	if err != nil {
		return fmt.Errorf("connect the session bus: %w", err)
	}
	defer conn.Close()

	if sp.units {
		if err := w.startUnits(ctx); err != nil {
			return err
		}
	}
	if _, err := w.start("pipewire", nil, "pipewire"); err != nil {
		return err
	}
	if err := w.waitFile(ctx, "pipewire", filepath.Join(w.run, "pipewire-0")); err != nil {
		return err
	}
	if _, err := w.start("wireplumber", nil, "wireplumber"); err != nil {
		return err
	}
	prog, err := w.compositorProgram(sp)
	if err != nil {
		return err
	}
	if _, err := w.start(sp.name, nil, prog, sp.args(w.display, w.mon.size())...); err != nil {
		return err
	}
	if err := w.waitFile(ctx, sp.name, filepath.Join(w.run, w.display)); err != nil {
		return err
	}
	for _, name := range sp.names {
		if err := w.waitName(ctx, conn, sp.name, name); err != nil {
			return err
		}
	}
	if err := w.scale(ctx, conn); err != nil {
		return err
	}
	if err := w.startA11y(ctx, conn); err != nil {
		return err
	}
	// The permission store keeps what the portal remembers (a ScreenCast
	// restore token's grant).
	if _, err := w.start("xdg-permission-store", nil, permissionStore); err != nil {
		return err
	}
	if err := w.waitName(ctx, conn, "xdg-permission-store", "org.freedesktop.impl.portal.PermissionStore"); err != nil {
		return err
	}
	if err := w.startBackend(ctx, conn, sp); err != nil {
		return err
	}
	if _, err := w.start("xdg-desktop-portal", nil, "/usr/libexec/xdg-desktop-portal"); err != nil {
		return err
	}
	return w.waitName(ctx, conn, "xdg-desktop-portal", "org.freedesktop.portal.Desktop")
}

// backendGrace is how long the portal's backend may take to claim its bus
// name before it is started once more.
const backendGrace = 20 * time.Second

// startBackend starts the portal's backend and waits for its bus name;
// one that has not claimed it within backendGrace is ended and started
// once more. (Beside GNOME Shell, xdg-desktop-portal-gnome hung in
// gtk_init's Wayland roundtrip, the shell deadlocked in a spawn: units.go
// keeps the shell from that spawn; the second start stays, should a
// backend hang otherwise.)
func (w *Wayland) startBackend(ctx context.Context, conn *dbus.Conn, sp shellSpec) error {
	name := filepath.Base(sp.backend)
	for try := 0; ; try++ {
		p, err := w.start(name, nil, sp.backend)
		if err != nil {
			return err
		}
		gctx, cancel := context.WithTimeout(ctx, backendGrace)
		err = w.waitName(gctx, conn, name, sp.backendName)
		cancel()
		if err == nil || try == 1 || ctx.Err() != nil || w.exited(name) != nil {
			return err
		}
		if sp.units {
			w.log("%d forked child(ren) of %s stuck before exec ended (units.go)", w.unstick(sp), sp.name)
		}
		w.log("%s did not claim %s in %v: started once more", name, sp.backendName, backendGrace)
		p.stop(3 * time.Second)
	}
}

// Env is the environment of a process of the stack: a clean one, not the
// caller's, with PATH carried over.
func (w *Wayland) Env() []string {
	env := []string{
		MarkerVar + "=" + w.id,
		"HOME=" + filepath.Join(w.dir, "home"),
		"XDG_RUNTIME_DIR=" + w.run,
		"XDG_CONFIG_HOME=" + filepath.Join(w.dir, "config"),
		"XDG_CACHE_HOME=" + filepath.Join(w.dir, "cache"),
		"XDG_DATA_HOME=" + filepath.Join(w.dir, "data"),
		"XDG_SESSION_TYPE=wayland",
		"XDG_CURRENT_DESKTOP=" + w.shell.spec().desktop,
		"WAYLAND_DISPLAY=" + w.display,
		"GDK_BACKEND=wayland",
		"GSETTINGS_BACKEND=" + w.mon.settings(),
		"GTK_USE_PORTAL=0",
		"LANG=C.UTF-8",
		"LC_ALL=C.UTF-8",
	}
	if p := os.Getenv("PATH"); p != "" {
		env = append(env, "PATH="+p)
	} else {
		env = append(env, "PATH=/usr/local/bin:/usr/bin:/bin")
	}
	if w.bus != "" {
		env = append(env, "DBUS_SESSION_BUS_ADDRESS="+w.bus)
	}
	if w.sysbus != "" {
		env = append(env, "DBUS_SYSTEM_BUS_ADDRESS="+w.sysbus)
	}
	return append(env, w.shell.spec().env...)
}

// Shell is which compositor the stack runs.
func (w *Wayland) Shell() Shell { return w.shell }

// BusAddress is the stack's session bus: the compositor's and the portal's.
func (w *Wayland) BusAddress() string { return w.bus }

// A11yAddress is the stack's AT-SPI bus.
func (w *Wayland) A11yAddress() string { return w.a11y }

// RuntimeDir is the stack's XDG_RUNTIME_DIR (pipewire-0 and the Wayland
// socket are in it).
func (w *Wayland) RuntimeDir() string { return w.run }

// Display is the stack's WAYLAND_DISPLAY.
func (w *Wayland) Display() string { return w.display }

// Dir is the temp dir everything of the stack lives under.
func (w *Wayland) Dir() string { return w.dir }

// ID is the stack's VIBESPACE_TESTENV marker value.
func (w *Wayland) ID() string { return w.id }

// RSS is the summed resident memory of the stack's live processes (those
// carrying its marker), in bytes.
func (w *Wayland) RSS() int64 {
	var sum int64
	for _, pid := range xvfb.MarkedPIDs(w.id) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
				kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
				sum += kb << 10
			}
		}
	}
	return sum
}

// start runs name's program with args in the stack's environment, files
// as its descriptors 3, 4, …, in its own process group, output to a log,
// reaped by a goroutine.
func (w *Wayland) start(name string, files []*os.File, prog string, args ...string) (*wproc, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil, errors.New("testenv: the wayland stack is closed")
	}
	bin, err := exec.LookPath(prog)
	if err != nil {
		return nil, fmt.Errorf("testenv: %s: %w", prog, err)
	}
	logPath := filepath.Join(w.dir, "logs", fmt.Sprintf("%s-%d.log", name, len(w.procs)))
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cmd := exec.Command(bin, args...)
	cmd.Env = w.Env()
	cmd.Dir = w.dir
	cmd.Stdout, cmd.Stderr = f, f
	cmd.ExtraFiles = files
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("testenv: start %s: %w", name, err)
	}
	p := &wproc{name: name, cmd: cmd, done: make(chan struct{}), log: logPath}
	go func() {
		_ = cmd.Wait()
		close(p.done)
	}()
	w.procs = append(w.procs, p)
	return p, nil
}

// stop ends p: SIGTERM to its process group, SIGKILL after grace.
func (p *wproc) stop(grace time.Duration) {
	select {
	case <-p.done:
		return
	default:
	}
	pid := p.cmd.Process.Pid
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		select {
		case <-p.done:
		case <-time.After(5 * time.Second):
		}
	}
}

// LogTail is the end of the newest log of the named process ("mutter",
// "xdg-desktop-portal-gnome", …), for failure messages.
func (w *Wayland) LogTail(name string) string {
	w.mu.Lock()
	var path string
	for _, p := range w.procs {
		if p.name == name {
			path = p.log
		}
	}
	w.mu.Unlock()
	return xvfb.TailFile(path, 3000)
}

// exited is a process of the stack that is no longer running, described
// with its log, or nil.
func (w *Wayland) exited(name string) error {
	w.mu.Lock()
	var p *wproc
	for _, q := range w.procs {
		if q.name == name {
			p = q
		}
	}
	w.mu.Unlock()
	if p == nil {
		return nil
	}
	select {
	case <-p.done:
		return fmt.Errorf("testenv: %s exited (%v); its log:\n%s", name, p.cmd.ProcessState, w.LogTail(name))
	default:
		return nil
	}
}

// waitFile polls until path exists, name's process exits or ctx ends.
func (w *Wayland) waitFile(ctx context.Context, name, path string) error {
	return w.poll(ctx, name, "no "+filepath.Base(path), func() bool {
		_, err := os.Stat(path)
		return err == nil
	})
}

// waitName polls until the bus name has an owner.
func (w *Wayland) waitName(ctx context.Context, conn *dbus.Conn, name, busName string) error {
	return w.poll(ctx, name, busName+" is not on the bus", func() bool {
		cctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		var has bool
		err := conn.BusObject().CallWithContext(cctx, "org.freedesktop.DBus.NameHasOwner", 0, busName).Store(&has)
		return err == nil && has
	})
}

func (w *Wayland) poll(ctx context.Context, name, what string, ok func() bool) error {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !ok() {
		if err := w.exited(name); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("testenv: %s not ready (%s): %w; its log:\n%s", name, what, ctx.Err(), w.LogTail(name))
		case <-tick.C:
		}
	}
	return nil
}

// startBus starts the stack's own session bus: the session policy, only
// org.a11y.Bus activatable (the portal's processes are started by us, so
// that each is ours to end by PID).
func (w *Wayland) startBus(ctx context.Context) error {
	svcDir := filepath.Join(w.dir, "dbus-services")
	exe, err := xvfb.ServiceExec("org.a11y.Bus")
	if err != nil {
		return err
	}
	body := fmt.Sprintf("[D-BUS Service]\nName=org.a11y.Bus\nExec=%s\n", exe)
	if err := os.WriteFile(filepath.Join(svcDir, "org.a11y.Bus.service"), []byte(body), 0o600); err != nil {
		return err
	}
	w.bus, err = w.startDaemon(ctx, "dbus-daemon", filepath.Join(w.run, "bus"), svcDir)
	return err
}

// startDaemon starts a dbus-daemon of the stack (named name in its logs)
// listening at socket, activating only the services in svcDir, and
// returns its address.
func (w *Wayland) startDaemon(ctx context.Context, name, socket, svcDir string) (string, error) {
	conf := filepath.Join(w.dir, name+".conf")
	if err := os.WriteFile(conf, []byte(xvfb.BusConfig(socket, svcDir)), 0o600); err != nil {
		return "", err
	}
	r, wr, err := os.Pipe()
	if err != nil {
		return "", err
	}
	defer r.Close()
	p, err := w.start(name, []*os.File{wr}, "dbus-daemon",
		"--config-file="+conf, "--nofork", "--nopidfile", "--print-address=3")
	wr.Close()
	if err != nil {
		return "", err
	}
	addr, err := xvfb.ReadyLine(ctx, r, p.done)
	switch {
	case ctx.Err() != nil:
		return "", fmt.Errorf("testenv: %s not ready: %w", name, ctx.Err())
	case err != nil:
		return "", fmt.Errorf("testenv: %s printed no address (it exited?); its log:\n%s", name, w.LogTail(name))
	}
	return addr, nil
}

// startA11y activates the AT-SPI bus launcher through the session bus (as
// package xvfb does) and the registry on the accessibility bus, and turns
// org.a11y.Status on, so that GTK 3 and 4 apps (the fixture, the portal's
// dialog) put their trees on it.
func (w *Wayland) startA11y(ctx context.Context, conn *dbus.Conn) error {
	obj := conn.Object("org.a11y.Bus", "/org/a11y/bus")
	if err := obj.CallWithContext(ctx, "org.a11y.Bus.GetAddress", 0).Store(&w.a11y); err != nil {
		return fmt.Errorf("testenv: org.a11y.Bus.GetAddress: %w", err)
	}
	for _, p := range []string{"IsEnabled", "ScreenReaderEnabled"} {
		_ = obj.CallWithContext(ctx, "org.freedesktop.DBus.Properties.Set", 0, "org.a11y.Status", p, dbus.MakeVariant(true)).Err
	}
	a11y, err := dbus.Connect(w.a11y, dbus.WithContext(ctx))
	if err != nil {
		return fmt.Errorf("testenv: connect the accessibility bus %s: %w", w.a11y, err)
	}
	defer a11y.Close()
	var ret uint32
	if err := a11y.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.StartServiceByName", 0, "org.a11y.atspi.Registry", uint32(0)).Store(&ret); err != nil {
		return fmt.Errorf("testenv: start org.a11y.atspi.Registry: %w", err)
	}
	return nil
}

// Close ends the stack: the processes it started in reverse order (each
// by its process group), then anything else still carrying its marker
// (the bus-activated AT-SPI launcher and registry), and removes its dir.
// It reports processes it could not end.
func (w *Wayland) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	procs := append([]*wproc(nil), w.procs...)
	units := w.units
	w.mu.Unlock()
	for i := len(procs) - 1; i >= 0; i-- {
		procs[i].stop(3 * time.Second)
	}
	if units != nil {
		units.Close()
	}
	left := endMarked(w.id)
	var errs []error
	if len(left) > 0 {
		var names []string
		for _, p := range left {
			names = append(names, fmt.Sprintf("%d (%s)", p, xvfb.ProcName(p)))
		}
		errs = append(errs, fmt.Errorf("testenv: wayland processes left behind: %s", strings.Join(names, ", ")))
	}
	if err := os.RemoveAll(w.dir); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// endMarked SIGTERMs the live processes carrying marker id, SIGKILLs those
// left after 2 s, and returns those still alive after that.
func endMarked(id string) []int {
	pids := xvfb.MarkedPIDs(id)
	for _, p := range pids {
		_ = syscall.Kill(p, syscall.SIGTERM)
	}
	for _, grace := range []time.Duration{2 * time.Second, 5 * time.Second} {
		deadline := time.Now().Add(grace)
		for len(pids) > 0 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
			pids = xvfb.MarkedPIDs(id)
		}
		for _, p := range pids {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	}
	return xvfb.MarkedPIDs(id)
}

// WaylandFixture is the GTK3 fixture app running as a Wayland client of
// the stack, with its log.
type WaylandFixture struct {
	PID int
	Log *FixtureLog
	p   *wproc
}

// Stop ends the fixture (SIGTERM, SIGKILL after 3 s) and reaps it.
func (f *WaylandFixture) Stop() { f.p.stop(3 * time.Second) }

// LaunchFixture starts the GTK3 fixture app (testenv/fixture/fixture.py)
// on the stack's Wayland display, logging to a fresh file, and waits for
// its "ready" line (its window mapped).
func (w *Wayland) LaunchFixture(ctx context.Context, args ...string) (*WaylandFixture, error) {
	return w.LaunchScript(ctx, "fixture", args...)
}

// LaunchScript starts the fixture script name ("fixture", "gtk4", "qt5":
// see Script) on the stack's Wayland display as LaunchFixture does: the
// GTK 4 and Qt 5 ones are Wayland clients where the environment has no
// DISPLAY (GDK's wayland backend, Qt's wayland platform).
func (w *Wayland) LaunchScript(ctx context.Context, name string, args ...string) (*WaylandFixture, error) {
	for _, n := range []string{"fixturelog", "gtk4app", "qt5app", name} {
		if err := writeOnce(w.dir, n+".py"); err != nil {
			return nil, err
		}
	}
	n := fixtureSeq.Add(1)
	logPath := filepath.Join(w.dir, "fixture-"+strconv.FormatInt(n, 10)+".jsonl")
	argv := append([]string{filepath.Join(w.dir, name+".py"), "--log", logPath}, args...)
	p, err := w.start("fixture", nil, FixturePython, argv...)
	if err != nil {
		return nil, err
	}
	f := &WaylandFixture{PID: p.cmd.Process.Pid, Log: OpenFixtureLog(logPath), p: p}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-p.done:
			cancel()
		case <-wctx.Done():
		}
	}()
	if _, err := f.Log.WaitFrom(wctx, 0, func(e Event) bool { return e.Type == "ready" }); err != nil {
		f.Stop()
		return nil, fmt.Errorf("testenv: the Wayland fixture never logged ready: %w; its output:\n%s", err, w.LogTail("fixture"))
	}
	return f, nil
}

// MutterInput is a session of mutter's own org.gnome.Mutter.RemoteDesktop
// (v1) tied to an org.gnome.Mutter.ScreenCast (v4) recording of the
// virtual monitor: input and a PipeWire stream with no consent asked. It is
// the test's own hand and eyes — the person at the desktop, who also
// answers the portal's dialog — never the product's road.
type MutterInput struct {
	conn   *dbus.Conn
	rd     dbus.BusObject // the RemoteDesktop session
	stream dbus.ObjectPath
	node   uint32
	once   sync.Once
}

const (
	mutterRD = "org.gnome.Mutter.RemoteDesktop"
	mutterSC = "org.gnome.Mutter.ScreenCast"
	// btnLeft is evdev's BTN_LEFT, the button code mutter's
	// NotifyPointerButton takes.
	btnLeft = 0x110
	// keyShiftL is the keysym Shift_L.
	keyShiftL = 0xffe1
)

// Mutter opens a RemoteDesktop session with a ScreenCast of the virtual
// monitor, starts it, waits for the stream's PipeWire node, and sends a
// warm-up pointer motion (mutter may drop the first event of a new virtual
// device, so it also moves the pointer to the middle and presses Shift_L).
// The headless seat has no keyboard but this session's virtual one: a
// window gets keyboard focus (and the fixture logs "focus") only after
// Mutter; wait for that before typing.
func (w *Wayland) Mutter(ctx context.Context) (_ *MutterInput, err error) {
	conn, err := dbus.Connect(w.bus, dbus.WithContext(ctx))
	if err != nil {
		return nil, fmt.Errorf("testenv: mutter: connect: %w", err)
	}
	m := &MutterInput{conn: conn}
	defer func() {
		if err != nil {
			m.Close()
		}
	}()
	var rdPath dbus.ObjectPath
	if err := conn.Object(mutterRD, "/org/gnome/Mutter/RemoteDesktop").CallWithContext(ctx, mutterRD+".CreateSession", 0).Store(&rdPath); err != nil {
		return nil, fmt.Errorf("testenv: mutter RemoteDesktop.CreateSession: %w", err)
	}
	m.rd = conn.Object(mutterRD, rdPath)
	id, err := m.rd.GetProperty(mutterRD + ".Session.SessionId")
	if err != nil {
		return nil, fmt.Errorf("testenv: mutter SessionId: %w", err)
	}
	var scPath dbus.ObjectPath
	props := map[string]dbus.Variant{"remote-desktop-session-id": id}
	if err := conn.Object(mutterSC, "/org/gnome/Mutter/ScreenCast").CallWithContext(ctx, mutterSC+".CreateSession", 0, props).Store(&scPath); err != nil {
		return nil, fmt.Errorf("testenv: mutter ScreenCast.CreateSession: %w", err)
	}
	if err := conn.Object(mutterSC, scPath).CallWithContext(ctx, mutterSC+".Session.RecordMonitor", 0, WaylandMonitor, map[string]dbus.Variant{}).Store(&m.stream); err != nil {
		return nil, fmt.Errorf("testenv: mutter RecordMonitor(%s): %w", WaylandMonitor, err)
	}
	sigs := make(chan *dbus.Signal, 8)
	conn.Signal(sigs)
	defer conn.RemoveSignal(sigs)
	if err := conn.AddMatchSignalContext(ctx, dbus.WithMatchObjectPath(m.stream), dbus.WithMatchInterface(mutterSC+".Stream"), dbus.WithMatchMember("PipeWireStreamAdded")); err != nil {
		return nil, fmt.Errorf("testenv: mutter: watch PipeWireStreamAdded: %w", err)
	}
	if err := m.rd.CallWithContext(ctx, mutterRD+".Session.Start", 0).Err; err != nil {
		return nil, fmt.Errorf("testenv: mutter RemoteDesktop.Session.Start: %w", err)
	}
	for m.node == 0 {
		select {
		case s := <-sigs:
			if s.Path == m.stream && s.Name == mutterSC+".Stream.PipeWireStreamAdded" && len(s.Body) == 1 {
				m.node, _ = s.Body[0].(uint32)
			}
		case <-ctx.Done():
			return nil, fmt.Errorf("testenv: mutter: no PipeWireStreamAdded: %w", ctx.Err())
		}
	}
	// Warm up both virtual devices: mutter drops the first event of each
	// (a pointer motion to the middle, and Shift_L, which types nothing).
	if err := m.Move(ctx, WaylandWidth/2, WaylandHeight/2); err != nil {
		return nil, err
	}
	if err := m.Key(ctx, keyShiftL); err != nil {
		return nil, err
	}
	return m, nil
}

// Bring brings the first window forward on GNOME Shell, which starts in
// its overview, a new window a thumbnail in its middle, not focused: the
// person clicks it with their own pointer (m), and the shell leaves the
// overview with that window focused. Other shells need nothing.
func (w *Wayland) Bring(ctx context.Context, m *MutterInput) error {
	if w.shell != GnomeShell {
		return nil
	}
	return m.Click(ctx, float64(w.mon.Width)/2, float64(w.mon.Height)/2)
}

// Node is the PipeWire node id of the monitor's stream.
func (m *MutterInput) Node() uint32 { return m.node }

// Move puts the pointer at x, y of the monitor.
func (m *MutterInput) Move(ctx context.Context, x, y float64) error {
	return m.call(ctx, "NotifyPointerMotionAbsolute", string(m.stream), x, y)
}

// Click moves the pointer to x, y and presses and releases the left
// button there.
func (m *MutterInput) Click(ctx context.Context, x, y float64) error {
	if err := m.Move(ctx, x, y); err != nil {
		return err
	}
	if err := m.call(ctx, "NotifyPointerButton", int32(btnLeft), true); err != nil {
		return err
	}
	return m.call(ctx, "NotifyPointerButton", int32(btnLeft), false)
}

// Key presses and releases the key of an X keysym (0x61 'a', 0xff0d
// Return, 0xff09 Tab).
func (m *MutterInput) Key(ctx context.Context, keysym uint32) error {
	if err := m.KeyState(ctx, keysym, true); err != nil {
		return err
	}
	return m.KeyState(ctx, keysym, false)
}

// KeyState presses (down) or releases a keysym's key.
func (m *MutterInput) KeyState(ctx context.Context, keysym uint32, down bool) error {
	return m.call(ctx, "NotifyKeyboardKeysym", keysym, down)
}

// Type presses and releases the key of each rune of s (Latin-1 runes are
// their own keysym, others 0x01000000+rune).
func (m *MutterInput) Type(ctx context.Context, s string) error {
	for _, r := range s {
		ks := uint32(r)
		if r > 0xff {
			ks = 0x01000000 | uint32(r)
		}
		if err := m.Key(ctx, ks); err != nil {
			return err
		}
	}
	return nil
}

func (m *MutterInput) call(ctx context.Context, method string, args ...any) error {
	if err := m.rd.CallWithContext(ctx, mutterRD+".Session."+method, 0, args...).Err; err != nil {
		return fmt.Errorf("testenv: mutter %s: %w", method, err)
	}
	return nil
}

// Close stops the session (and its stream) and leaves the bus.
func (m *MutterInput) Close() error {
	m.once.Do(func() {
		if m.rd != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			_ = m.rd.CallWithContext(ctx, mutterRD+".Session.Stop", 0).Err
			cancel()
		}
		m.conn.Close()
	})
	return nil
}

// Consent answers the xdg-desktop-portal-gnome RemoteDesktop/ScreenCast
// dialog the way a person would: ConsentTo with the first source offered.
func (w *Wayland) Consent(ctx context.Context, allowInput bool) error {
	return w.ConsentTo(ctx, Answer{AllowInput: allowInput})
}

// Answer is what ConsentTo answers in the portal's dialog.
type Answer struct {
	// AllowInput turns the remote-interaction switch on (it is off by
	// default).
	AllowInput bool
	// Window is the title of the window to pick in the dialog's list of
	// windows ("": the first source offered).
	Window string
}

// ConsentTo answers the xdg-desktop-portal-gnome RemoteDesktop/ScreenCast
// dialog the way a person would: it waits (until ctx ends) for the dialog
// on the stack's AT-SPI bus — a GTK 4 window of xdg-desktop-portal-gnome
// with a "Share" push button — picks a.Window in its list of windows (GNOME
// Shell lists them; bare mutter cannot), turns its remote-interaction
// switch on when a.AllowInput, and presses Share. It acts through the
// dialog's own AT-SPI actions (Selection.SelectChild, the switch's
// "toggle", the button's "click"), which need no window coordinates (a
// Wayland client's AT-SPI extents are window-relative, so a pointer could
// not aim by them) and no focus.
func (w *Wayland) ConsentTo(ctx context.Context, a Answer) error {
	conn, err := dbus.Connect(w.a11y, dbus.WithContext(ctx))
	if err != nil {
		return fmt.Errorf("testenv: consent: connect the accessibility bus: %w", err)
	}
	defer conn.Close()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var last string
	for {
		d, err := findDialog(ctx, conn)
		switch {
		case err != nil && ctx.Err() != nil:
		case err != nil:
			last = err.Error()
		case d.share.Path == "":
			last = "no Share button yet; the portal's tree:\n" + d.dump
		case a.AllowInput && d.allow.Path == "":
			last = "no remote-interaction switch; the portal's tree:\n" + d.dump
		default:
			done, err := d.answer(ctx, conn, a)
			if err != nil {
				return err
			}
			if done {
				return nil
			}
			last = "the Share button is not sensitive, or no window " + strconv.Quote(a.Window) + " is listed; the portal's tree:\n" + d.dump
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("testenv: consent: no dialog answered: %w; last: %s", ctx.Err(), last)
		case <-tick.C:
		}
	}
}

// a11yRef is an AT-SPI object: its bus name and path.
type a11yRef struct {
	Name string
	Path dbus.ObjectPath
}

// portalDialog is what Consent found of the dialog.
type portalDialog struct {
	allow, share a11yRef
	lists        []a11yRef // the lists of sources (and the switch's)
	tabs         []a11yRef // tab lists (GNOME's "Single Window" | "Entire Screen")
	// items are the names of each list's children, by the list's path.
	items map[dbus.ObjectPath][]string
	dump  string
}

// AT-SPI state bits (AtspiStateType) Consent reads.
const (
	stateChecked   = 4
	stateSensitive = 24
	statePressed   = 20
)

// answer picks a.Window (or a source, if none is; see below), turns the
// switch on if a.AllowInput, and presses Share once it is sensitive; done
// is false while it is not, or while a.Window is not listed.
func (d *portalDialog) answer(ctx context.Context, conn *dbus.Conn, a Answer) (done bool, err error) {
	if a.Window != "" {
		picked := false
		for _, l := range d.lists {
			if i := slices.Index(d.items[l.Path], a.Window); i >= 0 {
				var ok bool
				if err := callA11y(ctx, conn.Object(l.Name, l.Path), "org.a11y.atspi.Selection.SelectChild", int32(i)).Store(&ok); err != nil {
					return false, fmt.Errorf("testenv: consent: select window %q: %w", a.Window, err)
				}
				picked = true
				break
			}
		}
		if !picked {
			// Offered windows and monitors, the dialog shows one kind
			// per tab, its list of windows filled when its tab is
			// shown: the person opens the tab of windows.
			for _, tl := range d.tabs {
				if i := slices.IndexFunc(d.items[tl.Path], func(n string) bool { return strings.Contains(n, "Window") }); i >= 0 {
					var ok bool
					_ = callA11y(ctx, conn.Object(tl.Name, tl.Path), "org.a11y.atspi.Selection.SelectChild", int32(i)).Store(&ok)
				}
			}
			return false, nil
		}
	}
	// A source is chosen once one list has a selected child (the single
	// monitor is, from the start). Otherwise the first child of the first
	// list that has one is picked. A list of windows may be empty (bare
	// mutter cannot list its windows to the portal).
	var empty []dbus.BusObject
	chosen := a.Window != ""
	for _, l := range d.lists {
		if chosen {
			break
		}
		obj := conn.Object(l.Name, l.Path)
		var v dbus.Variant
		if err := callA11y(ctx, obj, "org.freedesktop.DBus.Properties.Get", "org.a11y.atspi.Selection", "NSelectedChildren").Store(&v); err != nil {
			continue // not a selection
		}
		if n, _ := v.Value().(int32); n > 0 {
			chosen = true
			break
		}
		empty = append(empty, obj)
	}
	for _, obj := range empty {
		if chosen {
			break
		}
		var v dbus.Variant
		if err := callA11y(ctx, obj, "org.freedesktop.DBus.Properties.Get", "org.a11y.atspi.Accessible", "ChildCount").Store(&v); err != nil {
			continue
		}
		if n, _ := v.Value().(int32); n == 0 {
			continue
		}
		var ok bool
		if err := callA11y(ctx, obj, "org.a11y.atspi.Selection.SelectChild", int32(0)).Store(&ok); err != nil {
			return false, fmt.Errorf("testenv: consent: select a source: %w", err)
		}
		chosen = true
	}
	allowInput := a.AllowInput
	if allowInput {
		on, err := d.state(ctx, conn, d.allow, stateChecked, statePressed)
		if err != nil {
			return false, err
		}
		if !on {
			if err := doAction(ctx, conn, d.allow); err != nil {
				return false, fmt.Errorf("testenv: consent: toggle remote interaction: %w", err)
			}
			// The switch's state follows its action a moment later.
			deadline := time.Now().Add(5 * time.Second)
			for !on && err == nil && time.Now().Before(deadline) && ctx.Err() == nil {
				time.Sleep(50 * time.Millisecond)
				on, err = d.state(ctx, conn, d.allow, stateChecked, statePressed)
			}
			if !on {
				return false, fmt.Errorf("testenv: consent: the remote-interaction switch did not turn on (%v)", err)
			}
		}
	}
	if ok, err := d.state(ctx, conn, d.share, stateSensitive); err != nil || !ok {
		return false, err
	}
	if err := doAction(ctx, conn, d.share); err != nil {
		return false, fmt.Errorf("testenv: consent: press Share: %w", err)
	}
	return true, nil
}

const a11yAcc = "org.a11y.atspi.Accessible"

// findDialog walks the portal backend's AT-SPI tree (the application named
// xdg-desktop-portal-gnome) for its Share button and its switch.
func findDialog(ctx context.Context, conn *dbus.Conn) (*portalDialog, error) {
	var apps []a11yRef
	root := conn.Object("org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root")
	if err := callA11y(ctx, root, a11yAcc+".GetChildren").Store(&apps); err != nil {
		return nil, fmt.Errorf("registry GetChildren: %w", err)
	}
	var names []string
	for _, a := range apps {
		name, _ := a11yName(ctx, conn, a)
		names = append(names, name)
		if name != "xdg-desktop-portal-gnome" {
			continue
		}
		d := &portalDialog{items: map[dbus.ObjectPath][]string{}}
		var b strings.Builder
		budget := 2000
		var walk func(o a11yRef, depth int)
		walk = func(o a11yRef, depth int) {
			if budget--; budget < 0 || depth > 40 {
				return
			}
			obj := conn.Object(o.Name, o.Path)
			var role string
			_ = callA11y(ctx, obj, a11yAcc+".GetRoleName").Store(&role)
			name, _ := a11yName(ctx, conn, o)
			fmt.Fprintf(&b, "%s%s %q\n", strings.Repeat("  ", depth), role, name)
			switch {
			case (role == "push button" || role == "button") && slices.Contains(strings.Fields(strings.ReplaceAll(name, "_", "")), "Share"):
				// GTK 4.8 names it "_Share Share": the mnemonic
				// label and the label.
				d.share = o
			case (role == "switch" || role == "toggle button" || role == "check box") && !strings.Contains(name, "Remember"):
				// Not ScreenCast's "Remember this selection".
				d.allow = o
			case role == "list":
				d.lists = append(d.lists, o)
			case role == "page tab list" || role == "tab list":
				d.tabs = append(d.tabs, o)
			}
			var kids []a11yRef
			if err := callA11y(ctx, obj, a11yAcc+".GetChildren").Store(&kids); err != nil {
				return
			}
			if role == "list" || role == "page tab list" || role == "tab list" {
				for _, k := range kids {
					n, _ := a11yName(ctx, conn, k)
					d.items[o.Path] = append(d.items[o.Path], n)
				}
			}
			for _, k := range kids {
				walk(k, depth+1)
			}
		}
		walk(a, 0)
		d.dump = b.String()
		return d, nil
	}
	return nil, fmt.Errorf("xdg-desktop-portal-gnome is not on the accessibility bus (applications: %q)", names)
}

func callA11y(ctx context.Context, obj dbus.BusObject, method string, args ...any) *dbus.Call {
	cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	return obj.CallWithContext(cctx, method, 0, args...)
}

func a11yName(ctx context.Context, conn *dbus.Conn, o a11yRef) (string, error) {
	var v dbus.Variant
	err := callA11y(ctx, conn.Object(o.Name, o.Path), "org.freedesktop.DBus.Properties.Get", a11yAcc, "Name").Store(&v)
	s, _ := v.Value().(string)
	return s, err
}

// state reports whether any of the AT-SPI state bits is set on o.
func (d *portalDialog) state(ctx context.Context, conn *dbus.Conn, o a11yRef, bits ...uint) (bool, error) {
	var st []uint32
	if err := callA11y(ctx, conn.Object(o.Name, o.Path), a11yAcc+".GetState").Store(&st); err != nil {
		return false, fmt.Errorf("testenv: consent: GetState: %w", err)
	}
	for _, b := range bits {
		if int(b/32) < len(st) && st[b/32]&(1<<(b%32)) != 0 {
			return true, nil
		}
	}
	return false, nil
}

// doAction invokes o's first AT-SPI action (a button's click, a switch's
// toggle).
func doAction(ctx context.Context, conn *dbus.Conn, o a11yRef) error {
	var ok bool
	if err := callA11y(ctx, conn.Object(o.Name, o.Path), "org.a11y.atspi.Action.DoAction", int32(0)).Store(&ok); err != nil {
		return err
	}
	if !ok {
		return errors.New("DoAction answered false")
	}
	return nil
}
