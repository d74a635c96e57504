package daemon

import (
	"github.com/vibespace/vibespace/daemon/args"
	"slices"
	"sync"
	"testing"

	"github.com/vibespace/vibespace/daemon/kind/kindtest"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/daemon/verifying"
	"github.com/vibespace/vibespace/target"
)

// TestLookBeforeHoldsNoSlot: the look before a key acts (which may take
// up to VerifyWait) holds neither its display's injection slot nor its
// stacking slot, so other windows of the display are not kept waiting.
func TestLookBeforeHoldsNoSlot(t *testing.T) {
	b := &kindtest.Provider{}
	td := startDaemon(t, b, "")
	e := td.entryOf(td.open(t, "s"))
	var mu sync.Mutex
	held := 0
	b.Display().OnInfo(func() {
		for _, try := range []func() (func(), bool){e.disp.TryInjecting, e.disp.TryStacking} {
			if release, ok := try(); ok {
				release()
				continue
			}
			mu.Lock()
			held++
			mu.Unlock()
		}
	})
	wantCode(t, td.call(t, Request{Verb: "key", Session: "s", Target: string(e.id)}.With(args.Key{Chord: "a"})), "")
	b.Display().OnInfo(nil)
	mu.Lock()
	defer mu.Unlock()
	if held != 0 {
		t.Fatalf("a slot was held %d times while the target was read", held)
	}
}

// TestEffectWithoutWatcher: a daemon with no stage that watches effects
// (the program's stages but the verifier) still runs acting verbs, and
// says honestly that their effect is unverifiable; the stages the program
// runs watch it.
func TestEffectWithoutWatcher(t *testing.T) {
	for _, bare := range []bool{true, false} {
		b := &kindtest.Provider{}
		td := startDaemonWith(t, b, "", func(c *Config) {
			if bare {
				c.Stages = slices.DeleteFunc(c.Stages, func(r stage.Registration) bool { return r.Name == verifying.Name })
			}
		})
		id := td.open(t, "s")
		resp := td.call(t, Request{Verb: "key", Session: "s", Target: string(id)}.With(args.Key{Chord: "a"}))
		wantCode(t, resp, "")
		if resp.Effect == nil {
			t.Fatalf("bare %v: no effect on %+v", bare, resp)
		}
		unwatched := resp.Effect.Word == target.EffectUnverifiable && resp.Effect.Why == "no stage watches effects"
		if unwatched != bare {
			t.Errorf("bare %v: effect %+v, did %q", bare, resp.Effect, resp.Did)
		}
	}
}
