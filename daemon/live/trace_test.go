package live_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cdp/cdptest"
	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/live"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// panelText is what the page's panel beside the pane of id lists, a line
// a step.
func panelText(t *testing.T, ctx context.Context, h interface {
	EvalInto(context.Context, string, any) error
}, id target.ID) []string {
	t.Helper()
	var lines []string
	expr := `(() => { const p = window.vibespace && window.vibespace.panes.get(` + jsString(string(id)) + `);
		if (!p) return [];
		return Array.from(p.q('.trace .steps').children).map((li) => li.textContent); })()`
	if err := h.EvalInto(ctx, expr, &lines); err != nil {
		t.Fatalf("reading the page: %v", err)
	}
	return lines
}

func jsString(s string) string { b, _ := json.Marshal(s); return string(b) }

// TestLiveViewTracePanel: beside a target's pane the page lists its recent
// steps, of every session acting on it, with the session's name, the verb,
// the ref and the road, and adds a new step while it is open (polled);
// neither the panel nor the API it reads carries the text typed; the API
// needs the viewer token.
func TestLiveViewTracePanel(t *testing.T) {
	h := startLiveDaemon(t, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	id, flog := h.openFixture(t, ctx, "agent")
	h.ok(t, daemon.Request{Verb: "share", Session: "agent", Target: string(id)}.With(args.Share{With: "helper"}))
	const canary = "CANARY-91e4-typed"
	entry := h.node(t, "agent", id, func(n *target.Node) bool { return n.Role == "text" && n.Name == "Name" })
	alpha := h.node(t, "agent", id, func(n *target.Node) bool { return n.Role == "push button" && n.Name == "Alpha" })
	h.ok(t, daemon.Request{Verb: "type", Session: "agent", Target: string(id)}.With(args.Type{Ref: entry.Ref, Text: canary}))
	if _, err := flog.WaitFrom(ctx, 0, func(e testenv.Event) bool { return e.Type == "text" && e.Text == canary }); err != nil {
		t.Fatalf("the agent's text never reached the app: %v", err)
	}
	h.ok(t, daemon.Request{Verb: "detach", Session: "agent", Target: string(id)})
	h.ok(t, daemon.Request{Verb: "snapshot", Session: "helper", Target: string(id)})
	h.ok(t, daemon.Request{Verb: "detach", Session: "helper", Target: string(id)})

	w := h.ok(t, daemon.Request{Verb: "watch", Session: "agent", Target: string(id)})
	u, err := url.Parse(w.URL)
	if err != nil {
		t.Fatal(err)
	}
	frag, _ := url.ParseQuery(u.Fragment)
	base := "http://" + u.Host
	if code, _ := get(t, "GET", base+"/api/trace/"+string(id), "", ""); code != http.StatusUnauthorized {
		t.Errorf("the trace API without a token: %d, want 401", code)
	}
	code, body := get(t, "GET", base+"/api/trace/"+string(id), "Bearer "+frag.Get("token"), "")
	var tr live.Trace
	if code != 200 || json.Unmarshal([]byte(body), &tr) != nil || len(tr.Steps) < 4 {
		t.Fatalf("GET /api/trace: %d %s", code, body)
	}
	if strings.Contains(body, canary) {
		t.Error("the trace API carries the text typed")
	}

	b := cdptest.LaunchViewer(t, ctx)
	tab := openPage(t, ctx, b, w.URL)
	var lines []string
	waitFor(t, ctx, "the panel's steps", func() (bool, string) {
		lines = panelText(t, ctx, tab, id)
		return len(lines) >= 5, strings.Join(lines, "\n")
	})
	all := strings.Join(lines, "\n")
	for _, want := range []string{"agent: ", "open", "type " + entry.Ref, "(17 chars) by:tree", "helper: ", "snapshot by:tree"} {
		if !strings.Contains(all, want) {
			t.Errorf("the panel lacks %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, canary) {
		t.Errorf("the panel shows the text typed:\n%s", all)
	}

	// A step taken while the page is open appears there.
	from := flog.Len()
	h.ok(t, daemon.Request{Verb: "click", Session: "agent", Target: string(id)}.With(args.Click{Ref: alpha.Ref}))
	if _, err := flog.WaitFrom(ctx, from, func(e testenv.Event) bool { return e.Type == "click" && e.Widget == "alpha" }); err != nil {
		t.Fatalf("the agent's click: %v", err)
	}
	waitFor(t, ctx, "the click in the panel", func() (bool, string) {
		lines = panelText(t, ctx, tab, id)
		last := ""
		if len(lines) > 0 {
			last = lines[len(lines)-1]
		}
		return strings.HasPrefix(last, "agent: ") && strings.Contains(last, "click "+alpha.Ref+" ") && strings.Contains(last, "by:tree"), strings.Join(lines, "\n")
	})
}
