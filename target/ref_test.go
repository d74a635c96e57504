package target

import (
	"sync"
	"testing"
)

func TestRefTableStable(t *testing.T) {
	rt := NewRefTable()
	s1 := sample()
	rt.Assign(s1)
	if s1.Root.Ref != "@e1" || s1.Root.Children[0].Children[0].Ref != "@e3" {
		t.Fatalf("refs not minted depth first: %s %s", s1.Root.Ref, s1.Root.Children[0].Children[0].Ref)
	}
	// A later snapshot where one object is gone and one is new: the
	// unchanged objects keep their refs, the new one gets the next ref, and
	// no ref is reused.
	s2 := sample()
	s2.Root.Children = s2.Root.Children[1:]
	s2.Root.Children = append(s2.Root.Children, &Node{Key: "new", Role: "label"})
	rt.Assign(s2)
	if s2.Root.Children[0].Ref != s1.Root.Children[1].Ref {
		t.Errorf("an unchanged object changed ref: %s vs %s", s2.Root.Children[0].Ref, s1.Root.Children[1].Ref)
	}
	if got := s2.Root.Children[len(s2.Root.Children)-1].Ref; got != "@e14" {
		t.Errorf("new object got %s, want @e14", got)
	}
	for ref, want := range map[string]string{"@e3": "k3", "e1": "k1", "@e14": "new"} {
		key, err := rt.Key(ref)
		if err != nil || key != want {
			t.Errorf("Key(%s) = %q, %v; want %q", ref, key, err, want)
		}
	}
}

func TestRefTableRefusals(t *testing.T) {
	rt := NewRefTable()
	rt.Ref("a")
	for ref, code := range map[string]Code{
		"@e2":  CodeBadRef,
		"@e0":  CodeBadRef,
		"@e01": CodeBadRef,
		"@x1":  CodeBadRef,
		"":     CodeBadRef,
		"@e-1": CodeBadRef,
	} {
		if _, err := rt.Key(ref); CodeOf(err) != code {
			t.Errorf("Key(%q): %v, want %s", ref, err, code)
		}
	}
}

func TestRefTableConcurrent(t *testing.T) {
	rt := NewRefTable()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for _, k := range []string{"a", "b", "c", "d"} {
				rt.Ref(k)
			}
		})
	}
	wg.Wait()
	if rt.Len() != 4 {
		t.Errorf("%d refs for 4 keys", rt.Len())
	}
}
