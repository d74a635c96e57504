package bidi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsutil"

	"github.com/vibespace/vibespace/testenv"
)

// probeScript runs as user nobody. For each "host:port" argument it opens
// a WebSocket at /session and asks session.status, as a BiDi client would;
// for each "netns:PID" it tries to enter that process's network namespace.
// It prints a JSON object of what each gave: "refused …", "status …", the
// answer's text, or the error.
const probeScript = `
import base64, ctypes, json, os, socket, sys
def ws(addr):
    host, port = addr.rsplit(":", 1)
    try:
        s = socket.create_connection((host, int(port)), timeout=5)
    except OSError as e:
        return "refused " + str(e)
    try:
        key = base64.b64encode(os.urandom(16)).decode()
        s.sendall(("GET /session HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                   "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % (addr, key)).encode())
        head = b""
        while b"\r\n\r\n" not in head:
            b = s.recv(1)
            if not b:
                return "closed " + head.decode(errors="replace")
            head += b
        line = head.split(b"\r\n")[0].decode()
        if " 101 " not in line:
            return "status " + line
        msg = json.dumps({"id": 1, "method": "session.status", "params": {}}).encode()
        mask = os.urandom(4)
        frame = bytes([0x81, 0x80 | 126]) + len(msg).to_bytes(2, "big") + mask + bytes(c ^ mask[i % 4] for i, c in enumerate(msg))
        s.sendall(frame)
        h = s.recv(2)
        n = h[1] & 0x7f
        if n == 126:
            n = int.from_bytes(s.recv(2), "big")
        elif n == 127:
            n = int.from_bytes(s.recv(8), "big")
        data = b""
        while len(data) < n:
            chunk = s.recv(n - len(data))
            if not chunk:
                break
            data += chunk
        return data.decode(errors="replace")
    except OSError as e:
        return "error " + str(e)
    finally:
        s.close()
def enter(pid):
    libc = ctypes.CDLL(None, use_errno=True)
    try:
        fd = os.open("/proc/%s/ns/net" % pid, os.O_RDONLY)
    except OSError as e:
        return "open " + str(e)
    if libc.setns(fd, 0x40000000) != 0:
        return "setns " + os.strerror(ctypes.get_errno())
    try:
        socket.create_connection(("127.0.0.1", 9222), timeout=5).close()
        return "entered and connected"
    except OSError as e:
        return "entered " + str(e)
out = {}
for a in sys.argv[1:]:
    out[a] = enter(a[6:]) if a.startswith("netns:") else ws(a)
print(json.dumps(out))
`

// TestRemoteAgentUnreachableByNobody: with the shared browser up, user
// nobody, who opens a BiDi WebSocket on every TCP port listening on this
// machine's loopback (the Remote Agent's own port and the proxy's among
// them, whether or not anything listens there), reaches no BiDi agent,
// and cannot enter the browser's network namespace. A control BiDi-like
// endpoint that anyone may reach shows that the probe would have seen
// one. Our own connection works all along.
func TestRemoteAgentUnreachableByNobody(t *testing.T) {
	b := sharedBrowser(t)
	if os.Getuid() != 0 {
		t.Fatal("the probe as user nobody needs root")
	}
	testenv.NeedIntegration(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if _, err := b.Conn().GetTree(ctx, ""); err != nil {
		t.Fatal(err)
	}
	control := controlAgent(t)
	fx := firefoxOf(t, b)
	addrs := append(loopbackListeners(t), "127.0.0.1:9222", "127.0.0.1:1080", "[::1]:9222", control)
	addrs = append(addrs, "netns:"+strconv.Itoa(fx))
	cmd := exec.CommandContext(ctx, testenv.FixturePython, append([]string{"-c", probeScript}, addrs...)...)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=/nonexistent"}
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}}
	cmd.WaitDelay = 5 * time.Second
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the probe as nobody: %v: %s", err, stderr.String())
	}
	var got map[string]string
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("the probe's answer: %v: %q", err, out)
	}
	if !strings.Contains(got[control], "control-marker") {
		t.Fatalf("the probe as nobody did not reach the control agent at %s: %q", control, got[control])
	}
	for a, r := range got {
		if a == control {
			continue
		}
		if strings.Contains(r, `"ready"`) || strings.Contains(r, `"type"`) || strings.HasPrefix(r, "entered") {
			t.Errorf("user nobody reached a BiDi agent or the browser's namespace at %s: %q", a, r)
		}
	}
	if r := got["netns:"+strconv.Itoa(fx)]; !strings.HasPrefix(r, "open") && !strings.HasPrefix(r, "setns") {
		t.Errorf("entering the browser's namespace: %q, want a refusal", r)
	}
	for _, a := range []string{"127.0.0.1:9222", "127.0.0.1:1080"} {
		t.Logf("nobody → %s: %s", a, got[a])
	}
	t.Logf("nobody → the browser's network namespace: %s", got["netns:"+strconv.Itoa(fx)])
	t.Logf("nobody probed %d loopback ports; the control answered %q", len(addrs)-2, got[control])
	if _, err := b.Conn().GetTree(ctx, ""); err != nil {
		t.Errorf("our own connection after the probe: %v", err)
	}
}

// controlAgent serves a BiDi-like endpoint on loopback that answers any
// message with a marker, for anyone: the probe's control.
func controlAgent(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, _, _, err := ws.UpgradeHTTP(r, w)
		if err != nil {
			return
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(30 * time.Second))
		if _, err := wsutil.ReadClientText(conn); err != nil {
			return
		}
		wsutil.WriteServerText(conn, []byte(`{"type":"success","id":1,"result":{"ready":false,"message":"control-marker"}}`))
	})}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return l.Addr().String()
}

// loopbackListeners is "host:port" of every TCP socket listening on this
// network namespace's loopback or on every address, from /proc/net/tcp
// and tcp6.
func loopbackListeners(t *testing.T) []string {
	t.Helper()
	var out []string
	seen := map[string]bool{}
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n")[1:] {
			fs := strings.Fields(line)
			if len(fs) < 4 || fs[3] != "0A" { // LISTEN
				continue
			}
			hexAddr, hexPort, _ := strings.Cut(fs[1], ":")
			port, err := strconv.ParseUint(hexPort, 16, 16)
			if err != nil {
				continue
			}
			var a string
			switch hexAddr {
			case "0100007F", "00000000":
				a = fmt.Sprintf("127.0.0.1:%d", port)
			case "00000000000000000000000001000000", "00000000000000000000000000000000":
				a = fmt.Sprintf("[::1]:%d", port)
			default:
				continue
			}
			if !seen[a] {
				seen[a] = true
				out = append(out, a)
			}
		}
	}
	return out
}
