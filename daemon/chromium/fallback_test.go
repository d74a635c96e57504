package chromium

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsutil"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/cdp/cdptest"
	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/target"
)

// noContextRelay is a DevTools endpoint that allows no browser context of
// ours: a WebSocket relay on 127.0.0.1 in front of a real browser's own
// browser-level WebSocket that carries every CDP message as it is, both
// ways, except Target.createBrowserContext, which it answers itself with a
// CDP error object (as a service that hands out one default context does)
// and never passes on.
type noContextRelay struct {
	up  string // the browser's WebSocket
	ln  net.Listener
	srv *http.Server

	mu      sync.Mutex
	refused int // createBrowserContext calls answered with the error
	relayed int // messages carried from the client to the browser
	open    int // client connections now
}

// refusal is the error object the relay answers createBrowserContext with.
const refusal = `{"code":-32000,"message":"Not allowed"}`

func startNoContextRelay(t *testing.T, up string) *noContextRelay {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &noContextRelay{up: up, ln: ln}
	r.srv = &http.Server{Handler: http.HandlerFunc(r.serve)}
	go r.srv.Serve(ln)
	t.Cleanup(func() { r.srv.Close() })
	return r
}

// URL is the relay's browser-level WebSocket: the browser's own path, on
// the relay's address.
func (r *noContextRelay) URL(t *testing.T) string {
	t.Helper()
	u, err := url.Parse(r.up)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = r.ln.Addr().String()
	return u.String()
}

func (r *noContextRelay) counts() (refused, relayed, open int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.refused, r.relayed, r.open
}

func (r *noContextRelay) serve(w http.ResponseWriter, req *http.Request) {
	ctx, cancel := context.WithTimeout(req.Context(), 10*time.Second)
	up, upBuf, _, err := ws.Dialer{}.Dial(ctx, r.up)
	cancel()
	if err != nil {
		http.Error(w, "the browser did not answer: "+err.Error(), http.StatusBadGateway)
		return
	}
	defer up.Close()
	client, rw, _, err := ws.UpgradeHTTP(req, w)
	if err != nil {
		return
	}
	defer client.Close()
	r.mu.Lock()
	r.open++
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.open--
		r.mu.Unlock()
	}()

	// One lock a direction: a whole message is one write under it; the
	// control replies wsutil makes (a pong, the closing handshake) take it
	// per write.
	toClient, toUp := &lockedConn{c: client}, &lockedConn{c: up}
	var upSrc io.Reader = up
	if upBuf != nil {
		upSrc = upBuf
	}
	done := make(chan struct{})
	go func() { // the browser's answers and events, as they are
		defer close(done)
		defer client.Close()
		upR := bufio.NewReader(upSrc)
		for {
			msg, op, err := wsutil.ReadServerData(struct {
				io.Reader
				io.Writer
			}{upR, toUp})
			if err != nil {
				return
			}
			if toClient.message(func(c net.Conn) error { return wsutil.WriteServerMessage(c, op, msg) }) != nil {
				return
			}
		}
	}()
	for { // the client's commands, but one
		msg, op, err := wsutil.ReadClientData(struct {
			io.Reader
			io.Writer
		}{rw.Reader, toClient})
		if err != nil {
			break
		}
		var call struct {
			ID        int64  `json:"id"`
			Method    string `json:"method"`
			SessionID string `json:"sessionId,omitempty"`
		}
		if json.Unmarshal(msg, &call) == nil && call.Method == "Target.createBrowserContext" {
			r.mu.Lock()
			r.refused++
			r.mu.Unlock()
			answer := fmt.Sprintf(`{"id":%d,"error":%s}`, call.ID, refusal)
			if call.SessionID != "" {
				answer = fmt.Sprintf(`{"id":%d,"sessionId":%q,"error":%s}`, call.ID, call.SessionID, refusal)
			}
			if toClient.message(func(c net.Conn) error { return wsutil.WriteServerMessage(c, ws.OpText, []byte(answer)) }) != nil {
				break
			}
			continue
		}
		r.mu.Lock()
		r.relayed++
		r.mu.Unlock()
		if toUp.message(func(c net.Conn) error { return wsutil.WriteClientMessage(c, op, msg) }) != nil {
			break
		}
	}
	up.Close()
	<-done
}

// lockedConn serialises writes on one connection.
type lockedConn struct {
	mu sync.Mutex
	c  net.Conn
}

func (l *lockedConn) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.c.SetWriteDeadline(time.Now().Add(10 * time.Second))
	return l.c.Write(p)
}

// message writes one whole message (write) under the lock, bounded.
func (l *lockedConn) message(write func(net.Conn) error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.c.SetWriteDeadline(time.Now().Add(10 * time.Second))
	return write(l.c)
}

// TestCDPProviderDefaultContext: a cdp profile whose endpoint refuses
// Target.createBrowserContext (the relay above, in front of a Chromium the
// test started in a namespace of its own) falls back to the endpoint's
// default context with a warning. Read over the test's own connection to
// the browser (not through the relay): the profile's tab is a page of the
// default context, the one the browser's own first page is in; snapshot
// and click by ref work (the page's DOM changes); the lease is still per
// tab (another session on the profile lists none of it and is refused it;
// the browser's own first page is nobody's tab). Stop closes the tab we
// opened and nothing more, as the pool promises for a default context
// (never disposed; of its tabs only ours are closed), then disconnects:
// the browser lives, with its own first page still open.
func TestCDPProviderDefaultContext(t *testing.T) {
	needChromium(t)
	tb := startTheirBrowser(t)
	endpoint := "http://" + tb.forward(t)
	wsURL := wsThrough(t, tb, endpoint)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	oracle, err := cdp.Connect(ctx, wsURL, cdp.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer oracle.Close()

	// The default context, as the browser itself names it: the one its
	// first page (about:blank, opened at launch) is in, which no
	// createBrowserContext made.
	before, err := cdptest.Pages(ctx, oracle)
	if err != nil {
		t.Fatal(err)
	}
	if len(before) != 1 || before[0].URL != "about:blank" || before[0].BrowserContextID == "" {
		t.Fatalf("the browser's pages at launch: %+v", before)
	}
	defaultID := before[0].BrowserContextID
	var contexts struct {
		DefaultBrowserContextID string   `json:"defaultBrowserContextId"`
		BrowserContextIDs       []string `json:"browserContextIds"`
	}
	if err := oracle.Conn().Call(ctx, "Target.getBrowserContexts", nil, &contexts); err != nil {
		t.Fatal(err)
	}
	if len(contexts.BrowserContextIDs) != 0 || (contexts.DefaultBrowserContextID != "" && contexts.DefaultBrowserContextID != defaultID) {
		t.Fatalf("the browser's contexts before the daemon came: %+v (its first page's: %s)", contexts, defaultID)
	}

	pageURL := tb.serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, remotePage)
	})) + "/page"
	relay := startNoContextRelay(t, wsURL)
	logs := &logCapture{}
	h := startHarness(t, "", Options{Logger: slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))}, nil)
	a := func(verb string) daemon.Request { return daemon.Request{Verb: verb, Session: "alice"} }
	nr := a("browser.new").With(args.New{Label: "theirs", Provider: "cdp", Endpoint: relay.URL(t)})
	id := h.ok(t, nr).Profile.ID
	use := a("browser.use").With(args.Use{Label: id})
	h.ok(t, use)

	opened := openRemotePage(t, h, "alice", pageURL)
	tab := opened.Target.ID
	if refused, relayed, _ := relay.counts(); refused != 1 || relayed == 0 {
		t.Fatalf("the relay answered %d createBrowserContext calls with the error (want 1) and carried %d messages", refused, relayed)
	}
	warned := logs.records("WARN", "the endpoint refused a browser context of ours: the profile's tabs open in its default context")
	if len(warned) != 1 || warned[0]["provider"] != "cdp" || warned[0]["err"] == nil {
		t.Fatalf("the fallback's warning: %v", warned)
	}
	if got := logs.records("INFO", "connected to a browser of provider"); len(got) != 1 || got[0]["own_context"] != false {
		t.Fatalf("the connect line: %v", got)
	}

	// The tab, as the browser reports it: a page of its default context.
	ours := func() []cdptest.Page {
		pages, err := cdptest.Pages(ctx, oracle)
		if err != nil {
			t.Fatal(err)
		}
		var out []cdptest.Page
		for _, p := range pages {
			if p.URL == pageURL {
				out = append(out, p)
			}
		}
		return out
	}
	if got := ours(); len(got) != 1 || got[0].BrowserContextID != defaultID {
		t.Fatalf("the profile's tab is not one page of the default context %s: %+v", defaultID, got)
	}

	snap := a("browser.snapshot").With(args.Snapshot{Observe: args.Observe{Interactive: true}})
	ref := findRef(t, h.ok(t, snap).Text, "push button", "Press me")
	click := a("browser.click").With(args.Click{Ref: ref})
	h.ok(t, click)
	clicked := func() string {
		got, err := cdptest.Eval(ctx, oracle, cdptest.URL(pageURL), "document.title + '|' + document.getElementById('go').dataset.clicks")
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	waitFor(t, "the click in the page's DOM", func() bool { return clicked() == "clicked 1|1" })

	// The lease is still per tab: another session on the same profile (the
	// same default context) is refused alice's tab, and lists none.
	h.ok(t, daemon.Request{Verb: "browser.use", Session: "bob"}.With(args.Use{Label: id}))
	// Each lists its own tabs: alice the one she opened, bob none (not
	// hers, not the browser's own first page, though all share the
	// default context).
	if got := h.ok(t, daemon.Request{Verb: "browser.tab", Session: "alice"}.With(args.Tab{Action: "list"})).Targets; len(got) != 1 || got[0].ID != tab {
		t.Fatalf("alice's tabs in the default context: %+v", got)
	}
	if got := h.ok(t, daemon.Request{Verb: "browser.tab", Session: "bob"}.With(args.Tab{Action: "list"})).Targets; len(got) != 0 {
		t.Fatalf("bob's tabs in the default context: %+v", got)
	}
	if r := h.call(t, daemon.Request{Verb: "browser.tab", Session: "bob", Target: string(tab)}.With(args.Tab{Action: "select"})); r.OK || r.Code != target.CodeNotYourTab {
		t.Fatalf("bob selecting alice's tab in the default context: %+v", r)
	}

	// Stop: the tab we opened closes, the connection ends; the browser
	// lives, the default context is not disposed and its own page stays.
	if err := h.pool.Stop(ctx, id); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if h.pool.Running(id) {
		t.Fatal("the pool still runs the stopped profile's browser")
	}
	waitFor(t, "the daemon's connection through the relay to end", func() bool { _, _, n := relay.counts(); return n == 0 })
	if !tb.alive() {
		t.Fatal("stopping the cdp profile's browser killed it")
	}
	if got := ours(); len(got) != 0 {
		t.Fatalf("after Stop the tab we opened in the default context (%s) is still open: %+v", opened.Target.CDPID, got)
	}
	if pages := pageTargets(t, oracle); pages["about:blank"] != 1 {
		t.Fatalf("the browser's own first page after Stop: %v", pages)
	}
	h.close()
	if !tb.alive() {
		t.Fatal("stopping the daemon killed a browser it did not start")
	}
}
