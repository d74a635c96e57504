package xpra

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vibespace/vibespace/x11"
	"github.com/vibespace/vibespace/xvfb"
)

// Options configure Start and Adopt.
type Options struct {
	// Width and Height of the screen; default 1920×1080.
	Width, Height int
	// Logf, if set, receives progress lines.
	Logf func(format string, args ...any)
	// Detach lets the display outlive the calling process (see
	// xvfb.Options.Detach).
	Detach bool
	// Dir is the parent of the display's directory; default os.TempDir().
	Dir string
	// HTML, when set ("127.0.0.1:PORT"), also serves xpra's HTML5 client
	// there: anyone who can reach the port sees and drives every window of
	// the display, so it is for tests and the benchmark on loopback, never
	// a default.
	HTML string
	// Owner marks every process of the display (xvfb.Options.Owner).
	Owner string
}

// Display is a running seamless Xpra server with its desktop: the X
// display it manages, the private session bus and the AT-SPI bus (the
// embedded Desktop launches applications, finds its processes and tears
// everything down).
type Display struct {
	*xvfb.Desktop
	srv *server
}

// server is the xvfb.Server that starts xpra, and the xvfb.Shower that
// shows a window xpra keeps hidden.
type server struct {
	dir           string // <desktop dir>/xpra: conf/, sockets/, clients
	width, height int
	html          string
	display       string   // ":N", once started
	base          []string // the desktop's environment, for xpra's commands
}

var (
	_ xvfb.Server = (*server)(nil)
	_ xvfb.Shower = (*server)(nil)
)

func newServer(o Options) *server {
	if o.Width == 0 {
		o.Width = 1920
	}
	if o.Height == 0 {
		o.Height = 1080
	}
	return &server{width: o.Width, height: o.Height, html: o.HTML}
}

// Start brings up a seamless Xpra display with its buses. On error
// everything already started is torn down.
func Start(ctx context.Context, o Options) (*Display, error) {
	srv := newServer(o)
	desk, err := xvfb.Start(ctx, xvfb.Options{Width: srv.width, Height: srv.height, Logf: o.Logf, Detach: o.Detach, Dir: o.Dir, Server: srv, Owner: o.Owner})
	if err != nil {
		return nil, err
	}
	srv.base = desk.Env()
	return &Display{Desktop: desk, srv: srv}, nil
}

// Adopt takes over a display an earlier process started (with Detach),
// from its desktop's State: it checks that the X server, the session bus
// and xpra's socket answer; if not, it tears down what is left and returns
// an error.
func Adopt(ctx context.Context, st xvfb.State, o Options) (*Display, error) {
	srv := newServer(o)
	srv.dir, srv.display = filepath.Join(st.Dir, "xpra"), st.Display
	desk, err := xvfb.Adopt(ctx, st, xvfb.Options{Width: srv.width, Height: srv.height, Logf: o.Logf, Detach: o.Detach, Dir: o.Dir, Server: srv, Owner: o.Owner})
	if err != nil {
		return nil, err
	}
	srv.base = desk.Env()
	d := &Display{Desktop: desk, srv: srv}
	if _, err := srv.dial(ctx); err != nil {
		desk.Close()
		return nil, fmt.Errorf("xpra: adopt %s: %w", st.Display, err)
	}
	return d, nil
}

// Alive checks that xpra's socket accepts a connection: xpra's X server
// may outlive an xpra that died, and windows there would stay hidden.
func (d *Display) Alive(ctx context.Context) error {
	_, err := d.srv.dial(ctx)
	return err
}

// configTemplate is xpra's private config (the same keys as
// /etc/xpra/xpra.conf): the X server line, and everything xpra would start
// or reach beside the windows switched off.
const configTemplate = `# written by vibespace: a private seamless display
xvfb = Xvfb +extension GLX +extension Composite +extension XTEST +extension MIT-SHM -screen 0 %dx%dx24+32 -dpi 96 -nolisten tcp -noreset -auth %s
socket-dirs = %s
mdns = no
pulseaudio = no
speaker = off
microphone = off
webcam = no
dbus-launch =
dbus-control = no
dbus-proxy = no
systemd-run = no
opengl = no
notifications = no
system-tray = no
tray = no
bell = no
printing = no
file-transfer = no
open-files = no
open-url = no
start-new-commands = no
exit-with-children = no
start-env = GDK_BACKEND=x11
start-on-connect = %s connect
start-on-last-client-exit = %s none
html = %s
`

// hookScript appends "<event> <unix time>" to the clients file: xpra runs
// it when a client connects and when the last one leaves.
const hookScript = "#!/bin/sh\necho \"$1 $(date +%%s)\" >> %s\n"

func (s *server) confDir() string     { return filepath.Join(s.dir, "conf") }
func (s *server) socketDir() string   { return filepath.Join(s.dir, "sockets") }
func (s *server) clientsFile() string { return filepath.Join(s.dir, "clients") }

// env is the environment of xpra and of its commands: the desktop's, and
// xpra's private config. It is a new slice each time (base clipped): commands
// run at once (windows shown together) never write into one another's.
func (s *server) env(base []string) []string {
	return append(slices.Clip(base), "XPRA_SYSTEM_CONF_DIRS="+s.confDir(), "XPRA_USER_CONF_DIRS="+s.confDir())
}

func (s *server) writeConfig(xauth string) error {
	for _, d := range []string{s.confDir(), s.socketDir()} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	hook := filepath.Join(s.dir, "client-hook")
	if err := os.WriteFile(hook, []byte(fmt.Sprintf(hookScript, s.clientsFile())), 0o700); err != nil {
		return err
	}
	html := "off"
	if s.html != "" {
		html = "on\nbind-ws = " + s.html
	}
	conf := fmt.Sprintf(configTemplate, s.width, s.height, xauth, s.socketDir(), hook, hook, html)
	return os.WriteFile(filepath.Join(s.confDir(), "xpra.conf"), []byte(conf), 0o600)
}

// StartX starts `xpra start` and answers its display once its socket
// accepts connections.
func (s *server) StartX(ctx context.Context, h xvfb.Host) (string, error) {
	bin, err := exec.LookPath("xpra")
	if err != nil {
		return "", fmt.Errorf("xpra: %w", err)
	}
	s.dir = filepath.Join(h.Dir(), "xpra")
	s.base = h.Env()
	if err := s.writeConfig(h.Xauthority()); err != nil {
		return "", err
	}
	cmd := exec.Command(bin, "start", "--displayfd=3", "--daemon=no")
	cmd.Env = s.env(s.base)
	disp, exited, err := h.StartDisplayFD(ctx, cmd, "xpra")
	if err != nil {
		return "", err
	}
	s.display = disp
	for {
		_, err := s.dial(ctx)
		if err == nil {
			return disp, nil
		}
		select {
		case <-exited:
			return "", fmt.Errorf("xpra: the server of %s exited before it opened its socket; its log: %s", disp, h.LogTail("xpra"))
		case <-ctx.Done():
			return "", fmt.Errorf("xpra: the server of %s opened no socket in time (%v); its log: %s", disp, err, h.LogTail("xpra"))
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// socket is the path of the server's unix socket: xpra names it
// <hostname>-<display number> in its socket dir.
func (s *server) socket() (string, error) {
	n := strings.TrimPrefix(s.display, ":")
	m, err := filepath.Glob(filepath.Join(s.socketDir(), "*-"+n))
	if err != nil || len(m) == 0 {
		return "", fmt.Errorf("xpra: no socket for display %s in %s", s.display, s.socketDir())
	}
	return m[0], nil
}

// dial checks that the server's socket accepts a connection (and closes
// it: a connection that says nothing is dropped by xpra, unseen by its
// clients hooks).
func (s *server) dial(ctx context.Context) (string, error) {
	path, err := s.socket()
	if err != nil {
		return "", err
	}
	var dl net.Dialer
	dctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	c, err := dl.DialContext(dctx, "unix", path)
	if err != nil {
		return "", err
	}
	c.Close()
	return path, nil
}

// Show asks xpra to map window w (the application mapped it; xpra holds
// it hidden until a client, or this, shows it). Launch, which calls it,
// waits for the window to be viewable itself.
func (s *server) Show(ctx context.Context, x *x11.Display, w x11.Window) error {
	return s.mapWindow(ctx, x, w.ID)
}

func (s *server) mapWindow(ctx context.Context, x *x11.Display, id x11.WindowID) error {
	wid, err := windowID(ctx, x, id)
	if err != nil {
		return err
	}
	_, err = s.control(ctx, "map", strconv.Itoa(wid))
	return err
}

// ErrNotManaged is a window xpra does not manage (yet): it carries no
// _XPRA_WID.
var ErrNotManaged = errors.New("xpra: the window is not managed by xpra")

// windowID is xpra's own id of an X window, which xpra puts on it as the
// _XPRA_WID property.
func windowID(ctx context.Context, x *x11.Display, id x11.WindowID) (int, error) {
	v, ok, err := x.Cardinal(ctx, id, "_XPRA_WID")
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, fmt.Errorf("%w: %s has no _XPRA_WID", ErrNotManaged, id)
	}
	return int(v), nil
}
