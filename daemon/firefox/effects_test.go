package firefox_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/target"
)

// effectsPage has a button whose click writes the page at once, one whose
// click writes it later (a timer its handler starts: pending, then seen),
// one whose click changes nothing, a field, and a link to another page.
const effectsPage = `<!doctype html>
<html><head><title>Effects</title></head>
<body>
<h1>Effects</h1>
<button id="now" onclick="document.getElementById('out').textContent = 'clicked ' + (++window.n)">Now</button>
<button id="later" onclick="setTimeout(() => { document.getElementById('out').textContent = 'later ' + (++window.n) }, 300)">Later</button>
<button id="idle">Nothing</button>
<label>Name <input id="name" type="text"></label>
<p id="out">none</p>
<a href="/next">Next page</a>
<script>window.n = 0</script>
</body></html>`

// refWord is a ref in an answer's words: refs are each session's own.
var refWord = regexp.MustCompile(`@e\d+`)

// TestEffectsBesideChromium runs the same acts on the same page in a
// Firefox tab and a Chromium tab of one daemon, the effect check on (an
// agent's default), and holds both to the same effect and the same words
// (refs aside; a navigation: the same word, address and title): a click
// that changes a text (confirmed, naming it), one
// whose change comes from a timer it started, one that changes nothing
// (no_visible_change), a fill, a click on a link that navigates. Each
// act's effect is checked in the page's own DOM too.
func TestEffectsBesideChromium(t *testing.T) {
	sv := served(t, nil)
	s := newSite(t, map[string]string{"/fx": effectsPage, "/next": `<!doctype html><title>Next</title><p>the next page`})
	sessions := []string{"ch", "fx"}
	req := func(session, verb string) daemon.Request {
		return daemon.Request{Verb: "browser." + verb, Session: session}
	}
	refs := map[string]map[string]string{}
	for _, ss := range sessions {
		sv.OK(t, req(ss, "open").With(args.OpenURL{URL: s.URL + "/fx"}))
		text := sv.OK(t, req(ss, "snapshot").With(args.Snapshot{Observe: args.Observe{Interactive: true}})).Text
		refs[ss] = map[string]string{
			"now": refIn(t, text, "push button", "Now"), "later": refIn(t, text, "push button", "Later"),
			"idle": refIn(t, text, "push button", "Nothing"), "name": refIn(t, text, "entry", "Name"),
			"next": refIn(t, text, "link", "Next page"),
		}
	}
	acts := []struct {
		name  string
		req   func(ss string) daemon.Request
		word  target.EffectWord
		check string // an expression the page answers "true" to after the act ("": none)
		// same: what both must say (nil: the same words, refs aside). A
		// navigation's words depend on the moment of the last look on
		// either browser (whether the acted link is read gone yet, the
		// old document's content: seen on Chromium under -race).
		same []string
	}{
		{"click that writes the page", func(ss string) daemon.Request { return req(ss, "click").With(args.Click{Ref: refs[ss]["now"]}) },
			target.EffectConfirmed, "document.getElementById('out').textContent === 'clicked 1'", nil},
		{"click whose timer writes the page", func(ss string) daemon.Request { return req(ss, "click").With(args.Click{Ref: refs[ss]["later"]}) },
			target.EffectConfirmed, "document.getElementById('out').textContent === 'later 2'", nil},
		{"click that changes nothing", func(ss string) daemon.Request { return req(ss, "click").With(args.Click{Ref: refs[ss]["idle"]}) },
			target.EffectNoVisibleChange, "document.getElementById('out').textContent === 'later 2' && window.n === 2", nil},
		{"fill", func(ss string) daemon.Request {
			return req(ss, "fill").With(args.Fill{Ref: refs[ss]["name"], Text: "Ada"})
		},
			target.EffectConfirmed, "document.getElementById('name').value === 'Ada'", nil},
		{"click that navigates", func(ss string) daemon.Request { return req(ss, "click").With(args.Click{Ref: refs[ss]["next"]}) },
			target.EffectConfirmed, "location.pathname === '/next' && document.title === 'Next'",
			[]string{`clicked @ref (link "Next page") → confirmed: `, "url: /fx → /next", `title: "Effects" → "Next"`}},
	}
	for _, a := range acts {
		did := map[string]string{}
		for _, ss := range sessions {
			resp := sv.OK(t, a.req(ss))
			if resp.Effect == nil || resp.Effect.Word != a.word {
				t.Errorf("%s on %s: effect %+v (%s), want %s", a.name, ss, resp.Effect, resp.Did, a.word)
			}
			did[ss] = refWord.ReplaceAllString(resp.Did, "@ref")
			t.Logf("%s on %s: %s (waited %d ms)", a.name, ss, resp.Did, resp.Effect.WaitedMS)
			if got, ok := sv.WaitEval(t, ss, a.check, "true"); !ok {
				t.Errorf("%s on %s: the page answers %s to %s", a.name, ss, got, a.check)
			}
		}
		if a.same == nil && did["ch"] != did["fx"] {
			t.Errorf("%s: Chromium said %q, Firefox %q", a.name, did["ch"], did["fx"])
		}
		for _, w := range a.same {
			if !strings.Contains(did["ch"], w) || !strings.Contains(did["fx"], w) {
				t.Errorf("%s: Chromium said %q, Firefox %q: both should say %q", a.name, did["ch"], did["fx"], w)
			}
		}
	}
}

// TestFrameEffectBesideChromium: a click inside a same-site <iframe> that
// writes the frame's own text is changed_elsewhere in both browsers, in
// the same words: the frame's document's digest moved (the page's
// watcher is the top document's). Before a Firefox tab's digest read its
// frames, Firefox said no_visible_change. (A page of its own: a
// navigation of a page with a frame may be seen first as the frame's
// content going.)
func TestFrameEffectBesideChromium(t *testing.T) {
	sv := served(t, nil)
	s := newSite(t, map[string]string{
		"/framed": `<!doctype html><title>Framed</title><h1>Framed</h1><iframe src="/inner" title="inner" style="width:300px;height:80px"></iframe>`,
		"/inner":  `<!doctype html><button onclick="document.getElementById('fout').textContent = 'framed'">In frame</button><p id="fout">unframed</p>`,
	})
	did := map[string]string{}
	for _, ss := range []string{"ch", "fx"} {
		sv.OK(t, daemon.Request{Verb: "browser.open", Session: ss}.With(args.OpenURL{URL: s.URL + "/framed"}))
		text := sv.OK(t, daemon.Request{Verb: "browser.snapshot", Session: ss}.With(args.Snapshot{Observe: args.Observe{Interactive: true}})).Text
		resp := sv.OK(t, daemon.Request{Verb: "browser.click", Session: ss}.With(args.Click{Ref: refIn(t, text, "push button", "In frame")}))
		if resp.Effect == nil || resp.Effect.Word != target.EffectChangedElsewhere {
			t.Errorf("on %s: effect %+v (%s), want %s", ss, resp.Effect, resp.Did, target.EffectChangedElsewhere)
		}
		did[ss] = refWord.ReplaceAllString(resp.Did, "@ref")
		const check = "document.querySelector('iframe').contentDocument.getElementById('fout').textContent === 'framed'"
		if got, ok := sv.WaitEval(t, ss, check, "true"); !ok {
			t.Errorf("on %s: the frame answers %s to %s", ss, got, check)
		}
	}
	if did["ch"] != did["fx"] {
		t.Errorf("Chromium said %q, Firefox %q", did["ch"], did["fx"])
	}
}

// TestFramedNavigationBesideChromium: a click on a link of a page with an
// <iframe> is a navigation, confirmed by the address it moved to, in both
// browsers, every time. A look may read the frame's document going (the
// old page unloading) before the address moves; that is not a change of
// the page elsewhere, and the wait goes on to the address (Chromium said
// changed_elsewhere "the page's content changed" here before). A form
// posted to its own address is confirmed by its button gone with the old
// document.
func TestFramedNavigationBesideChromium(t *testing.T) {
	sv := served(t, nil)
	s := newSite(t, map[string]string{
		"/a":     `<!doctype html><title>A</title><h1>A</h1><iframe src="/inner" title="inner" style="width:300px;height:80px"></iframe><a href="/b">To B</a><form method="post" action="/a"><button>Post here</button></form>`,
		"/b":     `<!doctype html><title>B</title><h1>B</h1><iframe src="/inner" title="inner" style="width:300px;height:80px"></iframe><a href="/a">To A</a>`,
		"/inner": `<!doctype html><p>inner text</p><script>addEventListener('pagehide', () => document.body.textContent = 'leaving')</script>`,
	})
	for _, ss := range []string{"ch", "fx"} {
		sv.OK(t, daemon.Request{Verb: "browser.open", Session: ss}.With(args.OpenURL{URL: s.URL + "/a"}))
		from, to := "a", "b"
		for i := range 6 {
			text := sv.OK(t, daemon.Request{Verb: "browser.snapshot", Session: ss}.With(args.Snapshot{Observe: args.Observe{Interactive: true}})).Text
			resp := sv.OK(t, daemon.Request{Verb: "browser.click", Session: ss}.With(args.Click{Ref: refIn(t, text, "link", "To "+strings.ToUpper(to))}))
			want := "url: /" + from + " → /" + to
			if resp.Effect == nil || resp.Effect.Word != target.EffectConfirmed || !strings.Contains(resp.Did, want) {
				t.Errorf("on %s, click %d: %s (effect %+v), want %s saying %q", ss, i, resp.Did, resp.Effect, target.EffectConfirmed, want)
			}
			check := "location.pathname === '/" + to + "'"
			if got, ok := sv.WaitEval(t, ss, check, "true"); !ok {
				t.Fatalf("on %s, click %d: the page answers %s to %s", ss, i, got, check)
			}
			from, to = to, from
		}
		// Now on /a: post its form to /a itself.
		text := sv.OK(t, daemon.Request{Verb: "browser.snapshot", Session: ss}.With(args.Snapshot{Observe: args.Observe{Interactive: true}})).Text
		ref := refIn(t, text, "push button", "Post here")
		resp := sv.OK(t, daemon.Request{Verb: "browser.click", Session: ss}.With(args.Click{Ref: ref}))
		if resp.Effect == nil || resp.Effect.Word != target.EffectConfirmed || !strings.Contains(resp.Did, ref+" is gone") {
			t.Errorf("on %s, the post: %s (effect %+v), want %s saying %q", ss, resp.Did, resp.Effect, target.EffectConfirmed, ref+" is gone")
		}
		s.waitFor(t, t.Context(), "POST /a")
	}
}
