package daemoncall

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// An elsewhere refusal is followed with the display rewritten to the
// desktop's name there; a handle carrying its host goes there bare, and
// the answer's handle carries the host again.
func TestElsewhereIsFollowed(t *testing.T) {
	const spec = "ssh://me@127.0.0.1:2222"
	req := args.Request("open", "", args.Open{App: "xterm", Display: "desk3"})
	refused := wire.Response{Code: target.CodeElsewhere, Facts: map[string]any{"host": spec, "display": "desk1", "desk": "desk3"}}
	again, host, ok := elsewhere(req, refused)
	var a args.Open
	if !ok || host != spec || json.Unmarshal(again.Args, &a) != nil || a.Display != "desk1" || a.App != "xterm" {
		t.Fatalf("followed: %v %q %s", ok, host, again.Args)
	}
	if _, _, ok := elsewhere(req, wire.Response{Code: target.CodeHeld}); ok {
		t.Fatal("a held refusal was followed")
	}
	if _, _, ok := elsewhere(req, wire.Response{Code: target.CodeElsewhere, Facts: map[string]any{"host": "http://x"}}); ok {
		t.Fatal("an elsewhere to no ssh host was followed")
	}

	ctx, r, via := routeHandle(context.Background(), wire.Request{Verb: "click", Target: "win:2@" + spec})
	if r.Target != "win:2" || via != spec || HostSpec(ctx, Options{Getenv: func(string) string { return "" }}) != spec {
		t.Fatalf("routed: %q %q", r.Target, via)
	}
	if _, r, via := routeHandle(context.Background(), wire.Request{Target: "win:2"}); r.Target != "win:2" || via != "" {
		t.Fatalf("a bare handle was routed: %q %q", r.Target, via)
	}
	resp := markHandle(wire.Response{OK: true, Target: &wire.TargetInfo{ID: "win:2"}}, spec)
	if resp.Target.ID != target.ID("win:2@"+spec) {
		t.Fatalf("marked: %q", resp.Target.ID)
	}
	if again := markHandle(resp, spec); again.Target.ID != resp.Target.ID {
		t.Fatalf("marked twice: %q", again.Target.ID)
	}
}
