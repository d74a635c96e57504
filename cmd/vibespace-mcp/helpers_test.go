package main_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vibespace/vibespace/cmd/internal/clitest"
	"github.com/vibespace/vibespace/testenv"
)

// bin is the vibespace-mcp binary TestMain built (with -race under -race),
// vibespace-daemon beside it.
var bin string

func TestMain(m *testing.M) {
	clitest.RelayMain() // ssh's ProxyCommand to the remote-host test's sshd
	clitest.Main(m, "vibespace-mcp", &bin)
}

// env is one isolated vibespace whose daemon runs as the test's child.
type env struct{ *clitest.Env }

func newEnv(t testing.TB) *env {
	t.Helper()
	testenv.NeedIntegration(t)
	clitest.NeedChromium(t)
	e := &env{clitest.New(t, bin)}
	e.LogOnFailure()
	return e
}

// serve starts the daemon as the test's child.
func (e *env) serve() { e.StartDaemon("--chromium", clitest.Chromium) }

// client is one vibespace-mcp process as session s, reached through the
// SDK's own client over stdio; it ends with the test.
func (e *env) client(s string, args ...string) *mcp.ClientSession {
	e.T.Helper()
	cmd := exec.Command(e.Bin, append([]string{"--session", s}, args...)...)
	cmd.Env = e.Environ(s)
	cmd.Stderr = &logWriter{t: e.T, prefix: "vibespace-mcp " + s + ": "}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "vibespace-test", Version: "0"}, nil)
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		e.T.Fatalf("connect to vibespace-mcp as %s: %v", s, err)
	}
	e.T.Cleanup(func() { closeServer(e.T, cs) })
	return cs
}

// closeServer ends a server as its host does (stdin closed) and fails the
// test unless it exited 0 by itself: a data race (the server is built with
// -race under -race) exits 66, and one that had to be signalled hung.
func closeServer(t testing.TB, cs *mcp.ClientSession) {
	t.Helper()
	if err := cs.Close(); err != nil {
		t.Errorf("vibespace-mcp did not exit cleanly on its stdin's end: %v", err)
	}
}

// logWriter hands what a server writes on stderr to the test's log.
type logWriter struct {
	t      testing.TB
	prefix string
}

func (w *logWriter) Write(b []byte) (int, error) {
	w.t.Logf("%s%s", w.prefix, strings.TrimRight(string(b), "\n"))
	return len(b), nil
}

// call calls a tool, bounded (an open may start a browser or an
// application).
func call(t testing.TB, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: a protocol error, not a tool result: %v", name, args, err)
	}
	return res
}

// ok calls a tool and fails unless it succeeded; it answers the text.
func ok(t testing.TB, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res := call(t, cs, name, args)
	if res.IsError {
		t.Fatalf("%s %v: a tool error: %s", name, args, text(res))
	}
	return text(res)
}

// refused calls a tool and fails unless it is a tool error of code: its
// text starts "<code>: " and its structured content has the code.
func refused(t testing.TB, cs *mcp.ClientSession, code, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res := call(t, cs, name, args)
	st, _ := res.StructuredContent.(map[string]any)
	if !res.IsError || !strings.HasPrefix(text(res), code+": ") || st["code"] != code {
		t.Fatalf("%s %v: want the tool error %s, got isError=%v structured=%v\n%s", name, args, code, res.IsError, res.StructuredContent, text(res))
	}
	return res
}

// text is a result's text content.
func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// refOf is the @ref of the line with role and "name" in a snapshot's text.
func refOf(t testing.TB, snap, role, name string) string {
	t.Helper()
	m := regexp.MustCompile(regexp.QuoteMeta(role+` "`+name+`" `) + `(@e\d+)`).FindStringSubmatch(snap)
	if m == nil {
		t.Fatalf("no %s %q with a ref in:\n%s", role, name, snap)
	}
	return m[1]
}

// page is a local site of one page whose button tells the server it was
// clicked: the page's own script is the oracle of a click, not our tools.
type page struct {
	*httptest.Server
	mu     sync.Mutex
	hits   []url.Values // the queries of the "/clicked" requests, in order
	notify chan struct{}
}

const pageHTML = `<!doctype html><title>MCP page</title>
<button id="go" onclick="n++; document.getElementById('said').textContent = 'clicked ' + n + ' ' + document.getElementById('name').value; fetch('/clicked?n=' + n + '&name=' + encodeURIComponent(document.getElementById('name').value))">Go</button>
<label>Name <input id="name"></label>
<p id="said">not yet</p>
<script>let n = 0;</script>`

// newPage serves html (pageHTML when "") on 127.0.0.1.
func newPage(t testing.TB, html string) *page {
	if html == "" {
		html = pageHTML
	}
	p := &page{notify: make(chan struct{}, 1)}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/clicked" {
			p.mu.Lock()
			p.hits = append(p.hits, r.URL.Query())
			p.mu.Unlock()
			select {
			case p.notify <- struct{}{}:
			default:
			}
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, html)
	}))
	t.Cleanup(p.Close)
	return p
}

// waitFor waits (bounded) until the page's reports that match number at
// least n, and answers those.
func (p *page) waitFor(t testing.TB, n int, match func(url.Values) bool) []url.Values {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		var got []url.Values
		p.mu.Lock()
		for _, h := range p.hits {
			if match(h) {
				got = append(got, h)
			}
		}
		p.mu.Unlock()
		if len(got) >= n {
			return got
		}
		select {
		case <-p.notify:
		case <-deadline:
			t.Fatalf("the page reported %d of %d clicks (its script never ran)", len(got), n)
		}
	}
}

// waitHit waits for the page's n-th click report and answers its query.
func (p *page) waitHit(t testing.TB, n int) string {
	t.Helper()
	return p.waitFor(t, n, func(url.Values) bool { return true })[n-1].Encode()
}

// hitCount is how many clicks the page reported.
func (p *page) hitCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.hits)
}
