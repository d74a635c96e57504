package app

import (
	"encoding/json"
	"testing"

	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/args"
)

// TestSelectWire: select sends its ref and every option, in order; it
// needs at least the ref.
func TestSelectWire(t *testing.T) {
	env := testEnv(t)
	got := listener(t, env, func(req daemon.Request) daemon.Response {
		return daemon.Response{OK: true, Did: `selected "Green" in combo box "Colour" @e3`}
	})
	env["VIBESPACE_SESSION"] = "s1"
	for _, tc := range []struct {
		args []string
		want daemon.Request
	}{
		{[]string{"select", "@e3", "Green"}, daemon.Request{Verb: "browser.select"}.With(args.Select{Ref: "@e3", Options: []string{"Green"}})},
		{[]string{"select", "@e3", "Ham", "-Olives-"}, daemon.Request{Verb: "browser.select"}.With(args.Select{Ref: "@e3", Options: []string{"Ham", "-Olives-"}})},
		{[]string{"select", "@e9"}, daemon.Request{Verb: "browser.select"}.With(args.Select{Ref: "@e9", Options: []string{}})},
	} {
		code, _, errs := run(t, env, tc.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errs)
		}
		req := <-got
		tc.want.Session = "s1"
		a, _ := json.Marshal(req)
		b, _ := json.Marshal(tc.want)
		if string(a) != string(b) {
			t.Errorf("%v sent %s, want %s", tc.args, a, b)
		}
	}
	if code, _, errs := run(t, env, "select"); code != 2 || errs == "" {
		t.Errorf("select without a ref: exit %d, stderr %q", code, errs)
	}
}
