package cdp

import (
	"strings"

	"github.com/vibespace/vibespace/target"
)

// keyDef is one key as CDP's Input.dispatchKeyEvent wants it: the DOM key
// and code values, the Windows virtual key code, and the text it types.
type keyDef struct {
	key  string
	code string
	vk   int64
	text string
}

// CDP modifier bits (Input.dispatchKeyEvent "modifiers").
const (
	cdpAlt   = 1
	cdpCtrl  = 2
	cdpMeta  = 4
	cdpShift = 8
)

// modifierKeys are the keys pressed for each chord modifier, in press order.
var modifierKeys = []struct {
	mod target.Modifiers
	bit int64
	def keyDef
}{
	{target.ModCtrl, cdpCtrl, keyDef{key: "Control", code: "ControlLeft", vk: 17}},
	{target.ModAlt, cdpAlt, keyDef{key: "Alt", code: "AltLeft", vk: 18}},
	{target.ModShift, cdpShift, keyDef{key: "Shift", code: "ShiftLeft", vk: 16}},
	{target.ModSuper, cdpMeta, keyDef{key: "Meta", code: "MetaLeft", vk: 91}},
}

// namedKeys maps X keysym names (target.Chord.Key) to DOM keys.
var namedKeys = map[string]keyDef{
	"Return":      {key: "Enter", code: "Enter", vk: 13, text: "\r"},
	"KP_Enter":    {key: "Enter", code: "NumpadEnter", vk: 13, text: "\r"},
	"Tab":         {key: "Tab", code: "Tab", vk: 9},
	"BackSpace":   {key: "Backspace", code: "Backspace", vk: 8},
	"Escape":      {key: "Escape", code: "Escape", vk: 27},
	"Delete":      {key: "Delete", code: "Delete", vk: 46},
	"Insert":      {key: "Insert", code: "Insert", vk: 45},
	"Home":        {key: "Home", code: "Home", vk: 36},
	"End":         {key: "End", code: "End", vk: 35},
	"Page_Up":     {key: "PageUp", code: "PageUp", vk: 33},
	"Page_Down":   {key: "PageDown", code: "PageDown", vk: 34},
	"Left":        {key: "ArrowLeft", code: "ArrowLeft", vk: 37},
	"Up":          {key: "ArrowUp", code: "ArrowUp", vk: 38},
	"Right":       {key: "ArrowRight", code: "ArrowRight", vk: 39},
	"Down":        {key: "ArrowDown", code: "ArrowDown", vk: 40},
	"space":       {key: " ", code: "Space", vk: 32, text: " "},
	"Menu":        {key: "ContextMenu", code: "ContextMenu", vk: 93},
	"Pause":       {key: "Pause", code: "Pause", vk: 19},
	"Print":       {key: "PrintScreen", code: "PrintScreen", vk: 44},
	"Caps_Lock":   {key: "CapsLock", code: "CapsLock", vk: 20},
	"Num_Lock":    {key: "NumLock", code: "NumLock", vk: 144},
	"Scroll_Lock": {key: "ScrollLock", code: "ScrollLock", vk: 145},
	"Shift_L":     {key: "Shift", code: "ShiftLeft", vk: 16},
	"Shift_R":     {key: "Shift", code: "ShiftRight", vk: 16},
	"Control_L":   {key: "Control", code: "ControlLeft", vk: 17},
	"Control_R":   {key: "Control", code: "ControlRight", vk: 17},
	"Alt_L":       {key: "Alt", code: "AltLeft", vk: 18},
	"Alt_R":       {key: "Alt", code: "AltRight", vk: 18},
	"Super_L":     {key: "Meta", code: "MetaLeft", vk: 91},
	"Super_R":     {key: "Meta", code: "MetaRight", vk: 92},
	"Meta_L":      {key: "Meta", code: "MetaLeft", vk: 91},
	"Meta_R":      {key: "Meta", code: "MetaRight", vk: 92},
	"KP_Add":      {key: "+", code: "NumpadAdd", vk: 107, text: "+"},
	"KP_Subtract": {key: "-", code: "NumpadSubtract", vk: 109, text: "-"},
	"KP_Multiply": {key: "*", code: "NumpadMultiply", vk: 106, text: "*"},
	"KP_Divide":   {key: "/", code: "NumpadDivide", vk: 111, text: "/"},
	"KP_Decimal":  {key: ".", code: "NumpadDecimal", vk: 110, text: "."},
}

// punctCodes are the US-layout physical keys of ASCII punctuation: the DOM
// code and Windows virtual key code.
var punctCodes = map[rune]struct {
	code string
	vk   int64
}{
	'-': {"Minus", 189}, '=': {"Equal", 187}, '[': {"BracketLeft", 219}, ']': {"BracketRight", 221},
	'\\': {"Backslash", 220}, ';': {"Semicolon", 186}, '\'': {"Quote", 222}, ',': {"Comma", 188},
	'.': {"Period", 190}, '/': {"Slash", 191}, '`': {"Backquote", 192},
}

// keyFor maps a chord's key to CDP. shift upper-cases a letter's key value
// and typed text, as a US keyboard does.
func keyFor(c target.Chord) (keyDef, bool) {
	if d, ok := namedKeys[c.Key]; ok {
		return d, true
	}
	if strings.HasPrefix(c.Key, "F") && len(c.Key) <= 3 {
		n := 0
		for _, r := range c.Key[1:] {
			if r < '0' || r > '9' {
				n = -1
				break
			}
			n = n*10 + int(r-'0')
		}
		if n >= 1 && n <= 24 {
			return keyDef{key: c.Key, code: c.Key, vk: int64(111 + n)}, true
		}
	}
	r, ok := c.Rune()
	if !ok {
		return keyDef{}, false
	}
	shift := c.Mods.Has(target.ModShift)
	switch {
	case r >= 'a' && r <= 'z':
		s := string(r)
		if shift {
			s = strings.ToUpper(s)
		}
		return keyDef{key: s, code: "Key" + strings.ToUpper(string(r)), vk: int64('A' + r - 'a'), text: s}, true
	case r >= '0' && r <= '9':
		return keyDef{key: string(r), code: "Digit" + string(r), vk: int64(r), text: string(r)}, true
	}
	d := keyDef{key: string(r), text: string(r)}
	if p, ok := punctCodes[r]; ok {
		d.code, d.vk = p.code, p.vk
	}
	return d, true
}

// runeKey is the key event that types one character of text.
func runeKey(r rune) keyDef {
	switch r {
	case '\n', '\r':
		return namedKeys["Return"]
	case '\t':
		return namedKeys["Tab"]
	}
	if r >= 'A' && r <= 'Z' {
		d, _ := keyFor(target.Chord{Mods: target.ModShift, Key: string(r + 'a' - 'A')})
		return d
	}
	d, _ := keyFor(target.Chord{Key: string(r)})
	d.text = string(r)
	return d
}
