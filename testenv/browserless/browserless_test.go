package browserless_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/testenv"
	"github.com/vibespace/vibespace/testenv/browserless"
)

// syncBuf is the service's log, read by the test for the token.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func token(t *testing.T) string {
	b := make([]byte, 16)
	rand.Read(b)
	return "bl-" + hex.EncodeToString(b)
}

func start(t *testing.T) (*browserless.Service, string, *syncBuf) {
	t.Helper()
	testenv.NeedIntegration(t, "chromium")
	tok := token(t)
	log := &syncBuf{}
	s, err := browserless.Start(t.Context(), browserless.Options{Token: tok, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
		if strings.Contains(log.String(), tok) {
			t.Errorf("the token is in the service's log")
		}
	})
	return s, tok, log
}

// alive reports whether pid is a live (not zombie) process, from /proc.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i > 0 && len(b) > i+2 && b[i+2] != 'Z' && b[i+2] != 'X'
}

// waitClosed waits (bounded: the test's own deadline) until connection i is
// reaped.
func waitClosed(t *testing.T, s *browserless.Service, i int) browserless.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	for {
		c := s.Connections()[i]
		if c.Closed {
			return c
		}
		select {
		case <-ctx.Done():
			t.Fatalf("connection %d never closed: %+v", i, c)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func TestConnectRightToken(t *testing.T) {
	s, tok, _ := start(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	conn, err := cdp.Dial(ctx, s.URL()+"?token="+url.QueryEscape(tok), cdp.DialOptions{})
	if err != nil {
		t.Fatalf("dial with the right token: %v", err)
	}
	var ver struct {
		Product string `json:"product"`
	}
	if err := conn.Call(ctx, "Browser.getVersion", nil, &ver); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ver.Product, "Chrome") {
		t.Errorf("product %q", ver.Product)
	}
	var made struct {
		TargetID string `json:"targetId"`
	}
	if err := conn.Call(ctx, "Target.createTarget", map[string]any{"url": "about:blank#made-through-the-service"}, &made); err != nil {
		t.Fatal(err)
	}
	cs := s.Connections()
	if len(cs) != 1 || !cs[0].TokenOK || cs[0].PID == 0 || cs[0].Closed {
		t.Fatalf("connections %+v", cs)
	}
	pid := cs[0].PID
	if !alive(pid) {
		t.Fatalf("chromium %d is not in /proc", pid)
	}
	cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if !bytes.Contains(cmdline, []byte("--remote-debugging-port=0")) {
		t.Errorf("pid %d is not our chromium: %q", pid, cmdline)
	}
	// The browser itself, dialled directly, has the target made through the
	// service.
	direct, err := cdp.Dial(ctx, cs[0].DevTools, cdp.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var targets struct {
		TargetInfos []struct {
			TargetID string `json:"targetId"`
			URL      string `json:"url"`
		} `json:"targetInfos"`
	}
	if err := direct.Call(ctx, "Target.getTargets", nil, &targets); err != nil {
		t.Fatal(err)
	}
	direct.Close()
	found := false
	for _, ti := range targets.TargetInfos {
		found = found || ti.TargetID == made.TargetID
	}
	if !found {
		t.Errorf("target %s not in the browser's own list %+v", made.TargetID, targets.TargetInfos)
	}

	// Closing the client's connection ends that Chromium.
	conn.Close()
	waitClosed(t, s, 0)
	if alive(pid) || len(cdp.GroupProcesses(pid)) > 0 {
		t.Errorf("chromium %d still alive after the connection closed: %v", pid, cdp.GroupProcesses(pid))
	}
	// A second connection gets a fresh browser, not the first one's.
	conn2, err := cdp.Dial(ctx, s.URL()+"/?token="+tok, cdp.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer conn2.Close()
	cs = s.Connections()
	if len(cs) != 2 || cs[1].PID == 0 || cs[1].PID == pid {
		t.Fatalf("second connection %+v", cs)
	}
	pid2 := cs[1].PID
	// Close ends every browser still connected.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if alive(pid2) {
		t.Errorf("chromium %d alive after Close", pid2)
	}
}

func TestConnectWrongToken(t *testing.T) {
	s, tok, _ := start(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	for _, q := range []string{"?token=" + tok + "x", "?token=", "", "/chromium?token=wrong"} {
		_, err := cdp.Dial(ctx, s.URL()+q, cdp.DialOptions{})
		var hs *cdp.HandshakeStatus
		if !errors.As(err, &hs) || hs.Code != http.StatusUnauthorized {
			t.Errorf("dial %q: %v, want HTTP 401", strings.ReplaceAll(q, tok, "TOKEN"), err)
		}
	}
	// The body, as the service writes it, over plain HTTP.
	req, _ := http.NewRequestWithContext(ctx, "GET", "http"+strings.TrimPrefix(s.URL(), "ws")+"/?token=nope", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 401 || string(body) != browserless.Unauthorized {
		t.Errorf("got %d %q, want 401 %q", resp.StatusCode, body, browserless.Unauthorized)
	}
	cs := s.Connections()
	if len(cs) != 5 {
		t.Fatalf("%d connections recorded, want 5", len(cs))
	}
	for _, c := range cs {
		if c.TokenOK || c.PID != 0 {
			t.Errorf("a refused connection started a browser: %+v", c)
		}
	}
}
