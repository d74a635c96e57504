// Package effect is what an acting verb's verifier decides, without
// reaching anything: what one look at a target saw (Observation) and its
// keyed digest for the trace, what changed between two looks (Compare,
// NodeChanges), whether a change seen ends the wait (Lasting), a picture's
// digest (PixelDigest), the effect a wait ends with (Judge), and the
// effect as the end of an answer's line (Words). The verifier (package
// daemon/verifying, a registered stage) looks at the target through what
// the core lends it and calls these; this package imports neither the core
// nor a backend.
package effect

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image"
	"image/png"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/target"
)

// PixelHold is how long a change seen only in a window's pixels must last
// before it ends the wait: a toolkit may show a button pressed, or animate
// a transition, for a moment after input and then draw it as before.
const PixelHold = 300 * time.Millisecond

// transientStates are states a node shows for a moment while it is acted
// on, never an effect of the action.
var transientStates = []string{"armed"}

// NodeUnanswered is Observation.NodeErr for a node read that failed
// otherwise than stale_ref (the application did not answer in time).
const NodeUnanswered = "unanswered"

// Observation is what a look saw of its target at one moment.
type Observation struct {
	Node     *target.Node // the acted node's facts; nil when not read
	NodeErr  string       // why the node could not be read (gone: its code)
	Gone     bool         // the target itself is gone (the action closed it)
	HasInfo  bool
	Title    string
	URL      string
	Targets  map[target.ID]string // the targets the session sees: id → title
	Content  string               // a digest of the content or pixels; "" when not read
	Pixels   bool                 // Content is of the pixels
	ContentT time.Time            // when Content was first seen as it is now
	// Told is what the target told changed anywhere in it since the verb
	// acted (kind.ChangeTeller), in words (Told); nil before it acted.
	Told []string
	// Left is that the target told, since the verb acted, that its
	// document was left (a navigation under way: kind.Change "navigated").
	Left bool
}

// Subject is what a comparison needs to know of the verb that acted.
type Subject struct {
	ID      target.ID // the target acted on
	Noun    string    // its kind's noun ("window", "page")
	Ref     string    // the ref of the node acted on; "" for the focused node or a point
	Focuses bool      // the verb focuses the node it acts on (a click)
}

// Compare says what changed between before and now: at the acted node (or
// the tab's address), and elsewhere.
func Compare(before, now Observation, s Subject) (at, elsewhere []string) {
	b := before
	if now.Gone && !b.Gone {
		return []string{string(s.ID) + " closed"}, nil
	}
	if s.Ref != "" {
		switch {
		case b.Node != nil && now.NodeErr == string(target.CodeStaleRef):
			at = append(at, s.Ref+" is gone")
		case b.Node != nil && now.Node != nil:
			at = append(at, NodeChanges(b.Node, now.Node, s.Focuses)...)
		}
	}
	if b.HasInfo && now.HasInfo {
		if b.URL != now.URL && b.URL != "" && now.URL != "" {
			at = append(at, "url: "+shortURL(b.URL, now.URL)+" → "+shortURL(now.URL, b.URL))
		}
		if b.Title != now.Title {
			elsewhere = append(elsewhere, fmt.Sprintf("title: %q → %q", b.Title, now.Title))
		}
	}
	if b.Targets != nil && now.Targets != nil {
		noun := func(id target.ID) string { return id.Kind().Words().Noun }
		for _, id := range sortedIDs(now.Targets) {
			if _, ok := b.Targets[id]; !ok {
				elsewhere = append(elsewhere, fmt.Sprintf("new %s %s %q", noun(id), id, now.Targets[id]))
			}
		}
		for _, id := range sortedIDs(b.Targets) {
			if _, ok := now.Targets[id]; !ok && id != s.ID {
				elsewhere = append(elsewhere, fmt.Sprintf("%s %s %q closed", noun(id), id, b.Targets[id]))
			}
		}
	}
	if b.Content != "" && now.Content != "" && b.Content != now.Content && (now.Pixels || len(now.Told) == 0) {
		// (A page's content that changed is said by what its watcher
		// told, where it told something: Told.)
		what := "the page's content changed"
		if now.Pixels {
			what = "the " + s.Noun + "'s pixels changed"
		}
		elsewhere = append(elsewhere, what)
	}
	return at, elsewhere
}

// Judge is the effect of a wait that ended having seen at and elsewhere
// (Compare's): cut is why the wait was cut short before its end (nil: it
// was not), unanswered the ref of the node that answered before acting and
// did not at the end ("": none such).
func Judge(at, elsewhere []string, cut error, unanswered string) target.Effect {
	switch {
	case len(at) > 0:
		return target.Effect{Word: target.EffectConfirmed, Seen: append(at, elsewhere...)}
	case len(elsewhere) > 0:
		return target.Effect{Word: target.EffectChangedElsewhere, Seen: elsewhere}
	case cut != nil:
		return target.Effect{Word: target.EffectUnverifiable, Why: "the wait was cut short: " + cut.Error()}
	case unanswered != "":
		return target.Effect{Word: target.EffectUnverifiable, Why: "the application did not answer for " + unanswered + " within the wait"}
	}
	return target.Effect{Word: target.EffectNoVisibleChange}
}

// Lasting reports whether the changes seen elsewhere at t end the wait:
// any but a change of pixels alone, which must last PixelHold.
func Lasting(before, now Observation, elsewhere []string, t time.Time) bool {
	if len(elsewhere) == 0 {
		return false
	}
	if now.Pixels && now.Content != before.Content && len(elsewhere) == 1 {
		return t.Sub(now.ContentT) >= PixelHold
	}
	return true
}

// Leaving reports whether now was seen while the target's document was
// being left: the target told it left (Left), and its address shows the
// about:blank a browser may show between two documents, or has not moved
// while the node acted on still reads (its going is the old document's:
// a new document at the same address, a form posted to itself, is seen
// by it). What else is seen meanwhile (a frame's document going first,
// the old page's content as it unloads) is the navigation on its way, not
// its effect: the wait goes on to the address it moves to.
func Leaving(before, now Observation) bool {
	switch {
	case !now.Left || !before.HasInfo || !now.HasInfo:
		return false
	case now.URL == "about:blank" && before.URL != "about:blank":
		return true
	}
	return now.URL == before.URL && now.NodeErr != string(target.CodeStaleRef)
}

// toldCut is how many characters of a name or text Told says.
const toldCut = 40

// Told says changes a target told of itself (kind.ChangeTeller), each
// naming its node by its ref, role and name as the last snapshot had
// them: `@e3 label: "1" → "11"` (its name), `@e4 text "Notes": "ab" →
// "abc"`, `@e4 text "PIN": 2 → 3 characters` (a hidden text says its
// length only), `@e2 list: a node added`, `focus → @e5 push button
// "OK"`. The changes of the node the verb acted on (its key: actedKey)
// are its own read's to say and are left out, and so is the focus where
// the verb moves it itself (focuses).
func Told(cs []kind.Change, actedKey string, focuses bool) []string {
	focused := slices.ContainsFunc(cs, func(c kind.Change) bool { return c.What == "focused" })
	var out []string
	for _, c := range cs {
		if c.Key != "" && c.Key == actedKey {
			continue
		}
		if focuses && (c.What == "focused" || c.What == "unfocused") {
			continue
		}
		node := toldNode(c, c.What != "name")
		switch c.What {
		case "name":
			if c.Known {
				out = append(out, fmt.Sprintf("%s: %s → %s", node, quoteCut(c.From), quoteCut(c.To)))
			} else {
				out = append(out, fmt.Sprintf("%s: now %s", node, quoteCut(c.To)))
			}
		case "text":
			switch {
			case c.Known && c.Secret:
				out = append(out, fmt.Sprintf("%s: text %d → %d characters", node, len([]rune(c.From)), len([]rune(c.To))))
			case c.Known:
				out = append(out, fmt.Sprintf("%s: text %s → %s", node, quoteCut(c.From), quoteCut(c.To)))
			default:
				out = append(out, node+": text changed")
			}
		case "value":
			out = append(out, node+": value changed")
		case "added", "removed":
			what := "a node"
			if c.To != "" {
				what = c.To
			}
			out = append(out, node+": "+what+" "+c.What)
		case "navigated":
			// said by the address (Compare), not here
		case "focused":
			out = append(out, "focus → "+node)
		case "unfocused":
			if !focused {
				out = append(out, node+": no longer focused")
			}
		case "checked":
			out = append(out, node+": unchecked → checked")
		case "unchecked":
			out = append(out, node+": checked → unchecked")
		default: // an attribute: its values
			out = append(out, fmt.Sprintf("%s: %s %s → %s", node, c.What, quoteCut(c.From), quoteCut(c.To)))
		}
	}
	return out
}

// toldNode names a told change's node: its ref, its role, and its name
// when named.
func toldNode(c kind.Change, named bool) string {
	var parts []string
	if c.Ref != "" {
		parts = append(parts, c.Ref)
	}
	if c.Role != "" {
		parts = append(parts, c.Role)
	}
	if named && c.Name != "" {
		parts = append(parts, quoteCut(c.Name))
	}
	if len(parts) == 0 || (c.Ref == "" && c.Role == "") {
		parts = append([]string{"a node"}, parts...)
	}
	return strings.Join(parts, " ")
}

// quoteCut quotes s, cut to toldCut characters.
func quoteCut(s string) string {
	if r := []rune(s); len(r) > toldCut {
		return strconv.Quote(string(r[:toldCut])) + "…"
	}
	return strconv.Quote(s)
}

func sortedIDs(m map[target.ID]string) []target.ID {
	ids := make([]target.ID, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// NodeChanges says, in words, how node a became b: its states, its text
// (by its length: never the text itself), its name, its value (a range
// control's). Focus moving to the node a verb that focuses acted on (a
// click) is not a change the verb meant.
func NodeChanges(a, b *target.Node, focuses bool) []string {
	ignore := func(s string) bool {
		return slices.Contains(transientStates, s) || (s == "focused" && focuses)
	}
	var out []string
	for _, s := range b.States {
		if !ignore(s) && !slices.Contains(a.States, s) {
			out = append(out, stateChange(s, true))
		}
	}
	for _, s := range a.States {
		if !ignore(s) && !slices.Contains(b.States, s) {
			out = append(out, stateChange(s, false))
		}
	}
	switch {
	case a.TextLen != b.TextLen:
		out = append(out, fmt.Sprintf("text: %d → %d characters", a.TextLen, b.TextLen))
	case a.Text != b.Text:
		out = append(out, fmt.Sprintf("text changed (%d characters)", b.TextLen))
	}
	if a.Name != b.Name {
		out = append(out, "name changed")
	}
	switch va, vb := a.Value, b.Value; {
	case va != nil && vb != nil && va.Current != vb.Current:
		out = append(out, fmt.Sprintf("value: %g → %g", va.Current, vb.Current))
	case va != nil && vb != nil && (va.Min != vb.Min || va.Max != vb.Max):
		out = append(out, fmt.Sprintf("range: %g–%g → %g–%g", va.Min, va.Max, vb.Min, vb.Max))
	case (va == nil) != (vb == nil):
		out = append(out, "value changed")
	}
	return out
}

func stateChange(s string, on bool) string {
	if s == "checked" {
		if on {
			return "unchecked → checked"
		}
		return "checked → unchecked"
	}
	if on {
		return "now " + s
	}
	return "no longer " + s
}

// shortURL is u as a reader needs it beside other: its path, query and
// fragment when both are of one origin, else the whole address.
func shortURL(u, other string) string {
	a, err1 := url.Parse(u)
	b, err2 := url.Parse(other)
	if err1 != nil || err2 != nil || a.Scheme != b.Scheme || a.Host != b.Host || a.Host == "" {
		return u
	}
	s := a.EscapedPath()
	if s == "" {
		s = "/"
	}
	if a.RawQuery != "" {
		s += "?" + a.RawQuery
	}
	if a.Fragment != "" {
		s += "#" + a.Fragment
	}
	return s
}

// digestKey keys every digest of what a look saw: random, made once per
// process and kept in memory only.
var digestKey = sync.OnceValue(func() []byte {
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		panic("effect: no randomness for the digest key: " + err.Error())
	}
	return k
})

// Digest is a short digest of what o saw, for the trace (never a picture,
// never the text itself). It is an HMAC under digestKey: a node's text is
// often what was just typed (a PIN, a password), and a plain hash of a
// short text is undone by trying every text of that length; without the
// key, which never leaves the process, no digest can be tried against.
// It still tells every change of the node apart (a text of the same
// length, a name that holds the value), which a hash of the lengths alone
// would not. A before and an after are compared within one step, so a
// key that a restart changes costs nothing.
func (o Observation) Digest() string {
	h := hmac.New(sha256.New, digestKey())
	if o.Node != nil {
		fmt.Fprintf(h, "node %q %d %q %q\n", o.Node.States, o.Node.TextLen, o.Node.Text, o.Node.Name)
		if v := o.Node.Value; v != nil {
			fmt.Fprintf(h, "value %g %g %g\n", v.Current, v.Min, v.Max)
		}
	}
	fmt.Fprintf(h, "gone %s\ninfo %q %q\ncontent %s\n", o.NodeErr, o.Title, o.URL, o.Content)
	for _, t := range o.Told {
		fmt.Fprintf(h, "told %s\n", t)
	}
	for _, id := range sortedIDs(o.Targets) {
		fmt.Fprintf(h, "target %s\n", id)
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// Words is the effect as the end of an answer's line:
// " → confirmed: unchecked → checked".
func Words(e *target.Effect) string {
	s := " → " + string(e.Word)
	switch {
	case len(e.Seen) > 0:
		seen := e.Seen
		if len(seen) > 3 {
			seen = append(seen[:3:3], fmt.Sprintf("%d more", len(e.Seen)-3))
		}
		s += ": " + strings.Join(seen, "; ")
	case e.Why != "":
		s += " (" + e.Why + ")"
	}
	return s
}

// regionRadius is half the side of the square of pixels around a point
// that a point verb compares.
const regionRadius = 48

// PixelDigest digests a PNG's pixels: the square around at (nil: all of
// them). A picture that does not decode is digested as its bytes.
func PixelDigest(pic []byte, at *kind.Point) string {
	h := sha256.New()
	img, err := png.Decode(bytes.NewReader(pic))
	if err != nil || at == nil {
		h.Write(pic)
		return hex.EncodeToString(h.Sum(nil)[:6])
	}
	r := image.Rect(at.X-regionRadius, at.Y-regionRadius, at.X+regionRadius, at.Y+regionRadius).Intersect(img.Bounds())
	var px [4]byte
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, ca := img.At(x, y).RGBA()
			px[0], px[1], px[2], px[3] = byte(cr>>8), byte(cg>>8), byte(cb>>8), byte(ca>>8)
			h.Write(px[:])
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:6])
}
