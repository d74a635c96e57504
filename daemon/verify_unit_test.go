package daemon

import (
	"sync"
	"testing"

	"github.com/vibespace/vibespace/daemon/kind/kindtest"
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
	wantCode(t, td.call(t, Request{Verb: "key", Session: "s", Target: string(e.id), Chord: "a"}), "")
	b.Display().OnInfo(nil)
	mu.Lock()
	defer mu.Unlock()
	if held != 0 {
		t.Fatalf("a slot was held %d times while the target was read", held)
	}
}
