package main_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// A page whose form, submitted, posts what its fields hold and says
// "Welcome" in its own DOM.
const batchFormPage = `<!doctype html>
<html><head><title>Sign up</title></head><body>
<form id="f">
<label for="name">Name</label> <input id="name">
<label for="code">Code</label> <input id="code">
<label for="password">Password</label> <input id="password" type="password">
<button type="submit">Sign up</button>
</form>
<p id="out"></p>
<script>
let n = 0;
document.getElementById('f').addEventListener('submit', ev => {
  ev.preventDefault();
  n++;
  document.getElementById('out').textContent = 'Welcome ' + document.getElementById('name').value + ' (' + n + ')';
  fetch('/signin', {method: 'POST', body: JSON.stringify({
    code: document.getElementById('code').value,
    password: document.getElementById('password').value})});
});
</script>
</body></html>`

// browserBatch runs a batch of lines as session s with --json.
func (e *env) browserBatch(s string, lines ...string) (wire.Response, int) {
	e.T.Helper()
	r := e.CLIStdin(s, strings.Join(lines, "\n")+"\n", "--json", "batch")
	var resp wire.Response
	if err := json.Unmarshal([]byte(r.Out), &resp); err != nil {
		e.T.Fatalf("batch: not a JSON answer (exit %d): %v\n%s\n%s", r.Code, err, r.Out, r.Errout)
	}
	return resp, r.Code
}

// A batch fills a form and submits it on a real page, in one call: the
// page's own DOM and its post of what its fields hold are the oracle (a
// secret filled by name among them); each step is a step of the budget —
// a budget of 2 steps stops a batch of 3 at its third, budget_spent, the
// page never submitted — and of the trace, under the batch's id.
func TestBatchFillsAForm(t *testing.T) {
	e := sharedEnv(t)
	var posts inbox[signIn]
	mux := http.NewServeMux()
	servePage(mux, "/signup", batchFormPage)
	mux.HandleFunc("POST /signin", posts.Posted)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	const value = "s3cr3t-batch-value"
	if r := e.CLIStdin("s1", value, "key", "set", "secret:pw"); r.Code != 0 {
		t.Fatalf("key set: exit %d %s%s", r.Code, r.Out, r.Errout)
	}

	e.OKJSON("s1", "open", srv.URL+"/signup")
	snap := e.Snapshot("s1", "-i")
	name, code, password := ref(t, snap, "entry", "Name"), ref(t, snap, "entry", "Code"), ref(t, snap, "entry", "Password")
	submit := ref(t, snap, "push button", "Sign up")

	from := posts.N()
	resp, exit := e.browserBatch("s1",
		`fill `+name+` "Ada Lovelace" --expect changed`,
		`fill `+code+` 4711`,
		`fill `+password+` --secret pw`,
		`click `+submit+` --expect text:"Welcome Ada Lovelace"`,
	)
	if exit != 0 || !resp.OK || resp.Batch == nil || len(resp.Batch.Steps) != 4 {
		t.Fatalf("batch: exit %d %+v", exit, resp)
	}
	if m := resp.Batch.Steps[3].Met; m == nil || !*m {
		t.Errorf("the submit's expect text: %+v", resp.Batch.Steps[3])
	}
	if strings.Contains(resp.Did, value) || !strings.Contains(resp.Did, "4. click "+submit) {
		t.Errorf("the batch's answer:\n%s", resp.Did)
	}
	got := posts.Wait(t, from, "the form's submit", func(signIn) bool { return true })
	if got.Code != "4711" || got.Password != value {
		t.Errorf("the page posted code %q and a password of %d characters (the secret's: %v)", got.Code, len(got.Password), got.Password == value)
	}
	if out := e.EvalString("s1", "document.getElementById('out').textContent"); out != "Welcome Ada Lovelace (1)" {
		t.Errorf("the page says %q", out)
	}
	tr := e.OKJSON("s1", "trace")
	var n int
	for _, s := range tr.Trace {
		if s.Batch == resp.Batch.ID {
			n++
		}
	}
	// The four steps and the expect's find.
	if n != 5 {
		t.Errorf("%d steps of the trace under batch %s, want 5: %+v", n, resp.Batch.ID, tr.Trace)
	}

	// Each step is a step of the budget.
	e.OK("s1", "budget", "--steps", "2")
	resp, exit = e.browserBatch("s1", `fill `+name+` "Grace"`, `fill `+code+` 1`, `click `+submit)
	if exit != 1 || resp.Code != target.CodeBudgetSpent {
		t.Fatalf("a batch over the budget: exit %d %+v", exit, resp)
	}
	if at, _ := resp.Facts["stopped_at"].(float64); at != 3 {
		t.Errorf("stopped at %v, want 3", resp.Facts["stopped_at"])
	}
	if out := e.EvalString("s1", "document.getElementById('out').textContent"); out != "Welcome Ada Lovelace (1)" {
		t.Errorf("the page was submitted again: %q", out)
	}
	if v := e.EvalString("s1", "document.getElementById('name').value"); v != "Grace" {
		t.Errorf("the batch's first step did not fill the name: %q", v)
	}
}
