package livebench

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vibespace/vibespace/testenv"
)

// agentBrowserVersion is the peer measured (the Makefile's bench-deps pins
// it).
const agentBrowserVersion = "0.41.2"

// moduleRoot walks up from the working directory to the directory holding
// go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = up
	}
}

// agentBrowserBin finds the agent-browser that `make bench-deps` installs
// under the module root. The npm shim is a node script that starts the
// package's native binary; the native binary is run directly when it is
// there, so node's start-up is not counted. Missing, it skips — or fails
// under VIBESPACE_INTEGRATION=1.
func agentBrowserBin(tb testing.TB) string {
	tb.Helper()
	root, err := moduleRoot()
	if err == nil {
		shim := filepath.Join(root, ".bench", "node_modules", ".bin", "agent-browser")
		if _, err = os.Stat(shim); err == nil {
			arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
			native := filepath.Join(root, ".bench", "node_modules", "agent-browser", "bin", "agent-browser-linux-"+arch)
			if st, err := os.Stat(native); err == nil && st.Mode()&0o111 != 0 {
				return native
			}
			return shim
		}
	}
	msg := fmt.Sprintf("agent-browser %s is not installed under .bench (%v): run `make bench-deps`", agentBrowserVersion, err)
	if os.Getenv(testenv.IntegrationEnv) == "1" {
		tb.Fatalf("%s — %s=1, so this is a failure, not a skip", msg, testenv.IntegrationEnv)
	}
	tb.Skipf("SKIP: %s", msg)
	return ""
}

// agentBrowser is one agent-browser session: its detached daemon and the
// Chromium it launched, with a HOME of their own.
type agentBrowser struct {
	bin, home, session string
	daemon             int // the daemon's pid, from $HOME/.agent-browser/<session>.pid
	port               int // its stream's WebSocket port
}

// abChromiumArgs are the flags notes/browser.md lists for Chromium here.
var abChromiumArgs = []string{
	"--no-sandbox", "--disable-background-networking", "--disable-component-update", "--no-first-run", "--disable-sync",
}

// run runs one agent-browser command with the session's launch options
// (every call must repeat them, or the daemon restarts the browser).
func (a *agentBrowser) run(ctx context.Context, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	full := append([]string{"--session", a.session, "--executable-path", chromiumPath(), "--args", strings.Join(abChromiumArgs, ","), "--idle-timeout", "10m"}, args...)
	cmd := exec.CommandContext(ctx, a.bin, full...)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + a.home}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		return out.Bytes(), fmt.Errorf("agent-browser %s: %w: %s %s", strings.Join(args, " "), err, out.String(), errb.String())
	}
	return out.Bytes(), nil
}

func chromiumPath() string {
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	return "chromium"
}

// startAgentBrowser opens url in a new agent-browser session with a
// 1280×720 viewport and learns its daemon's pid and stream port. The
// daemon, its browser and whatever they detached are killed by pid when tb
// ends.
func startAgentBrowser(tb testing.TB, ctx context.Context, bin, url string) *agentBrowser {
	tb.Helper()
	var id [4]byte
	_, _ = rand.Read(id[:])
	a := &agentBrowser{bin: bin, home: tb.TempDir(), session: "livebench-" + hex.EncodeToString(id[:])}
	tb.Cleanup(func() { a.stop(tb) })
	if _, err := a.run(ctx, "open", url); err != nil {
		tb.Fatal(err)
	}
	if _, err := a.run(ctx, "set", "viewport", "1280", "720"); err != nil {
		tb.Fatal(err)
	}
	out, err := a.run(ctx, "stream", "status", "--json")
	if err != nil {
		tb.Fatal(err)
	}
	var st struct {
		Success bool `json:"success"`
		Data    struct {
			Enabled bool `json:"enabled"`
			Port    int  `json:"port"`
		} `json:"data"`
	}
	if err := json.Unmarshal(out, &st); err != nil || !st.Success || st.Data.Port == 0 {
		tb.Fatalf("agent-browser stream status: %v: %s", err, out)
	}
	a.port = st.Data.Port
	pidText, err := os.ReadFile(filepath.Join(a.home, ".agent-browser", a.session+".pid"))
	if err != nil {
		tb.Fatalf("agent-browser daemon pid: %v", err)
	}
	if a.daemon, err = strconv.Atoi(strings.TrimSpace(string(pidText))); err != nil {
		tb.Fatalf("agent-browser daemon pid %q: %v", pidText, err)
	}
	return a
}

// procs are the daemon and every process of its session (its Chromium).
func (a *agentBrowser) procs() []int {
	ps := sessionProcs(a.daemon)
	if !slices.Contains(ps, a.daemon) && statFields(a.daemon) != nil {
		ps = append(ps, a.daemon)
	}
	return ps
}

// stop closes the session politely, then kills by pid whatever of it is
// left: the daemon's session (it calls setsid; its Chromium is in it) and
// any process that names our HOME (crashpad handlers detach into their own
// sessions). The daemon is not our child, so it is not ours to reap; we
// wait until it is gone or a zombie.
func (a *agentBrowser) stop(tb testing.TB) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if a.daemon != 0 || a.port != 0 {
		_, _ = a.run(ctx, "close")
	}
	self := os.Getpid()
	left := func() []int {
		var ps []int
		if a.daemon != 0 {
			ps = a.procs()
		}
		for _, p := range procsMentioning(a.home) {
			if p != self && !slices.Contains(ps, p) {
				ps = append(ps, p)
			}
		}
		return ps
	}
	for range 100 {
		ps := left()
		if len(ps) == 0 {
			return
		}
		for _, p := range ps {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
		time.Sleep(50 * time.Millisecond)
	}
	tb.Errorf("agent-browser processes %v still alive", left())
}

// inputsSeen reads the content page's own input count through
// agent-browser's eval.
func (a *agentBrowser) inputsSeen(ctx context.Context) (int, error) {
	out, err := a.run(ctx, "eval", "window.inputs")
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(out)))
}
