package conformance_test

import (
	"bytes"
	"fmt"
	"image/png"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/target"
)

// row is one line of the table: a verb (or a short sequence of them), what
// the answer must be, and what the application must have received. Rows run
// in order on one target of each kind; only marks a row that holds for one
// kind alone (and says why).
type row struct {
	name string
	only target.Kind
	run  func(t *testing.T, s *subject)
}

// longText is typed while something happens to the target: long enough that
// the verb is still typing then, even when the application reports its
// first key late (a loaded machine: 480 characters were typed in full
// before a takeover on Xpra landed), and within the daemon's bound on
// keys typed (daemon.DefaultMaxKeysText).
var longText = strings.Repeat("conformance ", 120)

var table = []row{
	{name: "snapshot: the tree with refs, by the tree road", run: func(t *testing.T, s *subject) {
		r := s.ok(t, daemon.Request{Verb: "snapshot"})
		if !strings.Contains(r.Text, `"Alpha"`) || !strings.Contains(r.Text, "@e") || r.By != target.RoadTree {
			t.Fatalf("snapshot (by %s):\n%s", r.By, r.Text)
		}
		if r.Target == nil || r.Target.ID != s.id || r.Target.Holder != s.session {
			t.Fatalf("the answer does not name the target and its lease: %+v", r.Target)
		}
	}},
	{name: "snapshot -i: what an agent acts on", run: func(t *testing.T, s *subject) {
		r := s.ok(t, daemon.Request{Verb: "snapshot"}.With(args.Snapshot{Observe: args.Observe{Interactive: true}}))
		for _, want := range []string{`"Alpha"`, `"Name"`, `"Remove me"`} {
			if !strings.Contains(r.Text, want) {
				t.Fatalf("the interactive view lacks %s:\n%s", want, r.Text)
			}
		}
	}},
	{name: "click @ref: the node's own click", run: func(t *testing.T, s *subject) {
		ref := s.ref(t, "Alpha", "push button")
		from := s.mark()
		r := s.ok(t, daemon.Request{Verb: "click"}.With(args.Click{Ref: ref}))
		s.wait(t, from, "a click on Alpha", func(e event) bool { return e.Type == "click" && e.Widget == "alpha" })
		if r.By == "" {
			t.Fatal("the answer names no road")
		}
	}},
	{name: "type @ref: text into the node", run: func(t *testing.T, s *subject) {
		ref := s.ref(t, "Name", "text", "entry")
		from := s.mark()
		s.ok(t, daemon.Request{Verb: "type"}.With(args.Type{Ref: ref, Text: "abc"}))
		s.wait(t, from, `the field holding "abc"`, func(e event) bool { return e.Type == "text" && e.Widget == "entry" && e.Text == "abc" })
	}},
	{name: "key: a chord into the focused node", run: func(t *testing.T, s *subject) {
		from := s.mark()
		r := s.ok(t, daemon.Request{Verb: "key"}.With(args.Key{Chord: "Escape"}))
		s.wait(t, from, "an Escape key", func(e event) bool { return e.Type == "key" && e.Text == "Escape" })
		if r.By != target.RoadKeys {
			t.Fatalf("key by %q", r.By)
		}
	}},
	{name: "type without a ref: keys into the focused node", run: func(t *testing.T, s *subject) {
		from := s.mark()
		s.ok(t, daemon.Request{Verb: "type"}.With(args.Type{Text: "qz"}))
		s.wait(t, from, "the key q", func(e event) bool { return e.Type == "key" && e.Text == "q" })
		s.wait(t, from, "the key z", func(e event) bool { return e.Type == "key" && e.Text == "z" })
	}},
	{name: "scroll: the wheel at the target's centre, down and back up", run: func(t *testing.T, s *subject) {
		for _, dir := range []string{"down", "up"} {
			from := s.mark()
			r := s.ok(t, daemon.Request{Verb: "scroll"}.With(args.Scroll{Direction: dir, By: 3}))
			s.wait(t, from, "a scroll "+dir, func(e event) bool { return e.Type == "scroll" && e.Text == dir })
			if r.By != target.RoadPoint {
				t.Fatalf("scroll by %q", r.By)
			}
		}
	}},
	{name: "screenshot: the target's own pixels", run: func(t *testing.T, s *subject) {
		r := s.ok(t, daemon.Request{Verb: "screenshot"})
		cfg, err := png.DecodeConfig(bytes.NewReader(r.PNG))
		if err != nil || cfg.Width == 0 || cfg.Height == 0 || r.Bounds == nil || r.Bounds.W == 0 || r.By != target.RoadPixels {
			t.Fatalf("screenshot: %d bytes, %+v %v, bounds %+v, by %q", len(r.PNG), cfg, err, r.Bounds, r.By)
		}
	}},
	{name: "click --at: a pixel of the screenshot, by the point road", run: func(t *testing.T, s *subject) {
		at := s.alphaAt(t)
		from := s.mark()
		r := s.ok(t, daemon.Request{Verb: "click"}.With(args.Click{At: fmt.Sprintf("%d,%d", at.X, at.Y)}))
		s.wait(t, from, "a click on Alpha at its pixel", func(e event) bool { return e.Type == "click" && e.Widget == "alpha" })
		if r.By != target.RoadPoint {
			t.Fatalf("click --at by %q", r.By)
		}
	}},
	// Before issue 11 a tab answered "clicked at 99999,1 of the page".
	{name: "click and scroll --at outside the picture: outside_window, outside_page", run: func(t *testing.T, s *subject) {
		from := s.mark()
		for _, at := range []daemon.Point{{X: 99999, Y: 1}, {X: -1, Y: -1}, {X: 1, Y: 99999}} {
			s.refused(t, daemon.Request{Verb: "click"}.With(args.Click{At: fmt.Sprintf("%d,%d", at.X, at.Y)}), s.outside)
			s.refused(t, daemon.Request{Verb: "scroll"}.With(args.Scroll{Direction: "down", At: fmt.Sprintf("%d,%d", at.X, at.Y)}), s.outside)
		}
		s.none(t, from, "click", "scroll")
	}},
	{name: "a text holding U+0000: refused, nothing typed", run: func(t *testing.T, s *subject) {
		ref := s.ref(t, "Name", "text", "entry")
		from := s.mark()
		for _, req := range []daemon.Request{daemon.Request{Verb: "type"}.With(args.Type{Text: "ab\x00c"}), daemon.Request{Verb: "type"}.With(args.Type{Ref: ref, Text: "\x00"})} {
			r := s.refused(t, req, target.CodeBadRequest)
			if !strings.Contains(r.Message, "NUL") {
				t.Fatalf("%s: %q does not say why", req.Verb, r.Message)
			}
		}
		s.none(t, from, "key", "text")
	}},
	{name: "a ref never minted: bad_ref", run: func(t *testing.T, s *subject) {
		from := s.mark()
		s.refused(t, daemon.Request{Verb: "click"}.With(args.Click{Ref: "@e99999"}), target.CodeBadRef)
		s.refused(t, daemon.Request{Verb: "type"}.With(args.Type{Ref: "e-x", Text: "no"}), target.CodeBadRef)
		s.none(t, from, "click", "text")
	}},
	{name: "a ref whose node is gone: stale_ref", run: func(t *testing.T, s *subject) {
		ref := s.ref(t, "Remove me", "push button")
		from := s.mark()
		s.ok(t, daemon.Request{Verb: "click"}.With(args.Click{Ref: ref}))
		s.wait(t, from, "the button removing itself", func(e event) bool { return e.Type == "removed" && e.Widget == "doomed" })
		from = s.mark()
		s.refused(t, daemon.Request{Verb: "click"}.With(args.Click{Ref: ref}), target.CodeStaleRef)
		s.none(t, from, "click")
		if strings.Contains(s.ok(t, daemon.Request{Verb: "snapshot"}).Text, `"Remove me"`) {
			t.Fatal("the removed node is still in the snapshot")
		}
	}},
	{name: "a handle of the other kind: wrong_kind, naming the command line that addresses it", run: func(t *testing.T, s *subject) {
		from := s.mark()
		r := s.wrongKind
		r.Session = s.session
		resp := s.sv.Call(t, r)
		if resp.OK || resp.Code != target.CodeWrongKind || resp.Facts["use"] != s.wrongCLI || !strings.Contains(resp.Message, s.wrongCLI) {
			t.Fatalf("%s with %s: %+v", r.Verb, s.id, resp)
		}
		// Every other word of that command line that takes a handle, too,
		// never reaching the application.
		others := []daemon.Request{daemon.Request{Verb: "browser.tab"}.With(args.Tab{Action: "close"})}
		if s.kind == target.KindTab {
			others = []daemon.Request{daemon.Request{Verb: "click"}.With(args.Click{Ref: "@e1"}), daemon.Request{Verb: "type"}.With(args.Type{Text: "x"}),
				daemon.Request{Verb: "key"}.With(args.Key{Chord: "a"}), daemon.Request{Verb: "scroll"}.With(args.Scroll{Direction: "down"}),
				{Verb: "screenshot"}, {Verb: "close"}, {Verb: "attach"}, {Verb: "detach"},
				daemon.Request{Verb: "share"}.With(args.Share{With: "other"})}
		}
		for _, r := range others {
			r.Session, r.Target = s.session, string(s.id)
			if resp := s.sv.Call(t, r); resp.OK || resp.Code != target.CodeWrongKind || resp.Facts["use"] != s.wrongCLI {
				t.Fatalf("%s with %s: %+v", r.Verb, s.id, resp)
			}
		}
		s.none(t, from, "click", "text", "key", "scroll")
	}},
	{name: "another session: refused, learning nothing", run: func(t *testing.T, s *subject) {
		from := s.mark()
		var resp daemon.Response
		if s.kind == target.KindWindow {
			resp = s.sv.Call(t, daemon.Request{Verb: "snapshot", Session: "stranger", Target: string(s.id)})
		} else {
			resp = s.sv.Call(t, daemon.Request{Verb: "browser.tab", Session: "stranger", Target: string(s.id)}.With(args.Tab{Action: "select"}))
		}
		if e := s.stranger; e != nil {
			// The subject's own answer, as strict: that code, naming
			// the holder only (what list tells every session), and the
			// lease still the agent's.
			t.Logf("%s answers a stranger %s by design: %s", s.name, e.code, e.why)
			if resp.OK || resp.Code != e.code || resp.Facts["holder"] != s.session {
				t.Fatalf("a stranger's verb on %s: %+v, want %s naming the holder %s", s.id, resp, e.code, s.session)
			}
			if r := s.ok(t, daemon.Request{Verb: "snapshot"}); r.Target == nil || r.Target.Holder != s.session {
				t.Fatalf("the stranger's verb moved the lease: %+v", r.Target)
			}
		} else if resp.OK || (resp.Code != target.CodeNotExposed && resp.Code != target.CodeNotYourTab) || resp.Target != nil {
			t.Fatalf("a stranger's verb on %s: %+v", s.id, resp)
		}
		s.none(t, from, "click", "text", "key")
	}},
	{name: "takeover mid-verb: the verb is cut, the agent paused, the handback told once", run: func(t *testing.T, s *subject) {
		from, done := s.typeInFlight(t)
		to := daemon.LiveHandsOf(s.sv.D).Takeover(t.Context(), s.id, "alice") // the person at the live view (a tab is its opener's alone)
		if !to.OK {
			t.Fatalf("takeover: %+v", to)
		}
		got := <-done
		paused := s.kind.Words().Paused
		if got.OK || got.Code != paused || got.Facts["partial"] != true {
			t.Fatalf("the type in flight answered %+v, want %s, partial", got, paused)
		}
		if n, _ := got.Facts["typed"].(float64); int(n) >= len(longText) {
			t.Fatalf("the cut type says it typed %v of %d", got.Facts["typed"], len(longText))
		}
		time.Sleep(200 * time.Millisecond)
		if n := s.keys(from); n >= len(longText) {
			t.Fatalf("all %d keys reached the application after the takeover", n)
		}
		s.refused(t, daemon.Request{Verb: "snapshot"}, paused)
		// The paused agent cannot hand itself back.
		if r := s.sv.Call(t, daemon.Request{Verb: "handback", Session: s.session, Target: string(s.id)}.With(args.Operator{User: "alice"})); r.OK || r.Code != paused {
			t.Fatalf("the paused agent handed back: %+v", r)
		}
		if r := daemon.LiveHandsOf(s.sv.D).Handback(t.Context(), s.id, "alice"); !r.OK {
			t.Fatalf("handback: %+v", r)
		}
		first := s.ok(t, daemon.Request{Verb: "snapshot"})
		if !strings.Contains(first.Note, "control came back") {
			t.Fatalf("the first answer after the handback has no note: %q", first.Note)
		}
		if again := s.ok(t, daemon.Request{Verb: "snapshot"}); again.Note != "" {
			t.Fatalf("the note was told twice: %q", again.Note)
		}
	}},
	{name: "the application is alive after every read and act", run: func(t *testing.T, s *subject) {
		if !s.alive(t) {
			t.Fatal("the application died under the verbs")
		}
	}},
	{name: "the target vanishes mid-verb: its gone code, partial, and then nothing to address", run: func(t *testing.T, s *subject) {
		_, done := s.typeInFlight(t)
		s.vanish(t)
		got := <-done
		gone := s.kind.Words().Gone
		if got.OK || got.Code != gone || got.Facts["partial"] != true {
			t.Fatalf("the type whose target vanished answered %+v, want %s, partial", got, gone)
		}
		s.refused(t, daemon.Request{Verb: "snapshot"}, s.afterGone)
		list := s.sv.Call(t, daemon.Request{Verb: "list", Session: s.session})
		for _, ti := range list.Targets {
			if ti.ID == s.id {
				t.Fatalf("list still has %s", s.id)
			}
		}
	}},
}

// TestConformance runs the table on a target of every kind the daemon
// registers.
func TestConformance(t *testing.T) {
	st := newSuite(t)
	for _, k := range []struct {
		name string
		open func(*testing.T, string) *subject
	}{
		{"window", st.windowSubject},
		{"xpra", st.xpraSubject},
		{"tab", st.tabSubject},
		{"firefox", st.firefoxSubject},
		{"firefox-framed", st.firefoxFramedSubject},
		{"desktop", st.desktopSubject},
	} {
		t.Run(k.name, func(t *testing.T) {
			s := k.open(t, "agent-"+k.name)
			for _, r := range table {
				if r.only != "" && r.only != s.kind {
					continue
				}
				t.Run(r.name, func(t *testing.T) { r.run(t, s) })
			}
		})
	}
}
