package sessions_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/cdp/cdptest"
	"github.com/vibespace/vibespace/testenv/browserless"
)

// cloudPage records a click in its own DOM.
const cloudPage = `<!doctype html><html><head><title>Cloud page</title></head><body>
<button id="b" onclick="document.title = 'pressed'; this.dataset.n = (+(this.dataset.n||0)) + 1">Press</button>
</body></html>`

// TestCloudProvider drives a profile of provider cloud:browserless through
// the CLI against the stand-in of Browserless's connect protocol (?token=
// in the URL, 401 "Bad or missing authentication." before any browser
// starts): without a key it is no_key; with the right key open, snapshot
// and click by ref work, the click read back in the page's DOM over the
// stand-in's Chromium's own DevTools (not through the service or the
// daemon); a wrong key is key_rejected. Neither key is in any answer (text
// or --json, stdout or stderr), the daemon's log, the stand-in's log, the
// audit, or any file of the state directory but keys/.
func TestCloudProvider(t *testing.T) {
	e := newEnv(t)
	e.Serve()
	mk := func(p string) string {
		b := make([]byte, 16)
		rand.Read(b)
		return p + hex.EncodeToString(b)
	}
	key, wrong := mk("bl-right-"), mk("bl-wrong-")
	blLog, err := os.Create(filepath.Join(e.Dir, "browserless.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer blLog.Close()
	svc, err := browserless.Start(t.Context(), browserless.Options{Token: key, Chromium: chromium, Log: blLog})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, cloudPage)
	}))
	defer site.Close()

	var outputs []string
	saw := func(out ...string) { outputs = append(outputs, out...) }
	run := func(s string, args ...string) string {
		t.Helper()
		r := e.CLI(s, args...)
		saw(r.Out, r.Errout)
		if r.Code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, r.Code, r.Out, r.Errout)
		}
		return r.Out
	}
	refused := func(code, s string, args ...string) {
		t.Helper()
		r := e.CLI(s, args...)
		saw(r.Out, r.Errout)
		if r.Code != 1 || !strings.Contains(r.Errout, "["+code+"]") {
			t.Fatalf("%v: want [%s], exit %d\n%s%s", args, code, r.Code, r.Out, r.Errout)
		}
		resp := e.RefusedJSON(code, s, args...)
		saw(fmt.Sprintf("%+v", resp))
	}

	run("s1", "new", "cloud", "--provider", "cloud:browserless", "--endpoint", svc.URL())
	run("s1", "use", "cloud")
	refused("no_key", "s1", "open", site.URL+"/page")
	if n := len(svc.Connections()); n != 0 {
		t.Fatalf("no_key reached the service (%d connections)", n)
	}

	r := e.CLIStdin("s1", key+"\n", "key", "set", "cloud:browserless")
	saw(r.Out, r.Errout)
	if r.Code != 0 {
		t.Fatalf("key set: exit %d\n%s%s", r.Code, r.Out, r.Errout)
	}
	saw(run("s1", "open", site.URL+"/page"))
	conns := svc.Connections()
	if len(conns) != 1 || !conns[0].TokenOK || conns[0].PID == 0 || conns[0].DevTools == "" {
		t.Fatalf("the service saw %+v", conns)
	}
	snap := e.Snapshot("s1", "-i")
	saw(snap.Text())
	press := ref(t, snap, "push button", "Press")
	saw(run("s1", "click", press))

	// The page's DOM, over the stand-in's Chromium's own DevTools.
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	oracle, err := cdp.Connect(ctx, conns[0].DevTools, cdp.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer oracle.Close()
	if got, err := cdptest.Eval(ctx, oracle, cdptest.URL(site.URL+"/page"), "document.title + '|' + document.getElementById('b').dataset.n"); err != nil || got != "pressed|1" {
		t.Fatalf("the page's DOM after click %s: %q, %v", press, got, err)
	}

	// A wrong key: a second profile connects afresh with it.
	r = e.CLIStdin("s1", wrong+"\n", "key", "set", "cloud:browserless")
	saw(r.Out, r.Errout)
	if r.Code != 0 {
		t.Fatalf("key set (wrong): exit %d", r.Code)
	}
	run("s2", "new", "cloud2", "--provider", "cloud:browserless", "--endpoint", svc.URL())
	run("s2", "use", "cloud2")
	refused("key_rejected", "s2", "open", site.URL+"/page")
	conns = svc.Connections()
	if last := conns[len(conns)-1]; last.TokenOK || last.PID != 0 {
		t.Fatalf("the wrong key's connection: %+v", last)
	}
	// An endpoint that answers nothing.
	run("s3", "new", "nowhere", "--provider", "cloud:browserless", "--endpoint", "ws://127.0.0.1:1")
	run("s3", "use", "nowhere")
	refused("provider_unreachable", "s3", "open", site.URL+"/page")
	// Somebody else's browser is not switched or stopped.
	refused("not_on_this_provider", "s1", "close", "cloud")

	for _, o := range outputs {
		for _, k := range []string{key, wrong} {
			if strings.Contains(o, k) {
				t.Errorf("a command's output holds a key:\n%s", o)
			}
		}
	}
	files := []string{filepath.Join(e.Dir, "serve.log"), blLog.Name()}
	filepath.WalkDir(e.Home, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == "keys" {
			return filepath.SkipDir
		}
		if err == nil && d.Type().IsRegular() {
			files = append(files, p)
		}
		return nil
	})
	audit := false
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if filepath.Base(p) == "audit.jsonl" && strings.Contains(string(b), `"code":"key_rejected"`) {
			audit = true
		}
		for _, k := range []string{key, wrong} {
			if strings.Contains(string(b), k) {
				t.Errorf("%s holds a key", p)
			}
		}
	}
	if !audit || len(files) < 4 {
		t.Fatalf("looked in %v; the audit has a key_rejected row: %v", files, audit)
	}
}
