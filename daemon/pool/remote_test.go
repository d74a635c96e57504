package pool

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// host stands in for another host's daemon for the queue's rules (the
// road over a real sshd is cmd/internal/poolroad's test): it lends its
// one desktop to one session, or is down.
type host struct {
	mu     sync.Mutex
	holder string
	down   error
	calls  []string
}

func (h *host) Host() string { return "ssh://me@elsewhere:22" }

func (h *host) Borrow(_ context.Context, session string) (string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls = append(h.calls, "borrow "+session)
	if h.down != nil {
		return "", h.down
	}
	if h.holder != "" && h.holder != session {
		return "", target.Refuse(target.CodePoolBusy, "lent")
	}
	h.holder = session
	return "desk1", nil
}

func (h *host) Return(_ context.Context, session string) (string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls = append(h.calls, "return "+session)
	if h.holder != session {
		return "", target.Refuse(target.CodeNotAttached, "none")
	}
	h.holder = ""
	return "returned desk1: wiped", nil
}

func (h *host) Ping(context.Context) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.down
}

// TestRemoteMemberInTheQueue: a remote member is lent past the local cap
// (it takes no memory here), borrowed there as the borrower's session and
// returned there; an open on it is refused elsewhere naming the host and
// its name there, to its borrower, and held to anyone else. A host that
// does not answer fails the borrow no_display with the reason, and is
// skipped (doctor, status) until a ping reaches it again.
func TestRemoteMemberInTheQueue(t *testing.T) {
	h := &host{}
	p, _ := paper(1, Config{Remotes: []Remote{h}, MemFree: func() (int64, error) { return 0, nil }})
	ctx := context.Background()
	if c, _ := p.Cap(); c != 0 {
		t.Fatalf("cap %d, want 0 local desktops", c)
	}
	l, err := p.Borrow(ctx, "a", false, "", 0)
	if err != nil || l.Desk != "desk2" || l.Host != h.Host() || l.There != "desk1" || l.Kind != KindRemote+h.Host() {
		t.Fatalf("borrow past the local cap: %+v %v", l, err)
	}
	if _, err := p.Borrow(ctx, "b", false, "", 0); !isCode(err, target.CodePoolBusy) {
		t.Fatalf("a second borrow: %v", err)
	}
	if err := func() error { _, err := p.Return(ctx, "a", ReturnAsked); return err }(); err != nil {
		t.Fatal(err)
	}
	// A person (the live view here) is never lent another host's desktop.
	if _, err := p.Borrow(ctx, Person, true, "", 0); !isCode(err, target.CodePoolBusy) {
		t.Fatalf("a person's borrow with only the remote member free: %v", err)
	}
	if l, err := p.Borrow(ctx, "a", false, "", 0); err != nil || l.Desk != "desk2" {
		t.Fatalf("a's borrow again: %+v %v", l, err)
	}
	st := &Stage{p: p}
	open := func(session string) error {
		return st.Admit(ctx, &stage.Call{Req: wire.Request{Verb: "open", Session: session}, Args: args.Open{App: "x", Display: "desk2"}})
	}
	r, _ := target.AsRefusal(open("a"))
	if r == nil || r.Code != target.CodeElsewhere || r.Facts["host"] != h.Host() || r.Facts["display"] != "desk1" {
		t.Fatalf("the borrower's open on desk2: %+v", r)
	}
	if !isCode(open("b"), target.CodeHeld) {
		t.Fatalf("another's open on desk2: %v", open("b"))
	}
	w, err := p.Return(ctx, "a", ReturnAsked)
	if err != nil || w.Host != h.Host() || !strings.Contains(w.String(), "returned on "+h.Host()+" (desk1 there)") || h.holder != "" {
		t.Fatalf("return: %v %v, there held by %q", w, err, h.holder)
	}

	h.down = target.Refuse(target.CodeHostUnreachable, "ssh could not reach it")
	_, err = p.Borrow(ctx, "a", false, "", 0)
	if r, _ := target.AsRefusal(err); r == nil || r.Code != target.CodeNoDisplay || !strings.Contains(r.Message, "ssh could not reach it") {
		t.Fatalf("a borrow of the unreachable member: %v", err)
	}
	n := len(h.calls)
	// The local desktop is past its cap: pool_busy, saying why the remote is skipped.
	if _, err := p.Borrow(ctx, "a", false, "", 0); !isCode(err, target.CodePoolBusy) || !strings.Contains(err.Error(), "desk2 on "+h.Host()+" is unreachable") || len(h.calls) != n {
		t.Fatalf("the unreachable member was not skipped: %v, calls %v", err, h.calls)
	}
	if f := st.Faults(); len(f) != 1 || !strings.Contains(f[0], "unreachable") {
		t.Fatalf("faults: %v", f)
	}
	if c := p.Desks()[1].Doctor(ctx); c[0].OK || !strings.Contains(c[0].Detail, "ssh could not reach it") {
		t.Fatalf("doctor: %+v", c)
	}
	h.down = nil
	p.checkRemotes(ctx)
	if l, err := p.Borrow(ctx, "a", false, "", 0); err != nil || l.Desk != "desk2" {
		t.Fatalf("after the host answers again: %+v %v", l, err)
	}
}

// TestUnreachableMemberRequeues: a borrow that the queue handed a remote
// member whose host turned out unreachable goes back to the queue for the
// rest of its wait, and gets the local desktop given back meanwhile.
func TestUnreachableMemberRequeues(t *testing.T) {
	h := &host{down: target.Refuse(target.CodeHostUnreachable, "ssh could not reach it")}
	p, _ := paper(1, Config{Remotes: []Remote{h}})
	ctx := context.Background()
	if l, err := p.Borrow(ctx, "a", false, "", 0); err != nil || l.Desk != "desk1" {
		t.Fatalf("a: %+v %v", l, err)
	}
	got := make(chan Lent, 1)
	go func() {
		l, err := p.Borrow(ctx, "b", false, "", 30*time.Second)
		if err != nil {
			t.Error(err)
		}
		got <- l
	}()
	// b tried desk2 (its host is down), and queues again.
	for p.Queued() != 1 || !p.isDown(p.desks[1]) {
		time.Sleep(time.Millisecond)
	}
	if _, err := p.Return(ctx, "a", ReturnAsked); err != nil {
		t.Fatal(err)
	}
	if l := <-got; l.Desk != "desk1" {
		t.Fatalf("b got %+v, want desk1 once a returned it", l)
	}
}
