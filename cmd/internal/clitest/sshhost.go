package clitest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cmd/internal/sshroad"
)

// RelayFlag makes a test binary a TCP relay (RelayMain): ssh's
// ProxyCommand runs it inside the remote host's network namespace.
const RelayFlag = "-vibespace-connect"

// RelayMain is the first thing of a TestMain whose tests use SSHHost:
// given RelayFlag host port, the binary pipes its stdin and stdout to that
// TCP address and exits, without running a test.
func RelayMain() {
	if len(os.Args) != 4 || os.Args[1] != RelayFlag {
		return
	}
	c, err := net.DialTimeout("tcp", net.JoinHostPort(os.Args[2], os.Args[3]), 10*time.Second)
	if err != nil {
		fmt.Fprintln(os.Stderr, "relay:", err)
		os.Exit(1)
	}
	go func() { io.Copy(c, os.Stdin); c.(*net.TCPConn).CloseWrite() }()
	io.Copy(os.Stdout, c)
	os.Exit(0)
}

// RemoteUser is the user "the remote host" runs our daemon as (created
// and removed by the test).
const RemoteUser = "vsremote"

// sshPort is the remote sshd's port, in a network namespace of its own
// where nothing else listens.
const sshPort = 2222

// SSHHost is "another host" for the tests: Debian's sshd on 127.0.0.1 in a
// network namespace with only loopback (nothing of ours is ever on a real
// interface), its own config, a throw-away host key and user key, and
// another uid (RemoteUser) as the remote user, with our binaries in a
// directory it can read. ssh reaches it through ProxyCommand: nsenter into
// that namespace, then this test binary as a relay (RelayMain).
type SSHHost struct {
	T    testing.TB
	Dir  string // 0755: bin/, home/, logs/ (the remote user's), sshd/, client/
	Bin  string // Dir/bin: the remote programs
	Logs string // writable by the remote user
	// Spec is VIBESPACE_HOST for it; Config is VIBESPACE_SSH_CONFIG.
	Spec, Config string
	UID          int
	User         string // RemoteUser, or another name when that one exists already
	Name         string // how answers name the host: user@127.0.0.1:port
	sshd         *exec.Cmd
	sshdDone     chan struct{}
}

// NewSSHHost starts the remote host with copies of programs (paths) in its
// bin/. It needs root (useradd, a network namespace); it removes the user,
// stops sshd and every process of the remote user, and deletes Dir when
// the test ends.
func NewSSHHost(t testing.TB, programs ...string) *SSHHost {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatalf("the remote-host test needs root (a user of its own, a network namespace): run it as root")
	}
	dir, err := os.MkdirTemp("", "vsremote-")
	if err != nil {
		t.Fatal(err)
	}
	h := &SSHHost{T: t, Dir: dir, Bin: filepath.Join(dir, "bin"), Logs: filepath.Join(dir, "logs")}
	t.Cleanup(h.close)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Chmod(dir, 0o755))
	for _, d := range []string{"bin", "sshd", "client"} {
		must(os.Mkdir(filepath.Join(dir, d), 0o755))
	}
	must(os.Chmod(filepath.Join(dir, "client"), 0o700))
	h.User = RemoteUser
	if _, err := user.Lookup(h.User); err == nil {
		// Left by a killed run, or another run's: never touched, ours is another.
		h.User = "vsr" + strconv.Itoa(os.Getpid())
	}
	home := filepath.Join(dir, "home")
	// "*", not "!": sshd without PAM refuses a locked account.
	run(t, "useradd", "-M", "-d", home, "-s", "/bin/sh", "-p", "*", h.User)
	u, err := user.Lookup(h.User)
	must(err)
	h.UID, _ = strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	for _, d := range []string{home, h.Logs} {
		must(os.Mkdir(d, 0o755))
		must(os.Chown(d, h.UID, gid))
	}
	for _, p := range programs {
		b, err := os.ReadFile(p)
		must(err)
		must(os.WriteFile(filepath.Join(h.Bin, filepath.Base(p)), b, 0o755))
	}
	run(t, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "vibespace-test-host", "-f", filepath.Join(dir, "sshd", "host_key"))
	run(t, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "vibespace-test-user", "-f", filepath.Join(dir, "client", "id"))
	pub, err := os.ReadFile(filepath.Join(dir, "client", "id.pub"))
	must(err)
	must(os.WriteFile(filepath.Join(dir, "sshd", "authorized_keys"), pub, 0o644))
	sshdConfig := filepath.Join(dir, "sshd", "sshd_config")
	must(os.WriteFile(sshdConfig, []byte(fmt.Sprintf(`ListenAddress 127.0.0.1
Port %d
HostKey %s
PidFile none
UsePAM no
AuthorizedKeysFile %s
StrictModes no
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin no
AllowUsers %s
AllowTcpForwarding local
X11Forwarding no
AllowAgentForwarding no
PermitTunnel no
PermitUserEnvironment no
LogLevel VERBOSE
`, sshPort, filepath.Join(dir, "sshd", "host_key"), filepath.Join(dir, "sshd", "authorized_keys"), h.User)), 0o644))
	if _, err := os.Stat("/run/sshd"); err != nil {
		// sshd's privilege separation directory, which Debian's unit makes.
		must(os.MkdirAll("/run/sshd", 0o755))
	}
	logf, err := os.Create(filepath.Join(dir, "sshd", "sshd.log"))
	must(err)
	defer logf.Close()
	// unshare execs sh, sh execs sshd: one PID, the namespace's holder.
	h.sshd = exec.Command("unshare", "--net", "--", "sh", "-c", `ip link set lo up && exec /usr/sbin/sshd -D -e -f "$1"`, "sh", sshdConfig)
	h.sshd.Stdout, h.sshd.Stderr = logf, logf
	must(h.sshd.Start())
	h.sshdDone = make(chan struct{})
	go func() { h.sshd.Wait(); close(h.sshdDone) }()
	h.waitListening()

	hostPub, err := os.ReadFile(filepath.Join(dir, "sshd", "host_key.pub"))
	must(err)
	f := strings.Fields(string(hostPub))
	must(os.WriteFile(filepath.Join(dir, "client", "known_hosts"), []byte("vibespace-test-host "+f[0]+" "+f[1]+"\n"), 0o600))
	self, err := os.Executable()
	must(err)
	h.Config = filepath.Join(dir, "client", "config")
	must(os.WriteFile(h.Config, []byte(fmt.Sprintf(`Host *
  HostKeyAlias vibespace-test-host
  UserKnownHostsFile %s
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
  IdentityFile %s
  IdentitiesOnly yes
  ProxyCommand nsenter --net=/proc/%d/ns/net %s %s 127.0.0.1 %%p
  LogLevel ERROR
`, filepath.Join(dir, "client", "known_hosts"), filepath.Join(dir, "client", "id"), h.sshd.Process.Pid, self, RelayFlag)), 0o600))
	h.Spec = fmt.Sprintf("ssh://%s@127.0.0.1:%d", h.User, sshPort)
	h.Name = fmt.Sprintf("%s@127.0.0.1:%d", h.User, sshPort)
	return h
}

// DeadSpec is a VIBESPACE_HOST on the same host where nothing listens.
func (h *SSHHost) DeadSpec() string {
	return fmt.Sprintf("ssh://%s@127.0.0.1:%d", h.User, sshPort+1)
}

// Environ is what a command line needs to reach the remote host: the
// host, the ssh config, and where the daemon is there.
func (h *SSHHost) Environ() []string {
	return []string{"VIBESPACE_HOST=" + h.Spec, "VIBESPACE_SSH_CONFIG=" + h.Config,
		"VIBESPACE_REMOTE_DAEMON=" + filepath.Join(h.Bin, "vibespace-daemon")}
}

// SSH runs a command on the remote host as the remote user, through its
// own connection (not a command line's master), and returns its output.
func (h *SSHHost) SSH(command string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "ssh", "-F", h.Config, "-o", "BatchMode=yes", "-o", "ControlMaster=no", "-o", "ControlPath=none",
		"-p", strconv.Itoa(sshPort), h.User+"@127.0.0.1", command)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Log is sshd's log so far.
func (h *SSHHost) Log() string {
	b, _ := os.ReadFile(filepath.Join(h.Dir, "sshd", "sshd.log"))
	return string(b)
}

// waitListening waits until sshd listens in its namespace
// (/proc/<pid>/net/tcp is that namespace's table).
func (h *SSHHost) waitListening() {
	h.T.Helper()
	want := fmt.Sprintf("0100007F:%04X 00000000:0000 0A", sshPort)
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/net/tcp", h.sshd.Process.Pid))
		if bytes.Contains(b, []byte(want)) {
			return
		}
		select {
		case <-h.sshdDone:
			h.T.Fatalf("sshd exited:\n%s", h.Log())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			h.T.Fatalf("sshd does not listen on 127.0.0.1:%d:\n%s", sshPort, h.Log())
		}
	}
}

// RemotePIDs are the processes running as the remote user.
func (h *SSHHost) RemotePIDs() []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		var st syscall.Stat_t
		if syscall.Stat("/proc/"+e.Name(), &st) == nil && int(st.Uid) == h.UID {
			pids = append(pids, pid)
		}
	}
	return pids
}

// close stops every process of the remote user (SIGTERM, then SIGKILL),
// then sshd, removes the user and the directory.
func (h *SSHHost) close() {
	if h.UID != 0 {
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
			for _, pid := range h.RemotePIDs() {
				syscall.Kill(pid, sig)
			}
			deadline := time.Now().Add(10 * time.Second)
			for len(h.RemotePIDs()) > 0 && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond)
			}
		}
		if left := h.RemotePIDs(); len(left) > 0 {
			h.T.Errorf("processes of %s left: %v", h.User, left)
		}
	}
	if h.sshd != nil {
		h.sshd.Process.Signal(syscall.SIGTERM)
		select {
		case <-h.sshdDone:
		case <-time.After(10 * time.Second):
			h.sshd.Process.Kill()
			<-h.sshdDone
		}
	}
	if h.UID != 0 {
		if out, err := exec.Command("userdel", h.User).CombinedOutput(); err != nil {
			h.T.Errorf("userdel %s: %v %s", h.User, err, out)
		}
	}
	os.RemoveAll(h.Dir)
}

func run(t testing.TB, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}

// StopMasters ends the ssh masters the command lines of an Env whose
// runtime directory is runDir left running (ssh -O exit on each control
// socket): register it after NewSSHHost, so it runs before sshd stops.
func StopMasters(runDir string) {
	socks, _ := filepath.Glob(filepath.Join(runDir, "vibespace", "ssh-*"))
	for _, s := range socks {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		exec.CommandContext(ctx, "ssh", "-o", "ControlPath="+s, "-O", "exit", "x").Run()
		cancel()
	}
}

// MasterPIDs are the pids of the ssh masters the command lines of an Env
// whose runtime directory is runDir left running, as each says itself
// (ssh -O check on its control socket).
func MasterPIDs(runDir string) []int {
	socks, _ := filepath.Glob(filepath.Join(runDir, "vibespace", "ssh-*"))
	var pids []int
	for _, s := range socks {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		out, _ := exec.CommandContext(ctx, "ssh", "-o", "ControlPath="+s, "-O", "check", "x").CombinedOutput()
		cancel()
		if pid, ok := sshroad.MasterPID(string(out)); ok {
			pids = append(pids, pid)
		}
	}
	return pids
}

// StartDaemon starts the remote host's daemon with flags (a pool of its
// own: --pool-desks 1), detached there, and waits until its socket is
// there: a bridge started before would start one without them. Its
// output goes to Logs/daemon.out; it ends with the remote user's
// processes when the test ends.
func (h *SSHHost) StartDaemon(flags ...string) {
	h.T.Helper()
	cmd := "setsid -f " + filepath.Join(h.Bin, "vibespace-daemon")
	for _, f := range flags {
		cmd += " '" + strings.ReplaceAll(f, "'", `'\''`) + "'"
	}
	out := filepath.Join(h.Logs, "daemon.out")
	if said, err := h.SSH(cmd + " </dev/null >" + out + " 2>&1"); err != nil {
		h.T.Fatalf("start the remote daemon: %v %s", err, said)
	}
	// The remote user's state directory and socket: HOME's, as ssh gives
	// no XDG_RUNTIME_DIR there.
	sock := filepath.Join(h.Dir, "home", ".local", "state", "vibespace", "run", "window.sock")
	deadline := time.Now().Add(60 * time.Second)
	for {
		if st, err := os.Stat(sock); err == nil && st.Mode()&os.ModeSocket != 0 {
			return
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(out)
			h.T.Fatalf("the remote daemon made no socket %s within a minute:\n%s", sock, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
