package rtc_test

import (
	_ "embed"
	"errors"
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
	// The selected candidate pair: the page's end ("tcp active") and the
	// hub's ("tcp 127.0.0.1:M passive").
	Local  string `json:"local"`
	Remote string `json:"remote"`
}

// viewerServer serves the page, the WHEP endpoint and the report sink on
// 127.0.0.1.
type viewerServer struct {
	URL string
	*reportSink[report]
	cmdMu sync.Mutex
	cmds  map[string]string // by page: a command for the page to run
}

func newViewerServer(t *testing.T, whep http.Handler) *viewerServer {
	t.Helper()
	vs := &viewerServer{reportSink: newReportSink[report](), cmds: map[string]string{}}
	mux := http.NewServeMux()
	mux.Handle("/whep/", whep)
	mux.HandleFunc("/viewer", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(viewerPage)
	})
	mux.Handle("/report", vs.reportSink)
	mux.HandleFunc("/cmd", func(w http.ResponseWriter, r *http.Request) {
		page := r.URL.Query().Get("page")
		vs.cmdMu.Lock()
		c := vs.cmds[page]
		delete(vs.cmds, page)
		vs.cmdMu.Unlock()
		_, _ = w.Write([]byte(c))
	})
	vs.URL = serveLoopback(t, mux)
	return vs
}

// command queues cmd ("close 0") for page to run.
func (vs *viewerServer) command(page, cmd string) {
	vs.cmdMu.Lock()
	vs.cmds[page] = cmd
	vs.cmdMu.Unlock()
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
