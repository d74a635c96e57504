package provider

import (
	"strings"
	"testing"

	"github.com/vibespace/vibespace/target"
)

// every is a probe on which every verb of the law has a road.
var every = target.Probe{Tree: true, Injection: "cdp", Capture: true, NodeInput: true}

// node is a node every verb on a ref can act on.
var node = &target.NodeTraits{Role: "push button", Name: "Go", Interfaces: []string{"Action", "Selection"}, Actions: []string{"click"}, Sensitive: true}

// lawRefusals is what the law answers for each of its verbs on every,
// stamped with r: the refused verbs' refusals.
func lawRefusals(t *testing.T, r Row) map[target.Verb]*target.Refusal {
	t.Helper()
	p := r.Stamp(every)
	if p.Provider != r.Name {
		t.Fatalf("%s: the stamped probe names %q", r.Name, p.Provider)
	}
	out := map[target.Verb]*target.Refusal{}
	for _, v := range target.LawVerbs() {
		c := target.Decide(v, p, node)
		if !c.OK() {
			out[v] = c.Refusal
		}
	}
	return out
}

// TestRowsReachTheLaw: each row's Cannot entries that name a verb of the
// law become that verb's refusal, not_on_this_provider naming the row and
// its reason; its other entries (headed, browser.close, pages, profile)
// are the daemon's gate's and change no verb of the law. The table as it
// is: no row refuses a verb of the law (a remote or cloud browser is
// driven over the same DevTools as ours: tree, input and pixels alike).
func TestRowsReachTheLaw(t *testing.T) {
	for _, r := range All() {
		want := map[target.Verb]string{}
		for _, c := range r.Cannot {
			if target.IsLawVerb(c.Feature) {
				want[target.Verb(c.Feature)] = c.Why
			}
		}
		got := lawRefusals(t, r)
		if len(got) != len(want) {
			t.Errorf("%s: the law refuses %v, the row says %v", r.Name, got, want)
		}
		for v, why := range want {
			checkRefusal(t, r.Name, v, why, got[v])
		}
		if len(want) != 0 {
			t.Errorf("%s now cannot do verbs of the law (%v): say so in README.md and in an integration test", r.Name, want)
		}
	}
}

// TestStampCannot: a row that cannot do verbs of the law (made here: no
// row of the table says so today) has them refused, naming it and why,
// and keeps the roads of the rest; Stamp takes nothing over from the
// probe it is given.
func TestStampCannot(t *testing.T) {
	r, _ := Lookup(Browserless)
	r.Cannot = append(r.Cannot,
		Cannot{Feature: string(target.VerbScreenshot), Why: "pixels stay on the service's machines"},
		Cannot{Feature: string(target.VerbClickAt), Why: "no pixel to aim at"})
	got := lawRefusals(t, r)
	if len(got) != 2 {
		t.Fatalf("refused %v, want screenshot and click_at", got)
	}
	checkRefusal(t, r.Name, target.VerbScreenshot, "pixels stay on the service's machines", got[target.VerbScreenshot])
	checkRefusal(t, r.Name, target.VerbClickAt, "no pixel to aim at", got[target.VerbClickAt])
	stale := every
	stale.Provider, stale.ProviderCannot = "old", map[target.Verb]string{target.VerbKey: "stale"}
	if p := (Row{Name: Chromium}).Stamp(stale); p.Provider != Chromium || len(p.ProviderCannot) != 0 {
		t.Fatalf("Stamp kept what the probe had: %+v", p)
	}
	// The row's other features are still refused by its gate alone.
	if err := r.Refuse(FeatureHeaded); target.CodeOf(err) != target.CodeNotOnThisProvider {
		t.Fatalf("headed: %v", err)
	}
}

func checkRefusal(t *testing.T, provider string, v target.Verb, why string, r *target.Refusal) {
	t.Helper()
	if r == nil {
		t.Errorf("%s: %s was not refused", provider, v)
		return
	}
	if r.Code != target.CodeNotOnThisProvider || r.Facts["provider"] != provider || r.Facts["reason"] != why || !strings.Contains(r.Message, provider) {
		t.Errorf("%s: %s refused %+v", provider, v, r)
	}
}
