package bidi

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The relay: the process between the launcher and Firefox (see the package
// doc, "No open door"). It is the launching binary run again with
// relayEnv set, started by Launch in a user namespace and a PID namespace
// of its own; init below runs it before anything else of the binary and
// never returns to it.

// relayEnv carries the relay's config (relayConfig, as JSON).
const relayEnv = "VIBESPACE_BIDI_RELAY"

// relayFD is the relay's end of the socket pair: the launcher's only road
// to the browser.
const relayFD = 3

// relayConfig is what the launcher tells the relay.
type relayConfig struct {
	Binary    string   `json:"binary"`
	Args      []string `json:"args"`
	Env       []string `json:"env"`
	Dir       string   `json:"dir"`        // the browser's working directory
	AgentPort int      `json:"agent_port"` // the Remote Agent's port inside the namespace
	SocksPort int      `json:"socks_port"` // the proxy's port inside the namespace
	// Deadline is when the relay gives up waiting for the browser (Unix ms).
	Deadline int64 `json:"deadline"`
}

// Status lines the relay writes first on its socket, before it becomes a
// plain byte pipe to the Remote Agent.
const (
	relayReady   = "ready"
	relayFail    = "fail"   // "fail <reason>"
	relayNoIsol  = "noisol" // "noisol <reason>": the network namespace could not be made
	relayLate    = "late"   // "late <reason>": the browser was not up by the deadline
	agentBanner  = "WebDriver BiDi listening on ws://"
	socksTimeout = 30 * time.Second // bounds a proxied dial and its handshake
)

func init() {
	cfg := os.Getenv(relayEnv)
	if cfg == "" {
		return
	}
	os.Exit(relayMain(cfg))
}

func relayMain(cfgText string) int {
	os.Unsetenv(relayEnv)
	ctl, err := net.FileConn(os.NewFile(relayFD, "bidi-relay"))
	if err != nil {
		fmt.Fprintf(os.Stderr, "bidi relay: its socket: %v\n", err)
		return 2
	}
	say := func(format string, a ...any) {
		ctl.SetWriteDeadline(time.Now().Add(ctlTimeout))
		fmt.Fprintf(ctl, format+"\n", a...)
	}
	var cfg relayConfig
	if err := json.Unmarshal([]byte(cfgText), &cfg); err != nil {
		say("%s config: %v", relayFail, err)
		return 2
	}
	deadline := time.UnixMilli(cfg.Deadline)
	type nsResult struct {
		agent net.Conn
		socks net.Listener
		cmd   *exec.Cmd
		isol  bool // the failure was the namespace's
		late  bool // the deadline passed
		err   error
	}
	done := make(chan nsResult, 1)
	go func() {
		// This thread alone enters the new network namespace: sockets made
		// on it (the proxy's listener, the connection to the agent) and the
		// browser it starts live there; every other thread of the relay
		// stays in the launcher's network, where the proxy dials out.
		runtime.LockOSThread()
		if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
			done <- nsResult{isol: true, err: fmt.Errorf("unshare a network namespace: %w", err)}
			return
		}
		if err := loopbackUp(); err != nil {
			done <- nsResult{isol: true, err: fmt.Errorf("bring its loopback up: %w", err)}
			return
		}
		// The browser gets no capability of the namespace: what the relay
		// was given to make it (CAP_SYS_ADMIN, CAP_NET_ADMIN) ends here.
		unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
		socks, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", cfg.SocksPort))
		if err != nil {
			done <- nsResult{err: fmt.Errorf("the proxy's listener: %w", err)}
			return
		}
		cmd := exec.Command(cfg.Binary, cfg.Args...)
		cmd.Env = cfg.Env
		cmd.Dir = cfg.Dir
		cmd.Stdout = os.Stderr
		stderr, err := cmd.StderrPipe()
		if err == nil {
			err = cmd.Start()
		}
		if err != nil {
			socks.Close()
			done <- nsResult{err: fmt.Errorf("start the browser: %w", err)}
			return
		}
		banner := make(chan string, 1)
		go func() {
			sc := bufio.NewScanner(stderr)
			for sc.Scan() {
				line := sc.Text()
				fmt.Fprintln(os.Stderr, line) // the launcher keeps a tail for its errors
				if rest, ok := strings.CutPrefix(line, agentBanner); ok {
					select {
					case banner <- rest:
					default:
					}
				}
			}
			io.Copy(io.Discard, stderr)
		}()
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		var addr string
		select {
		case addr = <-banner:
		case err := <-exited:
			done <- nsResult{err: fmt.Errorf("the browser exited before its Remote Agent listened: %v", err)}
			return
		case <-time.After(time.Until(deadline)):
			done <- nsResult{late: true, err: fmt.Errorf("the browser's Remote Agent did not listen in time")}
			return
		}
		addr = strings.TrimSpace(addr)
		d := net.Dialer{Deadline: deadline}
		agent, err := d.Dial("tcp", addr)
		if err != nil {
			done <- nsResult{err: fmt.Errorf("connect to the Remote Agent at %s: %w", addr, err)}
			return
		}
		done <- nsResult{agent: agent, socks: socks, cmd: cmd}
		// Stay: the browser's parent-death signal would come with this
		// thread's end, and nothing else may run on it.
		select {}
	}()
	r := <-done
	if r.err != nil {
		code := relayFail
		if r.isol {
			code = relayNoIsol
		} else if r.late {
			code = relayLate
		}
		say("%s %v", code, r.err)
		return 1
	}
	go serveSocks(r.socks)
	say("%s", relayReady)
	ctl.SetWriteDeadline(time.Time{})
	// From here the relay is a pipe. Either end closing ends it, and with
	// it (the PID namespace's first process) the browser.
	var once sync.Once
	end := make(chan struct{})
	pipe := func(dst, src net.Conn) {
		io.Copy(dst, src)
		once.Do(func() { close(end) })
	}
	go pipe(r.agent, ctl)
	go pipe(ctl, r.agent)
	<-end
	r.cmd.Process.Signal(syscall.SIGKILL)
	return 0
}

// loopbackUp sets the namespace's lo up (a new network namespace has it
// down, so 127.0.0.1 reaches nothing).
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}
