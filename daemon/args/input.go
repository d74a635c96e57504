package args

// The arguments of the acting verbs: click, type, fill, key, scroll,
// select.

import (
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
	At       string `json:"at,omitempty" jsonschema:"x,y: a screenshot pixel, not a ref"`
	NoVerify bool   `json:"no_verify,omitempty" jsonschema:"no effect check"`
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

// Type is type's: the text, into a node (@ref) or the focused node. How
// many characters one type may carry is the daemon's setting (its
// MaxText, MaxKeysText): TextWithin.
//
// SecretName, instead of the text, names a secret the daemon keeps (key set
// secret:NAME): the daemon types its value, which never stands in the
// request, and the answer says how many characters it had.
type Type struct {
	Ref        string `json:"ref,omitempty" jsonschema:"the node (@eN); none: the focused one"`
	Text       string `json:"text,omitempty" jsonschema:"the text"`
	SecretName string `json:"secret_name,omitempty" jsonschema:"a kept secret's name, instead of text"`
	NoVerify   bool   `json:"no_verify,omitempty" jsonschema:"no effect check"`
}

func (a Type) Validate() error { return checkTextOrSecret(a.Text, a.SecretName) }

// Fill is fill's: a field (@ref) and its new value, or the name of a
// secret whose value it takes (as Type's).
type Fill struct {
	Ref        string `json:"ref" jsonschema:"the field (@eN)"`
	Text       string `json:"text,omitempty" jsonschema:"its new value"`
	SecretName string `json:"secret_name,omitempty" jsonschema:"a kept secret's name, instead of text"`
	NoVerify   bool   `json:"no_verify,omitempty" jsonschema:"no effect check"`
}

func (a Fill) Validate() error {
	if a.Ref == "" {
		return badRequest("fill needs @ref and a text")
	}
	return checkTextOrSecret(a.Text, a.SecretName)
}

// SecretPrefix starts the name under which the key store keeps a secret
// an agent may have typed by name (key set secret:NAME): a provider's key
// is never one, so no agent can type a provider's key into a page.
const SecretPrefix = "secret:"

// checkTextOrSecret refuses a text and a secret's name given together,
// and checks the one given.
func checkTextOrSecret(text, name string) error {
	if name == "" {
		return CheckText(text)
	}
	if text != "" {
		return badRequest("give the text or --secret NAME, not both")
	}
	return CheckSecretName(name)
}

// CheckSecretName refuses what cannot name a secret: 1–57 characters of
// a-z, 0-9, '-', '_' and '.', not starting with '.' (the key store's
// names, under SecretPrefix).
func CheckSecretName(name string) error {
	name = strings.TrimPrefix(name, SecretPrefix)
	ok := name != "" && len(name) <= 64-len(SecretPrefix) && name[0] != '.'
	for _, r := range name {
		ok = ok && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.')
	}
	if !ok {
		return badRequest("--secret %s: a secret's name is 1 to %d characters of a-z, 0-9, - _ and . (not starting with .)", target.Echo(name), 64-len(SecretPrefix))
	}
	return nil
}

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
	NoVerify bool   `json:"no_verify,omitempty" jsonschema:"no effect check"`
}

func (a Key) Validate() error {
	_, err := target.ParseChord(a.Chord)
	return err
}

// Scroll is scroll's: a direction ("" down), wheel steps (0: the daemon's
// default, 3) and a pixel ("" the target's centre).
type Scroll struct {
	Direction string `json:"direction" jsonschema:"up, down, left or right"`
	By        int    `json:"by,omitempty" jsonschema:"wheel steps, 1-100 (default 3)"`
	At        string `json:"at,omitempty" jsonschema:"x,y: where to scroll (default the centre)"`
	NoVerify  bool   `json:"no_verify,omitempty" jsonschema:"no effect check"`
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

// The bounds of one select.
const (
	MaxSelectValues = 100
	MaxSelectValue  = 1000 // characters of one option's label
)

// Select is select's: a choice control (@ref) and the options to choose.
type Select struct {
	Ref      string   `json:"ref" jsonschema:"the control (@eN): a combo box, list, select"`
	Options  []string `json:"options" jsonschema:"by label or value"`
	NoVerify bool     `json:"no_verify,omitempty" jsonschema:"no effect check"`
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

// The arguments as the stages around every verb read them, whatever the
// verb: where it acts, what it types, whether its effect is watched.
type (
	reffed  interface{ nodeRef() string }
	pointed interface{ point() *wire.Point }
	texted  interface {
		typedText() string
		secretName() string
		withText(string) Args
	}
	unverified interface{ unverified() bool }
)

// Ref is the node (@ref) a's verb names: the one it acts on or reads;
// "" none.
func Ref(a Args) string {
	if r, ok := a.(reffed); ok {
		return r.nodeRef()
	}
	return ""
}

// Point is the pixel a's verb acts at (click --at, scroll --at); nil
// none, or one that does not parse (Validate refuses it).
func Point(a Args) *wire.Point {
	if p, ok := a.(pointed); ok {
		return p.point()
	}
	return nil
}

// Text is the text a's verb types (type, fill); "" none.
func Text(a Args) string {
	if t, ok := a.(texted); ok {
		return t.typedText()
	}
	return ""
}

// Secret is the secret a's verb types by name (type, fill --secret NAME),
// as the key store names it (secret:NAME); "" none.
func Secret(a Args) string {
	if t, ok := a.(texted); ok && t.secretName() != "" {
		return SecretPrefix + strings.TrimPrefix(t.secretName(), SecretPrefix)
	}
	return ""
}

// WithText is a, whose verb types a secret by name, carrying text as the
// text it types (the secret's value, read by the daemon): the name stays,
// so every stage knows the text is a secret. A verb that types no text is
// answered as it is.
func WithText(a Args, text string) Args {
	if t, ok := a.(texted); ok {
		return t.withText(text)
	}
	return a
}

// NoVerify reports whether a's verb is not to watch for its effect
// (--no-verify).
func NoVerify(a Args) bool {
	u, ok := a.(unverified)
	return ok && u.unverified()
}

func (a Click) nodeRef() string     { return a.Ref }
func (a Type) nodeRef() string      { return a.Ref }
func (a Fill) nodeRef() string      { return a.Ref }
func (a Select) nodeRef() string    { return a.Ref }
func (a Observe) nodeRef() string   { return a.Ref }
func (a GetNode) nodeRef() string   { return a.Ref }
func (a Get) nodeRef() string       { return a.Ref }
func (a Click) point() *wire.Point  { p, _ := ParsePoint("--at", a.At); return p }
func (a Scroll) point() *wire.Point { p, _ := ParsePoint("--at", a.At); return p }
func (a Type) typedText() string    { return a.Text }
func (a Fill) typedText() string    { return a.Text }
func (a Type) secretName() string   { return a.SecretName }
func (a Fill) secretName() string   { return a.SecretName }
func (a Type) withText(t string) Args {
	a.Text = t
	return a
}
func (a Fill) withText(t string) Args {
	a.Text = t
	return a
}
func (a Click) unverified() bool  { return a.NoVerify }
func (a Type) unverified() bool   { return a.NoVerify }
func (a Fill) unverified() bool   { return a.NoVerify }
func (a Key) unverified() bool    { return a.NoVerify }
func (a Scroll) unverified() bool { return a.NoVerify }
func (a Select) unverified() bool { return a.NoVerify }
func (a Nav) unverified() bool    { return a.NoVerify }
