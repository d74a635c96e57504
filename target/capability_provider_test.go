package target

import (
	"strings"
	"testing"
)

// The provider's row is the law's first input: a verb its row cannot do is
// refused not_on_this_provider, naming the provider and why, whatever
// roads the probe found (here every road exists and the node would be
// clicked); the verbs the row can do are decided as without it.
func TestDecideProviderCannot(t *testing.T) {
	all := Probe{Tree: true, Injection: "cdp", Capture: true, NodeInput: true}
	node := &NodeTraits{Role: "push button", Name: "Go", Interfaces: []string{"Action", "Selection"}, Actions: []string{"click"}, Sensitive: true}
	for _, verb := range LawVerbs() {
		t.Run(string(verb), func(t *testing.T) {
			free := Decide(verb, all, node)
			if !free.OK() {
				t.Fatalf("without a provider limit %s has no road: %+v", verb, free)
			}
			p := all
			p.Provider = "far-away"
			p.ProviderCannot = map[Verb]string{verb: "its machines have no " + string(verb)}
			c := Decide(verb, p, node)
			if c.OK() || CodeOf(c.Err()) != CodeNotOnThisProvider {
				t.Fatalf("%s on a provider that cannot: %+v", verb, c)
			}
			f := c.Refusal.Facts
			if f["provider"] != "far-away" || f["reason"] != "its machines have no "+string(verb) || f["feature"] != string(verb) {
				t.Fatalf("facts %v", f)
			}
			if !strings.Contains(c.Why, "provider far-away") || !strings.Contains(c.Why, "its machines have no") {
				t.Fatalf("the sentence does not name the provider and why: %q", c.Why)
			}
			// The other verbs of the same probe keep their roads.
			for _, other := range LawVerbs() {
				if other == verb {
					continue
				}
				if got := Decide(other, p, node); got.Road != Decide(other, all, node).Road || !got.OK() {
					t.Errorf("%s lost its road when only %s is refused: %+v", other, verb, got)
				}
			}
		})
	}
}

// The provider's refusal comes before the probe's: a verb that has no road
// anyway says the provider cannot, not that the road is missing.
func TestProviderRefusalFirst(t *testing.T) {
	p := Probe{TreeWhy: "not on the bus", Provider: "far-away", ProviderCannot: map[Verb]string{VerbSnapshot: "no tree there"}}
	if c := Decide(VerbSnapshot, p, nil); CodeOf(c.Err()) != CodeNotOnThisProvider {
		t.Fatalf("%+v", c)
	}
	if c := Decide(VerbScreenshot, p, nil); CodeOf(c.Err()) != CodeNoCapture {
		t.Fatalf("a verb the row can do is decided on the probe: %+v", c)
	}
}

// The listing shows the row's refusals as the verbs would answer them,
// the node verbs too (on a window's tree road and on a page's input road).
func TestCapabilitiesProviderCannot(t *testing.T) {
	cannot := map[Verb]string{VerbClickRef: "no clicks there", VerbScreenshot: "no pixels there", VerbTypeRef: "no typing there"}
	for _, base := range []Probe{
		{Tree: true, Injection: "xtest", Capture: true},
		{Tree: true, Injection: "cdp", Capture: true, NodeInput: true},
	} {
		p := base
		p.Provider, p.ProviderCannot = "far-away", cannot
		caps := Capabilities(p)
		if len(caps) != len(Capabilities(base)) {
			t.Fatalf("the listing changed length: %d", len(caps))
		}
		for _, c := range caps {
			why, refused := cannot[c.Verb]
			switch {
			case refused && (c.OK() || CodeOf(c.Err()) != CodeNotOnThisProvider || c.Refusal.Facts["reason"] != why || !strings.Contains(c.Why, "far-away")):
				t.Errorf("%s is listed %+v, want not_on_this_provider (%s)", c.Verb, c, why)
			case !refused && !c.OK():
				t.Errorf("%s lost its road: %+v", c.Verb, c)
			}
		}
	}
}

func TestIsLawVerb(t *testing.T) {
	for _, v := range LawVerbs() {
		if !IsLawVerb(string(v)) {
			t.Errorf("%s", v)
		}
	}
	for _, s := range []string{"headed", "browser.close", "pages", "profile", ""} {
		if IsLawVerb(s) {
			t.Errorf("%q is no verb of the law", s)
		}
	}
}
