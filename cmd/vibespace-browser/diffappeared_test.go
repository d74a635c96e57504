package main_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// signupPage is a sign-up form whose submit removes the form and shows a
// message in a paragraph nothing can act on, then posts the message it
// shows to the test's server: the page's own word for what appeared.
const signupPage = `<!doctype html>
<html><head><title>Sign up</title></head><body>
<h1>Sign up</h1>
<form id="f">
<label>Name <input id="name"></label>
<label>Email <input id="email" type="email"></label>
<label>Password <input id="pw" type="password"></label>
<button type="submit">Create account</button>
</form>
<script>
document.getElementById('f').addEventListener('submit', ev => {
  ev.preventDefault();
  const name = document.getElementById('name').value;
  document.getElementById('f').remove();
  const p = document.createElement('p');
  p.textContent = 'Welcome, ' + name + ': your account is ready';
  document.body.appendChild(p);
  fetch('/report', {method: 'POST', body: JSON.stringify({event: 'submitted', shown: p.textContent})});
});
</script></body></html>`

// signupReport is what signupPage posts.
type signupReport struct {
	Event string `json:"event"`
	Shown string `json:"shown"`
}

// TestDiffShowsWhatAppeared: after a form's submit, snapshot -i --diff
// lists the fields that went and the message that appeared (a paragraph,
// not interactive), the message as the page says it showed it; and that
// -i diff does not move the baseline of the whole one: the next plain
// --diff still says what changed since the last whole snapshot (the form
// gone, the message there), and a diff after it is unchanged.
func TestDiffShowsWhatAppeared(t *testing.T) {
	e := sharedEnv(t)
	var reports inbox[signupReport]
	mux := http.NewServeMux()
	servePage(mux, "/signup", signupPage)
	mux.HandleFunc("POST /report", reports.Posted)
	site := httptest.NewServer(mux)
	t.Cleanup(site.Close)

	e.OK("s1", "open", site.URL+"/signup")
	e.OK("s1", "snapshot") // the whole tree: the baseline of the plain --diff
	form := e.OK("s1", "snapshot", "-i")
	name := textRef(t, form, "entry", "Name")
	e.OK("s1", "fill", name, "Ada")
	e.OK("s1", "fill", textRef(t, form, "entry", "Email"), "ada@example.org")
	e.OK("s1", "fill", textRef(t, form, "entry", "Password"), "correct horse")
	from := reports.N()
	e.OK("s1", "click", textRef(t, form, "push button", "Create account"))
	shown := reports.Wait(t, from, "submitted", func(r signupReport) bool { return r.Event == "submitted" }).Shown
	if shown != "Welcome, Ada: your account is ready" {
		t.Fatalf("the page showed %q", shown)
	}

	// The message is a line that came (+) or a text that now says it (~:
	// the page's text runs, which have no node of their own).
	message := func(lines []string) bool {
		for _, l := range lines {
			if (strings.HasPrefix(l, "+ ") || strings.HasPrefix(l, "~ ")) && strings.Contains(l, `"`+shown+`"`) {
				return true
			}
		}
		return false
	}
	removed := func(lines []string, ref string) bool {
		for _, l := range lines {
			if strings.HasPrefix(l, "- ") && strings.Contains(l, ref) {
				return true
			}
		}
		return false
	}
	lines := diffLines(e.OK("s1", "snapshot", "-i", "--diff"))
	if !message(lines) || !removed(lines, name) {
		t.Fatalf("snapshot -i --diff after the submit: want the removed field %s and the message %q:\n%s", name, shown, strings.Join(lines, "\n"))
	}
	if lines := diffLines(e.OK("s1", "snapshot", "-i", "--diff")); len(lines) != 1 || lines[0] != "unchanged" {
		t.Fatalf("a second -i --diff: %q", lines)
	}
	// The whole --diff is still against the whole snapshot before the
	// submit: the -i diffs did not move it.
	lines = diffLines(e.OK("s1", "snapshot", "--diff"))
	if !message(lines) || strings.Contains(strings.Join(lines, "\n"), "unchanged") {
		t.Fatalf("the plain --diff after the -i ones: want the message %q:\n%s", shown, strings.Join(lines, "\n"))
	}
	if lines := diffLines(e.OK("s1", "snapshot", "--diff")); len(lines) != 1 || lines[0] != "unchanged" {
		t.Fatalf("a second plain --diff: %q", lines)
	}
}
