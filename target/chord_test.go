package target_test

import (
	"strings"
	"testing"

	"github.com/vibespace/vibespace/target"
)

func TestParseChord(t *testing.T) {
	tests := []struct {
		in     string
		want   string // canonical form
		keysym uint32
	}{
		{"ctrl+shift+t", "ctrl+shift+t", 't'},
		{"Return", "Return", 0xff0d},
		{"enter", "Return", 0xff0d},
		{"F5", "F5", 0xffc2},
		{"f35", "F35", 0xffe0},
		{"super+l", "super+l", 'l'},
		{"win+L", "shift+super+l", 'l'},
		{"ctrl+plus", "ctrl+plus", '+'},
		{"ctrl++", "ctrl+plus", '+'},
		{"+", "plus", '+'},
		{"ctrl+a", "ctrl+a", 'a'},
		{"alt+F4", "alt+F4", 0xffc1},
		{"mod1+f4", "alt+F4", 0xffc1},
		{"shift+Tab", "shift+Tab", 0xff09},
		{"ctrl+T", "ctrl+shift+t", 't'},
		{"shift+T", "shift+t", 't'},
		{"Control+Alt+Delete", "ctrl+alt+Delete", 0xffff},
		{"super+ctrl+alt+shift+x", "ctrl+alt+shift+super+x", 'x'},
		{"ctrl+-", "ctrl+minus", '-'},
		{"ctrl + a", "ctrl+a", 'a'},
		{"Esc", "Escape", 0xff1b},
		{"PageUp", "Page_Up", 0xff55},
		{"Prior", "Page_Up", 0xff55},
		{"page_down", "Page_Down", 0xff56},
		{"Left", "Left", 0xff51},
		{"space", "space", ' '},
		{"KP_Add", "KP_Add", 0xffab},
		{"kp_0", "", 0}, // not in the table: see TestParseChordRefusals
	}
	for _, tt := range tests {
		if tt.want == "" {
			continue
		}
		c, err := target.ParseChord(tt.in)
		if err != nil {
			t.Errorf("ParseChord(%q): %v", tt.in, err)
			continue
		}
		if c.String() != tt.want || c.Keysym != tt.keysym {
			t.Errorf("ParseChord(%q) = %q keysym %#x, want %q keysym %#x", tt.in, c, c.Keysym, tt.want, tt.keysym)
		}
	}
}

func TestParseChordUnicode(t *testing.T) {
	for in, sym := range map[string]uint32{"ö": 0xf6, "€": 0x10020ac, "U20AC": 0x10020ac, "ctrl+é": 0xe9, "a": 'a', "7": '7'} {
		c, err := target.ParseChord(in)
		if err != nil || c.Keysym != sym {
			t.Errorf("ParseChord(%q) = %+v, %v; want keysym %#x", in, c, err, sym)
		}
	}
}

// A chord's Rune is the character its key names, whatever the spelling;
// a key that is no character has none.
func TestChordRune(t *testing.T) {
	for in, want := range map[string]rune{"a": 'a', "shift+a": 'a', "plus": '+', "ctrl++": '+', "space": ' ', "ö": 'ö', "U20AC": '€', "7": '7'} {
		c, err := target.ParseChord(in)
		if err != nil {
			t.Fatal(err)
		}
		if r, ok := c.Rune(); !ok || r != want {
			t.Errorf("%q: Rune() = %q, %v; want %q", in, r, ok, want)
		}
	}
	for _, in := range []string{"Return", "Tab", "F5", "Left", "KP_Add", "ctrl+Escape"} {
		c, err := target.ParseChord(in)
		if err != nil {
			t.Fatal(err)
		}
		if r, ok := c.Rune(); ok {
			t.Errorf("%q: Rune() = %q, want none", in, r)
		}
	}
}

func TestParseChordRefusals(t *testing.T) {
	tests := []struct{ in, mention string }{
		{"", "empty"},
		{"   ", "empty"},
		{"ctrl+foo", `unknown key "foo"`},
		{"ctrl+", "missing key"},
		{"ctrl++a", "empty part"},
		{"ctrl+ctrl+a", `duplicate modifier "ctrl"`},
		{"ctrl+control+a", `duplicate modifier "control"`},
		{"ctrl+shift", "modifier-only"},
		{"shift", "modifier-only"},
		{"ctrl+a+b", `"a" is a key, not a modifier`},
		{"hyperx+a", `unknown modifier "hyperx"`},
		{"ctrl+\x01", "unknown key"},
		{"ctrl+kp_0", `unknown key "kp_0"`},
	}
	for _, tt := range tests {
		_, err := target.ParseChord(tt.in)
		if target.CodeOf(err) != target.CodeBadChord {
			t.Errorf("ParseChord(%q): err %v, want a bad_chord refusal", tt.in, err)
			continue
		}
		if !strings.Contains(err.Error(), tt.mention) {
			t.Errorf("ParseChord(%q): %q does not mention %q", tt.in, err, tt.mention)
		}
	}
}

func TestRuneKeysym(t *testing.T) {
	for r, want := range map[rune]uint32{'a': 'a', 'ö': 0xf6, '€': 0x10020ac, '\n': 0xff0d, '\t': 0xff09, '😀': 0x101f600} {
		if got, ok := target.RuneKeysym(r); !ok || got != want {
			t.Errorf("RuneKeysym(%q) = %#x, %v; want %#x", r, got, ok, want)
		}
	}
	if _, ok := target.RuneKeysym(0x01); ok {
		t.Errorf("RuneKeysym(0x01) should have no keysym")
	}
}

// FuzzParseChord checks that ParseChord never panics, that every failure is
// a bad_chord refusal, and that the canonical form parses back to the same
// chord.
func FuzzParseChord(f *testing.F) {
	for _, s := range []string{"ctrl+shift+t", "Return", "F5", "super+l", "ctrl+plus", "ctrl++", "+", "ctrl+a",
		"alt+F4", "shift+Tab", "ctrl+T", "ctrl+", "ctrl+foo", "ctrl+ctrl+a", "ctrl+shift", "€", "U20AC", "++", "+++", " + ", "ctrl+\u00a0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := target.ParseChord(s)
		if err != nil {
			if target.CodeOf(err) != target.CodeBadChord {
				t.Fatalf("ParseChord(%q): %v is not a bad_chord refusal", s, err)
			}
			return
		}
		if c.Key == "" || c.Keysym == 0 {
			t.Fatalf("ParseChord(%q) = %+v: empty key", s, c)
		}
		back, err := target.ParseChord(c.String())
		if err != nil || back != c {
			t.Fatalf("ParseChord(%q) = %+v; its canonical form %q parses to %+v, %v", s, c, c.String(), back, err)
		}
	})
}
