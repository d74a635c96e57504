package chromium

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// theirBrowser is a Chromium the test starts itself, not the daemon: in a
// network namespace of its own (unshare --net, only loopback up) with
// DevTools on 127.0.0.1:9222 of that namespace. Nothing of this network
// namespace reaches it; the test reaches into its namespace from one OS
// thread that entered it (setns), to serve pages there and to forward one
// port of ours to its DevTools: that forward is the only road to it.
type theirBrowser struct {
	pid  int
	dir  string
	cmd  *exec.Cmd
	ns   *nsThread
	fwd  net.Listener
	done chan struct{}
}

// devtoolsPort is the browser's DevTools port inside its namespace.
const devtoolsPort = 9222

// startTheirBrowser starts it and waits until its /json/version answers
// (through its namespace).
func startTheirBrowser(t *testing.T) *theirBrowser {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("a network namespace of the test's own needs root (unshare --net, setns)")
	}
	bin, err := exec.LookPath(DefaultBinary)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	script := fmt.Sprintf(`ip link set lo up && exec %s --headless=new --no-sandbox --disable-gpu --no-first-run --no-default-browser-check `+
		`--disable-background-networking --remote-debugging-address=127.0.0.1 --remote-debugging-port=%d --user-data-dir=%s about:blank`,
		bin, devtoolsPort, dir)
	cmd := exec.Command("unshare", "--net", "sh", "-c", script)
	cmd.Env = []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "HOME=" + dir}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tb := &theirBrowser{pid: cmd.Process.Pid, dir: dir, cmd: cmd, done: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
		}
		cmd.Wait()
		close(tb.done)
	}()
	t.Cleanup(tb.kill)
	// unshare execs sh, which execs chromium: the PID is the browser's
	// once its namespace differs from ours. Ours is this thread's: the
	// process's (/proc/self, its main thread's) is another namespace's
	// while an nsThread runs on the main thread.
	waitFor(t, "the browser's own network namespace", func() bool {
		ours, _ := os.Readlink("/proc/thread-self/ns/net")
		theirs, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(tb.pid), "ns/net"))
		return err == nil && theirs != ours
	})
	ns, err := enterNS(filepath.Join("/proc", strconv.Itoa(tb.pid), "ns/net"))
	if err != nil {
		t.Fatal(err)
	}
	tb.ns = ns
	t.Cleanup(ns.close)
	waitFor(t, "the browser's DevTools in its namespace", func() bool {
		_, err := tb.version(t.Context())
		return err == nil
	})
	return tb
}

// version is the browser's /json/version, read inside its namespace.
func (tb *theirBrowser) version(ctx context.Context) (map[string]string, error) {
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) { return tb.ns.dial(ctx, addr) },
	}}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/json/version", devtoolsPort), nil)
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var v map[string]string
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// forward listens on 127.0.0.1:0 of our namespace and carries every
// connection to the browser's DevTools port in its own: the endpoint the
// daemon is given. It answers the address.
func (tb *theirBrowser) forward(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tb.fwd = ln
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				u, err := tb.ns.dial(ctx, fmt.Sprintf("127.0.0.1:%d", devtoolsPort))
				cancel()
				if err != nil {
					return
				}
				defer u.Close()
				go func() { io.Copy(u, c); u.(*net.TCPConn).CloseWrite() }()
				io.Copy(c, u)
			}()
		}
	}()
	return ln.Addr().String()
}

// serve serves handler inside the browser's namespace (where it reaches
// it; nothing of ours does) until the test ends, and answers its base URL.
func (tb *theirBrowser) serve(t *testing.T, handler http.Handler) string {
	t.Helper()
	ln, err := tb.ns.listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: handler}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

// alive reports whether the browser's process is there and no zombie.
func (tb *theirBrowser) alive() bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(tb.pid), "stat"))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && len(s) > i+2 && s[i+2] != 'Z' && s[i+2] != 'X'
}

// kill is the test ending the browser it started: its process group,
// reaped.
func (tb *theirBrowser) kill() {
	syscall.Kill(-tb.pid, syscall.SIGKILL)
	select {
	case <-tb.done:
	case <-time.After(10 * time.Second):
	}
	for i := 0; i < 500 && len(groupLeft(tb.pid)) > 0; i++ {
		syscall.Kill(-tb.pid, syscall.SIGKILL)
		time.Sleep(20 * time.Millisecond)
	}
}

func groupLeft(pgid int) []int {
	var left []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if g, err := syscall.Getpgid(pid); err == nil && g == pgid {
			left = append(left, pid)
		}
	}
	return left
}

// nsThread is one OS thread inside another network namespace: sockets made
// on it (listen, dial) belong to that namespace; the rest of the process
// stays in its own.
type nsThread struct {
	work chan func()   // never closed: a send may race a close
	quit chan struct{} // closed by close: the thread ends, sends give up
	once sync.Once
}

// errNSClosed is dial's and listen's answer once the thread has ended.
var errNSClosed = errors.New("the namespace's thread has ended")

func enterNS(path string) (*nsThread, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	n := &nsThread{work: make(chan func()), quit: make(chan struct{})}
	errc := make(chan error, 1)
	go func() {
		// The thread goes back to our namespace when the work ends, and
		// only then serves other goroutines again; one that cannot go back
		// is never unlocked, so it ends with this goroutine (or, the main
		// thread, is parked) instead of serving others from the wrong
		// namespace. No thread is left elsewhere: /proc/net (the main
		// thread's) and every socket made later are ours.
		runtime.LockOSThread()
		home, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			f.Close()
			runtime.UnlockOSThread()
			errc <- err
			return
		}
		defer home.Close()
		err = unix.Setns(int(f.Fd()), unix.CLONE_NEWNET)
		f.Close()
		errc <- err
		if err != nil {
			runtime.UnlockOSThread()
			return
		}
		defer func() {
			if unix.Setns(int(home.Fd()), unix.CLONE_NEWNET) == nil {
				runtime.UnlockOSThread()
			}
		}()
		for {
			select {
			case fn := <-n.work:
				fn()
			case <-n.quit:
				return
			}
		}
	}()
	if err := <-errc; err != nil {
		return nil, fmt.Errorf("setns %s: %w", path, err)
	}
	return n, nil
}

func (n *nsThread) close() { n.once.Do(func() { close(n.quit) }) }

// dial connects to addr inside the namespace (the socket is made on the
// namespace's thread; connecting is the poller's, as for any socket).
func (n *nsThread) dial(ctx context.Context, addr string) (net.Conn, error) {
	type res struct {
		c   net.Conn
		err error
	}
	out := make(chan res, 1)
	select {
	case n.work <- func() {
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", addr)
		out <- res{c, err}
	}:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-n.quit:
		return nil, errNSClosed
	}
	r := <-out
	return r.c, r.err
}

// listen listens on addr inside the namespace.
func (n *nsThread) listen(addr string) (net.Listener, error) {
	type res struct {
		l   net.Listener
		err error
	}
	out := make(chan res, 1)
	select {
	case n.work <- func() {
		l, err := net.Listen("tcp", addr)
		out <- res{l, err}
	}:
	case <-n.quit:
		return nil, errNSClosed
	}
	r := <-out
	return r.l, r.err
}
