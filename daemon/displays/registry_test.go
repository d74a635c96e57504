package displays

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/kind/kindtest"
	"github.com/vibespace/vibespace/daemon/notice"
	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/target"
)

// host is a core double: targets by display, leases by target, and what
// the registry recorded, owed and persisted. Its Locked methods are called
// with the registry's lock held, as the core's are.
type host struct {
	closed  bool
	on      map[*Display][]Gone // the targets living on each display
	holders map[target.ID]string

	mu       sync.Mutex // guards the fields below (called without the registry's lock)
	persists int
	records  []lease.Entry
	owed     []notice.Notice
	released []target.ID
}

func newHost() *host {
	return &host{on: map[*Display][]Gone{}, holders: map[target.ID]string{}}
}

func (h *host) ClosedLocked() bool { return h.closed }
func (h *host) CountLocked() map[*Display]int {
	out := map[*Display]int{}
	for disp, gs := range h.on {
		out[disp] = len(gs)
	}
	return out
}
func (h *host) DropLocked(disp *Display) []Gone {
	gs := h.on[disp]
	delete(h.on, disp)
	return gs
}
func (h *host) KnownLocked(*Display) (map[string]bool, []int) { return map[string]bool{}, nil }
func (h *host) Adopt(context.Context, *Display, kind.Found)   {}
func (h *host) AdoptDesktop(*Display, kind.Found) bool        { return false }
func (h *host) Sweep(context.Context)                         {}
func (h *host) Persist()                                      { h.mu.Lock(); h.persists++; h.mu.Unlock() }
func (h *host) Record(e lease.Entry)                          { h.mu.Lock(); h.records = append(h.records, e); h.mu.Unlock() }
func (h *host) Owe(n notice.Notice)                           { h.mu.Lock(); h.owed = append(h.owed, n); h.mu.Unlock() }
func (h *host) Release(id target.ID) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.released = append(h.released, id)
	return h.holders[id]
}

// registry is a registry over h with max per-session displays and the
// idle stop idle, its loops counted in wg.
func registry(t *testing.T, h *host, max int, idle time.Duration) (*Registry, *sync.Mutex) {
	t.Helper()
	mu := &sync.Mutex{}
	stop := make(chan struct{})
	wg := &sync.WaitGroup{}
	t.Cleanup(func() { close(stop); wg.Wait() })
	return New(mu, h, Options{
		Logger: slog.New(slog.DiscardHandler), Now: time.Now,
		MaxSessionDisplays: max, DefaultMax: 4, IdleStop: idle, DefaultIdleStop: 5 * time.Minute,
		Stop: stop, WG: wg,
	}), mu
}

func TestUseStartsADisplayOnce(t *testing.T) {
	p := &kindtest.Provider{}
	r, _ := registry(t, newHost(), 4, time.Minute)
	var wg sync.WaitGroup
	got := make([]*Display, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			disp, release, err := r.Use(t.Context(), p, "s"+string(rune('a'+i)))
			if err != nil {
				t.Error(err)
				return
			}
			release()
			got[i] = disp
		}()
	}
	wg.Wait()
	if p.Started() != 1 {
		t.Fatalf("eight opens on a shared display started %d", p.Started())
	}
	for _, disp := range got {
		if disp != got[0] || disp.Key() != "fake" || disp.Session() != "" || disp.PerSession() {
			t.Fatalf("a shared display is one, keyed by its provider: %+v vs %+v", disp, got[0])
		}
	}
}

func TestSessionDisplayCeiling(t *testing.T) {
	p := &kindtest.Provider{NameIs: "xp", PerSessionIs: true}
	h := newHost()
	r, _ := registry(t, h, 2, time.Minute)
	a, releaseA, err := r.Use(t.Context(), p, "a")
	if err != nil {
		t.Fatal(err)
	}
	defer releaseA()
	if _, _, err := r.Use(t.Context(), p, "b"); err != nil {
		t.Fatal(err)
	}
	if again, release, err := r.Use(t.Context(), p, "a"); err != nil || again != a {
		t.Fatalf("a session's own display again: %v, %v", again == a, err)
	} else {
		release()
	}
	_, _, err = r.Use(t.Context(), p, "c")
	ref, ok := target.AsRefusal(err)
	if !ok || ref.Code != target.CodeDisplayLimit {
		t.Fatalf("a third per-session display under a ceiling of 2: %v", err)
	}
	if !strings.Contains(ref.Message, "none of them is yours") || !strings.Contains(ref.Message, "2 other(s) belong to other sessions") {
		t.Errorf("the refusal does not say whose they are: %q", ref.Message)
	}
	if p.Started() != 2 {
		t.Errorf("started %d displays, want 2", p.Started())
	}
	if sd := r.SessionDisplays(); len(sd) != 2 || sd[0].session != "a" || sd[1].session != "b" {
		t.Errorf("session displays: %+v", sd)
	}
}

func TestIdleStop(t *testing.T) {
	xp := &kindtest.Provider{NameIs: "xp", PerSessionIs: true}
	shared := &kindtest.Provider{NameIs: "shared"}
	h := newHost()
	r, mu := registry(t, h, 4, time.Minute)
	held, release, err := r.Use(t.Context(), xp, "held")
	if err != nil {
		t.Fatal(err)
	}
	used, err := r.Ensure(t.Context(), xp)
	if err != nil {
		t.Fatal(err)
	}
	idle, err := r.Ensure(t.Context(), shared)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	h.on[used] = []Gone{{ID: "win:1"}}
	mu.Unlock()
	// Unused since the last look and now: a stop of 0 stops it on the
	// second look, the first only notes since when it is idle.
	r.stopIdle(0)
	if len(r.All()) != 3 {
		t.Fatalf("the first look stopped a display: %d left", len(r.All()))
	}
	release()
	r.stopIdle(0) // held is idle from now
	r.stopIdle(0)
	if r.Running(held.Key()) != nil || !xp.Displays()[0].Closed() {
		t.Fatal("a per-session display with no window and no open was not stopped")
	}
	if r.Running(used.Key()) != used || r.Running(idle.Key()) != idle {
		t.Fatal("a display with a window, or a shared one, was stopped as idle")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.records) != 1 || h.records[0].Verb != "display-stop" || h.records[0].For != "held" || !h.records[0].OK {
		t.Errorf("the idle stop's audit: %+v", h.records)
	}
	if h.persists == 0 {
		t.Error("an idle stop was not persisted")
	}
}

func TestLostBookRoundTrip(t *testing.T) {
	p := &kindtest.Provider{}
	h := newHost()
	r, mu := registry(t, h, 4, time.Minute)
	disp, err := r.Ensure(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	h.on[disp] = []Gone{{ID: "win:2", Title: "Two", Origin: "a"}, {ID: "win:1", Title: "One", Origin: "a"}}
	h.holders["win:2"] = "b"
	mu.Unlock()
	p.Display().Die("killed by signal 9 (SIGKILL)")
	if !r.DiedNow(disp) {
		t.Fatal("a display whose server ended is not seen dead")
	}
	if r.DiedNow(disp) && r.Running(disp.Key()) != nil {
		t.Fatal("a dead display is still running")
	}
	unknown := target.Refuse(target.CodeUnknownTarget, "there is no target")
	for _, id := range []target.ID{"win:1", "win:2"} {
		err := r.LostOr(false, id, unknown)
		if target.CodeOf(err) != target.CodeWindowGone || !strings.Contains(err.Error(), "killed by signal 9") {
			t.Errorf("%s: %v", id, err)
		}
		if target.CodeOf(r.LostOr(true, id, unknown)) != target.CodeNoAttach {
			t.Errorf("%s: watch --xpra on a lost window is not no_attach", id)
		}
	}
	if r.LostOr(false, "win:3", unknown) != unknown {
		t.Error("a handle never lost is not left as it was")
	}
	// The loss is told by whoever saw the death first (its watcher, or
	// DiedNow): wait for both notices.
	owed := map[target.ID]string{}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		h.mu.Lock()
		for _, n := range h.owed {
			owed[n.Target] = n.Session
		}
		h.mu.Unlock()
		if len(owed) == 2 || time.Now().After(deadline) {
			break
		}
	}
	if owed["win:1"] != "a" || owed["win:2"] != "b" {
		t.Errorf("the notices went to %v, want win:1 to its opener a, win:2 to its holder b", owed)
	}
	// What state.json keeps brings them back in a new daemon's registry,
	// in handle order.
	rec := r.LostRecord()
	var ls []Lost
	if err := json.Unmarshal(rec, &ls); err != nil || len(ls) != 2 || ls[0].ID != "win:1" || ls[1].Title != "Two" {
		t.Fatalf("the lost record: %s (%v)", rec, err)
	}
	again, _ := registry(t, newHost(), 4, time.Minute)
	again.RestoreLost(rec)
	for _, id := range []target.ID{"win:1", "win:2"} {
		if want, got := r.LostOr(false, id, nil).Error(), again.LostOr(false, id, nil).Error(); got != want {
			t.Errorf("%s after a restart: %q, want %q", id, got, want)
		}
	}
	if string(again.LostRecord()) != string(rec) {
		t.Errorf("the record did not round-trip: %s vs %s", again.LostRecord(), rec)
	}
}

func TestStalledDisplay(t *testing.T) {
	p := &kindtest.Provider{}
	r, _ := registry(t, newHost(), 4, time.Minute)
	disp, err := r.Ensure(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	p.Display().Stop()
	defer p.Display().Cont()
	read := func(ctx context.Context) error { return p.Display().Healthy(ctx) }
	err = r.Budgeted(t.Context(), disp, "win:1", 20*time.Millisecond, read)
	if target.CodeOf(err) != target.CodeDisplayNotAnswering || r.StalledSince(disp).IsZero() {
		t.Fatalf("a read its budget cut: %v (stalled since %v)", err, r.StalledSince(disp))
	}
	if ref, _ := target.AsRefusal(err); ref.Facts["target"] != "win:1" {
		t.Errorf("the refusal does not name its window: %+v", ref.Facts)
	}
	p.Display().Cont()
	if !r.Answers(t.Context(), disp) || !r.StalledSince(disp).IsZero() {
		t.Fatal("a display that answers again is still marked")
	}
	if err := r.Budgeted(t.Context(), nil, "tab:1", time.Nanosecond, func(context.Context) error { return nil }); err != nil {
		t.Errorf("a tab's read is budgeted here: %v", err)
	}
}
