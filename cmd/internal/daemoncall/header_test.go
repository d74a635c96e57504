package daemoncall

import (
	"bytes"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/daemon/wire"
)

// TestOneHeaderLine: an answer names its target, title, lease and (for the
// browser's words) profile on one line, a lease the caller holds said
// "yours"; a refusal's line is the same line. (Before, the profile had a
// line of its own above the target's, and the caller's own lease was
// "held by <itself> since <time>".)
func TestOneHeaderLine(t *testing.T) {
	const since = "2026-12-02T00:26:41Z"
	tab := &wire.TargetInfo{ID: "tab:3", Title: "Sign up", Lease: "held by a since " + since, Input: "agent", Holder: "a", Since: since, CDPID: "DAB9E87B7BC9278C91D2EE2C73F059BB"}
	work := &wire.ProfileInfo{ID: "bp-3f9a1c02", Handle: "work", Label: "work", Default: true, Attachments: 1}
	for _, tc := range []struct {
		t       *wire.TargetInfo
		p       *wire.ProfileInfo
		session string
		want    string
	}{
		{tab, work, "a", `tab:3 "Sign up" · lease: yours · profile: work (bp-3f9a1c02), default`},
		{tab, work, "b", `tab:3 "Sign up" · lease: held by a since ` + since + ` · profile: work (bp-3f9a1c02), default`},
		{tab, &wire.ProfileInfo{ID: "bp-3f9a1c02", Handle: "work", Label: "work", Attachments: 2}, "a", `tab:3 "Sign up" · lease: yours · profile: work (bp-3f9a1c02), 2 attachments`},
		{tab, &wire.ProfileInfo{Ephemeral: true}, "a", `tab:3 "Sign up" · lease: yours · profile: own ephemeral`},
		{&wire.TargetInfo{ID: "tab:3", Title: "Sign up", Lease: "held by a since " + since + " — paused: alice took over at " + since, Input: "user", Holder: "a", Since: since, User: "alice"}, nil, "a",
			`tab:3 "Sign up" · lease: yours — paused: alice took over at ` + since},
		{&wire.TargetInfo{ID: "win:2", Title: "Editor", Lease: "held by a since " + since, Holder: "a", Since: since, Mode: "tree"}, nil, "a", `win:2 "Editor" · lease: yours · mode: tree`},
		{&wire.TargetInfo{ID: "tab:3", Title: "Sign up", Lease: "gone"}, nil, "a", `tab:3 "Sign up" · lease: gone`},
		{tab, &wire.ProfileInfo{ID: "bp-3f9a1c02", Handle: "work", Label: "work", Default: true, Running: true, Attachments: 1}, "a", `tab:3 "Sign up" · lease: yours · profile: work (bp-3f9a1c02), default`},
		{&wire.TargetInfo{ID: "win:3", Title: "Shop", Lease: "held by a since " + since, Holder: "a", Since: since, Mode: "tree"},
			&wire.ProfileInfo{ID: "bp-3f9a1c02", Handle: "shop", Label: "shop", Default: true, Running: true, Backend: "desktop-app", Window: "win:3", Attachments: 1}, "a",
			`win:3 "Shop" · lease: yours · mode: tree · profile: shop (bp-3f9a1c02), default, desktop-app, running as win:3`},
		{nil, work, "a", `profile: work (bp-3f9a1c02), default`},
		{nil, &wire.ProfileInfo{ID: "bp-3f9a1c02", Handle: "work", Label: "work", Running: true, Attachments: 2}, "a", `profile: work (bp-3f9a1c02), running, 2 attachments`},
		{nil, nil, "a", ""},
	} {
		if got := Header(tc.t, tc.p, tc.session); got != tc.want {
			t.Errorf("Header as %s:\n got %s\nwant %s", tc.session, got, tc.want)
		}
	}

	var out, errb bytes.Buffer
	p := Printer{Out: &out, Err: &errb, Session: "a"}
	if err := p.Answer(wire.Response{OK: true, Target: tab, Profile: work, Did: "clicked @e3"}, nil); err != nil {
		t.Fatal(err)
	}
	if want := `tab:3 "Sign up" · lease: yours · profile: work (bp-3f9a1c02), default` + "\nclicked @e3\n"; out.String() != want {
		t.Fatalf("a click's answer:\n%s\nwant\n%s", out.String(), want)
	}
	out.Reset()
	p.Answer(wire.Response{Code: "held", Message: "tab:3 is held by b", Target: tab, Profile: work}, nil)
	if lines := strings.Split(strings.TrimSpace(errb.String()), "\n"); len(lines) != 2 ||
		lines[1] != `  tab:3 "Sign up" · lease: yours · profile: work (bp-3f9a1c02), default` {
		t.Fatalf("a refusal:\n%s", errb.String())
	}
	// Rows of their own keep their words.
	if got := ProfileWords(work); got != "work (bp-3f9a1c02) · default · 1 attachment" {
		t.Fatalf("ProfileWords: %s", got)
	}
}
