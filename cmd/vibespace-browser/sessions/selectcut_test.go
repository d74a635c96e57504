package sessions_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/cmd/internal/clitest"
)

// slowSelectPage is a <select> whose change handler tells the test (a
// synchronous request: it has reached the server when the handler goes on)
// and then keeps the page's thread busy for a long while: the select,
// which dispatches the change from inside its own call into the page, is
// still in flight when the test has the report.
const slowSelectPage = `<!doctype html>
<html><head><title>Slow select</title></head><body>
<label for="fruit">Fruit</label>
<select id="fruit"><option value="a">Apple</option><option value="b">Banana</option><option value="c">Cherry</option></select>
<script>
document.getElementById('fruit').addEventListener('change', e => {
  const x = new XMLHttpRequest();
  x.open('POST', '/report', false);
  x.send(JSON.stringify({event: 'selecting', value: e.target.value}));
  const until = performance.now() + 60000;
  while (performance.now() < until) {}
});
</script></body></html>`

// TestSelectCutByKill9: a daemon killed with -9 while a select on a tab
// is under way (the page has the change and has not let the select
// return). The CLI says outcome_unknown; the tab dies with the daemon, so
// the daemon the next call starts says, once, on the session's next
// browser answer, that the select on that tab was cut by a restart; the
// audit records it. browser.select is an acting verb (daemon/verb): the
// in-flight record covers it.
func TestSelectCutByKill9(t *testing.T) {
	e := newEnv(t)
	e.Serve()
	var reports inbox[report]
	mux := http.NewServeMux()
	servePage(mux, "/slow", slowSelectPage)
	mux.HandleFunc("POST /report", reports.Posted)
	site := httptest.NewServer(mux)
	t.Cleanup(site.Close)

	tab := string(e.OKJSON("s1", "open", site.URL+"/slow").Target.ID)
	fruit := ref(t, e.Snapshot("s1", "-i"), "combo box", "Fruit")

	selected := make(chan clitest.Result, 1)
	go func() { selected <- e.CLI("s1", "select", fruit, "Banana") }()
	reports.Wait(t, 0, "the change", func(r report) bool { return r.Event == "selecting" && r.Value == "b" })
	e.Kill9()
	r := <-selected
	if r.Code != 2 || !strings.Contains(r.Errout, "unanswered: ") || !strings.Contains(r.Errout, "[outcome_unknown]") {
		t.Fatalf("the select the daemon died in: exit %d\n%s%s", r.Code, r.Out, r.Errout)
	}
	if e.DaemonPID() == 0 {
		e.Serve()
	}

	got := e.OKJSON("s1", "tab").Note
	cut := "select on " + tab + " (gone since) by s1 at "
	if strings.Count(got, cut) != 1 || !strings.Contains(got, "was cut by a daemon restart; its effect is unknown") {
		t.Fatalf("the first answer after the kill: note %q, want the cut select (%q…) once", got, cut)
	}
	if again := e.OKJSON("s1", "tab").Note; again != "" {
		t.Fatalf("told twice: %q", again)
	}
	if b, _ := os.ReadFile(filepath.Join(e.Home, "audit.jsonl")); !strings.Contains(string(b), `"verb":"browser.select","ok":false,"code":"outcome_unknown"`) {
		t.Fatalf("the audit does not record the cut select:\n%s", b)
	}
}
