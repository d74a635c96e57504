package rtc_test

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"
)

// viewerPage is the test's viewer: it opens n peer connections to /whep/win,
// and reports each one's video size and frames decoded to /report.
//
//go:embed testdata/viewer.html
var viewerPage []byte

// report is what the page says of one of its peer connections.
type report struct {
	Page   string `json:"page"`
	Index  int    `json:"index"`
	Width  int    `json:"w"`
	Height int    `json:"h"`
	Frames int    `json:"frames"`
	State  string `json:"state"`
	Error  string `json:"error"`
}

// viewerServer serves the page, the WHEP endpoint and the report sink on
// 127.0.0.1.
type viewerServer struct {
	URL     string
	mu      sync.Mutex
	reports map[string]report // by page/index
	cmds    map[string]string // by page: a command for the page to run
	changed chan struct{}
}

func newViewerServer(t *testing.T, whep http.Handler) *viewerServer {
	t.Helper()
	vs := &viewerServer{reports: map[string]report{}, cmds: map[string]string{}, changed: make(chan struct{}, 1)}
	mux := http.NewServeMux()
	mux.Handle("/whep/", whep)
	mux.HandleFunc("/viewer", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(viewerPage)
	})
	mux.HandleFunc("/report", func(w http.ResponseWriter, r *http.Request) {
		var rp report
		if err := json.NewDecoder(r.Body).Decode(&rp); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		vs.mu.Lock()
		vs.reports[fmt.Sprintf("%s/%d", rp.Page, rp.Index)] = rp
		vs.mu.Unlock()
		select {
		case vs.changed <- struct{}{}:
		default:
		}
	})
	mux.HandleFunc("/cmd", func(w http.ResponseWriter, r *http.Request) {
		page := r.URL.Query().Get("page")
		vs.mu.Lock()
		c := vs.cmds[page]
		delete(vs.cmds, page)
		vs.mu.Unlock()
		_, _ = w.Write([]byte(c))
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	})
	vs.URL = "http://" + ln.Addr().String()
	return vs
}

// command queues cmd ("close 0") for page to run.
func (vs *viewerServer) command(page, cmd string) {
	vs.mu.Lock()
	vs.cmds[page] = cmd
	vs.mu.Unlock()
}

// waitReport waits until the report of page/index satisfies ok.
func (vs *viewerServer) waitReport(ctx context.Context, page string, index int, ok func(report) bool) (report, error) {
	key := fmt.Sprintf("%s/%d", page, index)
	for {
		vs.mu.Lock()
		rp, have := vs.reports[key]
		vs.mu.Unlock()
		if have && rp.Error != "" {
			return rp, fmt.Errorf("viewer %s: %s", key, rp.Error)
		}
		if have && ok(rp) {
			return rp, nil
		}
		select {
		case <-ctx.Done():
			return rp, fmt.Errorf("viewer %s: last report %+v: %w", key, rp, ctx.Err())
		case <-vs.changed:
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// browser is a headless Chromium we started, in its own process group.
type browser struct {
	cmd  *exec.Cmd
	done chan struct{}
}

// launchViewer starts a headless Chromium showing url. It is killed (its
// whole process group, by id) and reaped when the test ends.
func launchViewer(t *testing.T, url string) *browser {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	dir := t.TempDir()
	cmd := exec.Command(bin,
		"--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-breakpad",
		"--password-store=basic", "--user-data-dir="+dir,
		// notes/live-view.md trap 5: loopback ICE.
		"--allow-loopback-in-peer-connection", "--disable-features=WebRtcHideLocalIpsWithMdns",
		"--autoplay-policy=no-user-gesture-required",
		"--disable-background-timer-throttling", "--disable-renderer-backgrounding",
		url)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if testing.Verbose() {
		cmd.Stderr = os.Stderr
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	b := &browser{cmd: cmd, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(b.done)
	}()
	t.Cleanup(func() { b.kill(t) })
	return b
}

// kill ends the browser at once (as a crash or a closed laptop would) and
// reaps it.
func (b *browser) kill(t *testing.T) {
	select {
	case <-b.done:
		return
	default:
	}
	_ = syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
	select {
	case <-b.done:
	case <-time.After(10 * time.Second):
		t.Errorf("chromium %d was not reaped", b.cmd.Process.Pid)
	}
	// Its children are in its process group: make sure none is left.
	for range 100 {
		if err := syscall.Kill(-b.cmd.Process.Pid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}
