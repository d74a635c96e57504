package clitest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Peer is agent-browser (0.41.2, make bench-deps installs it under the
// module root's .bench), the browser peer the benchmarks run beside ours:
// its own HOME and socket directory, one session, the Chromium our daemon
// starts and the flags ours gives it. NewPeer stops it when the benchmark
// ends.
type Peer struct {
	T       testing.TB
	Bin     string // the native binary
	Home    string // its HOME
	SockDir string // its socket directory (and XDG_RUNTIME_DIR)
	Session string
	// Chromium and Args are the browser it launches and the browser's
	// flags, given on every call (a call with other launch options
	// restarts its daemon): by LaunchFlags on a command line, by LaunchEnv
	// in its MCP server's environment.
	Chromium string
	Args     []string
}

// PeerChromiumFlags are the flags our daemon starts Chromium with (cdp's
// launch flags, but the pipe it drives the browser through); agent-browser
// gets the same.
var PeerChromiumFlags = []string{"--disable-gpu", "--no-first-run", "--no-default-browser-check",
	"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-quic",
	"--disable-breakpad", "--disable-crash-reporter", "--password-store=basic"}

// PeerBinary finds agent-browser under the module root's .bench. The npm
// shim is a node wrapper; a global install's shim is patched to the native
// binary next to it, so that is what runs here. Without it the benchmark
// is skipped, or fails under VIBESPACE_INTEGRATION=1.
func PeerBinary(tb testing.TB) string {
	tb.Helper()
	dir := ModuleRoot(tb)
	shim := filepath.Join(dir, ".bench", "node_modules", ".bin", "agent-browser")
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	native := filepath.Join(dir, ".bench", "node_modules", "agent-browser", "bin", "agent-browser-"+runtime.GOOS+"-"+arch)
	_, errShim := os.Stat(shim)
	_, errNative := os.Stat(native)
	if errShim != nil || errNative != nil {
		msg := fmt.Sprintf("agent-browser is not installed under %s: run make bench-deps", filepath.Join(dir, ".bench"))
		if os.Getenv("VIBESPACE_INTEGRATION") == "1" {
			tb.Fatal(msg)
		}
		tb.Skip("SKIP: " + msg)
	}
	return native
}

// ModuleRoot is the module's root directory: the nearest directory above
// the test's own (its package's) that holds go.mod. The bench-only folder
// .bench and the benchmarks' scripts under bench/ are found from it.
func ModuleRoot(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			tb.Fatal("no go.mod above the test's directory")
		}
		dir = up
	}
}

// NewPeer is agent-browser as session "bench", launching chromium.
func NewPeer(tb testing.TB, chromium string) *Peer {
	tb.Helper()
	bin := PeerBinary(tb)
	// A short socket directory: a Unix socket path has ~108 bytes.
	sock, err := os.MkdirTemp("", "ab")
	if err != nil {
		tb.Fatal(err)
	}
	args := append([]string(nil), PeerChromiumFlags...)
	if os.Geteuid() == 0 {
		args = append(args, "--no-sandbox")
	}
	p := &Peer{T: tb, Bin: bin, Home: tb.TempDir(), SockDir: sock, Session: "bench", Chromium: chromium, Args: args}
	tb.Cleanup(p.Stop)
	return p
}

// Environ is the environment of every agent-browser process: the caller's,
// with the peer's HOME and socket directory.
func (p *Peer) Environ() []string {
	return append(os.Environ(), "HOME="+p.Home, "AGENT_BROWSER_SOCKET_DIR="+p.SockDir, "XDG_RUNTIME_DIR="+p.SockDir)
}

// LaunchFlags are the browser, its flags and the session as command-line
// flags.
func (p *Peer) LaunchFlags() []string {
	return []string{"--executable-path", p.Chromium, "--args", strings.Join(p.Args, ","), "--session", p.Session}
}

// LaunchEnv are the same as environment variables, for its MCP server
// (whose tools refuse --executable-path and --args in their extraArgs).
func (p *Peer) LaunchEnv() []string {
	return []string{"AGENT_BROWSER_EXECUTABLE_PATH=" + p.Chromium, "AGENT_BROWSER_ARGS=" + strings.Join(p.Args, ","), "AGENT_BROWSER_SESSION=" + p.Session}
}

// DaemonPID is the PID agent-browser recorded for the session's daemon.
func (p *Peer) DaemonPID() int {
	b, err := os.ReadFile(filepath.Join(p.SockDir, p.Session+".pid"))
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}

// Stop closes the peer's browser (its own close), then ends its daemon by
// the PID it recorded, and any process still running under the peer's
// HOME (crash handlers that left the group) by PID.
func (p *Peer) Stop() {
	pid := p.DaemonPID()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	cmd := exec.CommandContext(ctx, p.Bin, append(p.LaunchFlags(), "close")...)
	cmd.Env = p.Environ()
	_ = cmd.Run()
	cancel()
	if pid > 0 && !Exited(pid) && p.runs(pid) {
		syscall.Kill(pid, syscall.SIGTERM)
		deadline := time.Now().Add(10 * time.Second)
		for !Exited(pid) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if !Exited(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	for _, left := range ProcessesMentioning(p.Home) {
		syscall.Kill(left, syscall.SIGKILL)
	}
	os.RemoveAll(p.SockDir)
}

// runs reports whether pid is this peer's process (its environment names
// the peer's socket directory): a pid file's number may be another's by now.
func (p *Peer) runs(pid int) bool {
	env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	return err == nil && bytes.Contains(env, []byte("AGENT_BROWSER_SOCKET_DIR="+p.SockDir+"\x00"))
}

// PeerRef is one ref line of agent-browser's snapshot: - role "name" [… ref=eN].
var PeerRef = regexp.MustCompile(`(?m)^\s*- (\S+)(?: "((?:[^"\\]|\\.)*)")?.*\bref=(e\d+)`)

// PeerRefOf is the ref ("@eN") agent-browser's snapshot gives the node of
// role and name, "" when it lists none.
func PeerRefOf(snap, role, name string) string {
	for _, m := range PeerRef.FindAllStringSubmatch(snap, -1) {
		if m[1] == role && m[2] == name {
			return "@" + m[3]
		}
	}
	return ""
}

// ProcessesMentioning lists live processes whose command line contains s.
func ProcessesMentioning(s string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, en := range ents {
		pid, err := strconv.Atoi(en.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", en.Name(), "cmdline"))
		if err == nil && bytes.Contains(b, []byte(s)) && !Exited(pid) {
			out = append(out, pid)
		}
	}
	return out
}
