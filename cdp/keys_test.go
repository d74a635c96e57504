package cdp

import (
	"testing"

	"github.com/vibespace/vibespace/target"
)

func TestKeyFor(t *testing.T) {
	for _, tc := range []struct {
		chord string
		want  keyDef
	}{
		{"a", keyDef{key: "a", code: "KeyA", vk: 65, text: "a"}},
		{"ctrl+a", keyDef{key: "a", code: "KeyA", vk: 65, text: "a"}},
		{"shift+a", keyDef{key: "A", code: "KeyA", vk: 65, text: "A"}},
		{"ctrl+T", keyDef{key: "T", code: "KeyT", vk: 84, text: "T"}},
		{"Return", keyDef{key: "Enter", code: "Enter", vk: 13, text: "\r"}},
		{"BackSpace", keyDef{key: "Backspace", code: "Backspace", vk: 8}},
		{"shift+Tab", keyDef{key: "Tab", code: "Tab", vk: 9}},
		{"F5", keyDef{key: "F5", code: "F5", vk: 116}},
		{"ctrl+plus", keyDef{key: "+", text: "+"}},
		{"ctrl+minus", keyDef{key: "-", code: "Minus", vk: 189, text: "-"}},
		{"7", keyDef{key: "7", code: "Digit7", vk: 55, text: "7"}},
		{"space", keyDef{key: " ", code: "Space", vk: 32, text: " "}},
		{"ö", keyDef{key: "ö", text: "ö"}},
		{"PageDown", keyDef{key: "PageDown", code: "PageDown", vk: 34}},
	} {
		c, err := target.ParseChord(tc.chord)
		if err != nil {
			t.Fatalf("%s: %v", tc.chord, err)
		}
		got, ok := keyFor(c)
		if !ok || got != tc.want {
			t.Errorf("keyFor(%s) = %+v, %v; want %+v", tc.chord, got, ok, tc.want)
		}
	}
	c, _ := target.ParseChord("XF86AudioMute")
	if _, ok := keyFor(c); ok {
		t.Error("XF86AudioMute mapped to a browser key")
	}
}

func TestRuneKey(t *testing.T) {
	for r, want := range map[rune]keyDef{
		'x':  {key: "x", code: "KeyX", vk: 88, text: "x"},
		'X':  {key: "X", code: "KeyX", vk: 88, text: "X"},
		'\n': {key: "Enter", code: "Enter", vk: 13, text: "\r"},
		',':  {key: ",", code: "Comma", vk: 188, text: ","},
		'✓':  {key: "✓", text: "✓"},
	} {
		if got := runeKey(r); got != want {
			t.Errorf("runeKey(%q) = %+v, want %+v", r, got, want)
		}
	}
}
