package target

import "fmt"

// Mode is how an agent reaches a window: through its accessibility tree,
// through its pixels, or whichever it has (auto). It is chosen at open and
// changed with the mode verb; a tab has none.
type Mode string

// The modes.
const (
	// ModeAuto lets every verb that has a road run, as the capability law
	// decides it. It resolves to tree when the application's tree has a
	// usable node (its frame is on the accessibility bus with at least one
	// child), else to pixels; under auto → pixels the tree verbs are
	// refused no_tree, naming the mode.
	ModeAuto Mode = "auto"
	// ModeTree is the tree alone: the point verbs (click --at, scroll
	// --at) are refused mode_tree.
	ModeTree Mode = "tree"
	// ModePixels is the pixels alone: the verbs that read the tree or take
	// a ref (snapshot, click @ref, type @ref) are refused mode_pixels.
	ModePixels Mode = "pixels"
)

// ParseMode reads a mode word. Anything but auto, tree or pixels (the empty
// word included) is refused bad_mode.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModeAuto, ModeTree, ModePixels:
		return m, nil
	}
	if s == "" {
		return "", Refuse(CodeBadMode, "no mode given: use auto, tree or pixels").With("modes", "auto, tree, pixels")
	}
	return "", Refuse(CodeBadMode, "%s is not a mode: use auto, tree or pixels", Echo(s)).
		With("mode", Clip(s)).With("modes", "auto, tree, pixels")
}

// ModeWords says a window's mode as answers print it: "pixels", "tree",
// "auto → tree", "auto → pixels (no accessible tree: <why>)", or "auto"
// while auto is not resolved yet. resolved and why are what auto resolved
// to, and why.
func ModeWords(m, resolved Mode, why string) string {
	switch {
	case m != ModeAuto || resolved == "":
		return string(m)
	case resolved == ModePixels && why != "":
		return "auto → pixels (no accessible tree: " + why + ")"
	case resolved == ModePixels:
		return "auto → pixels (no accessible tree)"
	}
	return "auto → " + string(resolved)
}

// TreeVerb reports whether v reads the tree or acts on a ref: the verbs
// pixels mode refuses.
func (v Verb) TreeVerb() bool {
	return v == VerbSnapshot || v == VerbClickRef || v == VerbTypeRef
}

// Injects reports whether v may send injected input (keys, or the pointer
// at a pixel) rather than act on a node alone: key, scroll, click --at,
// and type (without a ref, keys into the focus; with one, keys where the
// node takes the focus when its tree takes no text).
func (v Verb) Injects() bool {
	switch v {
	case VerbKey, VerbScroll, VerbClickAt, VerbTypeFocus, VerbTypeRef:
		return true
	}
	return false
}

// PointVerb reports whether v, given a point (at), acts on a pixel of the
// window: the verbs tree mode refuses. A scroll without --at turns the
// wheel at the window's centre, chosen by no one from its pixels: tree mode
// lets it run, as it lets keys run.
func (v Verb) PointVerb(at bool) bool {
	return v == VerbClickAt || (v == VerbScroll && at)
}

// CheckMode refuses verb on window id in mode m, or answers nil when the
// mode lets it run (the capability law still decides its road). at says
// the verb was given a point (--at). Auto lets every verb run: what it
// resolved to speaks through the tree verbs' no_tree (AutoNoTree).
func CheckMode(id ID, m Mode, verb Verb, at bool) *Refusal {
	cli := id.Kind().Words().CLI
	switch {
	case m == ModePixels && verb.TreeVerb():
		sw := fmt.Sprintf("%s mode %s tree", cli, id)
		return Refuse(CodeModePixels, "%s is in pixels mode: %s reads its accessibility tree, which this mode does not use; take a screenshot and use click --at, type and key, or switch: %s",
			id, modeVerbWords(verb), sw).With("target", string(id)).With("mode", string(m)).With("switch", sw)
	case m == ModeTree && verb.PointVerb(at):
		sw := fmt.Sprintf("%s mode %s pixels", cli, id)
		return Refuse(CodeModeTree, "%s is in tree mode: %s acts on a pixel, which this mode does not use; act on a node (@ref) from its snapshot, or switch: %s",
			id, modeVerbWords(verb), sw).With("target", string(id)).With("mode", string(m)).With("switch", sw)
	}
	return nil
}

// AutoNoTree is the refusal of a tree verb on a window whose auto mode
// resolved to pixels because its application exposes no usable tree (why).
func AutoNoTree(id ID, verb Verb, why string) *Refusal {
	return Refuse(CodeNoTree, "no accessibility tree for %s (%s): its mode is auto → pixels, so %s has nothing to read; take a screenshot and use click --at, type and key",
		id, why, modeVerbWords(verb)).
		With("target", string(id)).With("reason", why).With("mode", string(ModeAuto)).With("resolved", string(ModePixels))
}

// modeVerbWords names a verb as the command line writes it.
func modeVerbWords(v Verb) string {
	switch v {
	case VerbClickRef:
		return "click @ref"
	case VerbTypeRef:
		return "type @ref"
	case VerbScroll:
		return "scroll --at"
	}
	return verbWords(v)
}

// UnderMode is caps as window id in mode m lets them run: a verb the mode
// refuses has no road, and its refusal is the mode's (what list shows, so
// an agent reads the same answer before the verb as after it).
func UnderMode(id ID, m Mode, caps []Capability) []Capability {
	out := make([]Capability, len(caps))
	for i, c := range caps {
		if r := CheckMode(id, m, c.Verb, false); r != nil { // a scroll without --at runs in every mode
			c = Capability{Verb: c.Verb, Road: RoadNone, Why: r.Message, Refusal: r}
		}
		out[i] = c
	}
	return out
}
