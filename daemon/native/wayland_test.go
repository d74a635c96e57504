package native

import (
	"context"

	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vibespace/vibespace/atspi"
	"github.com/vibespace/vibespace/capture"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/portal"
	"github.com/vibespace/vibespace/portal/portaltest"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
	"github.com/vibespace/vibespace/x11"
)

// The Wayland road, against real parts: the person's session bus is a real
// dbus-daemon (our test desktop's) with a real AT-SPI bus and the real GTK3
// fixture registered on it, and portaltest's Go fake of the portal's
// frontend (the real wire protocol, a per-test policy, an event log) on the
// same bus. The fixture's toolkit needs a display to run, and it gets an
// Xvfb of the test's own; nothing of the road touches it: the AT-SPI tree
// does not depend on the compositor, and the display is reached with only
// a WAYLAND_DISPLAY and the session bus (no DISPLAY), so every input goes
// through the fake portal, where the test reads it.

// wlRig is one test desktop with the fixture on it.
type wlRig struct {
	d   *testenv.Desktop
	fix *testenv.Fixture
}

func newWlRig(t *testing.T, ctx context.Context) *wlRig {
	t.Helper()
	testenv.NeedIntegration(t)
	d := testenv.NewDesktop(t)
	fix, err := testenv.LaunchFixture(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fix.Stop() })
	// Keys go only to the active frame (as a Wayland compositor's focused
	// window is): the toolkit's display gives the fixture the focus.
	x, err := x11.Open(ctx, d.Display)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if err := x.Focus(ctx, fix.Window.ID); err != nil {
		t.Fatal(err)
	}
	return &wlRig{d: d, fix: fix}
}

func (r *wlRig) env() kind.DesktopEnv {
	return kind.DesktopEnv{Wayland: "wayland-test", Bus: r.d.BusAddress}
}

// tokenLog records OnToken's events and every string the road answered,
// to check that a token is in none of them.
type tokenLog struct {
	mu     sync.Mutex
	events []string
	said   []string
}

func (l *tokenLog) on(_ context.Context, e string) {
	l.mu.Lock()
	l.events = append(l.events, e)
	l.mu.Unlock()
}

func (l *tokenLog) err(err error) error {
	if err != nil {
		l.mu.Lock()
		l.said = append(l.said, err.Error())
		if r, ok := target.AsRefusal(err); ok {
			for k, v := range r.Facts {
				l.said = append(l.said, k+"="+toString(v))
			}
		}
		l.mu.Unlock()
	}
	return err
}

func toString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}

// connect opens the Wayland road on r's bus, closed at the end of t.
func (r *wlRig) connect(t *testing.T, ctx context.Context, o Options) *wlDesktop {
	t.Helper()
	kd, err := Desktop(o).Connect(ctx, r.env())
	if err != nil {
		t.Fatalf("connect a Wayland env: %v", err)
	}
	t.Cleanup(func() { kd.Close() })
	wd, ok := kd.(*wlDesktop)
	if !ok {
		t.Fatalf("a Wayland env gave %T", kd)
	}
	if road, obs := wd.Road(); road != "wayland" || !strings.Contains(obs, "cannot be observed") {
		t.Fatalf("road %q, %q", road, obs)
	}
	if _, ok := kd.(kind.PersonWatcher); ok {
		t.Fatal("the Wayland road claims to watch the person's input")
	}
	return wd
}

// fixtureWindow lists the desktop until the fixture's main frame is there.
func (r *wlRig) fixtureWindow(t *testing.T, ctx context.Context, wd *wlDesktop) (*wlWindow, kind.Info) {
	t.Helper()
	for {
		got, err := wd.Windows(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range got {
			if f.Info.Title == "vibespace fixture" && f.Info.PID == r.fix.PID {
				return f.Target.(*wlWindow), f.Info
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the fixture's frame was never listed; the last listing: %+v", got)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// keysyms are the fake's NotifyKeyboardKeysym calls, as (keysym, state)
// pairs.
func keysyms(f *portaltest.Fake) [][2]int64 {
	var out [][2]int64
	for _, c := range f.Calls("NotifyKeyboardKeysym") {
		out = append(out, [2]int64{int64(c.Args[0].(int32)), int64(c.Args[1].(uint32))})
	}
	return out
}

func equalPairs(a, b [][2]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestWaylandTree: a Wayland env with no DISPLAY connects; the fixture's
// frame is listed with its process and title, its snapshot is its tree,
// and click @ref lands in the fixture's own log (Action.DoAction). Before
// any grant the probe offers the portal road; pixels come from a window
// stream over PipeWire, so where the portal grants none (this fake grants
// no window stream) or PipeWire is not built in, a screenshot is refused
// no_capture saying why.
func TestWaylandTree(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	r := newWlRig(t, ctx)
	portaltest.NewFake(t, r.d.BusAddress, portaltest.FakeOptions{})
	wd := r.connect(t, ctx, Options{WalkTimeout: 10 * time.Second})
	w, inf := r.fixtureWindow(t, ctx, wd)
	if inf.Key == "" || !inf.Viewable || inf.Bounds.W <= 1 || inf.Bounds.H <= 1 {
		t.Fatalf("the fixture's window %+v", inf)
	}
	if again, err := wd.Windows(ctx, map[string]bool{inf.Key: true}); err != nil {
		t.Fatal(err)
	} else {
		for _, f := range again {
			if f.Info.Key == inf.Key {
				t.Fatalf("a known window was listed again: %+v", f.Info)
			}
		}
	}
	p := w.Probe(ctx)
	if !p.Tree || p.Injection != "portal" || p.Capture != capture.PipeWireBuiltIn || !strings.Contains(p.CaptureWhy+p.CaptureVia, "PipeWire") {
		t.Fatalf("probe %+v", p)
	}
	if _, err := w.Screenshot(ctx); target.CodeOf(err) != target.CodeNoCapture {
		t.Fatalf("screenshot with no PipeWire window stream: %v, want no_capture", err)
	}
	snap, err := w.Snapshot(ctx, target.NewRefTable())
	if err != nil {
		t.Fatal(err)
	}
	alpha := snap.Root.Find(func(n *target.Node) bool { return n.Role == "push button" && n.Name == "Alpha" })
	if alpha == nil {
		t.Fatalf("no Alpha in:\n%s", snap.Text())
	}
	n := kind.Node{Ref: "@e1", Key: alpha.Key}
	if tr, err := w.Node(ctx, n); err != nil || !tr.Has("Action") {
		t.Fatalf("traits %+v %v", tr, err)
	}
	from := r.fix.Log.Len()
	if err := w.Act(ctx, n); err != nil {
		t.Fatal(err)
	}
	if _, err := r.fix.Log.WaitFrom(ctx, from, func(e testenv.Event) bool { return e.Type == "click" && e.Widget == "alpha" }); err != nil {
		t.Fatal(err)
	}
	// A restarted daemon finds the window again by its key.
	w2, err := wd.Window(ctx, inf.Key, inf.PID)
	if err != nil {
		t.Fatal(err)
	}
	if i2, err := w2.Info(ctx); err != nil || i2.Title != inf.Title {
		t.Fatalf("the window found again: %+v %v", i2, err)
	}
	var doc []string
	for _, c := range wd.Doctor(ctx) {
		doc = append(doc, c.Name+": "+c.Detail)
	}
	all := strings.Join(doc, "\n")
	pixels := "pixels over PipeWire are built in"
	if !capture.PipeWireBuiltIn {
		pixels = "not built in"
	}
	for _, want := range []string{"RemoteDesktop v2", "ScreenCast v4", "applications registered", pixels} {
		if !strings.Contains(all, want) {
			t.Errorf("doctor does not say %q:\n%s", want, all)
		}
	}
}

// TestWaylandInput: keys, a click at a point and scroll go through the
// portal's session once the person grants it, and the person's decline
// stands; a session the portal closes is said by the next verb and asked
// again by the one after; the restore token is kept 0600, replaced by the
// newest, and in no answer.
func TestWaylandInput(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	r := newWlRig(t, ctx)
	tokenPath := filepath.Join(t.TempDir(), "desktop", "portal-token")
	var tl tokenLog
	o := Options{WalkTimeout: 10 * time.Second, TokenPath: tokenPath}

	t.Run("declined", func(t *testing.T) {
		fake := portaltest.NewFake(t, r.d.BusAddress, portaltest.FakeOptions{})
		fake.SetPolicy(portaltest.Policy{Answer: portaltest.Cancel})
		wd := r.connect(t, ctx, o)
		wd.OnToken(tl.on)
		w, _ := r.fixtureWindow(t, ctx, wd)
		err := tl.err(w.Key(ctx, mustChord(t, "Return")))
		if target.CodeOf(err) != target.CodeNoInjectionBackend || !strings.Contains(err.Error(), "declined") {
			t.Fatalf("key with the dialog declined: %v, want no_injection_backend naming the decline", err)
		}
		if n := len(fake.Calls("NotifyKeyboardKeysym")); n != 0 {
			t.Fatalf("%d keys reached the portal", n)
		}
		// The decline stands: the probe says it, no new dialog is shown.
		p := w.Probe(ctx)
		if p.Injection != "" || !strings.Contains(p.InjectionWhy, "declined") {
			t.Fatalf("probe after the decline %+v", p)
		}
		c := target.Decide(target.VerbKey, p, nil)
		if target.CodeOf(c.Err()) != target.CodeNoInjectionBackend || !strings.Contains(c.Why, "declined") {
			t.Fatalf("the law after the decline: %+v", c)
		}
		dialogs := fake.Dialogs()
		if err := w.Type(ctx, "x"); target.CodeOf(err) != target.CodeNoInjectionBackend || fake.Dialogs() != dialogs {
			t.Fatalf("type after the decline: %v, dialogs %d → %d", err, dialogs, fake.Dialogs())
		}
		if _, err := os.Stat(tokenPath); err == nil {
			t.Fatal("a token was kept from a declined dialog")
		}
	})

	t.Run("granted", func(t *testing.T) {
		fake := portaltest.NewFake(t, r.d.BusAddress, portaltest.FakeOptions{})
		wd := r.connect(t, ctx, o)
		wd.OnToken(tl.on)
		w, inf := r.fixtureWindow(t, ctx, wd)
		const node = 77
		fake.SetPolicy(portaltest.Policy{Answer: portaltest.Grant, Streams: []portaltest.Stream{
			{Node: node, SourceType: 2, Size: [2]int32{int32(inf.Bounds.W), int32(inf.Bounds.H)}, ID: "0"},
		}})
		if err := tl.err(w.Key(ctx, mustChord(t, "ctrl+s"))); err != nil {
			t.Fatal(err)
		}
		want := [][2]int64{{0xffe3, 1}, {'s', 1}, {'s', 0}, {0xffe3, 0}}
		if got := keysyms(fake); !equalPairs(got, want) {
			t.Fatalf("keysyms %v, want %v", got, want)
		}
		starts := fake.Calls("SelectSources")
		if len(starts) != 1 || starts[0].Options["types"] != uint32(3) {
			t.Fatalf("SelectSources %v, want one offering the person a window or a monitor (3)", starts)
		}
		if err := tl.err(w.Type(ctx, "Hi\n")); err != nil {
			t.Fatal(err)
		}
		want = append(want, [2]int64{'H', 1}, [2]int64{'H', 0}, [2]int64{'i', 1}, [2]int64{'i', 0}, [2]int64{0xff0d, 1}, [2]int64{0xff0d, 0})
		if got := keysyms(fake); !equalPairs(got, want) {
			t.Fatalf("keysyms %v, want %v", got, want)
		}
		if err := tl.err(w.ClickAt(ctx, kind.Point{X: 12, Y: 34})); err != nil {
			t.Fatal(err)
		}
		m := fake.Calls("NotifyPointerMotionAbsolute")
		if len(m) != 1 || m[0].Args[0] != uint32(node) || m[0].Args[1] != 12.0 || m[0].Args[2] != 34.0 {
			t.Fatalf("motion %v, want (stream %d, 12, 34)", m, node)
		}
		b := fake.Calls("NotifyPointerButton")
		if len(b) != 2 || b[0].Args[0] != int32(0x110) || b[0].Args[1] != uint32(1) || b[1].Args[1] != uint32(0) {
			t.Fatalf("buttons %v, want BTN_LEFT press and release", b)
		}
		if err := tl.err(w.Scroll(ctx, nil, "up", 2)); err != nil {
			t.Fatal(err)
		}
		a := fake.Calls("NotifyPointerAxisDiscrete")
		if len(a) != 1 || a[0].Args[0] != uint32(0) || a[0].Args[1] != int32(-2) {
			t.Fatalf("axis %v, want vertical -2", a)
		}
		if n := len(fake.Calls("Start")); n != 1 {
			t.Fatalf("%d sessions started for four verbs, want 1", n)
		}

		// The token: kept 0600, the one Start answered.
		st, err := os.Stat(tokenPath)
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("token file %v %v, want mode 0600", st, err)
		}
		first := readToken(t, tokenPath)

		// The portal closes the session: the next verb says so, the one
		// after starts a new session with the token, and the newest
		// token replaces it.
		// A screenshot reads the session's stream (the fake's has no
		// PipeWire behind it: refused), keeping a crop for it; the
		// session's end drops that crop.
		w.d.road.mu.Lock()
		held := w.d.road.sess
		w.d.road.mu.Unlock()
		w.Screenshot(ctx)
		if n := cropsOf(w.d.road, held); n == 0 {
			t.Fatal("no crop kept of the session's stream after a screenshot")
		}
		sess := fake.Calls("Start")[0].Session
		if err := fake.CloseSession(sess); err != nil {
			t.Fatal(err)
		}
		if _, err := fake.Wait(ctx, 0, func(c portaltest.Call) bool { return c.Method == "Closed" }); err != nil {
			t.Fatal(err)
		}
		err = tl.err(waitEnded(ctx, w))
		if target.CodeOf(err) != target.CodeNoInjectionBackend || !strings.Contains(err.Error(), "ended") {
			t.Fatalf("key after the portal closed the session: %v", err)
		}
		if n := cropsOf(w.d.road, held); n != 0 {
			t.Fatalf("%d crops kept of an ended session's streams", n)
		}
		n := len(keysyms(fake))
		if err := tl.err(w.Key(ctx, mustChord(t, "Escape"))); err != nil {
			t.Fatalf("key after the closed session: %v", err)
		}
		if got := keysyms(fake)[n:]; !equalPairs(got, [][2]int64{{0xff1b, 1}, {0xff1b, 0}}) {
			t.Fatalf("keysyms after a new session %v", got)
		}
		sd := fake.Calls("SelectDevices")
		if len(fake.Calls("Start")) != 2 || len(sd) != 2 || sd[1].Options["restore_token"] != first || sd[1].Options["persist_mode"] != uint32(2) {
			t.Fatalf("the second session: %d starts, SelectDevices %v", len(fake.Calls("Start")), sd)
		}
		second := readToken(t, tokenPath)
		if second == first || second == "" {
			t.Fatalf("the stored token was not replaced by the newest")
		}
		tl.mu.Lock()
		events := strings.Join(tl.events, ",")
		said := strings.Join(tl.said, "\n")
		tl.mu.Unlock()
		if events != "saved,used,saved" {
			t.Fatalf("token events %q, want saved,used,saved", events)
		}
		var doc []string
		for _, c := range wd.Doctor(ctx) {
			doc = append(doc, c.Detail)
		}
		said += strings.Join(doc, "\n")
		for _, tok := range []string{first, second} {
			if strings.Contains(said, tok) {
				t.Fatal("a restore token is in an answer")
			}
		}
		// ReleaseAll holds nothing afterwards (nothing is pressed now).
		k := len(keysyms(fake))
		if err := w.ReleaseAll(ctx); err != nil || len(keysyms(fake)) != k {
			t.Fatalf("release all with nothing held: %v", err)
		}
	})

	// Issue 35: a stored token damaged while no daemon ran is never sent
	// and never a crash: set aside and said (the core audits the event),
	// the dialog comes back once, and its answer's token is saved anew.
	t.Run("damaged token", func(t *testing.T) {
		const garbage = "{\x00garbage-token"
		if err := os.WriteFile(tokenPath, []byte(garbage), 0o600); err != nil {
			t.Fatal(err)
		}
		fake := portaltest.NewFake(t, r.d.BusAddress, portaltest.FakeOptions{})
		wd := r.connect(t, ctx, o)
		var dl tokenLog
		wd.OnToken(dl.on)
		w, inf := r.fixtureWindow(t, ctx, wd)
		fake.SetPolicy(portaltest.Policy{Answer: portaltest.Grant, Streams: []portaltest.Stream{
			{Node: 78, SourceType: 2, Size: [2]int32{int32(inf.Bounds.W), int32(inf.Bounds.H)}, ID: "0"},
		}})
		if err := dl.err(w.Key(ctx, mustChord(t, "Return"))); err != nil {
			t.Fatal(err)
		}
		sd := fake.Calls("SelectDevices")
		if len(sd) != 1 || sd[0].Options["restore_token"] != nil {
			t.Fatalf("SelectDevices %v: the damaged token was sent", sd)
		}
		dl.mu.Lock()
		events := strings.Join(dl.events, "\n")
		dl.mu.Unlock()
		if !strings.HasPrefix(events, TokenSetAside+" (") || !strings.Contains(events, "it is cut short") || !strings.Contains(events, "the portal's dialog comes back once") || !strings.HasSuffix(events, "\n"+TokenSaved) || strings.Contains(events, "garbage-token") {
			t.Fatalf("token events %q", events)
		}
		if aside, _ := filepath.Glob(tokenPath + ".damaged-*"); len(aside) != 1 {
			t.Fatalf("kept aside: %v", aside)
		}
		if tok := readToken(t, tokenPath); tok == "" || strings.Contains(tok, "garbage") {
			t.Fatalf("the dialog's token was not saved anew: %q", tok)
		}
	})
}

// waitEnded waits until our client has seen the session end (the Closed
// signal reaches it after the fake logs it), then presses a key.
func waitEnded(ctx context.Context, w *wlWindow) error {
	w.d.road.mu.Lock()
	s := w.d.road.sess
	w.d.road.mu.Unlock()
	if s != nil {
		select {
		case <-s.Done():
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return w.Key(ctx, target.Chord{Key: "Escape", Keysym: 0xff1b})
}

// cropsOf counts the crops r keeps of session s's streams.
func cropsOf(r *portalRoad, s *portal.Session) int {
	n := 0
	r.crops.Range(func(k, _ any) bool {
		if k.(streamKey).s == s {
			n++
		}
		return true
	})
	return n
}

func readToken(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func mustChord(t *testing.T, s string) target.Chord {
	t.Helper()
	c, err := target.ParseChord(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestWaylandMonitorOnly: where the portal offers only monitors, the point
// verbs are refused with the reason before any dialog (a window's place on
// a monitor is unknown on Wayland) while keys still go; where it granted a
// monitor stream although a window was asked, they are refused too.
func TestWaylandMonitorOnly(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	r := newWlRig(t, ctx)
	t.Run("offers monitors", func(t *testing.T) {
		fake := portaltest.NewFake(t, r.d.BusAddress, portaltest.FakeOptions{Sources: 1})
		wd := r.connect(t, ctx, Options{})
		w, _ := r.fixtureWindow(t, ctx, wd)
		for _, err := range []error{w.ClickAt(ctx, kind.Point{X: 1, Y: 1}), w.Scroll(ctx, nil, "down", 1)} {
			if target.CodeOf(err) != target.CodeNoInjectionBackend || !strings.Contains(err.Error(), "unknown") {
				t.Fatalf("a point verb with monitors only: %v", err)
			}
		}
		if fake.Dialogs() != 0 || len(fake.Calls("CreateSession")) != 0 {
			t.Fatal("a point verb that cannot be placed asked the person")
		}
		if err := w.Key(ctx, mustChord(t, "a")); err != nil {
			t.Fatal(err)
		}
		if s := fake.Calls("SelectSources"); len(s) != 1 || s[0].Options["types"] != uint32(1) {
			t.Fatalf("SelectSources %v, want a monitor (1)", s)
		}
		if len(fake.Calls("NotifyPointerMotionAbsolute")) != 0 {
			t.Fatal("the pointer moved")
		}
	})
	t.Run("granted a monitor", func(t *testing.T) {
		fake := portaltest.NewFake(t, r.d.BusAddress, portaltest.FakeOptions{})
		fake.SetPolicy(portaltest.Policy{Streams: []portaltest.Stream{{Node: 5, SourceType: 1, Size: [2]int32{1280, 720}}}})
		wd := r.connect(t, ctx, Options{})
		w, _ := r.fixtureWindow(t, ctx, wd)
		err := w.ClickAt(ctx, kind.Point{X: 1, Y: 1})
		if target.CodeOf(err) != target.CodeNoInjectionBackend || !strings.Contains(err.Error(), "no window stream") {
			t.Fatalf("click --at on a monitor stream: %v", err)
		}
		if len(fake.Calls("NotifyPointerMotionAbsolute"))+len(fake.Calls("NotifyPointerButton")) != 0 {
			t.Fatal("the pointer was used")
		}
	})
}

// TestWaylandNoPortal: a session bus without a portal connects all the
// same (the tree road stands), and key and point verbs are refused
// no_injection_backend naming the missing portal; doctor says so. A
// dialog nobody answers within the verb's deadline is a timeout naming
// it, and a v1 portal's doctor says restore tokens are not available.
func TestWaylandNoPortal(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	r := newWlRig(t, ctx)
	t.Run("none", func(t *testing.T) {
		wd := r.connect(t, ctx, Options{})
		w, _ := r.fixtureWindow(t, ctx, wd)
		p := w.Probe(ctx)
		if !p.Tree || p.Injection != "" || !strings.Contains(p.InjectionWhy, "no RemoteDesktop portal on your session bus") {
			t.Fatalf("probe without a portal %+v", p)
		}
		if err := w.Key(ctx, mustChord(t, "a")); target.CodeOf(err) != target.CodeNoInjectionBackend {
			t.Fatalf("key without a portal: %v", err)
		}
		checks := Desktop(Options{}).DoctorEnv(ctx, r.env())
		if !doctorSays(checks, "no RemoteDesktop portal") || !doctorSays(checks, "applications registered") {
			t.Fatalf("doctor env without a portal: %+v", checks)
		}
	})
	t.Run("unanswered", func(t *testing.T) {
		fake := portaltest.NewFake(t, r.d.BusAddress, portaltest.FakeOptions{})
		fake.SetPolicy(portaltest.Policy{Answer: portaltest.Never})
		wd := r.connect(t, ctx, Options{})
		w, _ := r.fixtureWindow(t, ctx, wd)
		vctx, vcancel := context.WithTimeout(ctx, 2*time.Second) // the verb's own deadline
		err := w.Key(vctx, mustChord(t, "a"))
		vcancel()
		if target.CodeOf(err) != target.CodeTimeout || !strings.Contains(err.Error(), "consent dialog") {
			t.Fatalf("key nobody consented to in time: %v, want timeout naming the dialog", err)
		}
		if len(fake.Calls("NotifyKeyboardKeysym")) != 0 {
			t.Fatal("a key was sent")
		}
		// Not a decline: the next verb asks again.
		if p := w.Probe(ctx); p.Injection != "portal" {
			t.Fatalf("probe after an unanswered dialog %+v", p)
		}
	})
	t.Run("v1", func(t *testing.T) {
		portaltest.NewFake(t, r.d.BusAddress, portaltest.FakeOptions{RemoteDesktopVersion: 1})
		checks := Desktop(Options{TokenPath: filepath.Join(t.TempDir(), "tok")}).DoctorEnv(ctx, r.env())
		if !doctorSays(checks, "RemoteDesktop v1") || !doctorSays(checks, "restore_token") {
			t.Fatalf("doctor env with a v1 portal: %+v", checks)
		}
	})
}

func doctorSays(cs []kind.Check, s string) bool {
	for _, c := range cs {
		if strings.Contains(c.Detail, s) {
			return true
		}
	}
	return false
}

// TestWaylandRealFrontendKey: the key verb through Debian's real
// xdg-desktop-portal (1.16: RemoteDesktop v1) in front of portaltest's
// fake backend: the session is started on the verb, the keysyms reach
// the backend, and no restore token is asked for (v1 has none) — doctor
// says so. This session bus has no accessibility bus: the road connects
// all the same, its tree refused with the reason.
func TestWaylandRealFrontendKey(t *testing.T) {
	portaltest.Need(t, portaltest.FrontendProgram, "dbus-daemon")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	bus := portaltest.NewBus(t)
	be := portaltest.NewBackend(t, bus.Addr)
	portaltest.NewFrontend(t, bus)
	be.SetPolicy(portaltest.Policy{Devices: 3, Streams: []portaltest.Stream{{Node: 51, SourceType: 1, Size: [2]int32{800, 600}}}})
	tokenPath := filepath.Join(t.TempDir(), "tok")
	kd, err := Desktop(Options{TokenPath: tokenPath}).Connect(ctx, kind.DesktopEnv{Wayland: "wayland-test", Bus: bus.Addr})
	if err != nil {
		t.Fatal(err)
	}
	defer kd.Close()
	wd := kd.(*wlDesktop)
	w := wd.window(atspi.Frame{Object: atspi.Object{Name: ":1.999", Path: "/org/a11y/atspi/accessible/1"}}, 0)
	if p := w.Probe(ctx); p.Injection != "portal" || p.Tree {
		t.Fatalf("probe %+v", p)
	}
	// With no accessibility bus no window is known focused (Key refuses
	// not_focused): the road's own key is checked.
	if err := w.Key(ctx, mustChord(t, "Tab")); target.CodeOf(err) != target.CodeNotFocused {
		t.Fatalf("a key with no way to tell the focused window: %v, want not_focused", err)
	}
	s, err := wd.road.session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := wd.road.chord(ctx, s, mustChord(t, "Tab")); err != nil {
		t.Fatal(err)
	}
	// Notify calls are fire and forget: the frontend passes them on to the
	// backend in its own time.
	var got [][2]int64
	for {
		got = nil
		for _, c := range be.Log() {
			if c.Method == "NotifyKeyboardKeysym" {
				got = append(got, [2]int64{int64(c.Args[0].(int32)), int64(c.Args[1].(uint32))})
			}
		}
		if len(got) >= 2 || ctx.Err() != nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, c := range be.Log() {
		if c.Method == "SelectDevices" {
			if _, ok := c.Options["persist_mode"]; ok {
				t.Errorf("persist_mode sent to a v1 portal: %v", c)
			}
		}
	}
	if !equalPairs(got, [][2]int64{{0xff09, 1}, {0xff09, 0}}) {
		t.Fatalf("keysyms at the backend %v; its log %v", got, be.Log())
	}
	if _, err := os.Stat(tokenPath); err == nil {
		t.Fatal("a token file was written for a v1 portal")
	}
	if cs := wd.Doctor(ctx); !doctorSays(cs, "RemoteDesktop v1") || !doctorSays(cs, "not available") {
		t.Fatalf("doctor %+v", cs)
	}
}

// TestWaylandKeysOnlyToTheFocusedWindow: keys meant for a window that the
// compositor has not focused are refused not_focused before anything is
// asked of the person or sent: on Wayland they would land in whatever
// window has the keyboard.
func TestWaylandKeysOnlyToTheFocusedWindow(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	r := newWlRig(t, ctx)
	fake := portaltest.NewFake(t, r.d.BusAddress, portaltest.FakeOptions{})
	wd := r.connect(t, ctx, Options{WalkTimeout: 10 * time.Second})
	w, _ := r.fixtureWindow(t, ctx, wd)
	other, err := testenv.LaunchFixture(ctx, r.d)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Stop()
	x, err := x11.Open(ctx, r.d.Display)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if err := x.Focus(ctx, other.Window.ID); err != nil {
		t.Fatal(err)
	}
	// The toolkit tells the bus it lost the focus in its own time.
	for {
		n, err := wd.a11y.bus.Node(ctx, w.frame)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(n.States, "active") {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("the fixture's frame stayed active after the other one took the focus")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := w.Key(ctx, mustChord(t, "Return")); target.CodeOf(err) != target.CodeNotFocused {
		t.Fatalf("a key for a window without the focus: %v, want not_focused", err)
	}
	if err := w.Type(ctx, "x"); target.CodeOf(err) != target.CodeNotFocused {
		t.Fatalf("type into a window without the focus: %v, want not_focused", err)
	}
	if n := fake.Dialogs(); n != 0 {
		t.Fatalf("%d dialogs shown for keys into an unfocused window", n)
	}
	if n := len(fake.Calls("NotifyKeyboardKeysym")); n != 0 {
		t.Fatalf("keys reached the portal for an unfocused window: %d", n)
	}
}
