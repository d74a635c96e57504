package main_test

import (
	"crypto/rand"
	"encoding/hex"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/target"
)

// signIn is what the sign-in page posts when its form is submitted: what
// its own fields hold (the oracle).
type signIn struct {
	Code     string `json:"code"`
	Password string `json:"password"`
}

const signInPage = `<!doctype html>
<html><head><title>Sign in</title></head><body>
<form id="f">
<label for="code">Code</label> <input id="code">
<label for="password">Password</label> <input id="password" type="password">
<label><input id="remember" type="checkbox"> Remember me</label>
<button type="submit">Sign in</button>
</form>
<script>
document.getElementById('f').addEventListener('submit', ev => {
  ev.preventDefault();
  fetch('/signin', {method: 'POST', body: JSON.stringify({
    code: document.getElementById('code').value,
    password: document.getElementById('password').value})});
});
</script>
</body></html>`

// A secret typed by name (fill and type --secret NAME) reaches the page's
// fields — the page's own post of what they hold is the oracle — and its
// value is in no answer, no line of the audit log, no file of the trace,
// and in no file of the state directory but the key store's own; no
// picture of the tab is kept after it, though pictures are on; an unknown
// name is refused no_secret.
func TestSecretByNameOnAPage(t *testing.T) {
	e := sharedEnv(t)
	var posts inbox[signIn]
	mux := http.NewServeMux()
	servePage(mux, "/signin", signInPage)
	mux.HandleFunc("POST /signin", posts.Posted)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	b := make([]byte, 12)
	rand.Read(b)
	value := "pw-" + hex.EncodeToString(b)
	var answers []string
	saw := func(out ...string) { answers = append(answers, out...) }

	r := e.CLIStdin("s1", value+"\n", "key", "set", "secret:login")
	saw(r.Out, r.Errout)
	if r.Code != 0 {
		t.Fatalf("key set secret:login: exit %d\n%s%s", r.Code, r.Out, r.Errout)
	}
	saw(e.OK("s1", "trace", "--pictures", "on"))
	saw(e.OK("s1", "open", srv.URL+"/signin"))
	snap := e.Snapshot("s1", "-i")
	code, password := ref(t, snap, "entry", "Code"), ref(t, snap, "entry", "Password")
	remember, submit := ref(t, snap, "check box", "Remember me"), ref(t, snap, "push button", "Sign in")

	// Before any secret, an acting step keeps its picture: pictures are on.
	saw(e.OK("s1", "click", remember))

	out := e.OK("s1", "fill", code, "--secret", "login")
	saw(out)
	if !strings.Contains(out, "a secret of 27 characters, login, was typed") {
		t.Errorf("fill --secret does not say a secret of 27 characters was typed:\n%s", out)
	}
	resp := e.OKJSON("s1", "type", password, "--secret", "login")
	saw(resp.Did, resp.Message)
	if resp.Effect != nil && len(resp.Effect.Seen) > 0 {
		t.Errorf("a secret's effect says what it saw: %v", resp.Effect.Seen)
	}
	unknown := e.RefusedJSON(string(target.CodeNoSecret), "s1", "fill", code, "--secret", "nope")
	saw(unknown.Message)
	from := posts.N()
	saw(e.OK("s1", "click", submit))
	got := posts.Wait(t, from, "the form's submit", func(signIn) bool { return true })
	if got.Code != value || got.Password != value {
		t.Fatalf("the page's fields hold code %d and password %d characters, want the secret's %d in each (equal: %v, %v)",
			len(got.Code), len(got.Password), len(value), got.Code == value, got.Password == value)
	}

	tr := e.OKJSON("s1", "trace")
	var secretSteps, pictures, afterSecret int
	seenSecret := false
	for _, s := range tr.Trace {
		if s.Secret != "" {
			seenSecret = true
			secretSteps++
			if s.Secret != "login" || s.Chars != len(value) {
				t.Errorf("a secret's step: %+v", s)
			}
		}
		if s.Picture != "" {
			pictures++
			if seenSecret {
				afterSecret++
			}
		}
	}
	if secretSteps != 2 || pictures == 0 || afterSecret != 0 {
		t.Errorf("the trace: %d secret steps (want 2), %d pictures (want some, before the secret), %d after it (want none)\n%+v", secretSteps, pictures, afterSecret, tr.Trace)
	}
	saw(e.OK("s1", "trace"))

	for i, a := range answers {
		if strings.Contains(a, value) {
			t.Errorf("answer %d holds the secret's value:\n%s", i, a)
		}
	}
	// Every file the daemon wrote (the audit log, the trace and its
	// pictures, its log, its state) but the key store's.
	keys := filepath.Join(e.Home, "keys")
	n := 0
	filepath.WalkDir(e.Home, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(p, keys+string(filepath.Separator)) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		n++
		if strings.Contains(string(b), value) {
			t.Errorf("%s holds the secret's value", strings.TrimPrefix(p, e.Home))
		}
		return nil
	})
	// The foreground daemon's own log, beside the state directory.
	if b, err := os.ReadFile(e.ServeLog()); err != nil || strings.Contains(string(b), value) {
		t.Errorf("the daemon's log holds the secret's value, or was not read (%v)", err)
	}
	audit, err := os.ReadFile(filepath.Join(e.Home, "audit.jsonl"))
	if err != nil || !strings.Contains(string(audit), `"verb":"browser.fill"`) {
		t.Errorf("the audit log has no fill row (%v)", err)
	}
	if n < 3 {
		t.Errorf("only %d files under the state directory were read", n)
	}
}
