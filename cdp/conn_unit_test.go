package cdp

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsutil"
)

// fakeBrowser is a DevTools endpoint on 127.0.0.1 whose answers the test
// scripts: handle sees every message the client sends and may reply or
// emit events through send.
type fakeBrowser struct {
	srv    *httptest.Server
	handle func(m wireMsg, send func(wireMsg))
	mu     sync.Mutex
	conns  []interface{ Close() error }
}

func newFakeBrowser(t *testing.T, handle func(m wireMsg, send func(wireMsg))) (*fakeBrowser, *Conn) {
	t.Helper()
	f := &fakeBrowser{handle: handle}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		nc, _, _, err := ws.UpgradeHTTP(r, w)
		if err != nil {
			return
		}
		f.mu.Lock()
		f.conns = append(f.conns, nc)
		f.mu.Unlock()
		var wmu sync.Mutex
		send := func(m wireMsg) {
			data, err := jsonv2.Marshal(&m)
			if err != nil {
				panic(err)
			}
			wmu.Lock()
			defer wmu.Unlock()
			_ = wsutil.WriteServerText(nc, data)
		}
		go func() {
			defer nc.Close()
			for {
				data, _, err := wsutil.ReadClientData(nc)
				if err != nil {
					return
				}
				var m wireMsg
				if err := jsonv2.Unmarshal(data, &m); err != nil {
					return
				}
				f.handle(m, send)
			}
		}()
	}))
	t.Cleanup(f.srv.Close)
	c, err := Dial(t.Context(), "ws"+strings.TrimPrefix(f.srv.URL, "http")+"/devtools/browser/x", DialOptions{CallTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return f, c
}

// dropAll closes every server side connection.
func (f *fakeBrowser) dropAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.conns {
		c.Close()
	}
}

func TestConnReplyAndError(t *testing.T) {
	_, c := newFakeBrowser(t, func(m wireMsg, send func(wireMsg)) {
		switch m.Method {
		case "Echo.it":
			send(wireMsg{ID: m.ID, Result: m.Params})
		case "Fail.it":
			send(wireMsg{ID: m.ID, Error: &wireError{Code: -32000, Message: "No node with given id found"}})
		}
	})
	var out struct{ A int }
	if err := c.Call(t.Context(), "Echo.it", map[string]int{"A": 7}, &out); err != nil || out.A != 7 {
		t.Fatalf("echo: %+v, %v", out, err)
	}
	err := c.Call(t.Context(), "Fail.it", nil, nil)
	var e *Error
	if !errors.As(err, &e) || e.Code != -32000 || e.Method != "Fail.it" || e.Message != "No node with given id found" {
		t.Fatalf("err = %#v", err)
	}
}

// A call the browser never answers ends at the default deadline, and the
// connection stays usable.
func TestConnDefaultDeadline(t *testing.T) {
	_, c := newFakeBrowser(t, func(m wireMsg, send func(wireMsg)) {
		if m.Method == "Echo.it" {
			send(wireMsg{ID: m.ID, Result: jsonv2.Value(`{}`)})
		}
	})
	err := c.Call(context.Background(), "Never.answered", nil, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want DeadlineExceeded", err)
	}
	if err := c.Call(t.Context(), "Echo.it", nil, nil); err != nil {
		t.Fatalf("after a timeout: %v", err)
	}
	c.mu.Lock()
	n := len(c.pending)
	c.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d calls still pending", n)
	}
}

// Events reach the subscribers of their session and method, in order; a
// session's detach marks it gone.
func TestConnEventsBySession(t *testing.T) {
	_, c := newFakeBrowser(t, func(m wireMsg, send func(wireMsg)) {
		switch m.Method {
		case "Target.attachToTarget":
			send(wireMsg{ID: m.ID, Result: jsonv2.Value(`{"sessionId":"S1"}`)})
		case "Emit.events":
			for i := range 100 {
				send(wireMsg{SessionID: "S1", Method: "Page.thing", Params: jsonv2.Value(`{"n":` + strconv.Itoa(i) + `}`)})
				send(wireMsg{SessionID: "S2", Method: "Page.thing", Params: jsonv2.Value(`{"n":-1}`)})
			}
			send(wireMsg{Method: "Target.detachedFromTarget", Params: jsonv2.Value(`{"sessionId":"S1"}`)})
			send(wireMsg{ID: m.ID, Result: jsonv2.Value(`{}`)})
		}
	})
	s, err := c.Attach(t.Context(), "T1")
	if err != nil {
		t.Fatal(err)
	}
	events, cancel := s.Subscribe("Page.thing")
	defer cancel()
	if err := c.Call(t.Context(), "Emit.events", nil, nil); err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		select {
		case v := <-events:
			var e struct {
				N int `json:"n"`
			}
			if err := jsonv2.Unmarshal(v, &e); err != nil || e.N != i {
				t.Fatalf("event %d: %s (%v)", i, v, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("event %d never came", i)
		}
	}
	select {
	case <-s.Gone():
	case <-time.After(10 * time.Second):
		t.Fatal("session not gone after detachedFromTarget")
	}
}

// When the browser goes away, calls in flight and later end with
// ErrClosed, and subscriptions close.
func TestConnClosed(t *testing.T) {
	f, c := newFakeBrowser(t, func(m wireMsg, send func(wireMsg)) {})
	events, cancel := c.Subscribe("Page.thing")
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- c.Call(context.Background(), "Never.answered", nil, nil) }()
	// Let the call reach the wire before dropping it (bounded poll).
	for deadline := time.Now().Add(10 * time.Second); ; {
		c.mu.Lock()
		n := len(c.pending)
		c.mu.Unlock()
		if n == 1 || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	f.dropAll()
	if err := <-errc; !errors.Is(err, ErrClosed) {
		t.Fatalf("in-flight call: %v, want ErrClosed", err)
	}
	if err := c.Call(t.Context(), "Any.thing", nil, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("later call: %v, want ErrClosed", err)
	}
	if _, ok := <-events; ok {
		t.Fatal("subscription still open after the connection closed")
	}
}

// A call on a session whose target goes away does not wait for its
// deadline: the target may never answer.
func TestConnSessionGoneEndsCalls(t *testing.T) {
	_, c := newFakeBrowser(t, func(m wireMsg, send func(wireMsg)) {
		switch m.Method {
		case "Target.attachToTarget":
			send(wireMsg{ID: m.ID, Result: jsonv2.Value(`{"sessionId":"S1"}`)})
		case "Runtime.evaluate": // never answered; the target closes instead
			send(wireMsg{Method: "Target.detachedFromTarget", Params: jsonv2.Value(`{"sessionId":"S1"}`)})
		}
	})
	s, err := c.Attach(t.Context(), "T1")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := s.Call(ctx, "Runtime.evaluate", nil, nil); !errors.Is(err, ErrSessionGone) {
		t.Fatalf("in-flight call: %v, want ErrSessionGone", err)
	}
	if err := s.Call(ctx, "Runtime.evaluate", nil, nil); !errors.Is(err, ErrSessionGone) {
		t.Fatalf("later call: %v, want ErrSessionGone", err)
	}
}
