package x11_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
	"github.com/vibespace/vibespace/x11"
)

// xauthEntry is one Xauthority entry.
type xauthEntry struct {
	family        uint16
	addr, display string
	cookie        []byte
}

func writeXauth(t *testing.T, path string, es ...xauthEntry) {
	t.Helper()
	var b bytes.Buffer
	for _, e := range es {
		_ = binary.Write(&b, binary.BigEndian, e.family)
		for _, f := range [][]byte{[]byte(e.addr), []byte(e.display), []byte("MIT-MAGIC-COOKIE-1"), e.cookie} {
			_ = binary.Write(&b, binary.BigEndian, uint16(len(f)))
			b.Write(f)
		}
	}
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}

func cookie(t *testing.T) []byte {
	c := make([]byte, 16)
	if _, err := rand.Read(c); err != nil {
		t.Fatal(err)
	}
	return c
}

// authXvfb starts an Xvfb that admits only the cookie in the Xauthority
// file at auth (no localuser rule), and answers its display; it is ended
// and reaped at cleanup.
func authXvfb(t *testing.T, auth string) string {
	t.Helper()
	testenv.NeedIntegration(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-auth", auth, "-nolisten", "tcp", "-noreset", "-screen", "0", "640x480x24")
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	ch := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		ch <- strings.TrimSpace(line)
	}()
	select {
	case line := <-ch:
		if _, err := strconv.Atoi(line); err != nil {
			t.Fatalf("Xvfb said %q for its display", line)
		}
		return ":" + line
	case <-time.After(30 * time.Second):
		t.Fatal("Xvfb did not report a display")
	}
	return ""
}

func TestOpenWithXauthority(t *testing.T) {
	dir := t.TempDir()
	auth := filepath.Join(dir, "Xauthority")
	good := cookie(t)
	writeXauth(t, auth, xauthEntry{family: 0xffff, cookie: good})
	disp := authXvfb(t, auth)
	num := strings.TrimPrefix(disp, ":")
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()

	// The oracle that the server demands the cookie: a connection without
	// it is refused (xgb's Open reads $XAUTHORITY, pointed at nothing).
	t.Setenv("XAUTHORITY", filepath.Join(dir, "none"))
	if x, err := x11.Open(ctx, disp); err == nil {
		x.Close()
		t.Fatal("the server admits a client without a cookie")
	}
	if _, err := x11.OpenWith(ctx, disp, x11.Options{}); err == nil {
		t.Fatal("OpenWith without Xauthority was admitted")
	}

	// The cookie of the server's file, as FamilyWild, and as FamilyLocal
	// of this host and display, behind entries for other displays.
	other := filepath.Join(dir, "local")
	writeXauth(t, other,
		xauthEntry{family: 256, addr: host, display: num + "9", cookie: cookie(t)},
		xauthEntry{family: 256, addr: "not-" + host, display: num, cookie: cookie(t)},
		xauthEntry{family: 256, addr: host, display: num, cookie: good})
	for _, f := range []string{auth, other} {
		x, err := x11.OpenWith(ctx, disp, x11.Options{Xauthority: f})
		if err != nil {
			t.Fatalf("OpenWith %s: %v", filepath.Base(f), err)
		}
		if w, h := x.ScreenSize(); w != 640 || h != 480 {
			t.Errorf("screen %dx%d, want 640x480", w, h)
		}
		if _, err := x.Windows(ctx); err != nil {
			t.Errorf("a request on the connection: %v", err)
		}
		if err := x.Close(); err != nil {
			t.Error(err)
		}
	}
	// The watch authenticates the same way.
	w, err := x11.WatchInput(ctx, disp, x11.Options{Xauthority: other}, func(x11.Touch) {})
	if err != nil {
		t.Fatalf("WatchInput with the cookie: %v", err)
	}
	w.Close()

	wrong := filepath.Join(dir, "wrong")
	bad := cookie(t)
	writeXauth(t, wrong, xauthEntry{family: 0xffff, cookie: bad})
	nomatch := filepath.Join(dir, "nomatch")
	writeXauth(t, nomatch, xauthEntry{family: 256, addr: "not-" + host, cookie: good})
	for _, c := range []struct{ file, want string }{
		{wrong, "refused"},
		{nomatch, "no MIT-MAGIC-COOKIE-1"},
		{filepath.Join(dir, "absent"), "no such file"},
	} {
		_, err := x11.OpenWith(ctx, disp, x11.Options{Xauthority: c.file})
		if err == nil {
			t.Errorf("OpenWith %s was admitted", filepath.Base(c.file))
			continue
		}
		msg := err.Error()
		t.Logf("%s: %v", filepath.Base(c.file), msg)
		if !strings.Contains(msg, c.file) || !strings.Contains(msg, c.want) {
			t.Errorf("OpenWith %s: %q does not name the file and say %q", filepath.Base(c.file), msg, c.want)
		}
		for _, k := range [][]byte{good, bad} {
			if strings.Contains(msg, string(k)) || strings.Contains(msg, strings.ToLower(hexs(k))) {
				t.Errorf("the error shows a cookie: %q", msg)
			}
		}
	}
}

func hexs(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

// OpenWith reaches a display through Linux's abstract socket when the
// file socket is absent, and bounds the setup by ctx: this server accepts
// and never answers.
func TestOpenWithSilentServer(t *testing.T) {
	var l net.Listener
	var n int
	for n = 4000 + os.Getpid()%2000; ; n++ {
		if _, err := os.Stat("/tmp/.X11-unix/X" + strconv.Itoa(n)); err == nil {
			continue
		}
		var err error
		if l, err = net.Listen("unix", "@/tmp/.X11-unix/X"+strconv.Itoa(n)); err == nil {
			break
		}
	}
	defer l.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		if c, err := l.Accept(); err == nil {
			accepted <- c
		}
	}()
	ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
	defer cancel()
	_, err := x11.OpenWith(ctx, ":"+strconv.Itoa(n), x11.Options{})
	if target.CodeOf(err) != target.CodeTimeout {
		t.Fatalf("OpenWith a silent server: %v, want a timeout refusal", err)
	}
	select {
	case c := <-accepted:
		c.Close()
	case <-time.After(10 * time.Second):
		t.Error("OpenWith never reached the abstract socket")
	}
}

// Open and OpenWith dial a local display's abstract socket before its file
// socket: the file in the shared /tmp can be another network namespace's
// server (one there that tried the same number replaced the file), the
// abstract socket is this namespace's alone. Here both names listen, each
// a different (silent) server, and only the abstract one is dialled.
func TestOpenPrefersAbstractSocket(t *testing.T) {
	if err := os.Mkdir("/tmp/.X11-unix", 0o755); err == nil {
		// As an X server makes it: anyone may add a socket.
		if err := os.Chmod("/tmp/.X11-unix", 0o1777); err != nil {
			t.Fatal(err)
		}
	}
	var abstract, file net.Listener
	var n int
	for n = 6000 + os.Getpid()%2000; ; n++ {
		path := "/tmp/.X11-unix/X" + strconv.Itoa(n)
		if _, err := os.Stat(path); err == nil {
			continue
		}
		var err error
		if abstract, err = net.Listen("unix", "@"+path); err != nil {
			continue
		}
		if file, err = net.Listen("unix", path); err != nil {
			abstract.Close()
			continue
		}
		break
	}
	defer abstract.Close()
	defer file.Close() // removes the file
	reached := make(chan string, 8)
	for name, l := range map[string]net.Listener{"abstract": abstract, "file": file} {
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				reached <- name
				defer c.Close()
			}
		}()
	}
	for _, open := range []struct {
		name string
		fn   func(context.Context) error
	}{
		{"Open", func(ctx context.Context) error { _, err := x11.Open(ctx, ":"+strconv.Itoa(n)); return err }},
		{"OpenWith", func(ctx context.Context) error {
			_, err := x11.OpenWith(ctx, ":"+strconv.Itoa(n), x11.Options{})
			return err
		}},
	} {
		ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
		err := open.fn(ctx)
		cancel()
		if target.CodeOf(err) != target.CodeTimeout {
			t.Fatalf("%s a silent server: %v, want a timeout refusal", open.name, err)
		}
		select {
		case got := <-reached:
			if got != "abstract" {
				t.Errorf("%s dialled the %s socket, not the abstract one", open.name, got)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s reached neither socket", open.name)
		}
	}
	select {
	case got := <-reached:
		t.Errorf("a further connection, to the %s socket", got)
	default:
	}
}
