package main_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/target"
)

// verifyPage has a link to another page, a button that changes another
// element, a button that does nothing, a field, and a keydown listener
// that writes the key it saw.
const verifyPage = `<!doctype html><title>verify</title>
<a href="/next">Next</a>
<button id="show" onclick="document.getElementById('out').textContent='shown ' + (++window.n)">Show</button>
<button id="inert">Inert</button>
<label>Name <input id="name"></label>
<p id="out">hidden</p>
<p id="keys"></p>
<script>window.n = 0; document.addEventListener('keydown', (e) => { document.getElementById('keys').textContent += e.key; });</script>`

// verifySite serves verifyPage at /v and records the paths it served.
type verifySite struct {
	*httptest.Server
	paths inbox[string]
}

func newVerifySite(t testing.TB) *verifySite {
	s := &verifySite{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.paths.Add(r.URL.Path)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.URL.Path == "/next" {
			io.WriteString(w, "<!doctype html><title>next</title><p>the next page</p>")
			return
		}
		io.WriteString(w, verifyPage)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *verifySite) served(path string) bool {
	return s.paths.Count(func(p string) bool { return p == path }) > 0
}

// effectOf fails unless resp carries an effect of word.
func effectOf(t *testing.T, resp daemon.Response, word target.EffectWord) *target.Effect {
	t.Helper()
	if resp.Effect == nil || resp.Effect.Word != word {
		t.Fatalf("want effect %s, got %+v (did %q)", word, resp.Effect, resp.Did)
	}
	return resp.Effect
}

// TestVerifyPage: every acting verb on a tab says what it saw — confirmed
// for a field that took the text, a link that navigated and a button that
// changed another element (naming it), no_visible_change for one that
// did nothing, and unverifiable with --no-verify; the page's DOM, read by
// eval, and the server's log are the oracles.
func TestVerifyPage(t *testing.T) {
	e := sharedEnv(t)
	site := newVerifySite(t)
	e.OKJSON("s1", "open", site.URL+"/v")
	snap := e.Snapshot("s1", "-i")
	show, inert, name := ref(t, snap, "push button", "Show"), ref(t, snap, "push button", "Inert"), ref(t, snap, "entry", "Name")

	// fill: the field's value changed.
	eff := effectOf(t, e.OKJSON("s1", "fill", name, "ada"), target.EffectConfirmed)
	if got := e.EvalString("s1", "document.getElementById('name').value"); got != "ada" {
		t.Fatalf("after fill the field holds %q", got)
	}
	if !slices.Contains(eff.Seen, "text: 0 → 3 characters") || strings.Contains(strings.Join(eff.Seen, " "), "ada") {
		t.Fatalf("fill saw %q: want its length, never its text", eff.Seen)
	}
	// type @ref: keys into the field, which it names.
	resp := e.OKJSON("s1", "type", name, "x")
	effectOf(t, resp, target.EffectConfirmed)
	if !strings.Contains(resp.Did, "into "+name+` (entry "Name")`) {
		t.Fatalf("type @ref answered %q: it does not name the field", resp.Did)
	}
	if got := e.EvalString("s1", "document.getElementById('name').value"); got != "adax" {
		t.Fatalf("after type the field holds %q", got)
	}

	// A button that changes another element: the page's watcher names it,
	// with its text before and after (issue 38: a change anywhere in the
	// target is confirmed, naming its node; before, this said
	// changed_elsewhere: the page's content changed).
	out := e.OK("s1", "click", show)
	if !strings.Contains(out, `clicked `+show+` (push button "Show") → confirmed: p#out: text "hidden" → "shown 1"`) {
		t.Fatalf("click Show answered:\n%s", out)
	}
	if got := e.EvalString("s1", "document.getElementById('out').textContent"); got != "shown 1" {
		t.Fatalf("after click Show the page says %q", got)
	}

	// A key with a visible effect on the page (the focus is on Show),
	// named by the page's watcher.
	if eff := effectOf(t, e.OKJSON("s1", "key", "k"), target.EffectConfirmed); !slices.Contains(eff.Seen, `p#keys: text "x" → "xk"`) {
		t.Fatalf("key k saw %q", eff.Seen)
	}
	if got := e.EvalString("s1", "document.getElementById('keys').textContent"); got != "xk" { // the x typed into the field, then k
		t.Fatalf("after key k the page saw %q", got)
	}

	// --no-verify: nothing is watched.
	resp = e.OKJSON("s1", "click", show, "--no-verify")
	eff = effectOf(t, resp, target.EffectUnverifiable)
	if eff.Why != "verification off" || !strings.Contains(resp.Did, `(push button "Show")`) {
		t.Fatalf("--no-verify: why %q, did %q (the node it clicked unnamed?)", eff.Why, resp.Did)
	}

	// An inert button.
	effectOf(t, e.OKJSON("s1", "click", inert), target.EffectNoVisibleChange)
	if got := e.EvalString("s1", "document.getElementById('out').textContent"); got != "shown 2" {
		t.Fatalf("the inert button changed the page: %q", got)
	}

	// A link: the tab navigated.
	resp = e.OKJSON("s1", "click", ref(t, e.Snapshot("s1", "-i"), "link", "Next"))
	eff = effectOf(t, resp, target.EffectConfirmed)
	if !slices.Contains(eff.Seen, "url: /v → /next") || !site.served("/next") {
		t.Fatalf("click Next saw %q; the server served %v", eff.Seen, site.paths.All())
	}
}

// TestNoProgressPage: three clicks in a row on an inert button that saw no
// visible change, and the fourth is refused no_progress saying how to go on;
// another session's same click is not this one's loop; a snapshot between
// the clicks does not start the count over (click → snapshot → click … is
// the loop it is for), another action on the tab does.
func TestNoProgressPage(t *testing.T) {
	e := sharedEnv(t)
	site := newVerifySite(t)
	e.OKJSON("s1", "open", site.URL+"/v")
	inert := ref(t, e.Snapshot("s1", "-i"), "push button", "Inert")
	for range 3 {
		effectOf(t, e.OKJSON("s1", "click", inert), target.EffectNoVisibleChange)
	}
	r := e.RefusedJSON("no_progress", "s1", "click", inert)
	if !strings.Contains(r.Message, "3 times in a row") || !strings.Contains(r.Message, "another action") {
		t.Fatalf("no_progress says: %s", r.Message)
	}
	// Another session is not this one's loop: its same click runs, and s1's
	// is still refused.
	e.OKJSON("s2", "open", site.URL+"/v")
	inert2 := ref(t, e.Snapshot("s2", "-i"), "push button", "Inert")
	effectOf(t, e.OKJSON("s2", "click", inert2), target.EffectNoVisibleChange)
	e.RefusedJSON("no_progress", "s1", "click", inert)
	// A look again is no way out.
	e.Snapshot("s1", "-i")
	e.RefusedJSON("no_progress", "s1", "click", inert)
	// Another action on the tab is.
	show := ref(t, e.Snapshot("s1", "-i"), "push button", "Show")
	effectOf(t, e.OKJSON("s1", "click", show), target.EffectConfirmed)
	// click → snapshot → click → snapshot → click → snapshot → click.
	for range 3 {
		effectOf(t, e.OKJSON("s1", "click", inert), target.EffectNoVisibleChange)
		inert = ref(t, e.Snapshot("s1", "-i"), "push button", "Inert")
	}
	e.RefusedJSON("no_progress", "s1", "click", inert)
	if got := e.EvalString("s1", "document.getElementById('out').textContent"); got != "shown 1" {
		t.Fatalf("the page says %q", got)
	}
}

// TestBudgetSteps: with a budget of two steps the third acting verb is
// refused budget_spent, saying how to go on; reading is no step; a reset
// starts over; the operator sets another session's.
func TestBudgetSteps(t *testing.T) {
	e := sharedEnv(t)
	site := newVerifySite(t)
	e.OKJSON("s1", "open", site.URL+"/v")
	show := ref(t, e.Snapshot("s1", "-i"), "push button", "Show")
	if out := e.OK("s1", "budget", "--steps", "2"); !strings.Contains(out, "budget of "+e.Session("s1")+": 2 of 2 steps left") {
		t.Fatalf("budget --steps 2 answered:\n%s", out)
	}
	e.OKJSON("s1", "click", show)
	e.Snapshot("s1", "-i")
	e.OKJSON("s1", "click", show, "--no-verify")
	r := e.RefusedJSON("budget_spent", "s1", "click", show)
	if !strings.Contains(r.Message, "budget --reset") {
		t.Fatalf("budget_spent says: %s", r.Message)
	}
	if got := e.EvalString("s1", "document.getElementById('out').textContent"); got != "shown 2" {
		t.Fatalf("the refused click reached the page: %q", got)
	}
	if out := e.OK("s1", "budget"); !strings.Contains(out, "0 of 2 steps left") {
		t.Fatalf("budget answered:\n%s", out)
	}
	e.OK("s1", "budget", "--reset")
	e.OKJSON("s1", "click", show)
	if got := e.EvalString("s1", "document.getElementById('out').textContent"); got != "shown 3" {
		t.Fatalf("after the reset the page says %q", got)
	}
	// The operator's word for another session.
	e.OK("op", "budget", "--for", e.Session("s1"), "--steps", "1")
	e.RefusedJSON("budget_spent", "s1", "click", show)
	e.OK("op", "budget", "--for", e.Session("s1"), "--steps", "0")
	e.OKJSON("s1", "click", show)
}
