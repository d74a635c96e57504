package firefox

import (
	"unicode/utf8"

	"github.com/vibespace/vibespace/bidi"
	"github.com/vibespace/vibespace/target"
)

// namedKeys are WebDriver's key codes of the keys a chord names by keysym.
var namedKeys = map[string]string{
	"Return": "\uE007", "KP_Enter": "\uE007", "Tab": "\uE004", "BackSpace": "\uE003",
	"Escape": "\uE00C", "Delete": "\uE017", "Insert": "\uE016", "Home": "\uE011",
	"End": "\uE010", "Page_Up": "\uE00E", "Page_Down": "\uE00F", "Left": "\uE012",
	"Up": "\uE013", "Right": "\uE014", "Down": "\uE015", "space": " ", "Menu": "\uE03C",
	"F1": "\uE031", "F2": "\uE032", "F3": "\uE033", "F4": "\uE034", "F5": "\uE035", "F6": "\uE036",
	"F7": "\uE037", "F8": "\uE038", "F9": "\uE039", "F10": "\uE03A", "F11": "\uE03B", "F12": "\uE03C",
	"Shift_L": "\uE008", "Shift_R": "\uE050", "Control_L": "\uE009", "Control_R": "\uE051",
	"Alt_L": "\uE00A", "Alt_R": "\uE052",
}

// modKeys are the modifiers' key codes, in the order they are pressed.
var modKeys = []struct {
	mod target.Modifiers
	key string
}{{target.ModCtrl, "\uE009"}, {target.ModAlt, "\uE00A"}, {target.ModShift, "\uE008"}, {target.ModSuper, "\uE03D"}}

// chordActions is the key actions that press c: its modifiers down, the
// key down and up, the modifiers up in reverse.
func chordActions(c target.Chord) ([]bidi.Action, error) {
	key, ok := namedKeys[c.Key]
	if !ok {
		if utf8.RuneCountInString(c.Key) != 1 {
			return nil, target.Refuse(target.CodeBadChord, "no WebDriver key for %q", c.Key)
		}
		key = c.Key
	}
	var down, up []bidi.Action
	for _, m := range modKeys {
		if c.Mods.Has(m.mod) {
			down = append(down, bidi.KeyDown(m.key))
			up = append([]bidi.Action{bidi.KeyUp(m.key)}, up...)
		}
	}
	out := append(down, bidi.KeyDown(key), bidi.KeyUp(key))
	return append(out, up...), nil
}
