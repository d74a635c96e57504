package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/vibespace/vibespace/daemon/args"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon/kind/kindtest"
	"github.com/vibespace/vibespace/target"
)

// Tests of the gaps a review found (issue 4), on the fake backend.

// keyOf reads a target's backend key through the daemon's own table.
func (td *testDaemon) keyOf(t *testing.T, id target.ID) string {
	t.Helper()
	td.mu.Lock()
	defer td.mu.Unlock()
	e, ok := td.targets[id]
	if !ok {
		t.Fatalf("no target %s", id)
	}
	return e.rec.Key
}

func TestPointInjectionRaisesItsWindow(t *testing.T) {
	b := &kindtest.Provider{}
	td := startDaemon(t, b, "")
	below := td.open(t, "a")
	td.open(t, "a") // on top, over the same rectangle
	want := td.keyOf(t, below)
	wantCode(t, td.call(t, Request{Verb: "click", Session: "a", Target: string(below)}.With(args.Click{At: "5,6"})), "")
	wantCode(t, td.call(t, Request{Verb: "scroll", Session: "a", Target: string(below)}.With(args.Scroll{Direction: "down"})), "")
	n := 0
	for _, ev := range b.Display().Events() {
		if ev.Kind == "click" {
			n++
			if ev.Key != want {
				t.Fatalf("the click landed while window %s was on top, want %s (the target)", ev.Key, want)
			}
		}
	}
	if n != 1 {
		t.Fatalf("%d clicks", n)
	}
}

func TestPointInjectionRefusedWhenCovered(t *testing.T) {
	b := &kindtest.Provider{}
	td := startDaemon(t, b, "")
	below := td.open(t, "a")
	over := td.open(t, "a")
	b.Display().Pin(td.keyOf(t, over))
	resp := td.call(t, Request{Verb: "click", Session: "a", Target: string(below)}.With(args.Click{At: "5,6"}))
	wantCode(t, resp, target.CodeWindowNotVisible)
	wantCode(t, td.call(t, Request{Verb: "scroll", Session: "a", Target: string(below)}.With(args.Scroll{Direction: "up"})), target.CodeWindowNotVisible)
	for _, ev := range b.Display().Events() {
		if ev.Kind == "click" || ev.Kind == "scroll" {
			t.Fatalf("input was injected into a covered window: %+v", ev)
		}
	}
	// The pinned window itself is on top: its click goes through.
	wantCode(t, td.call(t, Request{Verb: "click", Session: "a", Target: string(over)}.With(args.Click{At: "5,6"})), "")
}

func TestScreenshotRaisesOrRefuses(t *testing.T) {
	b := &kindtest.Provider{}
	td := startDaemon(t, b, "")
	below := td.open(t, "a")
	over := td.open(t, "a")
	resp := td.call(t, Request{Verb: "screenshot", Session: "a", Target: string(below)})
	wantCode(t, resp, "")
	if got, want := string(resp.PNG), "top="+td.keyOf(t, below); !strings.HasSuffix(got, want) {
		t.Fatalf("screenshot of %s was taken with another window on top: %q, want %q", below, got, want)
	}
	b.Display().Pin(td.keyOf(t, over))
	resp = td.call(t, Request{Verb: "screenshot", Session: "a", Target: string(below)})
	wantCode(t, resp, target.CodeWindowNotVisible)
	if len(resp.PNG) != 0 {
		t.Fatal("a covered window's screenshot carried pixels")
	}
}

func TestPanicAnswersInternalAndKeepsServing(t *testing.T) {
	b := &kindtest.Provider{}
	td := startDaemon(t, b, "")
	id := string(td.open(t, "a"))
	b.Display().PanicOn("snapshot")
	resp := td.call(t, Request{Verb: "snapshot", Session: "a", Target: id})
	wantCode(t, resp, target.CodeInternal)
	b.Display().PanicOn("")
	wantCode(t, td.call(t, Request{Verb: "status", Session: "b"}), "")
	wantCode(t, td.call(t, Request{Verb: "snapshot", Session: "a", Target: id}), "")
	// The verb that panicked has its audit row, as every verb does.
	rows := auditRows(t, td, "snapshot")
	if len(rows) != 2 || rows[0].OK || rows[0].Code != target.CodeInternal || rows[0].Target != target.ID(id) || rows[0].Session != "a" || !rows[1].OK {
		t.Fatalf("the snapshots' audit rows: %+v", rows)
	}
}

func TestDisplayGoneUnderEveryVerb(t *testing.T) {
	b := &kindtest.Provider{}
	td := startDaemon(t, b, "")
	id := string(td.open(t, "a"))
	kept := td.entryOf(target.ID(id))
	disp := td.reg.Running("fake")
	for _, req := range []Request{
		Request{Verb: "click"}.With(args.Click{At: "1,1"}),
		Request{Verb: "click"}.With(args.Click{Ref: "@e1"}),
		Request{Verb: "scroll"}.With(args.Scroll{Direction: "down"}),
		Request{Verb: "key"}.With(args.Key{Chord: "a"}),
		Request{Verb: "type"}.With(args.Type{Text: "x"}),
		Request{Verb: "snapshot"},
		Request{Verb: "screenshot"},
		Request{Verb: "close"},
	} {
		req.Session, req.Target = "a", id
		// Each verb starts with the display and the target there.
		td.mu.Lock()
		td.reg.PutLocked(disp)
		td.targets[target.ID(id)] = kept
		td.mu.Unlock()
		// The display goes away between the lookup and the verb's use of it.
		b.Display().OnInfo(func() { td.mu.Lock(); td.reg.DeleteLocked("fake"); td.mu.Unlock() })
		resp := td.call(t, req)
		b.Display().OnInfo(nil)
		if resp.Code != target.CodeWindowGone && !(req.Verb == "close" && resp.OK) {
			t.Errorf("%s %s with the display gone: %+v", req.Verb, req.Args, resp)
		}
		if resp.Code == target.CodeWindowGone && !strings.Contains(resp.Message, id) {
			t.Errorf("%s: the refusal does not name %s: %q", req.Verb, id, resp.Message)
		}
	}
}

func TestIdleConnectionIsClosed(t *testing.T) {
	td := startDaemonWith(t, &kindtest.Provider{}, "", func(c *Config) { c.IdleTimeout = 50 * time.Millisecond })
	c, err := net.Dial("unix", td.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(20 * time.Second)) // the test's own bound
	if _, err := c.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Fatalf("an idle connection must be hung up on: read %v", err)
	}
	// A half-sent request is bounded the same way.
	c2, err := net.Dial("unix", td.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if _, err := c2.Write([]byte(`{"verb":"sta`)); err != nil {
		t.Fatal(err)
	}
	c2.SetReadDeadline(time.Now().Add(20 * time.Second))
	if _, err := c2.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Fatalf("a half-sent request must be hung up on: read %v", err)
	}
	wantCode(t, td.call(t, Request{Verb: "status", Session: "a"}), "")
}

func TestConnectionCap(t *testing.T) {
	td := startDaemonWith(t, &kindtest.Provider{}, "", func(c *Config) { c.MaxConns = 2 })
	var held []net.Conn
	for range 2 {
		c, err := net.Dial("unix", td.sock)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		held = append(held, c)
	}
	// The two held connections are served: each answers a request, so the
	// daemon has accepted both before the third comes.
	for _, c := range held {
		c.SetDeadline(time.Now().Add(20 * time.Second))
		fmt.Fprintln(c, `{"verb":"status","session":"a"}`)
		if _, err := bufio.NewReader(c).ReadBytes('\n'); err != nil {
			t.Fatal(err)
		}
	}
	c, err := net.Dial("unix", td.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	line, err := bufio.NewReader(c).ReadBytes('\n')
	if err != nil {
		t.Fatalf("the connection beyond the cap got no answer: %v", err)
	}
	var resp Response
	if err := json.Unmarshal(line, &resp); err != nil || resp.OK || resp.Code != target.CodeBusy {
		t.Fatalf("answer beyond the cap: %s (%v)", line, err)
	}
	// Freeing a slot lets the next client in.
	held[0].Close()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	for {
		cl, err := Dial(ctx, td.sock)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := cl.Call(ctx, Request{Verb: "status", Session: "a"})
		cl.Close()
		if err == nil && resp.OK {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no slot came free: %+v %v", resp, err)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func TestTakeoverLeavesAnotherTargetsTypingAlone(t *testing.T) {
	b := &kindtest.Provider{}
	td := startDaemon(t, b, "")
	a := string(td.open(t, "a"))
	other := string(td.open(t, "b"))
	wantCode(t, td.call(t, Request{Verb: "share", Session: "a", Target: a}.With(args.Share{With: "operator"})), "")
	wantCode(t, td.call(t, Request{Verb: "share", Session: "b", Target: other}.With(args.Share{With: "operator"})), "")
	gate := b.Display().GateTyping()
	typed := make(chan Response, 1)
	go func() {
		typed <- td.call(t, Request{Verb: "type", Session: "a", Target: a}.With(args.Type{Text: strings.Repeat("abcdefgh", 3)}))
	}()
	gate <- struct{}{} // the first chunk is in: the type is in flight
	resp := td.call(t, Request{Verb: "takeover", Session: "operator", Target: other})
	wantCode(t, resp, "")
	if !strings.Contains(resp.Did, "left alone") {
		t.Fatalf("takeover answer %q", resp.Did)
	}
	close(gate)
	got := <-typed
	wantCode(t, got, "")
	var text string
	for _, ev := range b.Display().Events() {
		if ev.Kind == "type" {
			text += ev.Text
		}
		if ev.Kind == "release" {
			t.Fatal("keys were released under another target's typing")
		}
	}
	if text != strings.Repeat("abcdefgh", 3) {
		t.Fatalf("typed %q", text)
	}
	// With nothing in flight, a takeover releases what is held.
	resp = td.call(t, Request{Verb: "takeover", Session: "operator", Target: a})
	wantCode(t, resp, "")
	if !strings.Contains(resp.Did, "released") {
		t.Fatalf("takeover answer %q", resp.Did)
	}
}

func TestHandbackOnlyByWhoTookOver(t *testing.T) {
	td := startDaemon(t, &kindtest.Provider{}, "")
	id := string(td.open(t, "agent"))
	wantCode(t, td.call(t, Request{Verb: "share", Session: "agent", Target: id}.With(args.Share{With: "operator"})), "")
	wantCode(t, td.call(t, Request{Verb: "takeover", Session: "operator", Target: id}.With(args.Operator{User: "alice"})), "")
	// The paused agent cannot hand itself back, even naming the user.
	r := td.call(t, Request{Verb: "handback", Session: "agent", Target: id}.With(args.Operator{User: "alice"}))
	wantCode(t, r, target.CodeWindowPaused)
	// Nor can someone who is not the user who took over.
	wantCode(t, td.call(t, Request{Verb: "handback", Session: "operator", Target: id}.With(args.Operator{User: "bob"})), target.CodeWindowPaused)
	wantCode(t, td.call(t, Request{Verb: "snapshot", Session: "agent", Target: id}), target.CodeWindowPaused)
	wantCode(t, td.call(t, Request{Verb: "handback", Session: "operator", Target: id}.With(args.Operator{User: "alice"})), "")
	wantCode(t, td.call(t, Request{Verb: "snapshot", Session: "agent", Target: id}), "")
	// --force hands back whoever took over, from a session that sees it —
	// but never from the paused agent's own.
	wantCode(t, td.call(t, Request{Verb: "takeover", Session: "operator", Target: id}), "")
	wantCode(t, td.call(t, Request{Verb: "handback", Session: "agent", Target: id}.With(args.Operator{Force: true})), target.CodeWindowPaused)
	wantCode(t, td.call(t, Request{Verb: "handback", Session: "operator", Target: id}.With(args.Operator{User: "bob", Force: true})), "")
	wantCode(t, td.call(t, Request{Verb: "snapshot", Session: "agent", Target: id}), "")
}

func TestListCarriesCapabilities(t *testing.T) {
	td := startDaemon(t, &kindtest.Provider{NoInject: true}, "")
	td.open(t, "a")
	resp := td.call(t, Request{Verb: "list", Session: "a"})
	wantCode(t, resp, "")
	if len(resp.Targets) != 1 {
		t.Fatalf("list %+v", resp.Targets)
	}
	got := map[target.Verb]target.Capability{}
	for _, c := range resp.Targets[0].Capabilities {
		got[c.Verb] = c
	}
	if c := got[target.VerbSnapshot]; !c.OK() || c.Road != target.RoadTree {
		t.Errorf("snapshot %+v", c)
	}
	if c := got[target.VerbClickRef]; c.Road != target.RoadTree {
		t.Errorf("click @ref %+v", c)
	}
	if c := got[target.VerbKey]; c.OK() || c.Refusal == nil || c.Refusal.Code != target.CodeNoInjectionBackend {
		t.Errorf("key without injection %+v", c)
	}
	if len(got) != 8 {
		t.Errorf("%d verbs: %+v", len(got), got)
	}
}
