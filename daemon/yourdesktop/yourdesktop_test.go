package yourdesktop

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/daemon/stage/stagetest"
	"github.com/vibespace/vibespace/daemon/verb"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/target"
)

// road is a road to a desktop that connects a person display.
type road struct {
	kind.DesktopProvider
	kd *person
}

func (r *road) Name() string { return "desktop" }
func (r *road) Connect(ctx context.Context, env kind.DesktopEnv) (kind.Display, error) {
	return r.kd, nil
}

// person is the desktop's display: its person's input is watched.
type person struct {
	kind.Display
	touched func(kind.Touch)
	lost    func(error)
}

func (p *person) Name() string { return ":9" }
func (p *person) Close() error { return nil }
func (p *person) WatchPerson(touched func(kind.Touch), lost func(error)) error {
	p.touched, p.lost = touched, lost
	return nil
}

// host is the core as the desktop sees it: one display, its targets.
type host struct {
	mu      sync.Mutex
	now     time.Time
	kd      kind.Display
	targets map[target.ID]*target.Target
	leases  map[target.ID]string
	rows    []lease.Entry
	paused  []string
	saved   int
}

func newHost() *host {
	return &host{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), targets: map[target.ID]*target.Target{}, leases: map[target.ID]string{}}
}

func (h *host) Now() time.Time        { return h.now } // called under the host's lock, as the core's clock is
func (h *host) Logger() *slog.Logger  { return slog.New(slog.DiscardHandler) }
func (h *host) Record(e lease.Entry)  { h.mu.Lock(); h.rows = append(h.rows, e); h.mu.Unlock() }
func (h *host) Persist()              { h.mu.Lock(); h.saved++; h.mu.Unlock() }
func (h *host) Display() kind.Display { h.mu.Lock(); defer h.mu.Unlock(); return h.kd }
func (h *host) Open(kd kind.Display, opened func()) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.kd != nil {
		return false
	}
	h.kd = kd
	opened()
	return true
}
func (h *host) Discover(ctx context.Context, kd kind.Display) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.targets["win:3"] = &target.Target{ID: "win:3", Desktop: true}
}
func (h *host) Count(kd kind.Display) int { h.mu.Lock(); defer h.mu.Unlock(); return len(h.targets) }
func (h *host) Close(kd kind.Display, forgot func([]target.ID)) ([]lease.Lease, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.kd != kd {
		return nil, false
	}
	var ids []target.ID
	var held []lease.Lease
	for id := range h.targets {
		ids = append(ids, id)
		if who := h.leases[id]; who != "" {
			held = append(held, lease.Lease{Target: id, Holder: who})
		}
	}
	h.kd, h.targets = nil, map[target.ID]*target.Target{}
	forgot(ids)
	return held, true
}
func (h *host) Grant(c *stage.Call, on bool) (target.ID, bool, bool, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	id, _ := target.ParseID(c.Req.Target)
	t := h.targets[id]
	if t == nil {
		return "", false, false, target.Refuse(target.CodeUnknownTarget, "there is no target %s", id)
	}
	changed := t.Desktop && t.Pixels != on
	if changed {
		t.Pixels = on
	}
	return id, t.Desktop, changed, nil
}
func (h *host) Pause(kd kind.Display, user, session, how string) {
	h.mu.Lock()
	h.paused = append(h.paused, user+"/"+session+": "+how)
	h.mu.Unlock()
}

func code(err error) target.Code {
	if r, ok := target.AsRefusal(err); ok {
		return r.Code
	}
	return ""
}

// called is req as the stages see it: its verb's facts and its
// arguments decoded.
func called(req wire.Request) *stage.Call {
	f, _ := verb.Of(req.Verb)
	return stagetest.Decoded(&stage.Call{Req: req, Facts: f})
}

func answer(t *testing.T, y *Desktop, req wire.Request) (wire.Response, *stage.Call, error) {
	t.Helper()
	c := called(req)
	if err := y.Check(c); err != nil {
		return wire.Response{}, nil, err
	}
	resp, err := y.Answer(t.Context(), c)
	return resp, c, err
}

func TestCheck(t *testing.T) {
	y := New(&road{})
	for _, req := range []wire.Request{
		wire.Request{Verb: "desktop", Target: "win:1"}.With(args.Desktop{Action: "on"}),
		wire.Request{Verb: "desktop"}.With(args.Desktop{Action: "pixels"}),
		wire.Request{Verb: "desktop"}.With(args.Desktop{Action: "no-pixels"}),
		wire.Request{Verb: "desktop"}.With(args.Desktop{Action: "sideways"}),
	} {
		if err := y.Check(called(req)); code(err) != target.CodeBadRequest {
			t.Errorf("%+v (args %s): %v, want bad_request", req, req.Args, err)
		}
	}
	for _, req := range []wire.Request{
		{Verb: "desktop"},
		wire.Request{Verb: "desktop"}.With(args.Desktop{Action: "status"}),
		wire.Request{Verb: "desktop"}.With(args.Desktop{Action: "off"}),
		wire.Request{Verb: "desktop", Target: "win:1"}.With(args.Desktop{Action: "pixels"}),
	} {
		if err := y.Check(called(req)); err != nil {
			t.Errorf("%+v (args %s): %v", req, req.Args, err)
		}
	}
}

// TestOnOff: on opens the display and keeps who opened it under the
// state's "desktop" key; off forgets every window, names the leases it
// closed, and a handle it forgot is desktop_off.
func TestOnOff(t *testing.T) {
	h, kd := newHost(), &person{}
	y := New(&road{kd: kd})
	y.Bind(h)
	if _, _, err := answer(t, y, wire.Request{Verb: "desktop", Target: "win:3", Session: "op"}.With(args.Desktop{Action: "pixels"})); code(err) != target.CodeDesktopOff {
		t.Fatalf("pixels while off: %v", err)
	}
	if err := y.Never("open", target.Target{}, nil); code(err) != target.CodeDesktopOff {
		t.Fatalf("open on the desktop while off: %v", err)
	}
	if _, _, err := answer(t, y, wire.Request{Verb: "desktop", Session: "op"}.With(args.Desktop{Action: "on"})); code(err) != target.CodeBadRequest {
		t.Fatalf("on without an environment: %v", err)
	}
	resp, c, err := answer(t, y, wire.Request{Verb: "desktop", Session: "op"}.With(args.Desktop{Action: "on", Env: &wire.DesktopEnv{Display: ":9"}}))
	if err != nil || !strings.Contains(resp.Did, "is open to agents since 2026-01-02T03:04:05Z (by session op): 1 window(s)") || c.Fact.Setting != "on" {
		t.Fatalf("on: %q %v (setting %q)", resp.Did, err, c.Fact.Setting)
	}
	if kd.touched == nil {
		t.Fatal("the person's input is not watched")
	}
	if err := y.Never("open", target.Target{}, []string{"xvfb", "xpra"}); code(err) != target.CodeYourDesktop || !strings.Contains(err.Error(), "(xvfb, xpra)") {
		t.Fatalf("open on the desktop while on: %v", err)
	}
	for _, v := range []string{"close", "share"} {
		if err := y.Never(v, target.Target{ID: "win:3", Desktop: true}, nil); code(err) != target.CodeYourDesktop {
			t.Errorf("%s a window of the desktop: %v", v, err)
		}
		if err := y.Never(v, target.Target{ID: "win:1"}, nil); err != nil {
			t.Errorf("%s a window of ours: %v", v, err)
		}
	}
	records := map[string]json.RawMessage{}
	y.Keep(records)
	if got := string(records["desktop"]); got != `{"since":"2026-01-02T03:04:05Z","by":"op"}` {
		t.Fatalf("the setting's record: %s", got)
	}
	if resp, _, err := answer(t, y, wire.Request{Verb: "desktop", Target: "win:3", Session: "op"}.With(args.Desktop{Action: "pixels"})); err != nil || !strings.Contains(resp.Did, "are allowed now") {
		t.Fatalf("pixels: %q %v", resp.Did, err)
	}
	if resp, _, _ := answer(t, y, wire.Request{Verb: "desktop", Target: "win:3", Session: "op"}.With(args.Desktop{Action: "pixels"})); !strings.HasPrefix(resp.Did, "already so") {
		t.Fatalf("pixels twice: %q", resp.Did)
	}
	h.leases["win:3"] = "s2"
	resp, _, err = answer(t, y, wire.Request{Verb: "desktop", Session: "op"}.With(args.Desktop{Action: "off"}))
	if err != nil || !strings.Contains(resp.Did, "1 window(s) forgotten, 1 lease(s) closed (win:3 by s2)") {
		t.Fatalf("off: %q %v", resp.Did, err)
	}
	if err := y.Forgotten("win:3"); code(err) != target.CodeDesktopOff {
		t.Fatalf("a forgotten handle: %v", err)
	}
	if err := y.Forgotten("win:4"); err != nil {
		t.Fatalf("a handle never of the desktop: %v", err)
	}
	records = map[string]json.RawMessage{}
	y.Keep(records)
	if len(records) != 0 {
		t.Fatalf("off keeps %v", records)
	}
	if resp, _, _ := answer(t, y, wire.Request{Verb: "desktop", Session: "op"}); !strings.Contains(resp.Did, "not open to agents") {
		t.Fatalf("status after off: %q", resp.Did)
	}
}

// TestAdmit: the point verbs need the grant, and nothing is injected a
// moment after the person's touch (until a handback) or once their watch
// stopped; a window that is not the desktop's is admitted.
func TestAdmit(t *testing.T) {
	h, kd := newHost(), &person{}
	y := New(&road{kd: kd})
	y.Bind(h)
	if _, _, err := answer(t, y, wire.Request{Verb: "desktop", Session: "op"}.With(args.Desktop{Action: "on", Env: &wire.DesktopEnv{Display: ":9"}})); err != nil {
		t.Fatal(err)
	}
	win := target.Target{ID: "win:3", Desktop: true}
	for _, req := range []wire.Request{wire.Request{Verb: "click"}.With(args.Click{At: "1,1"}), wire.Request{Verb: "scroll"}} {
		if err := y.Admit(win, called(req)); code(err) != target.CodeNoPixelsGrant {
			t.Errorf("%s without the grant: %v", req.Verb, err)
		}
		if err := y.Admit(target.Target{ID: "win:1"}, called(req)); err != nil {
			t.Errorf("%s on a window of ours: %v", req.Verb, err)
		}
	}
	if err := y.Admit(win, called(wire.Request{Verb: "click"}.With(args.Click{Ref: "@e1"}))); err != nil {
		t.Errorf("click by ref: %v", err)
	}
	granted := win
	granted.Pixels = true
	if err := y.Admit(granted, called(wire.Request{Verb: "click"}.With(args.Click{At: "1,1"}))); err != nil {
		t.Errorf("click --at with the grant: %v", err)
	}
	kd.touched(kind.Touch{What: "key", Device: "kbd"})
	if len(h.paused) != 1 || h.paused[0] != `you/your desktop: a key on "kbd"` {
		t.Fatalf("the touch paused %v", h.paused)
	}
	if err := y.Admit(win, called(wire.Request{Verb: "key"})); code(err) != target.CodeUserActive {
		t.Errorf("a key right after the touch: %v", err)
	}
	if err := y.Admit(win, called(wire.Request{Verb: "snapshot"})); err != nil {
		t.Errorf("a snapshot right after the touch: %v", err)
	}
	y.Resumed(win)
	if err := y.Admit(win, called(wire.Request{Verb: "key"})); err != nil {
		t.Errorf("a key after the handback: %v", err)
	}
	kd.lost(errors.New("the X connection closed"))
	if err := y.Admit(win, called(wire.Request{Verb: "type"})); code(err) != target.CodeNoInjectionBackend || !strings.Contains(err.Error(), "the X connection closed") {
		t.Errorf("type once the watch stopped: %v", err)
	}
	if resp, _, _ := answer(t, y, wire.Request{Verb: "desktop", Session: "op"}); !strings.Contains(resp.Did, "NOT watched: the watch stopped") {
		t.Errorf("status once the watch stopped: %q", resp.Did)
	}
}

// TestRestore: a restarted daemon that reattached the desktop reads back
// an earlier daemon's record of the setting (the same key and form).
func TestRestore(t *testing.T) {
	h, kd := newHost(), &person{}
	h.kd = kd
	y := New(&road{kd: kd})
	y.Bind(h)
	y.Restore(map[string]json.RawMessage{"desktop": json.RawMessage(`{"since":"2025-12-01T10:00:00Z","by":"operator"}`)})
	if resp, _, _ := answer(t, y, wire.Request{Verb: "desktop", Session: "op"}); !strings.Contains(resp.Did, "since 2025-12-01T10:00:00Z (by session operator)") {
		t.Fatalf("status after a restart: %q", resp.Did)
	}
	if len(h.rows) != 1 || h.rows[0].Setting != "on: restored from the setting" || kd.touched == nil {
		t.Fatalf("restored: rows %+v, watched %v", h.rows, kd.touched != nil)
	}
}
