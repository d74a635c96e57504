package firefox_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/target"
)

const pickerPage = `<!doctype html><title>Pickers</title>
<label>Day <input type=date id=date></label>
<label>Hour <input type=time id=time></label>
<label>Moment <input type=datetime-local id=dtl></label>
<label>Month <input type=month id=month></label>
<label>Week <input type=week id=week></label>
<label>Colour <input type=color id=color></label>
<label>Level <input type=range id=range min=0 max=50 step=5></label>
<ol id=log></ol>
<script>
for (const el of document.querySelectorAll("input")) {
  el.addEventListener("input", () => { el.dataset.input = (+el.dataset.input || 0) + 1; });
  el.addEventListener("change", (e) => {
    const li = document.createElement("li");
    li.textContent = el.id + "=" + el.value + (e.isTrusted ? " trusted" : "") + " after " + (el.dataset.input || 0) + " input";
    document.getElementById("log").append(li);
  });
}
</script>`

// TestFillPickers: fill sets each picker field (date, time,
// datetime-local, month, week, colour, range) by value, as a Chromium
// tab's fill does (Firefox has no month or week picker: those are text
// fields there, filled as text); the page's own change listener logs each value it
// saw, after an input event (the page's DOM is the oracle, read in the
// page's realm). A value a field does not take is value_not_set, saying
// what it holds, the field left as it was.
func TestFillPickers(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	_, tab, snap, refs := loaded(t, ctx, "/pickers", pickerPage)
	v, err := tab.Eval(ctx, `Object.fromEntries([...document.querySelectorAll("input")].map(e => [e.id, e.type]))`)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the fields' types in this Firefox: %s", v)
	byName := func(name string) (n target.Node) {
		t.Helper()
		p := snap.Root.Find(func(n *target.Node) bool { return n.Name == name && n.Key != "" })
		if p == nil {
			t.Fatalf("no field %q in:\n%s", name, snap.Text())
		}
		return *p
	}
	cases := []struct{ name, id, value string }{
		{"Day", "date", "2026-12-02"},
		{"Hour", "time", "14:30"},
		{"Moment", "dtl", "2026-12-02T14:30"},
		{"Month", "month", "2026-12"},
		{"Week", "week", "2026-W49"},
		{"Colour", "color", "#1e90ff"},
		{"Level", "range", "35"},
	}
	var types map[string]string
	if err := json.Unmarshal(v, &types); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, c := range cases {
		n := byName(c.name)
		if err := tab.Fill(ctx, nodeOf(refs, n), c.value); err != nil {
			t.Errorf("fill %s (%s) with %q: %v", c.name, c.id, c.value, err)
			continue
		}
		if types[c.id] == "text" {
			// Firefox has no month or week picker: the field is a text
			// field, filled as one (a paste: input, and change only when
			// the field loses the focus).
			got, err := tab.Eval(ctx, `[document.getElementById("`+c.id+`").value, document.getElementById("`+c.id+`").dataset.input]`)
			if err != nil || string(got) != `["`+c.value+`","1"]` {
				t.Errorf("the text field %s holds %s (value, input events), want %q after 1 input: %v", c.id, got, c.value, err)
			}
			continue
		}
		want = append(want, c.id+"="+c.value+" after 1 input")
	}
	v, err = tab.Eval(ctx, `[...document.querySelectorAll("#log li")].map(li => li.textContent)`)
	if err != nil {
		t.Fatal(err)
	}
	var logged []string
	if err := json.Unmarshal(v, &logged); err != nil {
		t.Fatal(err)
	}
	if len(logged) != len(want) {
		t.Fatalf("the page's change listener logged %q, want %q", logged, want)
	}
	for i := range want {
		if logged[i] != want[i] {
			t.Errorf("change %d logged %q, want %q", i, logged[i], want[i])
		}
	}

	// A date the field does not take: refused, with what it holds.
	err = tab.Fill(ctx, nodeOf(refs, byName("Day")), "2026-13-45")
	var r *target.Refusal
	if !errors.As(err, &r) || r.Code != target.CodeValueNotSet || r.Facts["holds"] != "2026-12-02" {
		t.Errorf("a date the field does not take: %v (%+v), want value_not_set holding 2026-12-02", err, r)
	}
	// A range value off its step: refused, with what it would have been.
	err = tab.Fill(ctx, nodeOf(refs, byName("Level")), "33")
	if !errors.As(err, &r) || r.Code != target.CodeValueNotSet || r.Facts["holds"] != "35" {
		t.Errorf("a range value off its step: %v, want value_not_set holding 35", err)
	}
	if v, _ := tab.Eval(ctx, `[document.getElementById("date").value, document.getElementById("range").value, document.querySelectorAll("#log li").length]`); string(v) != fmt.Sprintf(`["2026-12-02","35",%d]`, len(want)) {
		t.Errorf("after the refused fills the page holds %s, want the values as they were and no change logged", v)
	}
}

// nodeOf is a snapshot's node as the verbs take it.
func nodeOf(refs *target.RefTable, n target.Node) kind.Node {
	return kind.Node{Ref: refs.Ref(n.Key), Key: n.Key}
}
