package stage

import (
	"context"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// watcher is a stage that watches, counting its watches.
type watcher struct {
	name    string
	watches int
}

func (w *watcher) Name() string { return w.name }

func (w *watcher) Watch(context.Context, *Call, Acting) Watch {
	w.watches++
	return unwatched{}
}

func reg(s Stage) Registration {
	return Registration{Name: s.Name(), New: func(Env) (Stage, error) { return s, nil }}
}

// TestWatchWithoutWatcher: a chain with no watcher registered (a daemon
// without stages) still lets an acting verb run: its watch looks at
// nothing, and its answer says honestly that the effect is unverifiable.
func TestWatchWithoutWatcher(t *testing.T) {
	ch, err := Make(nil, Env{})
	if err != nil {
		t.Fatal(err)
	}
	c := &Call{Req: wire.Request{Verb: "click"}}
	w := ch.Watch(t.Context(), c, Acting{})
	if w.Node() != nil {
		t.Errorf("saw node %+v with no watcher", w.Node())
	}
	resp := wire.Response{OK: true, Did: "clicked @e1"}
	w.After(t.Context(), &resp)
	if resp.Effect == nil || resp.Effect.Word != target.EffectUnverifiable || resp.Effect.Why != "no stage watches effects" {
		t.Fatalf("effect %+v, want unverifiable: no stage watches effects", resp.Effect)
	}
	if resp.Did != "clicked @e1 → unverifiable (no stage watches effects)" || !resp.OK {
		t.Errorf("answer %+v", resp)
	}
	if c.Before != "" || c.After != "" {
		t.Errorf("digests %q %q of looks never taken", c.Before, c.After)
	}
	resp = wire.Response{Did: "pressed a"}
	w.Unverified(&resp, "the target was busy")
	if resp.Effect.Why != "the target was busy" || resp.Did != "pressed a → unverifiable (the target was busy)" {
		t.Errorf("effect %+v, did %q", resp.Effect, resp.Did)
	}
}

// TestOneWatcher: the chain asks its watcher; a second one is refused as
// the chain is made.
func TestOneWatcher(t *testing.T) {
	w := &watcher{name: "verifying"}
	ch, err := Make([]Registration{reg(w)}, Env{})
	if err != nil {
		t.Fatal(err)
	}
	ch.Watch(t.Context(), &Call{}, Acting{})
	if w.watches != 1 {
		t.Errorf("the watcher watched %d times, want once", w.watches)
	}
	_, err = Make([]Registration{reg(w), reg(&watcher{name: "another"})}, Env{})
	if err == nil || !strings.Contains(err.Error(), "stage another watches acting verbs") {
		t.Errorf("two watchers: %v, want refused", err)
	}
}
