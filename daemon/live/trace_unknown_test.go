package live_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/live"
	"github.com/vibespace/vibespace/target"
)

// TestLiveTraceUnknownTarget: the trace API, asked with the viewer token
// for a handle that never named a target (tab:999, win:99), answers 404
// with the typed code unknown_target, as the live view's other endpoints
// refuse; a target that exists still answers 200 with its steps.
func TestLiveTraceUnknownTarget(t *testing.T) {
	sv, id := fakeLive(t)
	sv.OK(t, daemon.Request{Verb: "snapshot", Session: "a", Target: id})
	u, err := url.Parse(sv.OK(t, daemon.Request{Verb: "watch", Session: "a"}).URL)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := url.ParseQuery(u.Fragment)
	auth := "Bearer " + q.Get("token")
	base := "http://" + u.Host

	code, body := get(t, "GET", base+"/api/trace/"+id, auth, "")
	var tr live.Trace
	if code != http.StatusOK || json.Unmarshal([]byte(body), &tr) != nil || string(tr.Target) != id || len(tr.Steps) == 0 {
		t.Fatalf("GET /api/trace/%s: %d %s", id, code, body)
	}
	for _, h := range []string{"tab:999", "win:99"} {
		code, body := get(t, "GET", base+"/api/trace/"+h, auth, "")
		var a struct {
			OK      bool        `json:"ok"`
			Code    target.Code `json:"code"`
			Message string      `json:"message"`
		}
		if err := json.Unmarshal([]byte(body), &a); err != nil || code != http.StatusNotFound || a.OK || a.Code != target.CodeUnknownTarget || a.Message == "" {
			t.Errorf("GET /api/trace/%s: %d %s, want 404 with code %s", h, code, body, target.CodeUnknownTarget)
		}
	}
}
