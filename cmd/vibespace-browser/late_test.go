package main_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/target"
)

// latePage has a button whose handler changes the page 900 ms after the
// click (a timer it schedules), one that fetches and shows what it got
// (the server answers after 900 ms), and one that does nothing.
const latePage = `<!doctype html><title>late</title>
<button id="later" onclick="setTimeout(() => { document.getElementById('late').textContent = 'done ' + (++window.n); }, 900)">Later</button>
<button id="fetch" onclick="fetch('/slow').then((r) => r.text()).then((t) => { document.getElementById('late').textContent = t; })">Fetch</button>
<button id="inert">Inert</button>
<p id="late">idle</p>
<script>window.n = 0;</script>`

// TestLateEffect: an effect that comes 900 ms after the click — later than
// the usual wait (500 ms) — is reported, naming the element it changed,
// whether a timer or a request the click started brings it; the page's
// DOM (read by eval) and the server's log are the oracles. A click that
// starts nothing answers no_visible_change.
func TestLateEffect(t *testing.T) {
	e := sharedEnv(t)
	var slow inbox[string]
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.URL.Path == "/slow" {
			slow.Add(r.URL.Path)
			select {
			case <-r.Context().Done():
			case <-time.After(900 * time.Millisecond): // the answer comes late, as a slow server's
			}
			io.WriteString(w, "fetched")
			return
		}
		io.WriteString(w, latePage)
	}))
	t.Cleanup(site.Close)
	e.OKJSON("s1", "open", site.URL+"/late")
	snap := e.Snapshot("s1", "-i")
	later, fetchB, inert := ref(t, snap, "push button", "Later"), ref(t, snap, "push button", "Fetch"), ref(t, snap, "push button", "Inert")

	eff := effectOf(t, e.OKJSON("s1", "click", later), target.EffectConfirmed)
	if !slices.Contains(eff.Seen, `p#late: text "idle" → "done 1"`) {
		t.Fatalf("click Later saw %q", eff.Seen)
	}
	if got := e.EvalString("s1", "document.getElementById('late').textContent"); got != "done 1" {
		t.Fatalf("after click Later the page says %q", got)
	}

	eff = effectOf(t, e.OKJSON("s1", "click", fetchB), target.EffectConfirmed)
	if !slices.Contains(eff.Seen, `p#late: text "done 1" → "fetched"`) || slow.Count(func(string) bool { return true }) != 1 {
		t.Fatalf("click Fetch saw %q; the server served /slow %d times", eff.Seen, slow.Count(func(string) bool { return true }))
	}
	if got := e.EvalString("s1", "document.getElementById('late').textContent"); got != "fetched" {
		t.Fatalf("after click Fetch the page says %q", got)
	}

	resp := e.OKJSON("s1", "click", inert)
	effectOf(t, resp, target.EffectNoVisibleChange)
	if !strings.Contains(resp.Did, "no_visible_change") {
		t.Fatalf("click Inert answered %q", resp.Did)
	}
}
