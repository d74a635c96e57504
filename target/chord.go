package target

import (
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Modifiers is a set of chord modifiers. It is backend-neutral: the X11
// backend maps each to the keycodes of its modifier map, CDP to its
// modifier bits.
type Modifiers uint8

// The modifiers a chord can hold. Their order here is the canonical order of
// Chord.String.
const (
	ModCtrl Modifiers = 1 << iota
	ModAlt
	ModShift
	ModSuper
)

// modNames are the canonical names, in canonical order.
var modNames = [...]struct {
	m    Modifiers
	name string
}{{ModCtrl, "ctrl"}, {ModAlt, "alt"}, {ModShift, "shift"}, {ModSuper, "super"}}

// modAliases maps every accepted spelling (lower case) to its modifier.
var modAliases = map[string]Modifiers{
	"ctrl": ModCtrl, "control": ModCtrl, "ctl": ModCtrl,
	"alt": ModAlt, "mod1": ModAlt, "meta": ModAlt, "option": ModAlt, "opt": ModAlt,
	"shift": ModShift,
	"super": ModSuper, "win": ModSuper, "windows": ModSuper, "cmd": ModSuper,
	"command": ModSuper, "mod4": ModSuper, "logo": ModSuper,
}

// Has reports whether every modifier of o is in m.
func (m Modifiers) Has(o Modifiers) bool { return m&o == o }

// List returns the modifiers of m in canonical order (ctrl, alt, shift, super).
func (m Modifiers) List() []Modifiers {
	var out []Modifiers
	for _, n := range modNames {
		if m.Has(n.m) {
			out = append(out, n.m)
		}
	}
	return out
}

// String is the canonical spelling: "ctrl+shift", "" for none.
func (m Modifiers) String() string {
	var parts []string
	for _, n := range modNames {
		if m.Has(n.m) {
			parts = append(parts, n.name)
		}
	}
	return strings.Join(parts, "+")
}

// Chord is one key with the modifiers held while it is pressed, as an agent
// writes it ("ctrl+shift+t", "Return", "alt+F4", "ctrl++").
//
// Key is the canonical key name (an X keysym name such as "Return", "F5",
// "plus", "t", or a single character like "ö") and Keysym its X keysym value;
// both are plain data, so non-X backends can translate them too. A single
// upper-case ASCII letter is normalised to shift plus the lower-case letter:
// "ctrl+T" is the chord "ctrl+shift+t".
type Chord struct {
	Mods   Modifiers
	Key    string
	Keysym uint32
}

// String is the canonical form: modifiers in the order ctrl, alt, shift,
// super, then the key ("ctrl+shift+t"). ParseChord(c.String()) == c.
func (c Chord) String() string {
	if c.Mods == 0 {
		return c.Key
	}
	return c.Mods.String() + "+" + c.Key
}

// Rune is the character the chord's key names ("a", "plus" → '+', "ö",
// "U20AC" → '€'); false for a key that is no character (Return, F5, the
// keypad's keys).
func (c Chord) Rune() (rune, bool) {
	if r, size := utf8.DecodeRuneInString(c.Key); size == len(c.Key) && r != utf8.RuneError {
		return r, true
	}
	switch k := c.Keysym; {
	case k >= 0x20 && k <= 0x7e, k >= 0xa0 && k <= 0xff: // Latin-1, whose keysyms are their code points
		return rune(k), true
	case k >= 0x01000100 && k <= 0x0110ffff:
		return rune(k - 0x01000000), true
	}
	return 0, false
}

// ParseChord parses a chord such as "ctrl+shift+t", "Return", "super+l",
// "ctrl+plus" or "ctrl++". Modifier names are case-insensitive and have
// aliases (control, mod1/meta/option, win/cmd/mod4); key names are X keysym
// names, matched case-insensitively, with common aliases (Enter, Esc, PageUp,
// ArrowLeft…); any single printable character is a key of its own.
//
// A malformed chord is a bad_chord refusal whose message names the bad part.
func ParseChord(s string) (Chord, error) {
	if strings.TrimSpace(s) == "" {
		return Chord{}, badChord(s, "empty chord")
	}
	var parts []string
	switch {
	case s == "+":
		parts = []string{"+"}
	case strings.HasSuffix(s, "++"):
		parts = append(strings.Split(s[:len(s)-2], "+"), "+")
	default:
		parts = strings.Split(s, "+")
	}
	var c Chord
	last := len(parts) - 1
	for i, raw := range parts {
		p := raw
		if p != "+" {
			p = strings.TrimSpace(raw)
		}
		if p == "" {
			if i == last {
				return Chord{}, badChord(s, "missing key after the last \"+\"")
			}
			return Chord{}, badChord(s, "empty part at position %d", i+1)
		}
		if m, ok := modAliases[strings.ToLower(p)]; ok {
			if i == last {
				return Chord{}, badChord(s, "modifier-only chord: %s is a modifier, not a key (to press the key itself, name it: Shift_L, Control_L, Alt_L, Super_L)", Echo(p)).With("part", Clip(p))
			}
			if c.Mods.Has(m) {
				return Chord{}, badChord(s, "duplicate modifier %s", Echo(p)).With("part", Clip(p))
			}
			c.Mods |= m
			continue
		}
		if i != last {
			if _, _, ok := LookupKey(p); ok {
				return Chord{}, badChord(s, "%s is a key, not a modifier; only the last part may be a key", Echo(p)).With("part", Clip(p))
			}
			return Chord{}, badChord(s, "unknown modifier %s", Echo(p)).With("part", Clip(p))
		}
		name, sym, ok := LookupKey(p)
		if !ok {
			return Chord{}, badChord(s, "unknown key %s", Echo(p)).With("part", Clip(p))
		}
		if len(name) == 1 && name[0] >= 'A' && name[0] <= 'Z' {
			c.Mods |= ModShift // "ctrl+T" is ctrl+shift+t; "shift+T" is not a duplicate
			name = strings.ToLower(name)
			sym = uint32(name[0])
		}
		c.Key, c.Keysym = name, sym
	}
	return c, nil
}

func badChord(s, format string, args ...any) *Refusal {
	return Refuse(CodeBadChord, "bad chord %s: "+format, append([]any{Echo(s)}, args...)...).With("chord", Clip(s))
}

// LookupKey resolves a key name to its canonical name and X keysym: a named
// key ("Return", "enter", "F5", "plus", "KP_Add", "XF86AudioMute"), "U+20AC"
// or "U20AC", or a single printable character ("a", "+", "€").
func LookupKey(name string) (canonical string, keysym uint32, ok bool) {
	if k, ok := keyNames()[strings.ToLower(name)]; ok {
		return k.name, k.sym, true
	}
	if r, size := utf8.DecodeRuneInString(name); size == len(name) && r != utf8.RuneError {
		sym, ok := RuneKeysym(r)
		if !ok {
			return "", 0, false
		}
		if n, ok := punctNames[r]; ok {
			return n, sym, true
		}
		return name, sym, true
	}
	if u := strings.TrimPrefix(strings.TrimPrefix(strings.ToUpper(name), "U"), "+"); len(name) > 1 && (name[0] == 'U' || name[0] == 'u') && len(u) >= 4 && len(u) <= 6 {
		if v, err := strconv.ParseUint(u, 16, 32); err == nil && v <= unicode.MaxRune {
			return LookupKey(string(rune(v)))
		}
	}
	return "", 0, false
}

// RuneKeysym is the X keysym that types r: Latin-1 characters are their own
// code point, a few control characters have function keysyms (newline is
// Return, tab is Tab, backspace is BackSpace), every other character is
// 0x01000000 + its code point. Other control characters have none.
func RuneKeysym(r rune) (uint32, bool) {
	switch {
	case r == '\n' || r == '\r':
		return 0xff0d, true
	case r == '\t':
		return 0xff09, true
	case r == '\b':
		return 0xff08, true
	case r == 0x1b:
		return 0xff1b, true
	case r == 0x7f:
		return 0xffff, true
	case r < 0x20 || (r >= 0x80 && r < 0xa0) || r > unicode.MaxRune || !utf8.ValidRune(r):
		return 0, false
	case r <= 0xff:
		return uint32(r), true
	default:
		return 0x01000000 + uint32(r), true
	}
}

type keyName struct {
	name string
	sym  uint32
}

// punctNames are the X keysym names of ASCII punctuation; a chord written
// with the character ("ctrl+-") is canonicalised to the name ("ctrl+minus").
var punctNames = map[rune]string{
	' ': "space", '!': "exclam", '"': "quotedbl", '#': "numbersign", '$': "dollar",
	'%': "percent", '&': "ampersand", '\'': "apostrophe", '(': "parenleft",
	')': "parenright", '*': "asterisk", '+': "plus", ',': "comma", '-': "minus",
	'.': "period", '/': "slash", ':': "colon", ';': "semicolon", '<': "less",
	'=': "equal", '>': "greater", '?': "question", '@': "at", '[': "bracketleft",
	'\\': "backslash", ']': "bracketright", '^': "asciicircum", '_': "underscore",
	'`': "grave", '{': "braceleft", '|': "bar", '}': "braceright", '~': "asciitilde",
}

// keyNames maps a lower-case key name (X keysym names and the aliases agents
// use) to the canonical X name and keysym. Built from keyTable on first
// use, not at init: every command line links this package, and most runs
// parse no chord.
var keyNames = sync.OnceValue(buildKeyNames)

// keyTable lists the named keys: canonical X keysym name, keysym, aliases.
var keyTable = []struct {
	name    string
	sym     uint32
	aliases []string
}{
	{"BackSpace", 0xff08, []string{"bksp"}},
	{"Tab", 0xff09, nil},
	{"Linefeed", 0xff0a, nil},
	{"Clear", 0xff0b, nil},
	{"Return", 0xff0d, []string{"enter", "ret", "cr"}},
	{"Pause", 0xff13, nil},
	{"Scroll_Lock", 0xff14, []string{"scrolllock"}},
	{"Sys_Req", 0xff15, []string{"sysrq"}},
	{"Escape", 0xff1b, []string{"esc"}},
	{"Delete", 0xffff, []string{"del"}},
	{"Home", 0xff50, nil},
	{"Left", 0xff51, []string{"arrowleft"}},
	{"Up", 0xff52, []string{"arrowup"}},
	{"Right", 0xff53, []string{"arrowright"}},
	{"Down", 0xff54, []string{"arrowdown"}},
	{"Page_Up", 0xff55, []string{"prior", "pageup", "pgup"}},
	{"Page_Down", 0xff56, []string{"next", "pagedown", "pgdn"}},
	{"End", 0xff57, nil},
	{"Begin", 0xff58, nil},
	{"Select", 0xff60, nil},
	{"Print", 0xff61, []string{"printscreen", "prtsc"}},
	{"Execute", 0xff62, nil},
	{"Insert", 0xff63, []string{"ins"}},
	{"Undo", 0xff65, nil},
	{"Redo", 0xff66, nil},
	{"Menu", 0xff67, []string{"contextmenu", "apps"}},
	{"Find", 0xff68, nil},
	{"Cancel", 0xff69, nil},
	{"Help", 0xff6a, nil},
	{"Break", 0xff6b, nil},
	{"Num_Lock", 0xff7f, []string{"numlock"}},
	{"KP_Space", 0xff80, nil},
	{"KP_Tab", 0xff89, nil},
	{"KP_Enter", 0xff8d, nil},
	{"KP_F1", 0xff91, nil}, {"KP_F2", 0xff92, nil}, {"KP_F3", 0xff93, nil}, {"KP_F4", 0xff94, nil},
	{"KP_Home", 0xff95, nil},
	{"KP_Left", 0xff96, nil},
	{"KP_Up", 0xff97, nil},
	{"KP_Right", 0xff98, nil},
	{"KP_Down", 0xff99, nil},
	{"KP_Page_Up", 0xff9a, []string{"kp_prior"}},
	{"KP_Page_Down", 0xff9b, []string{"kp_next"}},
	{"KP_End", 0xff9c, nil},
	{"KP_Begin", 0xff9d, nil},
	{"KP_Insert", 0xff9e, nil},
	{"KP_Delete", 0xff9f, nil},
	{"KP_Multiply", 0xffaa, nil},
	{"KP_Add", 0xffab, nil},
	{"KP_Separator", 0xffac, nil},
	{"KP_Subtract", 0xffad, nil},
	{"KP_Decimal", 0xffae, nil},
	{"KP_Divide", 0xffaf, nil},
	{"KP_Equal", 0xffbd, nil},
	{"Shift_L", 0xffe1, nil}, {"Shift_R", 0xffe2, nil},
	{"Control_L", 0xffe3, nil}, {"Control_R", 0xffe4, nil},
	{"Caps_Lock", 0xffe5, []string{"capslock"}},
	{"Shift_Lock", 0xffe6, nil},
	{"Meta_L", 0xffe7, nil}, {"Meta_R", 0xffe8, nil},
	{"Alt_L", 0xffe9, nil}, {"Alt_R", 0xffea, nil},
	{"Super_L", 0xffeb, nil}, {"Super_R", 0xffec, nil},
	{"Hyper_L", 0xffed, nil}, {"Hyper_R", 0xffee, nil},
	{"ISO_Level3_Shift", 0xfe03, []string{"altgr"}},
	{"XF86AudioLowerVolume", 0x1008ff11, []string{"volumedown"}},
	{"XF86AudioMute", 0x1008ff12, []string{"volumemute", "mute"}},
	{"XF86AudioRaiseVolume", 0x1008ff13, []string{"volumeup"}},
	{"XF86AudioPlay", 0x1008ff14, []string{"mediaplaypause"}},
	{"XF86AudioStop", 0x1008ff15, []string{"mediastop"}},
	{"XF86AudioPrev", 0x1008ff16, []string{"mediatrackprevious"}},
	{"XF86AudioNext", 0x1008ff17, []string{"mediatracknext"}},
	{"quoteright", 0x27, nil}, // old X names of ' and `
	{"quoteleft", 0x60, nil},
}

func buildKeyNames() map[string]keyName {
	m := make(map[string]keyName, 2*len(keyTable)+len(punctNames)+35)
	for _, k := range keyTable {
		m[strings.ToLower(k.name)] = keyName{k.name, k.sym}
		for _, a := range k.aliases {
			m[a] = keyName{k.name, k.sym}
		}
	}
	for i := 1; i <= 35; i++ { // F1 = 0xffbe … F35 = 0xffe0
		n := "F" + strconv.Itoa(i)
		m[strings.ToLower(n)] = keyName{n, 0xffbe + uint32(i-1)}
	}
	for r, n := range punctNames {
		m[n] = keyName{n, uint32(r)}
	}
	m["dash"] = keyName{"minus", '-'}
	m["dot"] = keyName{"period", '.'}
	return m
}
