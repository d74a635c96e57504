package chromium

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	cdptarget "github.com/chromedp/cdproto/target"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/testenv"
)

// TestBrowsersListenNowhere: with tabs open in two persistent profiles and
// in the shared browser, no process of those browsers' groups holds a
// listening TCP socket, none wrote a DevToolsActivePort, and another user
// (nobody) who asks every TCP port listening on this machine's loopback for
// /json/list finds none of their targets. Their CDP is a pipe the daemon
// holds alone.
func TestBrowsersListenNowhere(t *testing.T) {
	s := newSite(t)
	h := startHarness(t, "", Options{}, nil)
	one := h.useNewProfile(t, "kim", "one")
	two := h.useNewProfile(t, "lou", "two")
	for _, session := range []string{"kim", "lou", "mo"} { // mo: the shared browser
		h.ok(t, daemon.Request{Verb: "browser.open", Session: session}.With(args.OpenURL{URL: s.URL + "/page"}))
	}
	h.pool.mu.Lock()
	var brs []*browser
	for _, key := range []string{one, two, ""} {
		if br := h.pool.browsers[key]; br != nil {
			brs = append(brs, br)
		}
	}
	h.pool.mu.Unlock()
	if len(brs) != 3 {
		t.Fatalf("%d browsers run, want 3 (two profiles and the shared one)", len(brs))
	}

	// What would give one of ours away: its targets' ids, and our site.
	ctx := t.Context()
	marks := []string{strings.TrimPrefix(s.URL, "http://")}
	for _, br := range brs {
		var res cdptarget.GetTargetsResult
		if err := br.b.Conn().Call(ctx, cdptarget.CommandGetTargets, &cdptarget.GetTargetsParams{}, &res); err != nil {
			t.Fatal(err)
		}
		for _, ti := range res.TargetInfos {
			marks = append(marks, string(ti.TargetID))
		}
		if l := cdp.GroupListeners(br.b.PID()); len(l) > 0 {
			t.Errorf("browser %d (profile %q) listens on TCP: %v", br.b.PID(), br.profile, l)
		}
		if _, err := os.Stat(filepath.Join(br.dir, "DevToolsActivePort")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("browser %d (profile %q): DevToolsActivePort: %v, want none", br.b.PID(), br.profile, err)
		}
	}
	if len(marks) < 4 {
		t.Fatalf("only %d targets across the three browsers", len(marks)-1)
	}

	if os.Getuid() != 0 {
		t.Skip("SKIP: the probe as another user needs root; the listening sockets were checked above")
	}
	testenv.NeedIntegration(t) // it needs testenv.FixturePython
	// The probe can reach a DevTools-like endpoint, when one listens: a
	// control that answers /json/list with a marker of its own.
	control := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/json/list" {
			fmt.Fprint(w, `[{"id":"control-marker"}]`)
		}
	}))
	defer control.Close()
	// Chromium's one listening socket is its process singleton's (a Unix
	// socket that takes a command line from a later launch of the same
	// profile): nobody must not connect to it either. The control is a
	// socket anyone may connect to.
	cdir, err := os.MkdirTemp("", "vibespace-probe-*")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(cdir)
	os.Chmod(cdir, 0o755)
	unixControl := filepath.Join(cdir, "s")
	ul, err := net.Listen("unix", unixControl)
	if err != nil {
		t.Fatal(err)
	}
	defer ul.Close()
	os.Chmod(unixControl, 0o777)
	urls := append(loopbackListeners(t), "unix:"+unixControl)
	var singletons []string
	for _, br := range brs {
		if sock, err := os.Readlink(filepath.Join(br.dir, "SingletonSocket")); err == nil {
			singletons = append(singletons, "unix:"+sock)
		}
	}
	urls = append(urls, singletons...)
	bodies := probeAsNobody(t, urls)
	if !strings.Contains(bodies[control.URL], "control-marker") || bodies["unix:"+unixControl] != "connected" {
		t.Fatalf("the probe as nobody did not reach the controls: %s %q, %s %q", control.URL, bodies[control.URL], unixControl, bodies["unix:"+unixControl])
	}
	for _, u := range singletons {
		if bodies[u] == "connected" {
			t.Errorf("user nobody connected to a browser's singleton socket %s", u)
		}
	}
	for u, body := range bodies {
		for _, m := range marks {
			if strings.Contains(body, m) {
				t.Errorf("user nobody read %q from %s/json/list: one of our browsers is reachable", m, u)
			}
		}
	}
	t.Logf("nobody probed %d loopback ports and %d singleton sockets", len(urls)-1-len(singletons), len(singletons))
}

// loopbackListeners is an http:// base URL for every TCP socket listening
// on this machine's loopback or on every address (IPv4 and IPv6), from
// /proc/net/tcp and tcp6.
func loopbackListeners(t *testing.T) []string {
	t.Helper()
	seen := map[string]bool{}
	var out []string
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		data, err := os.ReadFile(f)
		if err != nil {
			if f == "/proc/net/tcp" {
				t.Fatal(err)
			}
			continue
		}
		for _, line := range strings.Split(string(data), "\n")[1:] {
			fs := strings.Fields(line)
			if len(fs) < 4 || fs[3] != "0A" { // 0A: TCP_LISTEN
				continue
			}
			host, hexPort, _ := strings.Cut(fs[1], ":")
			port, err := strconv.ParseUint(hexPort, 16, 16)
			if err != nil {
				continue
			}
			var u string
			switch host {
			case "0100007F", "00000000", "00000000000000000000000000000000", "0000000000000000FFFF00000100007F":
				u = fmt.Sprintf("http://127.0.0.1:%d", port)
			case "00000000000000000000000001000000": // ::1
				u = fmt.Sprintf("http://[::1]:%d", port)
			default:
				if strings.HasSuffix(host, "7F") && len(host) == 8 { // 127.x.y.z
					ip := net.IPv4(hexByte(host[6:8]), hexByte(host[4:6]), hexByte(host[2:4]), hexByte(host[0:2]))
					u = fmt.Sprintf("http://%s:%d", ip, port)
				}
			}
			if u != "" && !seen[u] {
				seen[u] = true
				out = append(out, u)
			}
		}
	}
	return out
}

func hexByte(s string) byte {
	v, _ := strconv.ParseUint(s, 16, 8)
	return byte(v)
}

// probeScript asks each base URL for /json/list, and connects to each
// "unix:" socket path, and prints what each answered (or why not), as one
// JSON object.
const probeScript = `
import json, socket, sys, urllib.request
out = {}
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
for u in sys.argv[1:]:
    try:
        if u.startswith("unix:"):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(1)
            s.connect(u[5:])
            s.close()
            out[u] = "connected"
            continue
        with opener.open(u + "/json/list", timeout=1) as r:
            out[u] = r.read(1 << 20).decode("utf-8", "replace")
    except Exception as e:
        out[u] = "error: %s" % e
print(json.dumps(out))
`

// probeAsNobody runs probeScript as uid and gid nobody (65534), no
// supplementary groups.
func probeAsNobody(t *testing.T, urls []string) map[string]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, testenv.FixturePython, append([]string{"-c", probeScript}, urls...)...)
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
	var bodies map[string]string
	if err := json.Unmarshal(out, &bodies); err != nil {
		t.Fatalf("the probe's answer: %v: %q", err, out)
	}
	return bodies
}
