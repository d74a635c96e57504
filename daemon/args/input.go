package args

// The arguments of the acting verbs: click, type, fill, key, scroll,
// select.

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// Click is click's: a node (@ref) or a pixel of the target's screenshot
// (At, "x,y"), exactly one of them.
type Click struct {
	Ref      string `json:"ref,omitempty" jsonschema:"the node (@eN) from a snapshot"`
	At       string `json:"at,omitempty" jsonschema:"x,y: a pixel of the screenshot, instead of a ref"`
	NoVerify bool   `json:"no_verify,omitempty" jsonschema:"do not watch for the effect"`
}

// ClickOf reads click's arguments from req.
func ClickOf(req wire.Request) Click {
	return Click{Ref: req.Ref, At: pointWords(req.At), NoVerify: req.NoVerify}
}

func (a Click) Validate() error {
	at, err := ParsePoint("--at", a.At)
	if err != nil {
		return err
	}
	if (a.Ref == "") == (at == nil) {
		return badRequest("click needs exactly one of @ref or --at x,y")
	}
	return nil
}

func (a Click) Into(req *wire.Request) {
	req.Ref, req.NoVerify = a.Ref, a.NoVerify
	req.At, _ = ParsePoint("--at", a.At)
}

// Type is type's: the text, into a node (@ref) or the focused node. How
// many characters one type may carry is the daemon's setting (its
// MaxText, MaxKeysText): TextWithin.
type Type struct {
	Ref      string `json:"ref,omitempty" jsonschema:"the node (@eN); without one, the focused node"`
	Text     string `json:"text" jsonschema:"the text"`
	NoVerify bool   `json:"no_verify,omitempty" jsonschema:"do not watch for the effect"`
}

// TypeOf reads type's arguments from req.
func TypeOf(req wire.Request) Type { return Type{Ref: req.Ref, Text: req.Text, NoVerify: req.NoVerify} }

func (a Type) Validate() error { return CheckText(a.Text) }

func (a Type) Into(req *wire.Request) { req.Ref, req.Text, req.NoVerify = a.Ref, a.Text, a.NoVerify }

// Fill is fill's: a field (@ref) and its new value.
type Fill struct {
	Ref      string `json:"ref" jsonschema:"the field (@eN)"`
	Text     string `json:"text" jsonschema:"its new value"`
	NoVerify bool   `json:"no_verify,omitempty" jsonschema:"do not watch for the effect"`
}

// FillOf reads fill's arguments from req.
func FillOf(req wire.Request) Fill { return Fill{Ref: req.Ref, Text: req.Text, NoVerify: req.NoVerify} }

func (a Fill) Validate() error {
	if a.Ref == "" {
		return badRequest("fill needs @ref and a text")
	}
	return CheckText(a.Text)
}

func (a Fill) Into(req *wire.Request) { req.Ref, req.Text, req.NoVerify = a.Ref, a.Text, a.NoVerify }

// CheckText refuses a text no road types: not UTF-8, or holding U+0000.
// How long it may be is the daemon's to say (TextWithin).
func CheckText(text string) error {
	if !utf8.ValidString(text) {
		return badRequest("the text is not valid UTF-8")
	}
	if i := strings.IndexByte(text, 0); i >= 0 {
		// No road delivers U+0000: keys have none, a page drops it, and an
		// application's EditableText ends the text there. Refused, never
		// a count of characters that did not arrive.
		return badRequest("the text holds a NUL character (U+0000) at character %d, which no application receives as typed text: remove it", utf8.RuneCountInString(text[:i])+1).
			With("at", utf8.RuneCountInString(text[:i])+1)
	}
	return nil
}

// TextWithin refuses a text of more than limit characters, which can be
// how ("typed at once", "typed as keys", "filled at once"): text_too_long.
func TextWithin(text string, limit int, how string) error {
	if n := utf8.RuneCountInString(text); n > limit {
		return TooLong(n, limit, how)
	}
	return nil
}

// TooLong is the refusal of a text of n characters where limit can be how.
func TooLong(n, limit int, how string) error {
	return target.Refuse(target.CodeTextTooLong, "the text is %d characters; at most %d can be %s (split it)", n, limit, how).
		With("limit", limit).With("length", n)
}

// Key is key's: one chord.
type Key struct {
	Chord    string `json:"chord" jsonschema:"ctrl+s, Return, shift+Tab, Escape, alt+F4"`
	NoVerify bool   `json:"no_verify,omitempty" jsonschema:"do not watch for the effect"`
}

// KeyOf reads key's arguments from req.
func KeyOf(req wire.Request) Key { return Key{Chord: req.Chord, NoVerify: req.NoVerify} }

func (a Key) Validate() error {
	_, err := target.ParseChord(a.Chord)
	return err
}

func (a Key) Into(req *wire.Request) { req.Chord, req.NoVerify = a.Chord, a.NoVerify }

// Scroll is scroll's: a direction ("" down), wheel steps (0: the daemon's
// default, 3) and a pixel ("" the target's centre).
type Scroll struct {
	Direction string `json:"direction" jsonschema:"up, down, left or right"`
	By        int    `json:"by,omitempty" jsonschema:"wheel steps, 1-100 (default 3)"`
	At        string `json:"at,omitempty" jsonschema:"x,y: the pixel to scroll at (default the centre)"`
	NoVerify  bool   `json:"no_verify,omitempty" jsonschema:"do not watch for the effect"`
}

// ScrollOf reads scroll's arguments from req.
func ScrollOf(req wire.Request) Scroll {
	return Scroll{Direction: req.Dir, By: req.By, At: pointWords(req.At), NoVerify: req.NoVerify}
}

func (a Scroll) Validate() error {
	switch a.Direction {
	case "", "up", "down", "left", "right":
	default:
		return badRequest("scroll direction %s: use up, down, left or right", target.Echo(a.Direction))
	}
	if a.By < 0 || a.By > 100 {
		return badRequest("--by %d: use 1 to 100 steps", a.By)
	}
	_, err := ParsePoint("--at", a.At)
	return err
}

func (a Scroll) Into(req *wire.Request) {
	req.Dir, req.By, req.NoVerify = a.Direction, a.By, a.NoVerify
	req.At, _ = ParsePoint("--at", a.At)
}

// The bounds of one select.
const (
	MaxSelectValues = 100
	MaxSelectValue  = 1000 // characters of one option's label
)

// Select is select's: a choice control (@ref) and the options to choose.
type Select struct {
	Ref      string   `json:"ref" jsonschema:"the control (@eN): a combo box, list, select"`
	Options  []string `json:"options" jsonschema:"the options to choose, by label or value"`
	NoVerify bool     `json:"no_verify,omitempty" jsonschema:"do not watch for the effect"`
}

// SelectOf reads select's arguments from req.
func SelectOf(req wire.Request) Select {
	return Select{Ref: req.Ref, Options: req.Values, NoVerify: req.NoVerify}
}

func (a Select) Validate() error {
	if a.Ref == "" {
		return badRequest(`select needs @ref and the options: select @e12 "Green" (an option's own ref alone chooses it)`)
	}
	if len(a.Options) > MaxSelectValues {
		return badRequest("select takes at most %d options at once, not %d", MaxSelectValues, len(a.Options))
	}
	for _, v := range a.Options {
		if !utf8.ValidString(v) || strings.IndexByte(v, 0) >= 0 {
			return badRequest("an option is not valid UTF-8 text")
		}
		if n := utf8.RuneCountInString(v); n > MaxSelectValue {
			return badRequest("an option is %d characters; at most %d", n, MaxSelectValue)
		}
	}
	return nil
}

func (a Select) Into(req *wire.Request) {
	req.Ref, req.Values, req.NoVerify = a.Ref, a.Options, a.NoVerify
}

// ParsePoint reads "x,y" given as the argument named name ("" none: nil).
func ParsePoint(name, s string) (*wire.Point, error) {
	if s == "" {
		return nil, nil
	}
	xs, ys, ok := strings.Cut(s, ",")
	x, errx := strconv.Atoi(strings.TrimSpace(xs))
	y, erry := strconv.Atoi(strings.TrimSpace(ys))
	if !ok || errx != nil || erry != nil {
		return nil, badRequest("%s %s: expected x,y in pixels of the target's screenshot, e.g. %s 120,40", name, target.Echo(s), name)
	}
	return &wire.Point{X: x, Y: y}, nil
}

// pointWords is p as "x,y" ("" none).
func pointWords(p *wire.Point) string {
	if p == nil {
		return ""
	}
	return fmt.Sprintf("%d,%d", p.X, p.Y)
}
