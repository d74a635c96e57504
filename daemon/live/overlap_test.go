package live_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/cdp/cdptest"
	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// marker is a fixture window of one colour (fixture.py --marker), opened
// through the daemon.
type marker struct {
	id            target.ID
	log           *testenv.FixtureLog
	pid           int
	first, second string // RRGGBB
}

// openMarker opens fixture.py --marker first --marker2 second as session.
func (h *liveHarness) openMarker(t *testing.T, ctx context.Context, session, first, second string) marker {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("..", "..", "testenv", "fixture", "fixture.py"))
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), "marker-"+first+".jsonl")
	resp := h.ok(t, daemon.Request{Verb: "open", Session: session}.With(args.Open{App: testenv.FixturePython, Args: []string{script, "--log", logPath, "--marker", first, "--marker2", second}}))
	log := testenv.OpenFixtureLog(logPath)
	ready, err := log.WaitFrom(ctx, 0, func(e testenv.Event) bool { return e.Type == "ready" })
	if err != nil {
		t.Fatal(err)
	}
	if ready.PID <= 0 {
		t.Fatalf("the marker fixture's ready line has no pid: %v", ready)
	}
	return marker{id: resp.Target.ID, log: log, pid: ready.PID, first: first, second: second}
}

// xStack lists the root's children bottom first as xwininfo (x11-utils,
// another X client than ours) reads them, on the display the process pid
// runs on (its DISPLAY and XAUTHORITY).
func xStack(t *testing.T, ctx context.Context, pid int) []string {
	t.Helper()
	bin, err := exec.LookPath("xwininfo")
	if err != nil {
		t.Skipf("SKIP: no xwininfo (Debian x11-utils) to read the stacking order with: %v", err)
	}
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		t.Fatal(err)
	}
	env := []string{}
	for _, kv := range bytes.Split(raw, []byte{0}) {
		if s := string(kv); strings.HasPrefix(s, "DISPLAY=") || strings.HasPrefix(s, "XAUTHORITY=") {
			env = append(env, s)
		}
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(cctx, bin, "-root", "-children")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("xwininfo %v: %v", env, err)
	}
	var ids []string
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) > 0 && strings.HasPrefix(f[0], "0x") {
			ids = append(ids, f[0])
		}
	}
	if len(ids) == 0 {
		t.Fatalf("xwininfo lists no children of the root:\n%s", out)
	}
	// xwininfo prints the top first; bottom first reads as QueryTree.
	for i, j := 0, len(ids)-1; i < j; i, j = i+1, j-1 {
		ids[i], ids[j] = ids[j], ids[i]
	}
	return ids
}

// centreColour is the colour the page's video of id shows at the centre of
// its picture, read back by drawing the video into a canvas.
func centreColour(t *testing.T, ctx context.Context, tab *cdp.Tab, id target.ID) []int {
	t.Helper()
	var rgb []int
	expr := fmt.Sprintf(`(() => {
		const p = window.vibespace && window.vibespace.panes.get(%q);
		if (!p) return [];
		const v = p.video, w = v.videoWidth, h = v.videoHeight;
		if (!w || !h) return [];
		const c = document.createElement('canvas'); c.width = w; c.height = h;
		const g = c.getContext('2d', {willReadFrequently: true});
		g.drawImage(v, 0, 0, w, h);
		const d = g.getImageData(w >> 1, h >> 1, 1, 1).data;
		return [d[0], d[1], d[2]];
	})()`, string(id))
	if err := tab.EvalInto(ctx, expr, &rgb); err != nil {
		t.Fatalf("reading the video's pixels: %v", err)
	}
	return rgb
}

// near: rgb is the colour hex within a codec's error.
func near(rgb []int, hex string) bool {
	if len(rgb) != 3 {
		return false
	}
	for i := range 3 {
		want, _ := strconv.ParseUint(hex[2*i:2*i+2], 16, 8)
		if d := rgb[i] - int(want); d < -40 || d > 40 {
			return false
		}
	}
	return true
}

// waitLive waits until the pane of id in tab has decoded a frame; when it
// never does, it says what the pane and the pipeline counted.
func waitLive(t *testing.T, ctx context.Context, h *liveHarness, tab *cdp.Tab, id target.ID, which string) {
	t.Helper()
	wctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	for {
		st := pane(t, ctx, tab, id)
		if st.State == "live" && st.Frames >= 1 && st.Decoded >= 1 {
			return
		}
		select {
		case <-wctx.Done():
			t.Fatalf("%s (%s) never decoded a frame: pane %+v, pipeline %+v", which, id, st, pipelineOf(h, id))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// waitColour waits until the pane of id in tab shows hex at its centre.
func waitColour(t *testing.T, ctx context.Context, h *liveHarness, tab *cdp.Tab, id target.ID, hex, which string) {
	t.Helper()
	wctx, cancel := context.WithTimeout(ctx, 45*time.Second)
	defer cancel()
	for {
		rgb := centreColour(t, ctx, tab, id)
		if near(rgb, hex) {
			return
		}
		select {
		case <-wctx.Done():
			st := pane(t, ctx, tab, id)
			t.Fatalf("%s (%s) never showed its colour #%s: the video shows %v, pane %+v, pipeline %+v",
				which, id, hex, rgb, st, pipelineOf(h, id))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

type pipelineCount struct {
	Frames, Keyframes uint64
	Viewers           int
}

// pipelineOf sums the pipelines of id (one a codec).
func pipelineOf(h *liveHarness, id target.ID) pipelineCount {
	var c pipelineCount
	for _, p := range h.view.Hub().Pipelines() {
		if p.Key == string(id) {
			c.Frames += p.Frames
			c.Keyframes += p.Keyframes
			c.Viewers += p.Viewers
		}
	}
	return c
}

// TestLiveOverlappingWindows: three fixture windows that overlap (no
// window manager: each opens at the same place) are each watched in a
// viewer page of their own, and each page decodes its own window's
// colour, covered or not. Neither the live view nor screenshots of the
// covered windows change the X stacking order (read by xwininfo). A window
// that does not change sends no frames once its pane shows it (but the
// keyframes its viewers ask); a change
// sends frames (and the pane shows the new colour) while the others stay
// silent; a new viewer gets a keyframe.
func TestLiveOverlappingWindows(t *testing.T) {
	h := startLiveDaemon(t, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()

	names := []string{"bottom", "middle", "top"}
	ms := []marker{
		h.openMarker(t, ctx, "agent", "e02020", "e0e020"),
		h.openMarker(t, ctx, "agent", "20c020", "20e0e0"),
		h.openMarker(t, ctx, "agent", "2040e0", "e020e0"),
	}
	// They overlap: every one is where the others are (the daemon's
	// screenshot bounds, which are the window's).
	var first target.Rect
	for i, m := range ms {
		b := h.ok(t, daemon.Request{Verb: "screenshot", Session: "agent", Target: string(m.id)}).Bounds
		if i == 0 {
			first = *b
		} else if b.X != first.X || b.Y != first.Y {
			t.Fatalf("the %s window is at %+v, the first at %+v: they do not overlap", names[i], b, first)
		}
	}
	before := xStack(t, ctx, ms[0].pid)

	b := cdptest.LaunchViewer(t, ctx)
	tabs := make([]*cdp.Tab, len(ms))
	for i, m := range ms {
		w := h.ok(t, daemon.Request{Verb: "watch", Session: "agent", Target: string(m.id)})
		tabs[i] = openPage(t, ctx, b, w.URL)
	}
	for i, m := range ms {
		waitLive(t, ctx, h, tabs[i], m.id, "the "+names[i]+" pane")
		waitColour(t, ctx, h, tabs[i], m.id, m.first, "the "+names[i]+" pane")
	}
	if after := xStack(t, ctx, ms[0].pid); !slices.Equal(before, after) {
		t.Fatalf("the stacking order changed while watching: %v, now %v", before, after)
	}
	for i, m := range ms[:2] {
		h.ok(t, daemon.Request{Verb: "screenshot", Session: "agent", Target: string(m.id)})
		if after := xStack(t, ctx, ms[0].pid); !slices.Equal(before, after) {
			t.Fatalf("a screenshot of the covered %s window changed the stacking order: %v, now %v", names[i], before, after)
		}
	}

	// Static: no frames but the keyframes viewers ask over a while in
	// which nothing changes. (The wait is only long enough for a ticking
	// capture to have sent some.)
	count := func() []pipelineCount {
		c := make([]pipelineCount, len(ms))
		for i, m := range ms {
			c[i] = pipelineOf(h, m.id)
		}
		return c
	}
	c0 := count()
	time.Sleep(3 * time.Second)
	c1 := count()
	for i := range ms {
		if n := deltas(c0[i], c1[i]); n != "" {
			t.Errorf("the %s window did not change, yet its pipeline sent %s", names[i], n)
		}
	}

	// The covered middle window changes: its pipeline sends, its pane
	// shows the new colour, the others send nothing.
	from := ms[1].log.Len()
	if err := syscall.Kill(ms[1].pid, syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	if _, err := ms[1].log.WaitFrom(ctx, from, func(e testenv.Event) bool { return e.Type == "marker" && e.Text == ms[1].second }); err != nil {
		t.Fatalf("the middle window never drew its second colour: %v", err)
	}
	waitFor(t, ctx, "the changed window's pipeline to send", func() (bool, string) {
		c := pipelineOf(h, ms[1].id)
		return c.Frames > c1[1].Frames, fmt.Sprintf("%d frames, %d before", c.Frames, c1[1].Frames)
	})
	waitColour(t, ctx, h, tabs[1], ms[1].id, ms[1].second, "the middle pane after its change")
	c2 := count()
	for _, i := range []int{0, 2} {
		if n := deltas(c1[i], c2[i]); n != "" {
			t.Errorf("the %s window did not change, yet its pipeline sent %s when the middle one changed", names[i], n)
		}
	}
	for i := range ms {
		if i != 1 {
			waitColour(t, ctx, h, tabs[i], ms[i].id, ms[i].first, "the "+names[i]+" pane after the middle one changed")
		}
	}

	// A new viewer of the static bottom window asks a keyframe: it gets
	// one, and decodes the window's colour.
	w := h.ok(t, daemon.Request{Verb: "watch", Session: "agent", Target: string(ms[0].id)})
	late := openPage(t, ctx, b, w.URL)
	waitLive(t, ctx, h, late, ms[0].id, "a second viewer of the bottom window")
	waitColour(t, ctx, h, late, ms[0].id, ms[0].first, "a second viewer of the bottom window")
	c3 := pipelineOf(h, ms[0].id)
	if c3.Keyframes <= c2[0].Keyframes || c3.Frames <= c2[0].Frames {
		t.Errorf("a new viewer of the bottom window: keyframes %d then %d, frames %d then %d", c2[0].Keyframes, c3.Keyframes, c2[0].Frames, c3.Frames)
	}
	if after := xStack(t, ctx, ms[0].pid); !slices.Equal(before, after) {
		t.Fatalf("the stacking order changed: %v, now %v", before, after)
	}
}

// deltas says what a pipeline sent between a and b beyond keyframes (a
// viewer's decoder asks one when it likes: Chromium sends a PLI some
// seconds after it starts), or "" when it sent nothing else.
func deltas(a, b pipelineCount) string {
	frames, keys := b.Frames-a.Frames, b.Keyframes-a.Keyframes
	if frames <= keys {
		return ""
	}
	return fmt.Sprintf("%d frames of which %d keyframes (frames %d to %d)", frames, keys, a.Frames, b.Frames)
}
