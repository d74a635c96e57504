package headers

import (
	"testing"

	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// TestHeaderSaidOnce: a text answer is marked Said when the session's
// previous answer named the same target, title, lease, mode and profile;
// a change of any, another session, a --json answer or a refusal between,
// an answer naming nothing are never marked, nor a refusal itself.
func TestHeaderSaidOnce(t *testing.T) {
	st, _ := New(stage.Env{})
	s := st.(*Stage)
	tab := func(title, lease string) *wire.TargetInfo {
		return &wire.TargetInfo{ID: "tab:1", Title: title, Lease: lease, Holder: "a", CDPID: "X"}
	}
	prof := &wire.ProfileInfo{Ephemeral: true, Attachments: 1, Running: true}
	steps := []struct {
		what    string
		session string
		json    bool
		resp    wire.Response
		said    bool
	}{
		{"open", "a", false, wire.Response{OK: true, Target: tab("Sign up", "held by a"), Profile: prof}, false},
		{"snapshot", "a", false, wire.Response{OK: true, Target: tab("Sign up", "held by a"), Profile: prof}, true},
		{"its address alone differs (never on the line)", "a", false, wire.Response{OK: true, Target: &wire.TargetInfo{ID: "tab:1", Title: "Sign up", Lease: "held by a", Holder: "a", CDPID: "X", App: "http://127.0.0.1/next"}, Profile: prof}, true},
		{"the profile's running alone differs", "a", false, wire.Response{OK: true, Target: tab("Sign up", "held by a"), Profile: &wire.ProfileInfo{Ephemeral: true, Attachments: 1}}, true},
		{"a click that navigated", "a", false, wire.Response{OK: true, Target: tab("Welcome", "held by a"), Profile: prof}, false},
		{"another session", "b", false, wire.Response{OK: true, Target: tab("Welcome", "held by a"), Profile: prof}, false},
		{"fill", "a", false, wire.Response{OK: true, Target: tab("Welcome", "held by a"), Profile: prof}, true},
		{"--json", "a", true, wire.Response{OK: true, Target: tab("Welcome", "held by a"), Profile: prof}, false},
		{"after --json", "a", false, wire.Response{OK: true, Target: tab("Welcome", "held by a"), Profile: prof}, false},
		{"a refusal", "a", false, wire.Response{Code: target.CodeStaleRef, Target: tab("Welcome", "held by a"), Profile: prof}, false},
		{"after the refusal", "a", false, wire.Response{OK: true, Target: tab("Welcome", "held by a"), Profile: prof}, false},
		{"again", "a", false, wire.Response{OK: true, Target: tab("Welcome", "held by a"), Profile: prof}, true},
		{"the lease changed", "a", false, wire.Response{OK: true, Target: tab("Welcome", "held by a — paused"), Profile: prof}, false},
		{"the mode changed", "a", false, wire.Response{OK: true, Target: &wire.TargetInfo{ID: "tab:1", Title: "Welcome", Lease: "held by a — paused", Holder: "a", CDPID: "X", Mode: target.ModeTree}, Profile: prof}, false},
		{"list: no header", "a", false, wire.Response{OK: true}, false},
		{"after list", "a", false, wire.Response{OK: true, Target: tab("Welcome", "held by a"), Profile: prof}, false},
		{"the profile changed", "a", false, wire.Response{OK: true, Target: tab("Welcome", "held by a"), Profile: &wire.ProfileInfo{ID: "bp-1", Label: "work", Attachments: 1}}, false},
	}
	for _, st := range steps {
		a := &stage.Answer{Resp: st.resp}
		s.Finish(&stage.Call{Req: wire.Request{Session: st.session, JSON: st.json}}, a)
		if a.Resp.Said != st.said {
			t.Errorf("%s: said %v, want %v", st.what, a.Resp.Said, st.said)
		}
	}
}
