package browserless

import (
	"bufio"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gobwas/ws"

	"github.com/vibespace/vibespace/internal/chromeflags"
	"github.com/vibespace/vibespace/internal/procgroup"
)

// Unauthorized is the body the service answers a bad or missing token with,
// under HTTP 401.
const Unauthorized = "Bad or missing authentication."

// Options configure Start.
type Options struct {
	// Token is the API token a connection must carry as ?token=. Required.
	Token string
	// Chromium is the browser program; "" means "chromium" from PATH.
	Chromium string
	// Log receives one line per connection and the browsers' stderr; nil
	// discards them. The token is never written to it.
	Log io.Writer
}

// Conn is one connection attempt.
type Conn struct {
	At      time.Time
	TokenOK bool
	// PID is the Chromium started for it (its process group), 0 when none
	// was (a refused token, or a browser that failed to start).
	PID int
	// DevTools is that Chromium's own browser-level WebSocket, for a test to
	// look at the browser without going through the service.
	DevTools string
	// Closed: the connection ended and its Chromium is reaped, its
	// directory removed.
	Closed bool
}

// Service is a running stand-in.
type Service struct {
	o      Options
	bin    string
	ln     net.Listener
	srv    *http.Server
	ctx    context.Context
	cancel context.CancelFunc
	logMu  sync.Mutex

	mu     sync.Mutex
	conns  []*Conn
	active map[*session]struct{}
	closed bool
	wg     sync.WaitGroup
}

// Start starts the service on 127.0.0.1:0. ctx bounds nothing after Start
// returns; Close ends the service.
func Start(ctx context.Context, o Options) (*Service, error) {
	if o.Token == "" {
		return nil, errors.New("browserless: Options.Token is required")
	}
	bin := o.Chromium
	if bin == "" {
		bin = "chromium"
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return nil, fmt.Errorf("browserless: %w", err)
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("browserless: %w", err)
	}
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s := &Service{o: o, bin: path, ln: ln, ctx: sctx, cancel: cancel, active: map[*session]struct{}{}}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second}
	s.wg.Go(func() { s.srv.Serve(ln) })
	return s, nil
}

// URL is the service's base, like wss://production-sfo.browserless.io: a
// client appends ?token=….
func (s *Service) URL() string { return "ws://" + s.ln.Addr().String() }

// Connections lists every connection attempt so far, oldest first.
func (s *Service) Connections() []Conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Conn, len(s.conns))
	for i, c := range s.conns {
		out[i] = *c
	}
	return out
}

// Close stops listening, ends every connection and its browser, and waits
// until each is reaped.
func (s *Service) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	for ss := range s.active {
		ss.client.Close()
	}
	s.mu.Unlock()
	s.cancel()
	err := s.srv.Close()
	s.wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	var left []string
	for _, c := range s.conns {
		if c.PID != 0 && !c.Closed {
			left = append(left, fmt.Sprint(c.PID))
		}
	}
	if len(left) > 0 {
		return fmt.Errorf("browserless: browsers %s not reaped", strings.Join(left, ", "))
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

func (s *Service) logf(format string, args ...any) {
	if s.o.Log == nil {
		return
	}
	s.logMu.Lock()
	defer s.logMu.Unlock()
	fmt.Fprintf(s.o.Log, "browserless: "+format+"\n", args...)
}

func (s *Service) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/" && r.URL.Path != "/chromium" {
		http.Error(w, "Not Found", http.StatusNotFound)
		return
	}
	got := r.URL.Query().Get("token")
	ok := subtle.ConstantTimeCompare([]byte(got), []byte(s.o.Token)) == 1
	c := &Conn{At: time.Now(), TokenOK: ok}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		http.Error(w, "Service Unavailable", http.StatusServiceUnavailable)
		return
	}
	s.conns = append(s.conns, c)
	s.wg.Add(1) // this request; Close waits for it
	s.mu.Unlock()
	defer s.wg.Done()
	if !ok {
		s.logf("%s %s refused: bad or missing token (401)", r.Method, r.URL.Path)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, Unauthorized)
		return
	}
	if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		http.Error(w, "Not Found", http.StatusNotFound)
		return
	}
	ctx, cancel := context.WithTimeout(s.ctx, 60*time.Second)
	b, err := s.launch(ctx)
	if err != nil {
		cancel()
		s.logf("chromium did not start: %v", err)
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		return
	}
	s.mu.Lock()
	c.PID, c.DevTools = b.pgid, b.wsURL
	s.mu.Unlock()
	up, upBuf, _, err := ws.Dialer{}.Dial(ctx, b.wsURL)
	cancel()
	if err != nil {
		s.reap(c, b)
		s.logf("dial chromium %d: %v", b.pgid, err)
		http.Error(w, "Bad Gateway", http.StatusBadGateway)
		return
	}
	client, rw, _, err := ws.UpgradeHTTP(r, w)
	if err != nil {
		up.Close()
		s.reap(c, b)
		s.logf("upgrade: %v", err)
		return
	}
	ss := &session{client: client, up: up}
	s.mu.Lock()
	if s.closed {
		client.Close()
	}
	s.active[ss] = struct{}{}
	s.mu.Unlock()
	s.logf("connection %d: chromium %d", len(s.Connections()), b.pgid)

	var upSrc io.Reader = up
	if upBuf != nil {
		upSrc = io.MultiReader(upBuf, up)
	}
	relayed := make(chan struct{})
	go func() {
		io.Copy(client, upSrc) // Chromium's frames, unmasked, as a server's are
		client.Close()
		close(relayed)
	}()
	relay(up, rw.Reader, b.exited) // the client's frames, masked, as a client's are
	up.Close()
	client.Close()
	<-relayed
	s.mu.Lock()
	delete(s.active, ss)
	s.mu.Unlock()
	s.reap(c, b)
	s.logf("chromium %d closed", b.pgid)
}

// relay copies src to dst until src ends or the browser exits.
func relay(dst net.Conn, src *bufio.Reader, exited <-chan struct{}) {
	done := make(chan struct{})
	go func() {
		select {
		case <-exited:
			dst.Close()
		case <-done:
		}
	}()
	io.Copy(dst, src)
	close(done)
}

type session struct{ client, up net.Conn }

func (s *Service) reap(c *Conn, b *browser) {
	err := b.kill()
	if err != nil {
		s.logf("%v", err)
	}
	s.mu.Lock()
	c.Closed = err == nil
	s.mu.Unlock()
}

// browser is one Chromium of ours, listening for DevTools on 127.0.0.1.
type browser struct {
	cmd    *exec.Cmd
	pgid   int
	dir    string
	wsURL  string
	exited chan struct{}
}

// flags are the ones the repo passes every browser (the network is closed:
// nothing may phone home), plus a DevTools port on loopback, which is what
// this service exists to hand out.
var flags = append(chromeflags.Quiet(),
	"--headless=new",
	"--remote-debugging-address=127.0.0.1",
	"--remote-debugging-port=0",
)

func (s *Service) launch(ctx context.Context) (*browser, error) {
	dir, err := os.MkdirTemp("", "vibespace-browserless-*")
	if err != nil {
		return nil, err
	}
	args := append([]string(nil), flags...)
	if os.Geteuid() == 0 {
		args = append(args, "--no-sandbox")
	}
	args = append(args, "--user-data-dir="+dir, "about:blank")
	errR, errW, err := os.Pipe()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	cmd := exec.Command(s.bin, args...)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir}
	cmd.Stderr = errW // a file, so Wait does not wait for renderers holding it
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		errR.Close()
		errW.Close()
		os.RemoveAll(dir)
		return nil, err
	}
	errW.Close()
	b := &browser{cmd: cmd, pgid: cmd.Process.Pid, dir: dir, exited: make(chan struct{})}
	go func() {
		cmd.Wait()
		close(b.exited)
	}()
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(errR)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			if !sent {
				if _, u, ok := strings.Cut(line, "DevTools listening on "); ok {
					ready <- strings.TrimSpace(u)
					sent = true
					continue
				}
			}
			s.logf("chromium %d: %s", b.pgid, line)
		}
		errR.Close()
	}()
	select {
	case u := <-ready:
		b.wsURL = u
		return b, nil
	case <-b.exited:
		b.kill()
		return nil, fmt.Errorf("chromium exited before it listened (%s)", cmd.ProcessState)
	case <-ctx.Done():
		b.kill()
		return nil, fmt.Errorf("chromium did not listen: %w", ctx.Err())
	}
}

// kill SIGKILLs the browser's process group, reaps it, waits (bounded) for
// every process of the group to be gone, and removes its directory.
func (b *browser) kill() error {
	_ = syscall.Kill(-b.pgid, syscall.SIGKILL)
	select {
	case <-b.exited:
	case <-time.After(10 * time.Second):
		return fmt.Errorf("browserless: chromium %d did not exit after SIGKILL", b.pgid)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		left := procgroup.Live(b.pgid)
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			os.RemoveAll(b.dir)
			return fmt.Errorf("browserless: chromium group %d: processes %v still alive", b.pgid, left)
		}
		_ = syscall.Kill(-b.pgid, syscall.SIGKILL)
		time.Sleep(20 * time.Millisecond)
	}
	return os.RemoveAll(b.dir)
}
