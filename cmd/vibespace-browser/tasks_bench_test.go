package main_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cmd/internal/clitest"
)

// taskSignupPage is a sign-up form whose submit replaces the form with a
// status message (not interactive: an agent that reads only what it can
// act on never sees it).
const taskSignupPage = `<!doctype html><html><head><title>Sign up</title></head><body>
<h1>Create your account</h1>
<form id="f" onsubmit="event.preventDefault(); done()">
<label for="name">Name</label> <input id="name"><br>
<label for="email">Email</label> <input id="email" type="email"><br>
<label for="pw">Password</label> <input id="pw" type="password"><br>
<label><input id="agree" type="checkbox"> I agree to the terms</label><br>
<button>Sign up</button>
</form>
<div id="msg" role="status"></div>
<script>
function done() {
  const n = document.getElementById('name').value;
  document.getElementById('f').remove();
  document.getElementById('msg').textContent = 'Welcome, ' + n + '! Your account is ready.';
}
</script></body></html>`

// BenchmarkTasksVersusAgentBrowser runs three small tasks as an agent
// scripts them, with our command line and with agent-browser 0.41.2's on
// the same local pages in the same run, and reports what each side cost
// the agent: the calls it made and the bytes it read (every command's
// whole output, stdout and stderr, as an agent reads it). Each task's
// outcome is checked on both sides: the page's own state, and the answer
// the agent needed in what it read (a task whose answer was not read is a
// failure, not a cheap run).
//
//   - sign-up: open the form, read its fields, fill three, tick the box,
//     submit, and read the welcome message the page shows after;
//   - table: open a form of 36 fields over a table of 200 people, and read
//     the email of Person 137;
//   - docs: open the Python library's json page (python3-doc) and read
//     the signature of json.dumps.
//
// Run it with:
//
//	go test ./cmd/vibespace-browser -run '^$' -bench TasksVersus -benchtime 1x
func BenchmarkTasksVersusAgentBrowser(b *testing.B) {
	e := newEnv(b)
	e.Serve()
	p := newPeer(b)
	mux := http.NewServeMux()
	servePage(mux, "/signup", taskSignupPage)
	servePage(mux, "/table", tablePage())
	mux.Handle("/docs/", http.StripPrefix("/docs/", http.FileServer(http.Dir("/usr/share/doc/python3/html"))))
	srv := httptest.NewServer(mux)
	b.Cleanup(srv.Close)

	type side struct {
		calls, bytes int
		read         strings.Builder
	}
	ours := func(s *side, args ...string) string {
		b.Helper()
		r := e.CLI("tasks", args...)
		if r.Code != 0 {
			b.Fatalf("ours %v: exit %d\n%s%s", args, r.Code, r.Out, r.Errout)
		}
		s.calls++
		s.bytes += len(r.Out) + len(r.Errout)
		s.read.WriteString(r.Out + r.Errout)
		return r.Out
	}
	theirs := func(s *side, args ...string) string {
		b.Helper()
		out := p.run(args...)
		s.calls++
		s.bytes += len(out)
		s.read.WriteString(out)
		return out
	}
	ourRef := func(out, role, name string) string {
		b.Helper()
		m := regexp.MustCompile(`(?m)` + regexp.QuoteMeta(role) + ` "` + regexp.QuoteMeta(name) + `" (@e\d+)`).FindStringSubmatch(out)
		if m == nil {
			b.Fatalf("no %s %q with a ref in our answer:\n%s", role, name, out)
		}
		return m[1]
	}
	theirRef := func(out, role, name string) string {
		b.Helper()
		r := clitest.PeerRefOf(out, role, name)
		if r == "" {
			b.Fatalf("no %s %q with a ref in agent-browser's answer:\n%s", role, name, out)
		}
		return r
	}
	// The page's own state, read outside what either side counts.
	pageOurs := func(js string) string {
		lines := strings.Split(strings.TrimSpace(e.OK("tasks", "eval", js)), "\n")
		return strings.TrimSpace(lines[len(lines)-1]) // after the target line
	}
	pageTheirs := func(js string) string { return strings.TrimSpace(p.run("eval", js)) }

	tasks := []struct {
		name   string
		answer string // what the agent must have read
		ours   func(s *side)
		theirs func(s *side)
		done   string // JS true when the page is in the task's end state
	}{
		{
			name: "signup", answer: "Welcome, Ada! Your account is ready.",
			done: `document.getElementById('f') === null && document.getElementById('msg').textContent.startsWith('Welcome, Ada')`,
			ours: func(s *side) {
				ours(s, "open", srv.URL+"/signup")
				out := ours(s, "snapshot", "-i")
				ours(s, "fill", ourRef(out, "entry", "Name"), "Ada")
				ours(s, "fill", ourRef(out, "entry", "Email"), "ada@example.org")
				ours(s, "fill", ourRef(out, "entry", "Password"), "correct horse")
				ours(s, "click", ourRef(out, "check box", "I agree to the terms"))
				ours(s, "click", ourRef(out, "push button", "Sign up"))
				ours(s, "snapshot", "-i", "--diff")
			},
			theirs: func(s *side) {
				theirs(s, "open", srv.URL+"/signup")
				out := theirs(s, "snapshot", "-i")
				theirs(s, "fill", theirRef(out, "textbox", "Name"), "Ada")
				theirs(s, "fill", theirRef(out, "textbox", "Email"), "ada@example.org")
				theirs(s, "fill", theirRef(out, "textbox", "Password"), "correct horse")
				theirs(s, "check", theirRef(out, "checkbox", "I agree to the terms"))
				theirs(s, "click", theirRef(out, "button", "Sign up"))
				// Its -i view shows only what can be acted on: the
				// message is read from the full snapshot.
				theirs(s, "snapshot")
			},
		},
		{
			name: "table", answer: "person137@example.org", done: `true`,
			ours: func(s *side) {
				ours(s, "open", srv.URL+"/table")
				ours(s, "find", "Person 137")
			},
			theirs: func(s *side) {
				theirs(s, "open", srv.URL+"/table")
				theirs(s, "snapshot")
			},
		},
		{
			name: "docs", answer: "skipkeys=False", done: `true`,
			ours: func(s *side) {
				ours(s, "open", srv.URL+"/docs/library/json.html")
				ours(s, "find", "json.dumps(")
			},
			theirs: func(s *side) {
				theirs(s, "open", srv.URL+"/docs/library/json.html")
				theirs(s, "snapshot")
			},
		},
	}
	for _, task := range tasks {
		b.Run(task.name, func(b *testing.B) {
			// One run of each side: calls and bytes are the same every
			// run, and a task repeated on one page would be refused
			// no_progress by our loop guard as it should.
			var o, t side
			t0 := time.Now()
			task.ours(&o)
			ourTime := time.Since(t0)
			t0 = time.Now()
			task.theirs(&t)
			theirTime := time.Since(t0)
			for b.Loop() {
			}
			if got := pageOurs(task.done); got != "true" {
				b.Errorf("%s: our page did not end as the task asks (%s)", task.name, got)
			}
			if got := pageTheirs(task.done); got != "true" {
				b.Errorf("%s: agent-browser's page did not end as the task asks (%s)", task.name, got)
			}
			for who, s := range map[string]*side{"ours": &o, "agent-browser": &t} {
				if !strings.Contains(s.read.String(), task.answer) {
					b.Errorf("%s, %s: the agent never read %q in %d bytes", task.name, who, task.answer, s.bytes)
				}
			}
			b.ReportMetric(float64(o.calls), "ours-calls")
			b.ReportMetric(float64(t.calls), "theirs-calls")
			b.ReportMetric(float64(o.bytes), "ours-B")
			b.ReportMetric(float64(t.bytes), "theirs-B")
			b.ReportMetric(float64(o.bytes)/float64(t.bytes), "bytes-ratio")
			b.ReportMetric(float64(ourTime)/float64(time.Millisecond), "ours-ms")
			b.ReportMetric(float64(theirTime)/float64(time.Millisecond), "theirs-ms")
			b.Logf("%s: ours %d calls, %d B; agent-browser %d calls, %d B (%s)", task.name, o.calls, o.bytes, t.calls, t.bytes,
				fmt.Sprintf("%.2f×", float64(o.bytes)/float64(t.bytes)))
		})
	}
}
