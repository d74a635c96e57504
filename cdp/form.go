package cdp

// Form controls set as a person's pick sets them, and read back: a
// choice control's options (select), and fill's values — the pickers
// (date, time, colour, range…) through the element's own value setter,
// text through the paste road — each refused value_not_set, with what the
// control holds, when the value did not take. Never "filled" for a value
// the page does not hold.

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/vibespace/vibespace/target"
)

// maxListed bounds the options a refusal names.
const maxListed = 20

// NodeInfo is what the page's accessibility tree says of one node: its
// role (the snapshot's words), its name, and whether it is a choice
// control (a <select>, a list box, a combo box) or an option of one.
type NodeInfo struct {
	Role, Name string
	Choice     bool // a choice control: select sets its options
}

// choiceRoles are Chromium's roles of choice controls.
var choiceRoles = map[string]bool{"combobox": true, "listbox": true, "PopUpButton": true, "MenuListPopup": true}

// choiceOption is one option of a choice control as the page says it.
type choiceOption struct {
	Label    string `json:"label"`
	Value    string `json:"value"`
	Selected bool   `json:"selected"`
	Disabled bool   `json:"disabled"`
}

// choiceControl is a choice control as the page says it: a <select>
// ("select") or an ARIA list box ("listbox"), whether it takes several,
// its options, and the option the ref names (self, -1 when the ref names
// the control).
type choiceControl struct {
	Gone     bool           `json:"gone"`
	Kind     string         `json:"kind"` // "select", "listbox", "" (not a choice control)
	Tag      string         `json:"tag"`
	Why      string         `json:"why"` // why it is not one
	Multiple bool           `json:"multiple"`
	Disabled bool           `json:"disabled"`
	Self     int            `json:"self"`
	Options  []choiceOption `json:"options"`
}

// controlJS finds the choice control of this node: a <select> (the node,
// or an <option>'s), or an ARIA listbox (the node; a role=option's; a
// combobox's through aria-controls or aria-owns, once it is open). It is
// the start of the page functions below, which read its options or set
// them.
const controlJS = `
  const el = this.nodeType === 1 ? this : this.parentElement;
  if (!el || !el.isConnected) return {gone: true};
  const tag = el.tagName.toLowerCase();
  const label = o => (o.getAttribute('aria-label') || o.label || o.textContent || '').trim().replace(/\s+/g, ' ');
  let ctl = null, kind = '', self = null, why = '';
  if (tag === 'select') { ctl = el; kind = 'select'; }
  else if (tag === 'option') { ctl = el.closest('select'); kind = ctl ? 'select' : ''; self = el; if (!ctl) why = 'an <option> outside a <select> (a datalist\'s suggestions are not a choice)'; }
  else {
    const role = (el.getAttribute('role') || '').trim();
    if (role === 'listbox') { ctl = el; kind = 'listbox'; }
    else if (role === 'option') { ctl = el.closest('[role=listbox]'); self = el; kind = ctl ? 'listbox' : ''; if (!ctl) why = 'a role=option outside a role=listbox'; }
    else if (role === 'combobox') {
      const ids = ((el.getAttribute('aria-controls') || '') + ' ' + (el.getAttribute('aria-owns') || '')).trim().split(/\s+/);
      for (const id of ids) { const l = id && el.getRootNode().getElementById ? el.getRootNode().getElementById(id) : (id ? document.getElementById(id) : null); if (l && l.getAttribute('role') === 'listbox') { ctl = l; break; } }
      kind = ctl ? 'listbox' : '';
      if (!ctl) why = 'a combobox whose list box is not in the page (open it first: click it, then select on its list box)';
    } else why = 'a <' + tag + '>' + (role ? ' with role=' + role : '') + ', not a choice control';
  }
  const opts = !ctl ? [] : kind === 'select' ? Array.from(ctl.options) : Array.from(ctl.querySelectorAll('[role=option]'));
  const multiple = !ctl ? false : kind === 'select' ? ctl.multiple : ctl.getAttribute('aria-multiselectable') === 'true';
  const disabled = !ctl ? false : kind === 'select' ? ctl.matches(':disabled') : ctl.closest('[aria-disabled="true"]') !== null;
  const isSel = o => kind === 'select' ? o.selected : o.getAttribute('aria-selected') === 'true';
  const isOff = o => kind === 'select' ? o.disabled || (o.parentElement && o.parentElement.tagName === 'OPTGROUP' && o.parentElement.disabled) : o.getAttribute('aria-disabled') === 'true';
  const read = () => ({kind, tag, why, multiple, disabled, self: self ? opts.indexOf(self) : -1,
    options: opts.map(o => ({label: label(o), value: kind === 'select' ? o.value : (o.dataset.value || ''), selected: isSel(o), disabled: isOff(o)}))});
`

// readChoiceJS reads the choice control of this node.
const readChoiceJS = `function() {` + controlJS + `
  return read();
}`

// setChoiceJS makes the options at want exactly the selected ones of a
// <select>, as a person's pick does (input, then change, when anything
// changed), and reads it back once the page's handlers ran. An ARIA list
// box is the page script's own: the options to click are scrolled into
// view and their centres answered (point), for the caller to click with
// real input.
const setChoiceJS = `async function(want, point) {` + controlJS + `
  if (!ctl) return read();
  if (kind === 'listbox') {
    const o = opts[point];
    if (!o) return {missing: true};
    o.scrollIntoView({block: 'nearest', inline: 'nearest', behavior: 'instant'});
    const r = o.getBoundingClientRect();
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    const root = o.getRootNode();
    const hit = (root.elementFromPoint ? root : document).elementFromPoint(x, y);
    return {x, y, covered: !(hit && (hit === o || o.contains(hit))), label: label(o)};
  }
  let changed = false;
  opts.forEach((o, i) => { const s = want.includes(i); if (o.selected !== s) { o.selected = s; changed = true; } });
  if (changed) {
    ctl.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
    ctl.dispatchEvent(new Event('change', {bubbles: true}));
  }
  await new Promise(r => setTimeout(r, 0));
  return read();
}`

// pointed is setChoiceJS's answer for an ARIA option: its centre.
type pointed struct {
	X       float64 `json:"x"`
	Y       float64 `json:"y"`
	Missing bool    `json:"missing"` // the option went meanwhile
	Covered bool    `json:"covered"` // something else is on top of its centre
	Label   string  `json:"label"`
}

// Select makes opts exactly the chosen options of the choice control nr
// (a <select>, single or multiple; an ARIA list box; or the control of an
// option nr names, which with no opts chooses that option), and answers
// the labels it holds chosen, read back (SelectOn).
func (t *Tab) Select(ctx context.Context, nr NodeRef, opts []string) ([]string, error) {
	n, err := t.resolve(ctx, nr)
	if err != nil {
		return nil, err
	}
	defer t.releaseNode(ctx, n)
	return SelectOn(ctx, nr.Ref, tabNode{t, n}, opts)
}

// tabNode is a resolved node of a tab as a ChoiceNode.
type tabNode struct {
	t *Tab
	n *node
}

func (tn tabNode) Call(ctx context.Context, fn string, out any, args ...any) error {
	return tn.t.call(ctx, tn.n, fn, out, args...)
}

func (tn tabNode) ClickAt(ctx context.Context, x, y float64) error {
	return tn.t.ClickAt(ctx, Point{x, y})
}

// ChoiceNode is one node of a page as SelectOn drives it, through any
// protocol (CDP here, WebDriver BiDi in daemon/firefox).
type ChoiceNode interface {
	// Call runs fn, the source of a function whose this is the node,
	// with args (each a JSON value), awaiting a promise it gives, and
	// decodes its answer into out.
	Call(ctx context.Context, fn string, out any, args ...any) error
	// ClickAt clicks the left button with real input at a point of the
	// viewport, in CSS pixels.
	ClickAt(ctx context.Context, x, y float64) error
}

// SelectOn makes opts exactly the chosen options of the choice control of
// node n (a <select>, single or multiple; an ARIA list box; or the
// control of an option n is, which with no opts chooses that option), and
// answers the labels it holds chosen, read back. A <select> is set
// through its options' selected flags with the input and change events a
// person's pick fires; an ARIA list box is the page's own script's, so its
// options are clicked with real input and its aria-selected read back. An
// option it does not have is no_option (naming the ones it has); a
// control that ends holding other options than asked is value_not_set.
// ref names n in refusals.
func SelectOn(ctx context.Context, ref string, n ChoiceNode, opts []string) ([]string, error) {
	var c choiceControl
	if err := n.Call(ctx, readChoiceJS, &c); err != nil {
		return nil, err
	}
	want, err := choose(ref, c, opts)
	if err != nil {
		return nil, err
	}
	if c.Kind == "listbox" {
		for _, i := range toggles(c, want) {
			var p pointed
			if err := n.Call(ctx, setChoiceJS, &p, want, i); err != nil {
				return nil, err
			}
			switch {
			case p.Missing:
				return nil, target.Refuse(target.CodeValueNotSet, "the options of %s changed while they were chosen; take a new snapshot", ref).With("ref", ref)
			case p.Covered:
				return nil, target.Refuse(target.CodeCovered, "option %q of %s is covered by another element at its centre", p.Label, ref).With("ref", ref).With("option", p.Label)
			}
			if err := n.ClickAt(ctx, p.X, p.Y); err != nil {
				return nil, err
			}
		}
		if err := n.Call(ctx, readChoiceJS, &c); err != nil {
			return nil, err
		}
	} else if err := n.Call(ctx, setChoiceJS, &c, want, -1); err != nil {
		return nil, err
	}
	return heldAfter(ref, c, want)
}

// choose matches opts against the control's options (choiceMatch) and
// checks a person could pick them: the control and the options enabled,
// one option for a single choice. With no opts, an option's ref chooses
// that option.
func choose(ref string, c choiceControl, opts []string) ([]int, error) {
	switch {
	case c.Gone:
		return nil, staleRef(ref)
	case c.Kind == "":
		return nil, target.Refuse(target.CodeNoAction, "%s is %s: select takes a <select>, a list box or one of their options", ref, orWords(c.Why, "not a choice control")).With("ref", ref)
	case c.Disabled:
		return nil, target.Refuse(target.CodeNotSensitive, "%s is disabled; nothing was selected", ref).With("ref", ref)
	}
	var want []int
	if len(opts) == 0 {
		if c.Self < 0 {
			return nil, target.Refuse(target.CodeBadRequest, "select %s needs the options to choose; it has: %s", ref, listed(labels(c.Options, nil))).
				With("ref", ref).With("options", bounded(labels(c.Options, nil)))
		}
		want = []int{c.Self}
	} else {
		var missing []string
		want, missing = choiceMatch(c.Options, opts, c.Kind == "select")
		if len(missing) > 0 {
			has := labels(c.Options, nil)
			return nil, target.Refuse(target.CodeNoOption, "%s has no option %s; it has: %s", ref, listed(missing), listed(has)).
				With("ref", ref).With("missing", missing).With("options", bounded(has))
		}
	}
	if !c.Multiple && len(want) != 1 {
		return nil, target.Refuse(target.CodeBadRequest, "%s takes exactly one option (it is a single choice), not %d", ref, len(want)).With("ref", ref)
	}
	for _, i := range want {
		if c.Options[i].Disabled {
			return nil, target.Refuse(target.CodeNotSensitive, "option %q of %s is disabled; nothing was selected", c.Options[i].Label, ref).With("ref", ref).With("option", c.Options[i].Label)
		}
	}
	return want, nil
}

// choiceMatch finds each of opts among options: by its label as shown,
// else (byValue: a page's <option>) by its value, else by its label
// ignoring case and spacing when that names exactly one. It answers the
// indices, in the control's order and once each, and the opts it did not
// find.
func choiceMatch(options []choiceOption, opts []string, byValue bool) (want []int, missing []string) {
	norm := func(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }
	picked := make([]bool, len(options))
	for _, o := range opts {
		found := -1
		for i, c := range options {
			if c.Label == o {
				found = i
				break
			}
		}
		if found < 0 && byValue {
			for i, c := range options {
				if c.Value == o {
					found = i
					break
				}
			}
		}
		if found < 0 {
			for i, c := range options {
				if norm(c.Label) == norm(o) {
					if found >= 0 { // two options answer to it: no guess
						found = -1
						break
					}
					found = i
				}
			}
		}
		if found < 0 {
			missing = append(missing, o)
			continue
		}
		picked[found] = true
	}
	for i, p := range picked {
		if p {
			want = append(want, i)
		}
	}
	return want, missing
}

// toggles are the options of an ARIA list box to click for want: in a
// single choice the wanted one unless it is chosen already, in a multiple
// one every option whose state differs.
func toggles(c choiceControl, want []int) []int {
	in := map[int]bool{}
	for _, i := range want {
		in[i] = true
	}
	var out []int
	for i, o := range c.Options {
		if o.Selected != in[i] && (c.Multiple || in[i]) {
			out = append(out, i)
		}
	}
	return out
}

// heldAfter reads the control back: the labels it holds chosen, or
// value_not_set when they are not exactly want (the page's own handler
// undid or changed the pick).
func heldAfter(ref string, c choiceControl, want []int) ([]string, error) {
	if c.Gone {
		return nil, staleRef(ref)
	}
	var got []int
	for i, o := range c.Options {
		if o.Selected {
			got = append(got, i)
		}
	}
	held := labels(c.Options, got)
	if !sameInts(got, want) {
		why := "the page changed it"
		if c.Kind == "listbox" {
			why = "its options were clicked; the page's script did not mark them chosen (aria-selected)"
		}
		return held, target.Refuse(target.CodeValueNotSet, "asked for %s, but %s holds %s (%s)", listed(labels(c.Options, want)), ref, orWords(listed(held), "nothing chosen"), why).
			With("ref", ref).With("holds", held)
	}
	return held, nil
}

func sameInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// labels are the labels of options (at idx; every option when idx is nil).
func labels(options []choiceOption, idx []int) []string {
	out := []string{}
	if idx == nil {
		for _, o := range options {
			out = append(out, o.Label)
		}
		return out
	}
	for _, i := range idx {
		out = append(out, options[i].Label)
	}
	return out
}

// bounded is at most maxListed of ss.
func bounded(ss []string) []string {
	if len(ss) > maxListed {
		return ss[:maxListed]
	}
	return ss
}

// listed is ss quoted and joined, at most maxListed of them.
func listed(ss []string) string {
	var b strings.Builder
	for i, s := range bounded(ss) {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(s))
	}
	if len(ss) > maxListed {
		fmt.Fprintf(&b, " and %d more", len(ss)-maxListed)
	}
	return b.String()
}

func orWords(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// pickerFormats are the input types a person sets with a picker, not by
// typing, and the form of the value each wants.
var pickerFormats = map[string]string{
	"date":           "YYYY-MM-DD, e.g. 2026-12-02",
	"time":           "HH:MM or HH:MM:SS (24 h), e.g. 14:30",
	"datetime-local": "YYYY-MM-DDTHH:MM, e.g. 2026-12-02T14:30",
	"month":          "YYYY-MM, e.g. 2026-12",
	"week":           "YYYY-Www, e.g. 2026-W49",
	"color":          "#rrggbb, e.g. #1e90ff",
	"range":          "a number within its min and max, on its step",
}

// field is what the page says of the node fill acts on: its tag and
// type, whether it holds a secret, its value now, and for a picker the
// value it would hold if set to the text (a scratch input of the same
// type, min, max and step: the browser's own sanitizing).
type field struct {
	Gone     bool   `json:"gone"`
	Tag      string `json:"tag"`
	Type     string `json:"type"`
	Secret   bool   `json:"secret"`
	Value    string `json:"value"`
	Would    string `json:"would"`
	Min      string `json:"min"`
	Max      string `json:"max"`
	Step     string `json:"step"`
	Disabled bool   `json:"disabled"`
	ReadOnly bool   `json:"readOnly"`
	Visible  bool   `json:"visible"`
	MaxLen   int    `json:"maxLength"`
	// Of a text field (fillJS): the checks' probe (nil for a picker or a
	// <select>), whether the text went in by the editing command, and
	// the value read back after it.
	Probe    *probe `json:"probe"`
	Inserted bool   `json:"inserted"`
	Got      string `json:"got"`
}

const fieldJS = `function(text, pickers) {
  const el = this.nodeType === 1 ? this : this.parentElement;
  if (!el || !el.isConnected) return {gone: true};
  const tag = el.tagName.toLowerCase();
  const f = {tag, type: tag === 'input' ? el.type : '', secret: tag === 'input' && el.type === 'password'};
  if (tag !== 'input' && tag !== 'textarea') return f;
  f.value = el.value; f.min = el.min || ''; f.max = el.max || ''; f.step = el.step || '';
  f.maxLength = el.maxLength; f.disabled = el.matches(':disabled'); f.readOnly = !!el.readOnly;
  const r = el.getBoundingClientRect(), st = getComputedStyle(el);
  f.visible = r.width > 0 && r.height > 0 && st.visibility !== 'hidden' && st.display !== 'none';
  if (pickers.includes(f.type)) {
    const p = document.createElement('input');
    p.type = el.type;
    for (const a of ['min', 'max', 'step']) if (el.hasAttribute(a)) p.setAttribute(a, el.getAttribute(a));
    p.value = text;
    f.would = p.value;
  }
  return f;
}`

// fillJS is fieldJS and, for a field that is no picker and no <select>,
// the rest of a fill in the same call: probeJS scrolling it into view and
// focusing it with its content selected (focusSelectAll) once it passes
// the checks, the text inserted by the editing command a paste runs
// (never for an empty text) and the value read back.
var fillJS = `function(text, pickers) {
  const f = (` + fieldJS + `).call(this, text, pickers);
  if (f.gone || f.tag === 'select' || (f.tag === 'input' && pickers.includes(f.type))) return f;
  f.probe = (` + probeJS + `).call(this, true, 2);
  if (f.probe.gone || !f.probe.focused || text === '') return f;
  f.inserted = document.execCommand('insertText', false, text);
  if (f.inserted && (f.tag === 'input' || f.tag === 'textarea')) f.got = (this.nodeType === 1 ? this : this.parentElement).value;
  return f;
}`

// setValueJS sets a picker's value through its prototype's value setter
// (what a framework's value tracking sees), fires input and change as a
// person's pick does when it changed, and reads the value back once the
// handlers ran.
const setValueJS = `function(text) {
  const el = this;
  const set = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set;
  const before = el.value;
  set.call(el, text);
  if (el.value !== before) {
    el.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
    el.dispatchEvent(new Event('change', {bubbles: true}));
  }
  return el.value;
}`

func pickerTypes() []string {
	out := make([]string, 0, len(pickerFormats))
	for k := range pickerFormats {
		out = append(out, k)
	}
	return out
}

// FillValue is fill read back: a picker (date, time, datetime-local,
// month, week, colour, range) is set through the element's value setter
// with input and change events (typing does not reach a picker); any other
// field by the paste road. Then its value is read back: a value that did
// not take (an invalid date, a colour not #rrggbb, a range value off its
// min, max or step, a maxlength, a script that rewrote it) is
// value_not_set, saying what the field holds and the form it wants —
// never "filled". A contenteditable element is filled but not read back.
//
// A text field costs one call after its node is resolved (fillJS): its
// facts read, the checks Fill makes, the field focused with its content
// selected, the text inserted by the editing command a paste runs
// (insertText: one input event, no key events, as Input.insertText) and
// its value read back. Where the page's editing refuses the command, the
// text goes by Input.insertText and is read back by one more call.
func (t *Tab) FillValue(ctx context.Context, nr NodeRef, text string) error {
	ref := nr.Ref
	n, err := t.resolve(ctx, nr)
	if err != nil {
		return err
	}
	defer t.releaseNode(ctx, n)
	var f field
	if err := t.call(ctx, n, fillJS, &f, text, pickerTypes()); err != nil {
		return err
	}
	if f.Gone {
		return staleRef(ref)
	}
	if f.Tag == "select" {
		return target.Refuse(target.CodeNotEditable, "%s is a <select>, not a text field: choose its options with select %s <option…>", ref, ref).With("ref", ref)
	}
	if f.picker() {
		return setPicker(ctx, ref, f, text, tabNode{t, n})
	}
	if f.Probe == nil {
		return fmt.Errorf("cdp: fill %s: the page did not probe the field", ref)
	}
	if err := t.checkActionable(ref, *f.Probe, false, focusSelectAll); err != nil {
		return err
	}
	if !f.Inserted {
		// The page's editing did not take the command (or the text is
		// empty: its content is deleted as a Delete key does).
		if err := t.replaceFocused(ctx, text); err != nil {
			return err
		}
	}
	if f.Tag != "input" && f.Tag != "textarea" {
		return nil
	}
	got := f.Got
	if !f.Inserted {
		if err := t.call(ctx, n, `function() { return this.value; }`, &got); err != nil {
			return err
		}
	}
	if !textTook(f.Tag, text, got) {
		return notSet(ref, f, text, got, "", true)
	}
	return nil
}

// picker reports whether the field is an input a person sets with a
// picker (pickerFormats).
func (f field) picker() bool {
	_, ok := pickerFormats[f.Type]
	return ok && f.Tag == "input"
}

// setPicker sets a picker field f (as fieldJS read it) of node n to text:
// refused when it is hidden, disabled or read-only, or when the text is
// no value it holds (value_not_set, with what it holds and the form it
// wants, the field left as it was); else set through setValueJS and read
// back.
func setPicker(ctx context.Context, ref string, f field, text string, n ChoiceNode) error {
	switch {
	case !f.Visible:
		return target.Refuse(target.CodeNotVisible, "%s is not visible (no box, or hidden)", ref).With("ref", ref)
	case f.Disabled:
		return target.Refuse(target.CodeNotSensitive, "%s is disabled", ref).With("ref", ref)
	case f.ReadOnly && f.Type != "range" && f.Type != "color":
		return target.Refuse(target.CodeNotEditable, "%s is read-only", ref).With("ref", ref)
	}
	if !valueTook(f.Type, text, f.Would) {
		return notSet(ref, f, text, f.Value, f.Would, false)
	}
	var got string
	if err := n.Call(ctx, setValueJS, &got, f.Would); err != nil {
		return err
	}
	if got != f.Would {
		return notSet(ref, f, text, got, "", true)
	}
	return nil
}

// PickerFieldJS is the source of a function(text, pickers) whose this is
// an element: what fill reads of a field (its tag, type, value, state, and
// for an input of a type in pickers the value it would hold set to text),
// for a driver of another browser (daemon/firefox) to run in its page,
// with PickerTypes as pickers, before FillPicker.
func PickerFieldJS() string { return fieldJS }

// PickerTypes are the input types fill sets as a picker's pick.
func PickerTypes() []string { return pickerTypes() }

// FillPicker is fill of a picker (date, time, datetime-local, month, week,
// colour, range) through any browser's node n, as a Chromium tab's
// FillValue sets one: fieldJSON is what PickerFieldJS answered for the
// node. It answers false, doing nothing, for a field that is no picker
// (the caller fills it as text); else the field is set by its value with
// the input and change events a person's pick fires and read back, a
// value it does not take refused value_not_set with what it holds.
func FillPicker(ctx context.Context, ref string, fieldJSON []byte, text string, n ChoiceNode) (bool, error) {
	var f field
	if err := json.Unmarshal(fieldJSON, &f); err != nil {
		return false, fmt.Errorf("cdp: fill %s: the field's facts: %w", ref, err)
	}
	if !f.picker() {
		return false, nil
	}
	return true, setPicker(ctx, ref, f, text, n)
}

// valueTook reports whether a picker of type typ, set to want, holds it:
// would is what the browser made of it (its sanitizing: "" for a value
// it cannot hold, the nearest step within min and max for a range). A
// date or time in another valid spelling ("14:30:00" for "14:30") took;
// a colour is compared without case.
func valueTook(typ, want, would string) bool {
	want = strings.TrimSpace(want)
	if want == "" {
		return would == ""
	}
	switch typ {
	case "range":
		a, err1 := strconv.ParseFloat(want, 64)
		b, err2 := strconv.ParseFloat(would, 64)
		return err1 == nil && err2 == nil && math.Abs(a-b) < 1e-9*math.Max(1, math.Abs(a))
	case "color":
		return strings.EqualFold(want, would)
	}
	return would != ""
}

// textTook reports whether a text field filled with want holds it (a
// textarea keeps line ends as \n).
func textTook(tag, want, got string) bool {
	if tag == "textarea" {
		want = strings.ReplaceAll(strings.ReplaceAll(want, "\r\n", "\n"), "\r", "\n")
	}
	return got == want
}

// plainText are the input types that hold any line of text.
var plainText = map[string]bool{"text": true, "search": true, "password": true, "tel": true, "url": true}

// notSet is value_not_set for fill: what the field holds (a secret's
// length only), why it did not take — the picker refused the text (set
// false: the field was left as it was), its maxlength, or the page
// rewrote it — what a range would have clamped the text to, and the form
// of value a picker wants.
func notSet(ref string, f field, want, holds, would string, set bool) *target.Refusal {
	what := fmt.Sprintf("%q", holds)
	if f.Secret {
		what = fmt.Sprintf("%d characters", len([]rune(holds)))
	}
	form, picker := pickerFormats[f.Type]
	var why string
	switch {
	case !set && f.Type == "range":
		why = fmt.Sprintf("the slider takes %s there, not %s (min %s, max %s, step %s); it was left as it was", would, strings.TrimSpace(want), orWords(f.Min, "0"), orWords(f.Max, "100"), orWords(f.Step, "1"))
	case !set:
		why = fmt.Sprintf("the text is not a %s value, so it was left as it was", f.Type)
	case f.MaxLen >= 0 && len([]rune(want)) > f.MaxLen && !picker:
		why = fmt.Sprintf("it takes at most %d characters", f.MaxLen)
	case f.Tag == "input" && !plainText[f.Type]:
		why = fmt.Sprintf("a %s field does not hold that text", f.Type)
	default:
		why = "the field or the page's script changed it"
	}
	if picker {
		why += "; it wants " + form
	}
	r := target.Refuse(target.CodeValueNotSet, "%s did not take the value: it holds %s (%s)", ref, what, why).
		With("ref", ref).With("type", orWords(f.Type, f.Tag))
	if !f.Secret {
		r = r.With("holds", holds)
	}
	if picker {
		r = r.With("format", form)
	}
	if !set && f.Type == "range" {
		r = r.With("clamped_to", would)
	}
	if !picker && f.MaxLen >= 0 {
		r = r.With("maxlength", f.MaxLen)
	}
	return r
}

// NodeState reads the state of the node nr without scrolling or focusing
// it, and its role and name in the accessibility tree of its frame's
// document: the node resolved once on its frame's session, the page's
// probe and the tree's AX node pipelined (two round trips; no frame
// offsets, which a state without a point does not need). A node the tree
// leaves out has no role; a node that is gone is stale_ref.
func (t *Tab) NodeState(ctx context.Context, nr NodeRef) (NodeState, NodeInfo, error) {
	var p probe
	a, axErr, err := t.callWithAX(ctx, nr, probeJS, &p, false, int(noFocus))
	if err == nil {
		err = axErr
	}
	if err != nil {
		return NodeState{}, NodeInfo{}, err
	}
	if p.Gone {
		return NodeState{}, NodeInfo{}, staleRef(nr.Ref)
	}
	st := NodeState{Visible: p.Visible, InView: p.InView, Disabled: p.Disabled, Editable: p.Editable, Covered: p.Covered, Tag: p.Tag}
	var info NodeInfo
	if a != nil {
		info = NodeInfo{Role: roleName(a.Role), Name: a.Name, Choice: choiceRoles[a.Role]}
	}
	return st, info, nil
}

// nodeStateFactsJS is probeJS without scrolling or focusing and
// nodeFactsJS, on the same node in one call.
const nodeStateFactsJS = `function() { return {p: (` + probeJS + `).call(this, false, 0), f: (` + nodeFactsJS + `).call(this)}; }`

// NodeStateFacts is NodeState and NodeFacts in one read (the same two
// round trips as either): what an acting verb decides on and what the
// look before its act compares with, read at once.
func (t *Tab) NodeStateFacts(ctx context.Context, nr NodeRef) (NodeState, NodeInfo, NodeFacts, error) {
	var out struct {
		P probe `json:"p"`
		F struct {
			NodeFacts
			Gone bool `json:"gone"`
		} `json:"f"`
	}
	a, axErr, err := t.callWithAX(ctx, nr, nodeStateFactsJS, &out)
	if err == nil {
		err = axErr
	}
	if err != nil {
		return NodeState{}, NodeInfo{}, NodeFacts{}, err
	}
	if out.P.Gone || out.F.Gone {
		return NodeState{}, NodeInfo{}, NodeFacts{}, staleRef(nr.Ref)
	}
	p := out.P
	st := NodeState{Visible: p.Visible, InView: p.InView, Disabled: p.Disabled, Editable: p.Editable, Covered: p.Covered, Tag: p.Tag}
	var info NodeInfo
	f := out.F.NodeFacts
	if a != nil {
		info = NodeInfo{Role: roleName(a.Role), Name: a.Name, Choice: choiceRoles[a.Role]}
		f.Role, f.Name = info.Role, info.Name
	}
	return st, info, f, nil
}
