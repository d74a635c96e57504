package verifying

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/png"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/daemon/stage/stagetest"
	"github.com/vibespace/vibespace/daemon/verb"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// watcher is the stage with a short wait, as a stage.Watcher.
func watcher(t *testing.T, wait time.Duration) stage.Watcher {
	t.Helper()
	s, err := New(stage.Env{Now: time.Now, VerifyWait: wait, VerifyPoll: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	w, ok := s.(stage.Watcher)
	if !ok {
		t.Fatalf("%T is no stage.Watcher", s)
	}
	return w
}

// acting is a call of verb v on win:1 that took road.
func acting(t *testing.T, v string, road target.Road) *stage.Call {
	t.Helper()
	f, ok := verb.Of(v)
	if !ok {
		t.Fatalf("no verb %s", v)
	}
	req := wire.Request{Verb: v, Session: "s", Target: "win:1"}
	if slices.Contains(args.Fields(v), "ref") {
		req.Args = json.RawMessage(`{"ref":"@e1"}`)
	}
	return stagetest.Decoded(&stage.Call{Req: req, Facts: f, Road: road})
}

// picture is a 64×64 PNG of one colour.
func picture(t *testing.T, c color.Color) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 64, 64))
	for y := range 64 {
		for x := range 64 {
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestConfirmedAtTheNode: a click that checks the box it acted on is
// confirmed with the change seen; the look before takes the node's facts
// as the verb read them (no read of its own: act once), the looks after
// read it; the call carries both looks' digests for the trace.
func TestConfirmedAtTheNode(t *testing.T) {
	sight := stagetest.SightOf("win:1")
	acted := false
	sight.NodeFacts = func(n kind.Node) (*target.Node, error) {
		if n.Ref != "@e1" {
			t.Errorf("read node %q, want @e1", n.Ref)
		}
		nd := &target.Node{Role: "check box", Name: "Bold"}
		if acted {
			nd.States = []string{"checked"}
		}
		return nd, nil
	}
	sight.Look = func() (string, string, bool, error) { return "Editor", "", false, nil }
	c := acting(t, "click", target.RoadTree)
	w := watcher(t, 2*time.Second).Watch(t.Context(), c, stage.Acting{Sight: sight, Node: &kind.Node{Ref: "@e1"},
		Read: &target.Node{Role: "check box", Name: "Bold"}})
	if sight.NodeReads != 0 {
		t.Fatalf("the look before read the node %d times; the verb's own read was given", sight.NodeReads)
	}
	if n := w.Node(); n == nil || n.Name != "Bold" {
		t.Fatalf("the watch saw node %+v before, want the verb's read", n)
	}
	if c.Before == "" {
		t.Fatal("no digest of the look before on the call")
	}
	acted = true
	resp := wire.Response{Did: "clicked @e1"}
	start := time.Now()
	w.After(t.Context(), &resp)
	if time.Since(start) > time.Second {
		t.Errorf("the watch waited %v past a change", time.Since(start))
	}
	if resp.Effect == nil || resp.Effect.Word != target.EffectConfirmed {
		t.Fatalf("effect %+v, want confirmed", resp.Effect)
	}
	if !strings.HasPrefix(resp.Did, "clicked @e1 → confirmed: ") || !strings.Contains(resp.Did, "checked") {
		t.Errorf("did %q, want the verb's words then the effect seen", resp.Did)
	}
	if sight.NodeReads == 0 {
		t.Error("the looks after never read the node")
	}
	if c.After == "" || c.After == c.Before {
		t.Errorf("digests before %q after %q: want two that differ", c.Before, c.After)
	}
	if sight.Settles != 0 {
		t.Errorf("settled %d times on the tree road; only injected input settles", sight.Settles)
	}
	if len(sight.Sessions) == 0 || sight.Sessions[0] != "s" {
		t.Errorf("asked the targets of sessions %v, want the call's (s)", sight.Sessions)
	}
}

// TestNoVisibleChange: nothing changes: the watch waits its wait, looking
// again, and says so, with how long it waited.
func TestNoVisibleChange(t *testing.T) {
	sight := stagetest.SightOf("win:1")
	sight.NodeFacts = func(kind.Node) (*target.Node, error) { return &target.Node{Role: "push button", Name: "OK"}, nil }
	sight.Look = func() (string, string, bool, error) { return "Editor", "", false, nil }
	c := acting(t, "click", target.RoadTree)
	w := watcher(t, 60*time.Millisecond).Watch(t.Context(), c, stage.Acting{Sight: sight, Node: &kind.Node{Ref: "@e1"}})
	if sight.NodeReads != 1 {
		t.Errorf("the look before read the node %d times, want once (no read was given)", sight.NodeReads)
	}
	resp := wire.Response{Did: "clicked @e1"}
	w.After(t.Context(), &resp)
	if resp.Effect == nil || resp.Effect.Word != target.EffectNoVisibleChange {
		t.Fatalf("effect %+v, want no_visible_change", resp.Effect)
	}
	if resp.Effect.WaitedMS < 50 {
		t.Errorf("waited %dms, want about the wait (60ms)", resp.Effect.WaitedMS)
	}
	if sight.NodeReads < 3 || sight.Rescans < 3 {
		t.Errorf("looked %d times (rescans %d) in the wait, want several", sight.NodeReads, sight.Rescans)
	}
	if resp.Did != "clicked @e1 → no_visible_change" {
		t.Errorf("did %q", resp.Did)
	}
}

// TestNewTargetIsChangeElsewhere: a dialog the action opened is seen in
// the targets the session sees, and the title's change too.
func TestNewTargetIsChangeElsewhere(t *testing.T) {
	sight := stagetest.SightOf("win:1")
	acted := false
	sight.Targets = func() map[target.ID]string {
		if acted {
			return map[target.ID]string{"win:1": "Editor", "win:2": "Save as"}
		}
		return map[target.ID]string{"win:1": "Editor"}
	}
	sight.Look = func() (string, string, bool, error) { return "Editor", "", false, nil }
	sight.Digest = func() (string, error) { return "same", nil }
	c := acting(t, "key", target.RoadKeys)
	w := watcher(t, 2*time.Second).Watch(t.Context(), c, stage.Acting{Sight: sight})
	acted = true
	resp := wire.Response{Did: "pressed ctrl+s"}
	w.After(t.Context(), &resp)
	if resp.Effect == nil || resp.Effect.Word != target.EffectChangedElsewhere {
		t.Fatalf("effect %+v, want changed_elsewhere", resp.Effect)
	}
	if !strings.Contains(strings.Join(resp.Effect.Seen, ";"), `new window win:2 "Save as"`) {
		t.Errorf("seen %q, want the new window", resp.Effect.Seen)
	}
	if sight.Settles != 1 {
		t.Errorf("settled %d times after keys, want once", sight.Settles)
	}
	if sight.Shots != 0 {
		t.Errorf("took %d pictures of a target that digests its content", sight.Shots)
	}
}

// TestPixelsOnlyWithTheGrant: on a point, a window of the person's own
// desktop is looked at in pixels only with the operator's grant; without
// it, and with no node to read, the effect is unverifiable and says why.
func TestPixelsOnlyWithTheGrant(t *testing.T) {
	for _, grant := range []bool{false, true} {
		sight := stagetest.SightOf("win:1")
		sight.Mine, sight.Pixels = true, grant
		sight.PNG = picture(t, color.White)
		sight.Look = func() (string, string, bool, error) { return "Desk", "", false, nil }
		c := acting(t, "click", target.RoadPoint)
		w := watcher(t, 40*time.Millisecond).Watch(t.Context(), c, stage.Acting{Sight: sight, At: &kind.Point{X: 10, Y: 10}})
		resp := wire.Response{Did: "clicked at 10,10"}
		w.After(t.Context(), &resp)
		if grant {
			if sight.Shots == 0 || resp.Effect.Word != target.EffectNoVisibleChange {
				t.Errorf("with the grant: %d pictures, effect %+v; want pictures and no_visible_change", sight.Shots, resp.Effect)
			}
			continue
		}
		if sight.Shots != 0 {
			t.Errorf("took %d pictures of the person's window without the grant", sight.Shots)
		}
		if resp.Effect.Word != target.EffectUnverifiable || !strings.Contains(resp.Effect.Why, "no node to read and no pixels of win:1") {
			t.Errorf("without the grant: effect %+v, want unverifiable for lack of pixels", resp.Effect)
		}
	}
}

// TestPixelChangeAtThePoint: the pixels around the point changing for
// longer than a toolkit's flash is a change elsewhere.
func TestPixelChangeAtThePoint(t *testing.T) {
	sight := stagetest.SightOf("win:1")
	sight.PNG = picture(t, color.White)
	c := acting(t, "click", target.RoadPoint)
	w := watcher(t, 2*time.Second).Watch(t.Context(), c, stage.Acting{Sight: sight, At: &kind.Point{X: 10, Y: 10}})
	sight.PNG = picture(t, color.Black)
	resp := wire.Response{Did: "clicked at 10,10"}
	w.After(t.Context(), &resp)
	if resp.Effect.Word != target.EffectChangedElsewhere || resp.Effect.WaitedMS < 250 {
		t.Errorf("effect %+v, want changed_elsewhere once the change lasted", resp.Effect)
	}
	if sight.Settles != 1 {
		t.Errorf("settled %d times after a point, want once", sight.Settles)
	}
}

// TestGoneAndStale: the target going is its closing; the node going is
// seen at the node.
func TestGoneAndStale(t *testing.T) {
	sight := stagetest.SightOf("win:1")
	acted := false
	sight.Look = func() (string, string, bool, error) {
		if acted {
			return "", "", true, errors.New("gone")
		}
		return "Dialog", "", false, nil
	}
	c := acting(t, "click", target.RoadTree)
	w := watcher(t, 2*time.Second).Watch(t.Context(), c, stage.Acting{Sight: sight, Node: &kind.Node{Ref: "@e1"}})
	acted = true
	resp := wire.Response{Did: "clicked @e1"}
	w.After(t.Context(), &resp)
	if resp.Effect.Word != target.EffectConfirmed || len(resp.Effect.Seen) == 0 || resp.Effect.Seen[0] != "win:1 closed" {
		t.Errorf("effect %+v, want confirmed: win:1 closed", resp.Effect)
	}

	sight = stagetest.SightOf("win:1")
	acted = false
	sight.NodeFacts = func(kind.Node) (*target.Node, error) {
		if acted {
			return nil, target.Refuse(target.CodeStaleRef, "gone")
		}
		return &target.Node{Role: "push button", Name: "Close"}, nil
	}
	w = watcher(t, 2*time.Second).Watch(t.Context(), c, stage.Acting{Sight: sight, Node: &kind.Node{Ref: "@e1"}})
	acted = true
	resp = wire.Response{Did: "clicked @e1"}
	w.After(t.Context(), &resp)
	if resp.Effect.Word != target.EffectConfirmed || strings.Join(resp.Effect.Seen, ";") != "@e1 is gone" {
		t.Errorf("effect %+v, want confirmed: @e1 is gone", resp.Effect)
	}
}

// TestOff: a request that turned verification off is not looked at, and
// says so; a watch told the target was busy looks no more and says why.
func TestOff(t *testing.T) {
	sight := stagetest.SightOf("win:1")
	sight.NodeFacts = func(kind.Node) (*target.Node, error) { return &target.Node{Role: "push button"}, nil }
	c := acting(t, "click", target.RoadTree)
	c.Req = c.Req.With(args.Click{Ref: "@e1", NoVerify: true})
	stagetest.Decoded(c)
	w := watcher(t, time.Second).Watch(t.Context(), c, stage.Acting{Sight: sight, Node: &kind.Node{Ref: "@e1"}})
	resp := wire.Response{Did: "clicked @e1"}
	w.After(t.Context(), &resp)
	if sight.NodeReads != 0 || sight.Rescans != 0 || sight.Shots != 0 || len(sight.Sessions) != 0 {
		t.Errorf("looked with verification off: %+v", sight)
	}
	if resp.Effect.Word != target.EffectUnverifiable || resp.Effect.Why != "verification off" ||
		resp.Did != "clicked @e1 → unverifiable (verification off)" || c.Before != "" || c.After != "" {
		t.Errorf("effect %+v, did %q, digests %q %q", resp.Effect, resp.Did, c.Before, c.After)
	}

	c = acting(t, "key", target.RoadKeys)
	sight = stagetest.SightOf("win:1")
	sight.Digest = func() (string, error) { return "d", nil }
	w = watcher(t, time.Second).Watch(t.Context(), c, stage.Acting{Sight: sight})
	looked := sight.Rescans
	resp = wire.Response{Did: "pressed a"}
	w.Unverified(&resp, "the target was busy")
	if sight.Rescans != looked || sight.Settles != 0 {
		t.Errorf("looked again after Unverified: rescans %d→%d, settles %d", looked, sight.Rescans, sight.Settles)
	}
	if resp.Effect.Word != target.EffectUnverifiable || resp.Did != "pressed a → unverifiable (the target was busy)" {
		t.Errorf("effect %+v, did %q", resp.Effect, resp.Did)
	}
}

// TestTakeoverCutsTheWait: a cancelled verb (a takeover) ends the wait at
// once and says it was cut short.
func TestTakeoverCutsTheWait(t *testing.T) {
	sight := stagetest.SightOf("win:1")
	sight.Look = func() (string, string, bool, error) { return "Editor", "", false, nil }
	sight.Digest = func() (string, error) { return "same", nil }
	c := acting(t, "key", target.RoadKeys)
	w := watcher(t, 5*time.Second).Watch(t.Context(), c, stage.Acting{Sight: sight})
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(30*time.Millisecond, cancel)
	resp := wire.Response{Did: "pressed a"}
	start := time.Now()
	w.After(ctx, &resp)
	if time.Since(start) > 2*time.Second {
		t.Errorf("the wait went on %v after the takeover", time.Since(start))
	}
	if resp.Effect.Word != target.EffectUnverifiable || !strings.HasPrefix(resp.Effect.Why, "the wait was cut short") {
		t.Errorf("effect %+v, want unverifiable: cut short", resp.Effect)
	}
}

// TestWaitsForASign: where the target tells a sign of change (a page's
// mutations), the watch looks at once after acting, then waits for a sign
// instead of looking every poll: with none till the wait's end it looks
// once more then (two looks in all, however long the wait), and at a sign
// it looks again and sees the change.
func TestWaitsForASign(t *testing.T) {
	for _, sign := range []bool{false, true} {
		sight := stagetest.SightOf("tab:1")
		sight.NodeFacts = func(kind.Node) (*target.Node, error) { return &target.Node{Role: "push button", Name: "Go"}, nil }
		digest := "a"
		sight.Digest = func() (string, error) { return digest, nil }
		var waits []time.Duration
		sight.Change = func(d time.Duration) (bool, error) {
			waits = append(waits, d)
			if sign {
				digest = "b" // the page changed, and said so
			}
			return sign, nil
		}
		c := acting(t, "click", target.RoadTree)
		const wait = 300 * time.Millisecond
		w := watcher(t, wait).Watch(t.Context(), c, stage.Acting{Sight: sight, Node: &kind.Node{Ref: "@e1"},
			Read: &target.Node{Role: "push button", Name: "Go"}})
		var resp wire.Response
		w.After(t.Context(), &resp)
		want := target.EffectNoVisibleChange
		if sign {
			want = target.EffectChangedElsewhere
		}
		if resp.Effect == nil || resp.Effect.Word != want {
			t.Fatalf("sign %v: effect %+v, want %s", sign, resp.Effect, want)
		}
		if sight.NodeReads != 2 || len(waits) != 1 {
			t.Errorf("sign %v: %d looks after acting and %d waits for a sign, want 2 and 1 (the poll is 5 ms: polling would have looked about %d times)", sign, sight.NodeReads, len(waits), wait/(5*time.Millisecond))
		}
		if len(waits) == 1 && (waits[0] <= 0 || waits[0] > wait) {
			t.Errorf("sign %v: waited for a sign %v, want up to the wait's end (%v)", sign, waits[0], wait)
		}
	}
}

// toldSight is a sight of a target that tells its changes (Told): its
// mark is 1, and each question after acting is answered by answer, given
// the wait asked; asks records those waits.
func toldSight(answer func(i int, d time.Duration) kind.Changes) (*stagetest.Sight, *[]time.Duration) {
	sight := stagetest.SightOf("tab:1")
	sight.NounWord = "page"
	sight.NodeFacts = func(kind.Node) (*target.Node, error) { return &target.Node{Role: "push button", Name: "Go"}, nil }
	var asks []time.Duration
	sight.Told = func(since uint64, d time.Duration) (kind.Changes, error) {
		if since == 0 {
			return kind.Changes{Mark: 1}, nil
		}
		asks = append(asks, d)
		return answer(len(asks)-1, d), nil
	}
	return sight, &asks
}

// TestToldChangeConfirmed: a change the target tells of another node than
// the one acted on is confirmed, naming that node; the acted node's own
// change it tells is left to the node's read.
func TestToldChangeConfirmed(t *testing.T) {
	sight, _ := toldSight(func(i int, d time.Duration) kind.Changes {
		if d == 0 { // the question without a wait, at the look at once
			return kind.Changes{Mark: 1}
		}
		return kind.Changes{Mark: 3, Seen: []kind.Change{
			{Key: "acted", Role: "push button", What: "name", To: "Gone", Known: false},
			{Key: "k2", Ref: "@e3", Role: "label", What: "name", From: "1", To: "11", Known: true},
		}}
	})
	c := acting(t, "click", target.RoadTree)
	w := watcher(t, 2*time.Second).Watch(t.Context(), c, stage.Acting{Sight: sight, Node: &kind.Node{Ref: "@e1", Key: "acted"}})
	resp := wire.Response{Did: "clicked @e1"}
	w.After(t.Context(), &resp)
	if resp.Effect == nil || resp.Effect.Word != target.EffectConfirmed {
		t.Fatalf("effect %+v, want confirmed", resp.Effect)
	}
	if !slices.Equal(resp.Effect.Seen, []string{`@e3 label: "1" → "11"`}) {
		t.Fatalf("seen %q, want the display's change alone", resp.Effect.Seen)
	}
}

// TestQuietEndsWait: a target that says it is quiet (nothing the act
// started is pending) ends the wait there: no_visible_change, asked once
// with the whole wait, and looked at once more.
func TestQuietEndsWait(t *testing.T) {
	sight, asks := toldSight(func(int, time.Duration) kind.Changes { return kind.Changes{Mark: 1, Quiet: true} })
	looks := 0
	sight.Look = func() (string, string, bool, error) { looks++; return "t", "", false, nil }
	c := acting(t, "click", target.RoadTree)
	w := watcher(t, time.Hour).Watch(t.Context(), c, stage.Acting{Sight: sight, Node: &kind.Node{Ref: "@e1"}})
	looks = 0
	resp := wire.Response{}
	w.After(t.Context(), &resp)
	if resp.Effect == nil || resp.Effect.Word != target.EffectNoVisibleChange {
		t.Fatalf("effect %+v, want no_visible_change", resp.Effect)
	}
	if len(*asks) != 1 || (*asks)[0] < time.Minute {
		t.Fatalf("asked with waits %v: want one question for the wait (an hour)", *asks)
	}
	if looks != 2 {
		t.Fatalf("%d looks after acting, want 2 (at once, and the one the wait ends with)", looks)
	}
}

// TestPendingGoesOn: a target that says, when the wait's bound comes,
// that something the act started is still pending is asked again, for
// what is left of LateWait; then its change is confirmed.
func TestPendingGoesOn(t *testing.T) {
	sight, asks := toldSight(func(i int, d time.Duration) kind.Changes {
		if i == 0 {
			return kind.Changes{Mark: 1, Pending: true}
		}
		return kind.Changes{Mark: 2, Seen: []kind.Change{{Role: "p#late", What: "text", From: "idle", To: "done", Known: true}}}
	})
	c := acting(t, "click", target.RoadTree)
	w := watcher(t, 10*time.Millisecond).Watch(t.Context(), c, stage.Acting{Sight: sight, Node: &kind.Node{Ref: "@e1"}})
	resp := wire.Response{}
	w.After(t.Context(), &resp)
	if len(*asks) != 2 || (*asks)[1] <= (*asks)[0] {
		t.Fatalf("asked with waits %v: want a second, longer one (up to LateWait)", *asks)
	}
	if resp.Effect == nil || resp.Effect.Word != target.EffectConfirmed || !slices.Contains(resp.Effect.Seen, `p#late: text "idle" → "done"`) {
		t.Fatalf("effect %+v, want the late change confirmed", resp.Effect)
	}
}

// TestLeavingWaitsForTheAddress: a page that told its document was left
// (a navigation on its way) and whose content changed while its address
// has not moved yet — a frame of the old page going first — is looked at
// on until the address moves: the navigation is confirmed by it, not
// said as a change of content elsewhere.
func TestLeavingWaitsForTheAddress(t *testing.T) {
	sight, _ := toldSight(func(int, time.Duration) kind.Changes {
		return kind.Changes{Mark: 2, Seen: []kind.Change{{What: "navigated"}}}
	})
	var looks, digests atomic.Int32 // (the reads of one look run at once)
	sight.Look = func() (string, string, bool, error) {
		if looks.Add(1) < 5 { // before, and three looks after, on the old address
			return "A", "http://x/a", false, nil
		}
		return "B", "http://x/b", false, nil
	}
	sight.Digest = func() (string, error) {
		if digests.Add(1) < 2 {
			return "page a, frame a", nil
		}
		return "page a, frame -", nil // the frame went before the address moved
	}
	c := acting(t, "click", target.RoadTree)
	w := watcher(t, 2*time.Second).Watch(t.Context(), c, stage.Acting{Sight: sight, Node: &kind.Node{Ref: "@e1"}})
	resp := wire.Response{}
	w.After(t.Context(), &resp)
	if resp.Effect == nil || resp.Effect.Word != target.EffectConfirmed || !slices.Contains(resp.Effect.Seen, "url: /a → /b") {
		t.Fatalf("effect %+v after %d looks, want the navigation confirmed by its address", resp.Effect, looks.Load())
	}
}

// TestToldOfTheActedNodeGoesOn: a change the target tells only of the
// node acted on (the focus a click moved to it, its press drawn) says
// nothing of its own: after one look the wait goes on, and the change its
// act started later (a timer's) is confirmed, naming its node. (It ended
// the wait there, no_visible_change, when a GTK 4 button's focus came
// within the wait.)
func TestToldOfTheActedNodeGoesOn(t *testing.T) {
	sight, asks := toldSight(func(i int, d time.Duration) kind.Changes {
		switch {
		case d == 0:
			return kind.Changes{Mark: uint64(1 + i)}
		case i <= 1:
			return kind.Changes{Mark: uint64(2 + i), Seen: []kind.Change{{Key: "acted", Role: "push button", What: "focused"}}}
		}
		return kind.Changes{Mark: 9, Seen: []kind.Change{{Key: "k2", Ref: "@e3", Role: "label", What: "name", From: "idle", To: "done 1", Known: true}}}
	})
	c := acting(t, "click", target.RoadTree)
	w := watcher(t, 2*time.Second).Watch(t.Context(), c, stage.Acting{Sight: sight, Node: &kind.Node{Ref: "@e1", Key: "acted"}})
	resp := wire.Response{}
	w.After(t.Context(), &resp)
	if resp.Effect == nil || resp.Effect.Word != target.EffectConfirmed || !slices.Contains(resp.Effect.Seen, `@e3 label: "idle" → "done 1"`) {
		t.Fatalf("effect %+v after %d questions, want the later change confirmed", resp.Effect, len(*asks))
	}
}

// TestToldInTheLook: a target that answers its word's question in the
// look (kind.Looker: a page's watcher asked in the look's own call) is
// not asked again after it: the change its word names is confirmed as
// when the question is asked on its own, after the look that saw the
// content change elsewhere; and a look that sees a change at the node
// leaves what its word answered untaken, as a question not asked.
func TestToldInTheLook(t *testing.T) {
	for _, tc := range []struct {
		name      string
		nodeMoves bool // the acted node's own facts change
		want      []string
	}{
		{"elsewhere", false, []string{`@e3 label: "1" → "2"`}},
		{"at the node", true, []string{"name changed", "the page's content changed"}},
	} {
		for _, inLook := range []bool{false, true} {
			sight := stagetest.SightOf("tab:1")
			sight.NounWord = "page"
			sight.LookTells = inLook
			var acted atomic.Bool
			sight.NodeFacts = func(kind.Node) (*target.Node, error) {
				if tc.nodeMoves && acted.Load() {
					return &target.Node{Role: "push button", Name: "Went"}, nil
				}
				return &target.Node{Role: "push button", Name: "Go"}, nil
			}
			sight.Digest = func() (string, error) {
				if acted.Load() {
					return "after", nil
				}
				return "before", nil
			}
			var asked []uint64
			sight.Told = func(since uint64, d time.Duration) (kind.Changes, error) {
				if since == 0 {
					return kind.Changes{Mark: 1}, nil
				}
				asked = append(asked, since)
				return kind.Changes{Mark: 2, Seen: []kind.Change{{Key: "k3", Ref: "@e3", Role: "label", What: "name", From: "1", To: "2", Known: true}}}, nil
			}
			c := acting(t, "click", target.RoadPoint)
			w := watcher(t, 2*time.Second).Watch(t.Context(), c, stage.Acting{Sight: sight, Node: &kind.Node{Ref: "@e1", Key: "k1"}})
			acted.Store(true)
			resp := wire.Response{Did: "clicked @e1"}
			w.After(t.Context(), &resp)
			if resp.Effect == nil || resp.Effect.Word != target.EffectConfirmed || !slices.Equal(resp.Effect.Seen, tc.want) {
				t.Fatalf("%s, asked in the look %v: effect %+v, want confirmed: %q", tc.name, inLook, resp.Effect, tc.want)
			}
			switch {
			case !inLook && tc.nodeMoves && len(asked) != 0:
				t.Errorf("%s: the word was asked %v, want never (the node's read says the change)", tc.name, asked)
			case !inLook && !tc.nodeMoves && len(asked) != 1:
				t.Errorf("%s: the word was asked %v, want once, after the look", tc.name, asked)
			case inLook && (sight.LookTolds != 1 || len(asked) != 1):
				t.Errorf("%s: the word was asked %v, %d of them in the look; want once, in the look", tc.name, asked, sight.LookTolds)
			}
		}
	}
}

// TestALookThatTookTheWholeWait: on a loaded machine the look at once can
// take the whole wait; a window's word, read then without a wait, says
// nothing pending (its application caught running, or not yet woken by
// the act). It is heard for two polls more, says pending, and the wait
// goes on to the late change, which is confirmed (as
// native.TestLateWindowChange found under load: no_visible_change).
func TestALookThatTookTheWholeWait(t *testing.T) {
	sight, asks := toldSight(func(i int, d time.Duration) kind.Changes {
		switch {
		case d <= 0:
			return kind.Changes{Mark: 1, Free: true} // one reading: nothing due
		case i <= 1:
			return kind.Changes{Mark: 1, Free: true, Pending: true}
		}
		return kind.Changes{Mark: 2, Free: true, Seen: []kind.Change{{Ref: "@e3", Role: "label", What: "name", From: "idle", To: "done", Known: true}}}
	})
	told := sight.Told
	sight.Told = func(since uint64, d time.Duration) (kind.Changes, error) {
		ch, err := told(since, d)
		ch.Free = true
		return ch, err
	}
	slow := false
	sight.Look = func() (string, string, bool, error) {
		if slow {
			time.Sleep(30 * time.Millisecond) // longer than the whole wait
		}
		return "t", "", false, nil
	}
	c := acting(t, "click", target.RoadTree)
	w := watcher(t, 10*time.Millisecond).Watch(t.Context(), c, stage.Acting{Sight: sight, Node: &kind.Node{Ref: "@e1"}})
	slow = true
	resp := wire.Response{}
	w.After(t.Context(), &resp)
	if resp.Effect == nil || resp.Effect.Word != target.EffectConfirmed || !slices.Contains(resp.Effect.Seen, `@e3 label: "idle" → "done"`) {
		t.Fatalf("effect %+v (asked with waits %v), want the late change confirmed", resp.Effect, *asks)
	}
}
