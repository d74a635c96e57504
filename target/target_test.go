package target

import "testing"

func TestParseID(t *testing.T) {
	for _, s := range []string{"win:1", "win:42", "tab:ABC123"} {
		if id, err := ParseID(s); err != nil || string(id) != s {
			t.Errorf("ParseID(%q) = %q, %v", s, id, err)
		}
	}
	for _, s := range []string{"", "win:", "win:0", "win:-1", "win:01", "win:x", "1", "tab:", "tab:a b", "door:1"} {
		if _, err := ParseID(s); CodeOf(err) != CodeUnknownTarget {
			t.Errorf("ParseID(%q) err = %v, want unknown_target", s, err)
		}
	}
	if WindowID(7).Number() != 7 || WindowID(7).Kind() != KindWindow || ID("tab:x").Kind() != KindTab {
		t.Fatal("ID accessors")
	}
}

func TestExposure(t *testing.T) {
	tg := &Target{ID: "win:1", Title: "T", Origin: "a", Exposure: []string{"a"}}
	if err := tg.CheckExposed("b"); CodeOf(err) != CodeNotExposed {
		t.Fatalf("b: %v", err)
	}
	if !tg.Share("b") || tg.Share("b") || tg.Share("") {
		t.Fatal("Share should add once")
	}
	if err := tg.CheckExposed("b"); err != nil {
		t.Fatal(err)
	}
}

// FuzzParseID: a handle parses to itself or is refused unknown_target.
func FuzzParseID(f *testing.F) {
	for _, s := range []string{"win:1", "win:0", "win:007", "tab:AB12", "tab:", "win:-1", "", "win:1 ", "wín:1", "win:99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := ParseID(s)
		if err != nil {
			if CodeOf(err) != CodeUnknownTarget {
				t.Fatalf("ParseID(%q): %v", s, err)
			}
			return
		}
		if string(id) != s || id.Kind() == "" {
			t.Fatalf("ParseID(%q) = %q", s, id)
		}
		if id.Kind() == KindWindow && WindowID(id.Number()) != id {
			t.Fatalf("%q does not round-trip through its number", s)
		}
	})
}

// FuzzRefKey: any string given as a ref is either a ref the table minted,
// or refused bad_ref (not a ref, or not minted here) — never anything else.
func FuzzRefKey(f *testing.F) {
	for _, s := range []string{"@e1", "e2", "@e3", "@e0", "@e01", "@e-1", "@x1", "@", "", "@e99999999999999999999", "@e1\n"} {
		f.Add(s)
	}
	tb := NewRefTable()
	tb.Ref(":1.2/a")
	tb.Ref(":1.2/b")
	f.Fuzz(func(t *testing.T, s string) {
		key, err := tb.Key(s)
		switch CodeOf(err) {
		case "":
			if key != ":1.2/a" && key != ":1.2/b" {
				t.Fatalf("Key(%q) = %q", s, key)
			}
		case CodeBadRef:
		default:
			t.Fatalf("Key(%q): %v", s, err)
		}
	})
}
