package daemoncall

import (
	"bytes"
	"testing"

	"github.com/vibespace/vibespace/daemon/wire"
)

// TestSaidHeaderLeftOut: an answer the daemon marked Said (its header is
// the session's previous answer's) prints no header line, only what was
// done and its body; --json keeps every field.
func TestSaidHeaderLeftOut(t *testing.T) {
	tab := &wire.TargetInfo{ID: "tab:1", Title: "Sign up", Lease: "held by a since x", Holder: "a", Since: "x"}
	resp := wire.Response{OK: true, Target: tab, Profile: &wire.ProfileInfo{Ephemeral: true}, Did: "filled @e2", Said: true}
	var out bytes.Buffer
	if err := (Printer{Out: &out, Err: &out, Session: "a"}).Answer(resp, nil); err != nil || out.String() != "filled @e2\n" {
		t.Fatalf("a said header: %v %q", err, out.String())
	}
	out.Reset()
	resp.Said = false
	(Printer{Out: &out, Err: &out, Session: "a"}).Answer(resp, nil)
	if want := `tab:1 "Sign up" · lease: yours · profile: own ephemeral` + "\nfilled @e2\n"; out.String() != want {
		t.Fatalf("a header not said before:\n%s\nwant\n%s", out.String(), want)
	}
	out.Reset()
	resp.Said = true
	(Printer{Out: &out, Err: &out, Session: "a", JSON: true}).Answer(resp, nil)
	if !bytes.Contains(out.Bytes(), []byte(`"target":{"id":"tab:1","title":"Sign up"`)) {
		t.Fatalf("--json lost the target's fields: %s", out.String())
	}
}
