package handoff

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/target"
)

// rows is an audit log in memory.
type rows struct {
	mu  sync.Mutex
	all []lease.Entry
}

func (r *rows) record(e lease.Entry) {
	r.mu.Lock()
	r.all = append(r.all, e)
	r.mu.Unlock()
}

func (r *rows) verbs() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.all {
		out = append(out, e.Verb)
	}
	return out
}

// waitAsked waits until id is asked (or not), as the live view reads it.
func waitAsked(t *testing.T, d *Desk, id target.ID, asked bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, ok := d.Asks()[id]; ok == asked {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s asked: want %v", id, asked)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestDeskRules: one ask per target (a second is refused held); a
// handback of a target nobody took over since the ask leaves it asked; a
// takeover then a handback ends it "back" by that user; a decline ends it
// by the page's user; a decline of a target nobody asks about is refused;
// the bound and a cancelled call withdraw the ask; each is audited.
func TestDeskRules(t *testing.T) {
	d := New()
	var log rows
	d.record = log.record
	const id = target.ID("win:1")
	ctx := t.Context()

	type result struct {
		o   Outcome
		err error
	}
	run := func(ctx context.Context, wait time.Duration) <-chan result {
		ch := make(chan result, 1)
		go func() {
			o, err := d.Ask(ctx, "agent", id, "log in", wait)
			ch <- result{o, err}
		}()
		waitAsked(t, d, id, true)
		return ch
	}

	ch := run(ctx, time.Minute)
	if a := d.Asks()[id]; a.Session != "agent" || a.Reason != "log in" || a.User != "" {
		t.Fatalf("the ask %+v", a)
	}
	if _, err := d.Ask(ctx, "other", id, "me too", time.Second); target.CodeOf(err) != target.CodeHeld {
		t.Fatalf("a second ask: %v, want held", err)
	}
	d.handedBack(id, "ada") // nobody took it over: nothing ends
	if _, ok := d.Asks()[id]; !ok {
		t.Fatal("a handback with no takeover ended the ask")
	}
	d.taken(id, "ada")
	if a := d.Asks()[id]; a.User != "ada" {
		t.Fatalf("after the takeover the ask is %+v", a)
	}
	d.handedBack(id, "ada")
	if r := <-ch; r.err != nil || r.o.Word != Back || r.o.User != "ada" {
		t.Fatalf("the handback ended it %+v %v", r.o, r.err)
	}
	waitAsked(t, d, id, false)

	ch = run(ctx, time.Minute)
	if err := d.Decline(id, "viewer-1"); err != nil {
		t.Fatal(err)
	}
	if r := <-ch; r.o.Word != Declined || r.o.User != "viewer-1" {
		t.Fatalf("the decline ended it %+v", r.o)
	}
	if err := d.Decline(id, "viewer-1"); target.CodeOf(err) != target.CodeNotAttached {
		t.Fatalf("a decline of no ask: %v", err)
	}

	ch = run(ctx, 50*time.Millisecond)
	if r := <-ch; r.o.Word != Timeout || r.o.Driving {
		t.Fatalf("the bound ended it %+v", r.o)
	}
	waitAsked(t, d, id, false)

	cctx, cancel := context.WithCancel(ctx)
	ch = run(cctx, time.Minute)
	d.taken(id, "bob")
	cancel()
	if r := <-ch; r.o.Word != Cancelled || r.o.User != "bob" {
		t.Fatalf("the cancel ended it %+v", r.o)
	}
	waitAsked(t, d, id, false)

	want := []string{"handoff.ask", "handoff.taken", "handoff.back", "handoff.ask", "handoff.declined", "handoff.ask", "handoff.timeout", "handoff.ask", "handoff.taken", "handoff.cancelled"}
	if got := log.verbs(); len(got) != len(want) {
		t.Fatalf("audit rows %v, want %v", got, want)
	} else {
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("audit rows %v, want %v", got, want)
			}
		}
	}
}
