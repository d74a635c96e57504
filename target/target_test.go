package target

import (
	"strings"
	"testing"
)

func TestParseID(t *testing.T) {
	for _, s := range []string{"win:1", "win:42", "tab:1", "tab:42", "tab:ABC123"} {
		if id, err := ParseID(s); err != nil || string(id) != s {
			t.Errorf("ParseID(%q) = %q, %v", s, id, err)
		}
	}
	for _, s := range []string{"", "win:", "win:0", "win:-1", "win:01", "win:x", "1", "tab:", "tab:a b", "door:1", "tab:win:1", "tab:tab:X"} {
		if _, err := ParseID(s); CodeOf(err) != CodeUnknownTarget {
			t.Errorf("ParseID(%q) err = %v, want unknown_target", s, err)
		}
	}
	if WindowID(7).Number() != 7 || WindowID(7).Kind() != KindWindow || ID("tab:x").Kind() != KindTab {
		t.Fatal("ID accessors")
	}
}

// A tab's short handle is tab:N (N ≥ 1, as minted); anything else after
// "tab:" is the old form, naming a CDP target id — a window's handle is
// neither.
func TestTabNumberAndKey(t *testing.T) {
	for _, tc := range []struct {
		id  ID
		n   int
		key string
	}{
		{"tab:1", 1, ""}, {"tab:42", 42, ""}, {TabID(7), 7, ""},
		{"tab:DAB9E87B7BC9278C91D2EE2C73F059BB", 0, "DAB9E87B7BC9278C91D2EE2C73F059BB"},
		{"tab:0", 0, "0"}, {"tab:01", 0, "01"}, {"tab:-1", 0, "-1"},
		{"tab:12345678901234567890123456789012", 0, "12345678901234567890123456789012"}, // a CDP id of digits alone
		{"win:3", 0, ""}, {"tab:", 0, ""}, {"", 0, ""},
	} {
		key, ok := tc.id.TabKey()
		if tc.id.TabNumber() != tc.n || key != tc.key || ok != (tc.key != "") {
			t.Errorf("%q: number %d, key %q %v; want %d, %q", tc.id, tc.id.TabNumber(), key, ok, tc.n, tc.key)
		}
	}
	if ID("win:3").Number() != 3 || TabID(3).Number() != 0 {
		t.Fatal("Number is a window's alone")
	}
}

// Every kind has one row of words, and a handle of one kind given to the
// other's command line is refused wrong_kind naming the command line that
// addresses it.
func TestKindWordsAndWrongKind(t *testing.T) {
	for _, k := range []Kind{KindWindow, KindTab} {
		w := k.Words()
		if w.Kind != k || w.Prefix == "" || w.CLI == "" || w.Noun == "" || w.Paused == "" || w.Gone == "" || w.Handles == "" {
			t.Errorf("%s: incomplete words %+v", k, w)
		}
	}
	if KindWindow.Words().Gone != CodeWindowGone || KindTab.Words().Paused != CodeBrowserPaused {
		t.Fatal("the kinds' codes")
	}
	if (Kind("door")).Words().CLI != "" {
		t.Fatal("an unknown kind has no words")
	}
	for _, tc := range []struct {
		id       ID
		from, to string
	}{
		{"tab:AB12", "vibespace-window", "vibespace-browser"},
		{"win:3", "vibespace-browser", "vibespace-window"},
	} {
		r := WrongKind(tc.id, tc.from)
		if r.Code != CodeWrongKind || r.Facts["use"] != tc.to || r.Facts["target"] != string(tc.id) ||
			!strings.Contains(r.Message, tc.to) || !strings.Contains(r.Message, tc.from) {
			t.Errorf("WrongKind(%s, %s) = %v", tc.id, tc.from, r)
		}
	}
	if TabID(12) != "tab:12" || TabID(12).Kind() != KindTab {
		t.Fatal("TabID")
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
	for _, s := range []string{"win:1", "win:0", "win:007", "tab:AB12", "tab:3", "tab:03", "tab:", "win:-1", "", "win:1 ", "wín:1", "win:99999999999999999999"} {
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
		if _, old := id.TabKey(); id.Kind() == KindTab && (id.TabNumber() > 0) == old {
			t.Fatalf("%q is both or neither a short handle and the old form", s)
		}
		if n := id.TabNumber(); n > 0 && TabID(n) != id {
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
