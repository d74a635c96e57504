package main_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/target"
)

// formPost is what the form page posts to the test on each control's
// change: the control's id and the value (values: a multiple select's)
// the page itself holds — the oracle.
type formPost struct {
	ID     string   `json:"id"`
	Value  string   `json:"value"`
	Values []string `json:"values"`
}

// formSite serves everyInputPage on 127.0.0.1 and records its posts.
type formSite struct {
	*httptest.Server
	posts inbox[formPost]
}

func newFormSite(t testing.TB) *formSite {
	s := &formSite{}
	mux := http.NewServeMux()
	servePage(mux, "/every", everyInputPage)
	mux.HandleFunc("POST /change", s.posts.Posted)
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// waitPost waits (bounded) for a post of control id from index from that
// matches.
func (s *formSite) waitPost(t testing.TB, from int, id string, match func(formPost) bool) formPost {
	t.Helper()
	return s.posts.Wait(t, from, "a matching change of #"+id, func(p formPost) bool { return p.ID == id && match(p) })
}

func (s *formSite) nposts() int { return s.posts.N() }

// everyInputPage has a control of every kind fill and select meet; each
// posts what it holds on change. #locked's change handler puts it back to
// its first option (a page that refuses the pick).
const everyInputPage = `<!doctype html>
<html><head><title>Every input</title></head><body>
<label for="text">Text</label> <input id="text">
<label for="short">Short</label> <input id="short" maxlength="4">
<label for="date">Birthday</label> <input id="date" type="date">
<label for="time">Alarm</label> <input id="time" type="time">
<label for="dtl">Meeting</label> <input id="dtl" type="datetime-local">
<label for="month">Billing</label> <input id="month" type="month">
<label for="week">Sprint</label> <input id="week" type="week">
<label for="color">Colour</label> <input id="color" type="color">
<label for="range">Volume</label> <input id="range" type="range" min="0" max="10" step="2" value="4">
<label for="number">Count</label> <input id="number" type="number">
<label for="fruit">Fruit</label> <select id="fruit"><option value="a">Apple</option><option value="b">Banana</option><option value="c">Cherry</option></select>
<label for="tops">Toppings</label> <select id="tops" multiple size="4"><option value="ch">Cheese</option><option value="ha" selected>Ham</option><option value="mu">Mushroom</option><option value="ol">Olives</option></select>
<label for="locked">Locked</label> <select id="locked"><option>First</option><option>Second</option></select>
<label for="notes">Notes</label> <textarea id="notes"></textarea>
<label><input id="agree" type="checkbox"> I agree</label>
<div role="listbox" aria-label="Size" id="size"><div role="option" aria-selected="false">Small</div><div role="option" aria-selected="true">Large</div></div>
<div role="listbox" aria-label="Painted" id="painted"><div role="option" aria-selected="true">One</div><div role="option" aria-selected="false">Two</div></div>
<script>
// #size is a real list box: a person's click (trusted input) picks an
// option, and the page posts it. #painted only looks like one.
for (const o of document.querySelectorAll('#size [role=option]')) {
  o.addEventListener('click', ev => {
    if (!ev.isTrusted) return;
    for (const p of document.querySelectorAll('#size [role=option]')) p.setAttribute('aria-selected', String(p === o));
    fetch('/change', {method: 'POST', body: JSON.stringify({id: 'size', value: o.textContent})});
  });
}
for (const el of document.querySelectorAll('input, select, textarea')) {
  el.addEventListener('change', () => {
    if (el.id === 'locked') el.selectedIndex = 0;
    const body = {id: el.id, value: el.type === 'checkbox' ? String(el.checked) : el.value};
    if (el.multiple) body.values = Array.from(el.selectedOptions).map(o => o.value);
    fetch('/change', {method: 'POST', body: JSON.stringify(body)});
  });
}
</script></body></html>`

// fieldRef is the ref of the control named name: not its label, whatever
// role the page's tree gives it. The page's names are chosen apart from
// the parts a picker shows inside (Month, Day, Year, Hours…).
func fieldRef(t testing.TB, s *target.Snapshot, name string) string {
	t.Helper()
	n := s.Root.Find(func(n *target.Node) bool {
		return n.Name == name && n.Ref != "" && n.Role != "label" && n.Role != "static"
	})
	if n == nil {
		t.Fatalf("no control %q with a ref in the snapshot:\n%s", name, s.Text())
	}
	return n.Ref
}

func openEvery(t *testing.T) (*env, *formSite, *target.Snapshot) {
	e := sharedEnv(t)
	site := newFormSite(t)
	e.OK("s1", "open", site.URL+"/every")
	return e, site, e.Snapshot("s1")
}

// TestSelect: select sets a <select> as a person's pick does (the page
// posts the change), a multiple one ends holding exactly those named, an
// unknown option is no_option naming the ones there are, an option's ref
// alone chooses it, and a page that puts the pick back is value_not_set.
func TestSelect(t *testing.T) {
	e, site, s := openEvery(t)
	fruit, tops, locked := ref(t, s, "combo box", "Fruit"), ref(t, s, "list box", "Toppings"), ref(t, s, "combo box", "Locked")

	from := site.nposts()
	out := e.OK("s1", "select", fruit, "Banana")
	if !strings.Contains(out, `selected "Banana" in combo box "Fruit" `+fruit) {
		t.Errorf("select's answer:\n%s", out)
	}
	site.waitPost(t, from, "fruit", func(p formPost) bool { return p.Value == "b" })

	// By value, for a page's <option>; the answer reads back labels.
	resp := e.OKJSON("s1", "select", fruit, "c")
	var held []string
	if json.Unmarshal(resp.Value, &held) != nil || !slices.Equal(held, []string{"Cherry"}) {
		t.Errorf("select by value read back %s", resp.Value)
	}

	// A multiple select that held Ham ends holding exactly Cheese and
	// Olives — never Ham as well — and then exactly Mushroom.
	from = site.nposts()
	resp = e.OKJSON("s1", "select", tops, "Cheese", "Olives")
	if json.Unmarshal(resp.Value, &held) != nil || !slices.Equal(held, []string{"Cheese", "Olives"}) {
		t.Errorf("select Cheese Olives read back %s", resp.Value)
	}
	site.waitPost(t, from, "tops", func(p formPost) bool { return slices.Equal(p.Values, []string{"ch", "ol"}) })
	from = site.nposts()
	e.OK("s1", "select", tops, "Mushroom")
	site.waitPost(t, from, "tops", func(p formPost) bool { return slices.Equal(p.Values, []string{"mu"}) })

	// An option the control lacks: refused, naming the ones it has;
	// nothing changed.
	r := e.RefusedJSON("no_option", "s1", "select", fruit, "Kiwi")
	if !strings.Contains(r.Message, `"Apple", "Banana", "Cherry"`) {
		t.Errorf("no_option names not the options: %s (facts %v)", r.Message, r.Facts)
	}
	if v := e.EvalString("s1", "document.getElementById('fruit').value"); v != "c" {
		t.Errorf("after no_option the page's select holds %q", v)
	}
	e.RefusedJSON("bad_request", "s1", "select", fruit, "Apple", "Banana")

	// An option's own ref chooses it.
	s = e.Snapshot("s1")
	apple := s.Root.Find(func(n *target.Node) bool { return n.Name == "Apple" && n.Ref != "" })
	if apple == nil {
		t.Fatalf("no option Apple with a ref:\n%s", s.Text())
	}
	from = site.nposts()
	e.OK("s1", "select", apple.Ref)
	site.waitPost(t, from, "fruit", func(p formPost) bool { return p.Value == "a" })

	// The page puts the pick back: value_not_set, saying what it holds.
	r = e.RefusedJSON("value_not_set", "s1", "select", locked, "Second")
	if !strings.Contains(r.Message, `holds "First"`) {
		t.Errorf("value_not_set says not what it holds: %s", r.Message)
	}

	// A real ARIA list box: its option is clicked with real input, and
	// its own script marks it; one that only looks like a list box is
	// value_not_set, never "selected".
	size, painted := ref(t, s, "list box", "Size"), ref(t, s, "list box", "Painted")
	from = site.nposts()
	resp = e.OKJSON("s1", "select", size, "Small")
	if json.Unmarshal(resp.Value, &held) != nil || !slices.Equal(held, []string{"Small"}) {
		t.Errorf("select Small read back %s", resp.Value)
	}
	site.waitPost(t, from, "size", func(p formPost) bool { return p.Value == "Small" })
	e.RefusedJSON("value_not_set", "s1", "select", painted, "Two")

	// A node that is no choice control.
	e.RefusedJSON("no_action", "s1", "select", fieldRef(t, s, "Text"), "x")
}

// TestFillSetsPickers: fill sets a date, a time, a datetime, a month, a
// week, a colour and a range as a person's pick does: the page posts the
// value on change.
func TestFillSetsPickers(t *testing.T) {
	e, site, s := openEvery(t)
	for _, c := range []struct{ name, id, text, want string }{
		{"Birthday", "date", "2026-12-02", "2026-12-02"},
		{"Alarm", "time", "14:30", "14:30"},
		{"Meeting", "dtl", "2026-12-02T14:30", "2026-12-02T14:30"},
		{"Billing", "month", "2026-12", "2026-12"},
		{"Sprint", "week", "2026-W49", "2026-W49"},
		{"Colour", "color", "#1E90FF", "#1e90ff"},
		{"Volume", "range", "8", "8"},
	} {
		from := site.nposts()
		out := e.OK("s1", "fill", fieldRef(t, s, c.name), c.text)
		if !strings.Contains(out, "filled") {
			t.Errorf("fill %s: %s", c.name, out)
		}
		site.waitPost(t, from, c.id, func(p formPost) bool { return p.Value == c.want })
	}
}

// TestFillRefusesWhatDidNotTake: a value a field does not hold afterwards
// is value_not_set, saying what it holds — never "filled": an invalid date
// (the field keeps its value), a colour not #rrggbb, a range value off
// its max (saying what it would clamp to), a text longer than maxlength,
// a number field given letters. The page's DOM, read by eval, agrees.
func TestFillRefusesWhatDidNotTake(t *testing.T) {
	e, _, s := openEvery(t)
	date := fieldRef(t, s, "Birthday")
	e.OK("s1", "fill", date, "2026-12-02")
	r := e.RefusedJSON("value_not_set", "s1", "fill", date, "2026-02-30")
	if r.Facts["holds"] != "2026-12-02" || !strings.Contains(r.Message, "2026-12-02") {
		t.Errorf("invalid date: %s (facts %v)", r.Message, r.Facts)
	}
	if v := e.EvalString("s1", "document.getElementById('date').value"); v != "2026-12-02" {
		t.Errorf("after an invalid date the page's field holds %q", v)
	}

	e.RefusedJSON("value_not_set", "s1", "fill", fieldRef(t, s, "Colour"), "red")

	r = e.RefusedJSON("value_not_set", "s1", "fill", fieldRef(t, s, "Volume"), "40")
	if r.Facts["clamped_to"] != "10" || r.Facts["holds"] != "4" {
		t.Errorf("range out of bounds: %s (facts %v)", r.Message, r.Facts)
	}
	if v := e.EvalString("s1", "document.getElementById('range').value"); v != "4" {
		t.Errorf("after an out-of-range value the page's slider holds %q", v)
	}

	r = e.RefusedJSON("value_not_set", "s1", "fill", fieldRef(t, s, "Short"), "abcdef")
	if r.Facts["holds"] != "abcd" {
		t.Errorf("maxlength: %s (facts %v)", r.Message, r.Facts)
	}
	if v := e.EvalString("s1", "document.getElementById('short').value"); v != "abcd" {
		t.Errorf("the page's short field holds %q", v)
	}

	e.RefusedJSON("value_not_set", "s1", "fill", fieldRef(t, s, "Count"), "abc")
	if r := e.RefusedJSON("not_editable", "s1", "fill", ref(t, s, "combo box", "Fruit"), "Banana"); !strings.Contains(r.Message, "select") {
		t.Errorf("fill on a <select> does not point to select: %s", r.Message)
	}

	// What does take still answers filled, read back.
	e.OK("s1", "fill", fieldRef(t, s, "Text"), "hello")
	if v := e.EvalString("s1", "document.getElementById('text').value"); v != "hello" {
		t.Errorf("the page's text field holds %q", v)
	}
}
