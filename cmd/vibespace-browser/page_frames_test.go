package main_test

import (
	"strings"
	"testing"

	"github.com/vibespace/vibespace/target"
)

// frameActInner is a frame's page: a <select> that reports its choice to
// the test's server, and a button whose handler changes the frame's text.
const frameActInner = `<!doctype html><title>Inner %[1]s</title>
<p id="out">idle %[1]s</p>
<select aria-label="Pick %[1]s" onchange="fetch('/hit?k=%[1]s-pick-' + this.value)"><option>one</option><option>two</option></select>
<button onclick="document.getElementById('out').textContent = 'pressed %[1]s'; fetch('/hit?k=%[1]s-press')">Press %[1]s</button>`

// Through vibespace-browser, in a same-origin and in a cross-site frame:
// select by ref sets the frame's <select> (its page reports the choice),
// and a click on the frame's button names that button (not a main-frame
// element) and sees its effect, the frame's text changing (confirmed or
// changed_elsewhere, never no_visible_change); the text is read back by a
// snapshot.
func TestPageRefsInFrames(t *testing.T) {
	e := sharedEnv(t)
	site := newFramesSite(t, "<button>Main button</button>", frameActInner, nil)

	e.OK("p", "open", site.URL+"/frames")
	text := e.framesShown("p", `"Press same"`, `"Press cross"`)
	for _, f := range []string{"same", "cross"} {
		pick := textRef(t, text, "combo box", "Pick "+f)
		resp := e.OKJSON("p", "select", pick, "two")
		site.waitHit(t, f+"-pick-two")
		if want := `combo box "Pick ` + f + `"`; !strings.Contains(resp.Did, want) {
			t.Errorf("frame %s: select answered %q, want it to name %s", f, resp.Did, want)
		}

		press := textRef(t, text, "push button", "Press "+f)
		resp = e.OKJSON("p", "click", press)
		site.waitHit(t, f+"-press")
		if want := `(push button "Press ` + f + `")`; !strings.Contains(resp.Did, want) {
			t.Errorf("frame %s: click answered %q, want it to name %s", f, resp.Did, want)
		}
		if resp.Effect == nil || (resp.Effect.Word != target.EffectConfirmed && resp.Effect.Word != target.EffectChangedElsewhere) {
			t.Errorf("frame %s: click's effect %+v, want confirmed or changed_elsewhere", f, resp.Effect)
		}
		if s := e.OK("p", "snapshot"); !strings.Contains(s, "pressed "+f) {
			t.Errorf("frame %s: the frame's text did not change:\n%s", f, s)
		}
	}
}
