package target

import (
	"strings"
	"testing"
)

func TestParseMode(t *testing.T) {
	for _, s := range []string{"auto", "tree", "pixels"} {
		if m, err := ParseMode(s); err != nil || string(m) != s {
			t.Errorf("ParseMode(%q) = %q, %v", s, m, err)
		}
	}
	for _, s := range []string{"", "Tree", "pixel", "auto ", strings.Repeat("x", 500)} {
		_, err := ParseMode(s)
		if CodeOf(err) != CodeBadMode {
			t.Errorf("ParseMode(%q): %v, want bad_mode", s, err)
		}
		if len(err.Error()) > 400 {
			t.Errorf("ParseMode(%q) repeats the whole word: %d bytes", s, len(err.Error()))
		}
	}
}

func TestModeWords(t *testing.T) {
	for _, c := range []struct {
		m, resolved Mode
		why, want   string
	}{
		{ModePixels, "", "", "pixels"},
		{ModeTree, "", "", "tree"},
		{ModeAuto, "", "", "auto"},
		{ModeAuto, ModeTree, "its frame is on the accessibility bus with 3 children", "auto → tree"},
		{ModeAuto, ModePixels, "", "auto → pixels (no accessible tree)"},
		{ModeAuto, ModePixels, "the application (pid 7) is not on the accessibility bus", "auto → pixels (no accessible tree: the application (pid 7) is not on the accessibility bus)"},
		{ModePixels, ModeTree, "stale", "pixels"},
	} {
		if got := ModeWords(c.m, c.resolved, c.why); got != c.want {
			t.Errorf("ModeWords(%s, %s, %q) = %q, want %q", c.m, c.resolved, c.why, got, c.want)
		}
	}
}

// TestCheckMode is the verb × mode table: which verb each mode refuses,
// and how.
func TestCheckMode(t *testing.T) {
	id := WindowID(4)
	type row struct {
		verb Verb
		at   bool
		want map[Mode]Code // "" runs
	}
	rows := []row{
		{VerbSnapshot, false, map[Mode]Code{ModeAuto: "", ModeTree: "", ModePixels: CodeModePixels}},
		{VerbClickRef, false, map[Mode]Code{ModeAuto: "", ModeTree: "", ModePixels: CodeModePixels}},
		{VerbTypeRef, false, map[Mode]Code{ModeAuto: "", ModeTree: "", ModePixels: CodeModePixels}},
		{VerbClickAt, true, map[Mode]Code{ModeAuto: "", ModeTree: CodeModeTree, ModePixels: ""}},
		{VerbScroll, true, map[Mode]Code{ModeAuto: "", ModeTree: CodeModeTree, ModePixels: ""}},
		{VerbScroll, false, map[Mode]Code{ModeAuto: "", ModeTree: "", ModePixels: ""}},
		{VerbTypeFocus, false, map[Mode]Code{ModeAuto: "", ModeTree: "", ModePixels: ""}},
		{VerbKey, false, map[Mode]Code{ModeAuto: "", ModeTree: "", ModePixels: ""}},
		{VerbScreenshot, false, map[Mode]Code{ModeAuto: "", ModeTree: "", ModePixels: ""}},
	}
	for _, r := range rows {
		for m, want := range r.want {
			got := CheckMode(id, m, r.verb, r.at)
			if got == nil {
				if want != "" {
					t.Errorf("%s (at %v) in %s mode runs, want %s", r.verb, r.at, m, want)
				}
				continue
			}
			if got.Code != want {
				t.Errorf("%s (at %v) in %s mode: %v, want %q", r.verb, r.at, m, got, want)
				continue
			}
			// The refusal names how to switch, on this command line.
			sw := "vibespace-window mode win:4 tree"
			if want == CodeModeTree {
				sw = "vibespace-window mode win:4 pixels"
			}
			if !strings.Contains(got.Message, sw) || got.Facts["switch"] != sw || got.Facts["mode"] != string(m) {
				t.Errorf("%s in %s mode: %v does not name %q", r.verb, m, got, sw)
			}
		}
	}
	r := AutoNoTree(id, VerbSnapshot, "the application (pid 7) is not on the accessibility bus")
	if r.Code != CodeNoTree || r.Facts["mode"] != "auto" || r.Facts["resolved"] != "pixels" || !strings.Contains(r.Message, "accessibility bus") {
		t.Errorf("AutoNoTree: %v", r)
	}
}

func TestUnderMode(t *testing.T) {
	p := Probe{Tree: true, TreeVia: "the AT-SPI tree", Capture: true, Injection: "xtest"}
	caps := Capabilities(p)
	road := func(cs []Capability, v Verb) Capability {
		for _, c := range cs {
			if c.Verb == v {
				return c
			}
		}
		t.Fatalf("no %s in %+v", v, cs)
		return Capability{}
	}
	for _, v := range []Verb{VerbSnapshot, VerbClickRef, VerbTypeRef, VerbClickAt, VerbScroll} {
		if !road(caps, v).OK() {
			t.Fatalf("%s has no road before any mode", v)
		}
	}
	id := WindowID(3)
	px := UnderMode(id, ModePixels, caps)
	for _, v := range []Verb{VerbSnapshot, VerbClickRef, VerbTypeRef} {
		if c := road(px, v); c.OK() || c.Refusal.Code != CodeModePixels {
			t.Errorf("pixels mode: %s = %+v, want refused mode_pixels", v, c)
		}
	}
	for _, v := range []Verb{VerbClickAt, VerbScroll, VerbKey, VerbScreenshot} {
		if !road(px, v).OK() {
			t.Errorf("pixels mode refuses %s", v)
		}
	}
	tr := UnderMode(id, ModeTree, caps)
	if c := road(tr, VerbClickAt); c.OK() || c.Refusal.Code != CodeModeTree {
		t.Errorf("tree mode: click --at = %+v, want refused mode_tree", c)
	}
	for _, v := range []Verb{VerbSnapshot, VerbClickRef, VerbScroll, VerbKey} {
		if !road(tr, v).OK() {
			t.Errorf("tree mode refuses %s", v)
		}
	}
	if !road(UnderMode(id, ModeAuto, caps), VerbSnapshot).OK() || !road(caps, VerbSnapshot).OK() {
		t.Error("auto refuses snapshot, or UnderMode changed its input")
	}
}
