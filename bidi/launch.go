package bidi

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/vibespace/vibespace/internal/linetail"

	"golang.org/x/sys/unix"
)

// Options configure Launch.
type Options struct {
	// Binary is the Firefox program; "" means "firefox-esr", else
	// "firefox", found in PATH.
	Binary string
	// Headless runs the browser with --headless. Without it, Display must
	// name the X display to show windows on.
	Headless bool
	// Display is the X display (":N") of a headed browser.
	Display string
	// ProfileDir is the profile directory to use and keep (made when
	// missing); "" means a fresh one that Close removes.
	ProfileDir string
	// StartTimeout bounds the wait for the browser's readiness when ctx has
	// no earlier deadline; 0 means 60 s.
	StartTimeout time.Duration
	// CallTimeout bounds each call whose context has no deadline; 0 means
	// DefaultCallTimeout.
	CallTimeout time.Duration
	// Logger receives the browser's stderr (at debug level); nil discards it.
	Logger *slog.Logger
	// Calls, when set, sees the method of every command sent.
	Calls func(method string)
}

// Ports inside the browser's network namespace, which holds nothing else:
// fixed, since no one else can be there.
const (
	agentPort = 9222
	socksPort = 1080
)

// Browser is a running Firefox, in namespaces of its own, and the BiDi
// session on it. It lives until Close, or until the context given to
// Launch ends.
type Browser struct {
	conn    *Conn
	session string
	cmd     *exec.Cmd
	dir     string // profile, home and temporary files; removed by Close
	profile string // the caller's profile (Options.ProfileDir), kept
	log     *slog.Logger
	exited  chan struct{}
	stderr  *linetail.Tail
	stopCtx func() bool

	closeOnce sync.Once
	closeErr  error
}

// prefs are the profile's preferences (user.js) beside those the Remote
// Agent sets itself (remote.prefs.recommended): the proxy that is the
// browser's only way out of its namespace (every host through it,
// loopback too, since the launcher's loopback is not the namespace's), BiDi
// alone, and nothing that phones home or asks a question at start.
func prefs() string {
	p := [][2]string{
		{"network.proxy.type", "1"},
		{"network.proxy.socks", `"127.0.0.1"`},
		{"network.proxy.socks_port", fmt.Sprint(socksPort)},
		{"network.proxy.socks_version", "5"},
		{"network.proxy.socks_remote_dns", "true"},
		{"network.proxy.no_proxies_on", `""`},
		{"network.proxy.allow_hijacking_localhost", "true"},
		{"network.proxy.share_proxy_settings", "false"},
		{"remote.active-protocols", "1"},
		{"browser.shell.checkDefaultBrowser", "false"},
		{"browser.startup.homepage_override.mstone", `"ignore"`},
		{"browser.aboutwelcome.enabled", "false"},
		{"datareporting.policy.dataSubmissionEnabled", "false"},
		{"toolkit.telemetry.reportingpolicy.firstRun", "false"},
		{"app.update.disabledForTesting", "true"},
		{"app.normandy.enabled", "false"},
		{"browser.region.network.url", `""`},
		{"browser.safebrowsing.malware.enabled", "false"},
		{"browser.safebrowsing.phishing.enabled", "false"},
		{"extensions.update.enabled", "false"},
		{"messaging-system.rsexperimentloader.enabled", "false"},
		{"services.settings.server", `"data:,#remote-settings-dummy/v1"`},
	}
	var b strings.Builder
	for _, kv := range p {
		fmt.Fprintf(&b, "user_pref(%q, %s);\n", kv[0], kv[1])
	}
	return b.String()
}

// Launch starts Firefox headless (or on Display) with a fresh profile of
// its own, in a network namespace reached only through the relay (see
// the package doc), opens a BiDi session, and returns. The browser is
// killed and reaped, and its profile removed, when ctx ends, when Close is
// called, when it exits by itself, or when Launch fails. Where user
// namespaces cannot be had the error wraps ErrNoIsolation.
func Launch(ctx context.Context, o Options) (_ *Browser, err error) {
	if !o.Headless && o.Display == "" {
		return nil, errors.New("bidi: launch: a headed browser needs Options.Display (or set Headless)")
	}
	bin := o.Binary
	if bin == "" {
		bin = "firefox-esr"
		if _, err := exec.LookPath(bin); err != nil {
			bin = "firefox"
		}
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return nil, fmt.Errorf("bidi: launch: %w", err)
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("bidi: launch: the relay is this program: %w", err)
	}
	start := o.StartTimeout
	if start <= 0 {
		start = 60 * time.Second
	}
	deadline := time.Now().Add(start)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	sctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}

	b := &Browser{log: log, exited: make(chan struct{}), stderr: linetail.New(40)}
	if b.dir, err = os.MkdirTemp("", "vibespace-firefox-*"); err != nil {
		return nil, fmt.Errorf("bidi: launch: %w", err)
	}
	defer func() {
		if err != nil {
			b.kill()
		}
	}()
	profile, home, tmp := filepath.Join(b.dir, "profile"), filepath.Join(b.dir, "home"), filepath.Join(b.dir, "tmp")
	mk := []string{home, tmp}
	if o.ProfileDir != "" {
		if err := os.MkdirAll(o.ProfileDir, 0o700); err != nil {
			return nil, fmt.Errorf("bidi: launch: %w", err)
		}
		profile, b.profile = o.ProfileDir, o.ProfileDir
	} else {
		mk = append(mk, profile)
	}
	for _, d := range mk {
		if err := os.Mkdir(d, 0o700); err != nil {
			return nil, fmt.Errorf("bidi: launch: %w", err)
		}
	}
	if err := os.WriteFile(filepath.Join(profile, "user.js"), []byte(prefs()), 0o600); err != nil {
		return nil, fmt.Errorf("bidi: launch: %w", err)
	}
	args := []string{"--no-remote", "--profile", profile, "--remote-debugging-port", fmt.Sprint(agentPort), "--remote-allow-hosts", "127.0.0.1"}
	env := []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + home, "TMPDIR=" + tmp,
		"MOZ_CRASHREPORTER_DISABLE=1", "MOZ_CRASHREPORTER_SHUTDOWN=1"}
	if o.Headless {
		args = append(args, "--headless")
		env = append(env, "MOZ_HEADLESS=1")
	} else {
		env = append(env, "DISPLAY="+o.Display)
	}
	args = append(args, "about:blank")
	cfg, _ := json.Marshal(relayConfig{Binary: path, Args: args, Env: env, Dir: home,
		AgentPort: agentPort, SocksPort: socksPort, Deadline: deadline.UnixMilli()})

	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("bidi: launch: socketpair: %w", err)
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "bidi"), os.NewFile(uintptr(fds[1]), "bidi-relay")
	nc, err := net.FileConn(ours)
	ours.Close()
	if err != nil {
		theirs.Close()
		return nil, fmt.Errorf("bidi: launch: %w", err)
	}
	defer func() {
		if err != nil {
			nc.Close()
		}
	}()

	cmd := exec.Command(self)
	cmd.Env = []string{relayEnv + "=" + string(cfg)}
	cmd.ExtraFiles = []*os.File{theirs} // fd 3: relayFD
	uid, gid := os.Getuid(), os.Getgid()
	cmd.SysProcAttr = &syscall.SysProcAttr{
		// A user namespace (so that an unprivileged launcher may make a
		// network namespace) mapping only our own ids, and a PID namespace
		// whose first process is the relay: its end is every browser
		// process's end.
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		AmbientCaps: []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_NET_ADMIN},
		Setpgid:     true,
		Pdeathsig:   syscall.SIGKILL,
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		theirs.Close()
		return nil, fmt.Errorf("bidi: launch: %w", err)
	}
	err = cmd.Start()
	theirs.Close()
	if err != nil {
		if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EACCES) {
			return nil, fmt.Errorf("bidi: launch: %w: a user and a PID namespace: %w", ErrNoIsolation, err)
		}
		return nil, fmt.Errorf("bidi: launch: the relay: %w", err)
	}
	b.cmd = cmd
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		for sc.Scan() {
			b.stderr.Add(sc.Text())
			log.Debug("firefox", "line", sc.Text())
		}
		cmd.Wait()
		close(b.exited)
	}()

	// The relay's first line says whether the browser is up.
	nc.SetReadDeadline(deadline)
	stop := context.AfterFunc(sctx, func() { nc.SetReadDeadline(time.Unix(1, 0)) })
	line, err := readLine(nc)
	stop()
	nc.SetReadDeadline(time.Time{})
	if err != nil {
		if cerr := sctx.Err(); cerr != nil {
			err = cerr
		}
		return nil, fmt.Errorf("bidi: launch: waiting for the browser: %w%s", err, b.tailNote())
	}
	word, reason, _ := strings.Cut(line, " ")
	switch word {
	case relayReady:
	case relayNoIsol:
		return nil, fmt.Errorf("bidi: launch: %w: %s", ErrNoIsolation, reason)
	case relayLate:
		return nil, fmt.Errorf("bidi: launch: %s: %w%s", reason, context.DeadlineExceeded, b.tailNote())
	default:
		return nil, fmt.Errorf("bidi: launch: %s%s", reason, b.tailNote())
	}
	conn, err := handshake(sctx, nc, fmt.Sprintf("127.0.0.1:%d", agentPort), ConnOptions{CallTimeout: o.CallTimeout, Calls: o.Calls})
	if err != nil {
		return nil, fmt.Errorf("bidi: launch: %w%s", err, b.tailNote())
	}
	b.conn = conn
	var ns struct {
		SessionID string `json:"sessionId"`
	}
	if err := conn.Call(sctx, "session.new", map[string]any{"capabilities": map[string]any{}}, &ns); err != nil {
		return nil, fmt.Errorf("bidi: launch: %w", err)
	}
	b.session = ns.SessionID
	// The browser dies with ctx, and its connection with the browser.
	b.stopCtx = context.AfterFunc(ctx, func() { b.Close() })
	go func() {
		<-b.exited
		conn.shut(errors.New("the browser's relay exited"))
	}()
	return b, nil
}

// readLine reads one "\n"-ended line byte by byte, so that nothing after
// it (the WebSocket) is taken.
func readLine(nc net.Conn) (string, error) {
	var line []byte
	var c [1]byte
	for len(line) < 4096 {
		if _, err := nc.Read(c[:]); err != nil {
			if len(line) == 0 && errors.Is(err, os.ErrDeadlineExceeded) {
				return "", context.DeadlineExceeded
			}
			return "", err
		}
		if c[0] == '\n' {
			return string(line), nil
		}
		line = append(line, c[0])
	}
	return "", errors.New("a line over 4096 bytes from the relay")
}

func (b *Browser) tailNote() string {
	if s := b.stderr.String(); s != "" {
		return "\nbrowser output:\n" + s
	}
	return ""
}

// Conn is the browser's BiDi connection.
func (b *Browser) Conn() *Conn { return b.conn }

// ProfileDir is the browser's profile directory: Options.ProfileDir, or
// a fresh one under the directory Close removes.
func (b *Browser) ProfileDir() string {
	if b.profile != "" {
		return b.profile
	}
	return filepath.Join(b.dir, "profile")
}

// SessionID is the BiDi session Launch opened.
func (b *Browser) SessionID() string { return b.session }

// PID is the relay's process id (in the launcher's PID namespace): the
// browser's processes are its descendants, in its PID namespace.
func (b *Browser) PID() int { return b.cmd.Process.Pid }

// Exited is closed when the relay, and with it the browser, has exited.
func (b *Browser) Exited() <-chan struct{} { return b.exited }

// Close ends the connection, kills the relay (the kernel then kills every
// process of its PID namespace, the browser's), waits for it, and removes
// the profile. Safe to call more than once.
func (b *Browser) Close() error {
	b.closeOnce.Do(func() {
		if b.stopCtx != nil {
			b.stopCtx()
		}
		b.kill()
	})
	return b.closeErr
}

func (b *Browser) kill() {
	if b.conn != nil {
		b.conn.Close()
	}
	if b.cmd != nil && b.cmd.Process != nil {
		b.cmd.Process.Signal(syscall.SIGKILL)
		select {
		case <-b.exited:
		case <-time.After(30 * time.Second):
			b.closeErr = fmt.Errorf("bidi: the relay %d did not exit in 30 s of SIGKILL", b.cmd.Process.Pid)
		}
	}
	if b.dir != "" {
		if err := os.RemoveAll(b.dir); err != nil && b.closeErr == nil {
			b.closeErr = err
		}
	}
}
