package live_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/daemontest"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/kind/kindtest"
	"github.com/vibespace/vibespace/daemon/live"
	"github.com/vibespace/vibespace/rtc"
	"github.com/vibespace/vibespace/target"
)

// fakeLive serves a daemon with the live view over the fake display, and
// one window of it opened and read by session a.
func fakeLive(t *testing.T) (*daemontest.Served, string) {
	t.Helper()
	if !rtc.VP8Available() {
		t.Fatal("this build has no VP8 encoder (cgo + libvpx): the live view cannot run")
	}
	dir := t.TempDir()
	sv := daemontest.Start(t, daemon.Config{StateDir: dir, SocketPath: filepath.Join(dir, "run", "w.sock"),
		Displays: []kind.DisplayProvider{&kindtest.Provider{}}, Live: live.For(live.Options{})})
	id := string(sv.OK(t, daemon.Request{Verb: "open", Session: "a"}.With(args.Open{App: "fake-app"})).Target.ID)
	sv.OK(t, daemon.Request{Verb: "snapshot", Session: "a", Target: id})
	return sv, id
}

// TestLiveServerOverFake: watch starts one server on 127.0.0.1 whose API
// needs the viewer token, lists the targets with the agent's last point and
// none of its text, and stops with the daemon. (The fake display has no
// pixels: the real stream is TestLiveViewWindow's.)
func TestLiveServerOverFake(t *testing.T) {
	sv, id := fakeLive(t)
	const marker = "hunter2-MARKER"
	sv.OK(t, daemon.Request{Verb: "type", Session: "a", Target: id}.With(args.Type{Ref: "@e4", Text: marker}))
	sv.OK(t, daemon.Request{Verb: "click", Session: "a", Target: id}.With(args.Click{At: "5,6"}))

	resp := sv.OK(t, daemon.Request{Verb: "watch", Session: "a"})
	u, err := url.Parse(resp.URL)
	if err != nil || !strings.HasPrefix(u.Host, "127.0.0.1:") || !strings.HasPrefix(u.Fragment, "token=") {
		t.Fatalf("watch: %q", resp.URL)
	}
	q, _ := url.ParseQuery(u.Fragment)
	token := q.Get("token")
	if r := sv.Call(t, daemon.Request{Verb: "watch", Session: "a", Target: "win:99"}); r.Code != target.CodeUnknownTarget {
		t.Fatalf("watch win:99: %+v", r)
	}
	base := "http://" + u.Host
	get := func(auth string) (int, string) {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, base+"/api/targets", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		res, err := (&http.Client{Timeout: 5 * time.Second}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if code, _ := get(""); code != http.StatusUnauthorized {
		t.Fatalf("no token: %d", code)
	}
	if code, _ := get("Bearer " + token + "x"); code != http.StatusForbidden {
		t.Fatalf("wrong token: %d", code)
	}
	if code, _ := get("Basic " + token); code != http.StatusUnauthorized {
		t.Fatalf("token not as a bearer: %d", code)
	}
	code, body := get("Bearer " + token)
	if code != http.StatusOK || strings.Contains(body, marker) || strings.Contains(body, token) {
		t.Fatalf("targets: %d %s", code, body)
	}
	var lt live.Targets
	if err := json.Unmarshal([]byte(body), &lt); err != nil || len(lt.Targets) != 1 {
		t.Fatalf("targets %s: %v", body, err)
	}
	got := lt.Targets[0]
	if string(got.ID) != id || got.Mode != "agent" || got.Holder != "a" || got.Kind != "window" {
		t.Fatalf("target %+v", got)
	}
	if got.Agent == nil || got.Agent.Verb != "click" || got.Agent.Point == nil || *got.Agent.Point != (daemon.Point{X: 5, Y: 6}) {
		t.Fatalf("the agent's last act %+v", got.Agent)
	}
	if st := sv.OK(t, daemon.Request{Verb: "status", Session: "a"}).Status; !strings.Contains(st.Live, "serving on "+u.Host) || strings.Contains(st.Live, token) {
		t.Fatalf("status: %q", st.Live)
	}
	// The video's ICE-TCP road listens on the port watch names.
	ice := "127.0.0.1:" + fmt.Sprint(resp.Facts["ice_tcp_port"])
	c, err := net.DialTimeout("tcp4", ice, 5*time.Second)
	if err != nil {
		t.Fatalf("watch's ice_tcp_port %v: %v", resp.Facts, err)
	}
	c.Close()
	sv.Close()
	if _, err := (&http.Client{Timeout: 2 * time.Second}).Get(base + "/"); err == nil {
		t.Fatal("the live view still serves after Close")
	}
	if c, err := net.DialTimeout("tcp4", ice, 2*time.Second); err == nil {
		c.Close()
		t.Fatalf("the ICE-TCP listener %s still accepts after Close", ice)
	}
}

// TestLiveICETCPPortTaken: a configured ICE-TCP port that is taken is
// live_view_unavailable naming it; once it is free, the next watch starts
// the live view with the video's road on that port.
func TestLiveICETCPPortTaken(t *testing.T) {
	if !rtc.VP8Available() {
		t.Fatal("this build has no VP8 encoder (cgo + libvpx): the live view cannot run")
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	dir := t.TempDir()
	sv := daemontest.Start(t, daemon.Config{StateDir: dir, SocketPath: filepath.Join(dir, "run", "w.sock"),
		Displays: []kind.DisplayProvider{&kindtest.Provider{}}, Live: live.For(live.Options{ICETCPPort: port})})
	r := sv.Call(t, daemon.Request{Verb: "watch", Session: "a"})
	if r.OK || r.Code != target.CodeLiveViewUnavailable || fmt.Sprint(r.Facts["port"]) != fmt.Sprint(port) || !strings.Contains(r.Message, fmt.Sprintf("127.0.0.1:%d", port)) {
		t.Fatalf("watch with the ICE-TCP port taken: %+v", r)
	}
	ln.Close()
	w := sv.OK(t, daemon.Request{Verb: "watch", Session: "a"})
	if fmt.Sprint(w.Facts["ice_tcp_port"]) != fmt.Sprint(port) {
		t.Fatalf("watch once the port is free: %+v", w)
	}
}

// TestLiveRefusesForeignHostAndOrigin: the live view answers only to the
// loopback address it serves (a forged Host, as DNS rebinding sends, is
// 421) and its API only to its own page (a foreign Origin is 403, even
// with the token); requests without an Origin, and from its own, pass.
func TestLiveRefusesForeignHostAndOrigin(t *testing.T) {
	dir := t.TempDir()
	sv := daemontest.Start(t, daemon.Config{StateDir: dir, SocketPath: filepath.Join(dir, "run", "w.sock"),
		Displays: []kind.DisplayProvider{&kindtest.Provider{}}, Live: live.For(live.Options{})})
	sv.OK(t, daemon.Request{Verb: "open", Session: "a"}.With(args.Open{App: "fake-app"}))
	u, err := url.Parse(sv.OK(t, daemon.Request{Verb: "watch", Session: "a"}).URL)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := url.ParseQuery(u.Fragment)
	token := q.Get("token")
	_, port, _ := strings.Cut(u.Host, ":")
	do := func(method, path, host, origin string) int {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), method, "http://"+u.Host+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		if host != "" {
			req.Host = host
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		res, err := (&http.Client{Timeout: 5 * time.Second}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if strings.Contains(string(b), token) {
			t.Fatalf("%s %s: the answer carries the token", method, path)
		}
		return res.StatusCode
	}
	for _, c := range []struct {
		method, path, host, origin string
		want                       int
	}{
		{"GET", "/api/targets", "", "", http.StatusOK},                 // a command line
		{"GET", "/api/targets", "", "http://" + u.Host, http.StatusOK}, // its own page
		{"GET", "/api/targets", "localhost:" + port, "http://localhost:" + port, http.StatusOK},
		{"GET", "/", "", "", http.StatusOK},                                                // the page itself
		{"GET", "/api/targets", "evil.example:" + port, "", http.StatusMisdirectedRequest}, // DNS rebinding
		{"GET", "/", "evil.example:" + port, "", http.StatusMisdirectedRequest},
		{"POST", "/api/takeover/win:1", "evil.example:" + port, "http://evil.example:" + port, http.StatusMisdirectedRequest},
		{"GET", "/api/targets", "", "http://evil.example", http.StatusForbidden}, // another site's page
		{"POST", "/api/takeover/win:1", "", "http://evil.example", http.StatusForbidden},
		{"GET", "/api/targets", "", "null", http.StatusForbidden},
		{"GET", "/api/targets", "", "https://" + u.Host, http.StatusForbidden},
		{"GET", "/api/targets", "127.0.0.1:1", "", http.StatusMisdirectedRequest}, // another port
	} {
		if got := do(c.method, c.path, c.host, c.origin); got != c.want {
			t.Errorf("%s %s Host=%q Origin=%q: %d, want %d", c.method, c.path, c.host, c.origin, got, c.want)
		}
	}
}
