package daemon

import (
	"context"
	"encoding/json"
	"github.com/vibespace/vibespace/daemon/args"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/kind/kindtest"
	"github.com/vibespace/vibespace/target"
)

// discProvider is kindtest's provider whose displays find the windows a
// test shows: each as it says, once its root is among the scan's.
type discProvider struct {
	*kindtest.Provider
	mu    sync.Mutex
	shown []kind.Found
	scans int
}

type discDisplay struct {
	*kindtest.Display
	p *discProvider
}

func (p *discProvider) Start(ctx context.Context) (kind.Display, error) {
	d, err := p.Provider.Start(ctx)
	if err != nil {
		return nil, err
	}
	return &discDisplay{Display: d.(*kindtest.Display), p: p}, nil
}

func (p *discProvider) Reattach(ctx context.Context, rec json.RawMessage) (kind.Display, error) {
	d, err := p.Provider.Reattach(ctx, rec)
	if err != nil {
		return nil, err
	}
	return &discDisplay{Display: d.(*kindtest.Display), p: p}, nil
}

func (d *discDisplay) Discover(ctx context.Context, roots []int, known map[string]bool) ([]kind.Found, error) {
	d.p.mu.Lock()
	defer d.p.mu.Unlock()
	d.p.scans++
	var out []kind.Found
	for _, f := range d.p.shown {
		for _, r := range roots {
			if r == f.Root && !known[f.Info.Key] {
				out = append(out, f)
			}
		}
	}
	return out, nil
}

// show makes a window on the fake display that a scan finds as one of
// root's process tree (a child process's: its own pid).
func (p *discProvider) show(t *testing.T, root int) kind.Found {
	t.Helper()
	w, err := p.Display().Launch(t.Context(), []string{"fake-dialog"})
	if err != nil {
		t.Fatal(err)
	}
	info, err := w.Info(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	f := kind.Found{Target: w, Info: info, Root: root, App: "fake-child"}
	p.mu.Lock()
	p.shown = append(p.shown, f)
	p.mu.Unlock()
	return f
}

func startDiscovering(t *testing.T, dir string) (*testDaemon, *discProvider) {
	t.Helper()
	p := &discProvider{Provider: &kindtest.Provider{}}
	td := startDaemonWith(t, p.Provider, dir, func(c *Config) { c.Displays = []kind.DisplayProvider{p} })
	return td, p
}

// listIDs lists as session s.
func listIDs(t *testing.T, td *testDaemon, s string) map[target.ID]TargetInfo {
	t.Helper()
	resp := td.call(t, Request{Verb: "list", Session: s})
	wantCode(t, resp, "")
	out := map[target.ID]TargetInfo{}
	for _, ti := range resp.Targets {
		out[ti.ID] = ti
	}
	return out
}

// TestFoundWindowJoinsItsSession: a window found for a target's process
// is a new target exposed as that one is, held by its holder, opened by
// its opener; it survives a restart with where it came from; its close,
// where the window cannot be asked, is refused no_close naming the window
// whose close stops the app.
func TestFoundWindowJoinsItsSession(t *testing.T) {
	dir := t.TempDir()
	td, p := startDiscovering(t, dir)
	first := td.open(t, "a")
	wantCode(t, td.call(t, Request{Verb: "share", Session: "a", Target: string(first)}.With(args.Share{With: "b"})), "")
	other := td.open(t, "c")
	root := listIDs(t, td, "a")[first].PID
	f := p.show(t, root)
	p.show(t, 1<<30) // of nobody's process: never a target

	ls := listIDs(t, td, "a")
	if len(ls) != 2 {
		t.Fatalf("a lists %v", ls)
	}
	var found TargetInfo
	for id, ti := range ls {
		if id != first {
			found = ti
		}
	}
	if found.PID != f.Info.PID || found.Holder != "a" || found.Origin != "a" || found.App != "fake-child" ||
		strings.Join(found.Exposure, ",") != "a,b" || found.ID.Number() <= other.Number() {
		t.Fatalf("the found window is listed as %+v", found)
	}
	if ls := listIDs(t, td, "b"); ls[found.ID].ID == "" {
		t.Fatalf("b, whom the first window was shared with, lists %v", ls)
	}
	if ls := listIDs(t, td, "c"); len(ls) != 1 || ls[other].ID == "" {
		t.Fatalf("c lists %v", ls)
	}
	wantCode(t, td.call(t, Request{Verb: "snapshot", Session: "c", Target: string(found.ID)}), target.CodeNotExposed)
	wantCode(t, td.call(t, Request{Verb: "key", Session: "b", Target: string(found.ID)}.With(args.Key{Chord: "a"})), target.CodeHeld)
	wantCode(t, td.call(t, Request{Verb: "key", Session: "a", Target: string(found.ID)}.With(args.Key{Chord: "a"})), "")
	if again := listIDs(t, td, "a"); len(again) != 2 {
		t.Fatalf("a second list found it again: %v", again)
	}

	// A daemon killed with -9: the next one has it, from its window.
	td.Detach()
	<-td.done
	td2 := startDaemonWith(t, p.Provider, dir, func(c *Config) { c.Displays = []kind.DisplayProvider{p} })
	e := td2.entryOf(found.ID)
	if e == nil || e.rec.From != first {
		t.Fatalf("after a restart the found window is %+v", e)
	}
	resp := td2.call(t, Request{Verb: "close", Session: "a", Target: string(found.ID)})
	wantCode(t, resp, target.CodeNoClose)
	if !strings.Contains(resp.Message, "close "+string(first)) {
		t.Fatalf("no_close does not name the first window: %q", resp.Message)
	}
	if ls := listIDs(t, td2, "a"); len(ls) != 2 {
		t.Fatalf("a refused close dropped a window: %v", ls)
	}
	wantCode(t, td2.call(t, Request{Verb: "close", Session: "a", Target: string(first)}), "")
}

// TestFoundWindowOfPausedWindow: a window found while a person drives the
// one it came from is theirs too: an agent verb on it is refused
// window_paused. A window found for a free window is free.
func TestFoundWindowOfPausedWindow(t *testing.T) {
	td, p := startDiscovering(t, "")
	first := td.open(t, "a")
	free := td.open(t, "a")
	wantCode(t, td.call(t, Request{Verb: "detach", Session: "a", Target: string(free)}), "")
	wantCode(t, td.call(t, Request{Verb: "takeover", Session: "a", Target: string(first)}.With(args.Operator{User: "alice"})), "")
	ls := listIDs(t, td, "a")
	paused := p.show(t, ls[first].PID)
	loose := p.show(t, ls[free].PID)
	ls = listIDs(t, td, "a")
	var pausedID, looseID target.ID
	for id, ti := range ls {
		switch ti.PID {
		case paused.Info.PID:
			pausedID = id
		case loose.Info.PID:
			looseID = id
		}
	}
	if ls[pausedID].Input != "user" || ls[pausedID].User != "alice" || ls[looseID].Holder != "" {
		t.Fatalf("found windows: paused %+v, loose %+v", ls[pausedID], ls[looseID])
	}
	wantCode(t, td.call(t, Request{Verb: "key", Session: "a", Target: string(pausedID)}.With(args.Key{Chord: "a"})), target.CodeWindowPaused)
}

// TestScanEveryTick: nobody lists, and the daemon still scans.
func TestScanEveryTick(t *testing.T) {
	td, p := startDiscovering(t, "")
	td.open(t, "a")
	for {
		p.mu.Lock()
		n := p.scans
		p.mu.Unlock()
		if n >= 2 {
			return
		}
		select {
		case <-t.Context().Done():
			t.Fatal("no scan on the daemon's tick")
		case <-time.After(10 * time.Millisecond):
		}
	}
}
