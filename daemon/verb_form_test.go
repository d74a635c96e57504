package daemon

import (
	"github.com/vibespace/vibespace/daemon/args"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/daemon/kind/kindtest"
	"github.com/vibespace/vibespace/target"
)

// TestSelectOnATargetWithoutSelection: select on a window whose kind
// offers no selection is refused no_action, saying so — never a click
// somewhere in its list — and a malformed select takes no lease.
func TestSelectOnATargetWithoutSelection(t *testing.T) {
	b := &kindtest.Provider{}
	td := startDaemon(t, b, "")
	id := string(td.open(t, "a"))
	wantCode(t, td.call(t, Request{Verb: "snapshot", Session: "a", Target: id}), "")
	resp := td.call(t, Request{Verb: "select", Session: "a", Target: id}.With(args.Select{Ref: "@e2", Options: []string{"Green"}}))
	wantCode(t, resp, target.CodeNoAction)
	if !strings.Contains(resp.Message, "offers no selection") || resp.By != "" {
		t.Fatalf("select on a window without selection: %q by %q", resp.Message, resp.By)
	}
	for _, ev := range b.Display().Events() {
		if ev.Kind == "click" {
			t.Fatal("a refused select must never become a click")
		}
	}
	wantCode(t, td.call(t, Request{Verb: "select", Session: "a", Target: id}.With(args.Select{Options: []string{"Green"}})), target.CodeBadRequest)
	wantCode(t, td.call(t, Request{Verb: "select", Session: "a", Target: id}.With(args.Select{Ref: "@e99", Options: []string{"Green"}})), target.CodeBadRef)
	wantCode(t, td.call(t, Request{Verb: "select", Session: "a", Target: id}.With(args.Select{Ref: "@e2", Options: []string{"a\x00b"}})), target.CodeBadRequest)
}

func TestSelectedWords(t *testing.T) {
	combo := target.NodeTraits{Role: "combo box", Name: "Colour", Interfaces: []string{"Selection"}}
	if got := selectedWords([]string{"Green"}, "@e12", combo); got != `selected "Green" in combo box "Colour" @e12` {
		t.Error(got)
	}
	list := target.NodeTraits{Role: "list box", Name: "Toppings", Interfaces: []string{"Selection"}}
	if got := selectedWords([]string{"Ham", "Olives"}, "@e3", list); got != `selected "Ham", "Olives" in list box "Toppings" @e3 (it holds exactly these)` {
		t.Error(got)
	}
	if got := selectedWords([]string{"Ham"}, "@e3", list); got != `selected "Ham" in list box "Toppings" @e3 (it holds only this)` {
		t.Error(got)
	}
	option := target.NodeTraits{Role: "list item", Name: "Cherry"}
	if got := selectedWords([]string{"Cherry"}, "@e9", option); got != `selected "Cherry" by its option list item "Cherry" @e9` {
		t.Error(got)
	}
}
