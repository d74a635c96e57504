package firefox

import (
	"context"
	"encoding/json"

	"github.com/vibespace/vibespace/bidi"
	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/daemon/kind"
)

// fillJS is a fill in one call: the field's facts (cdp.PickerFieldJS, the
// Chromium tab's); a picker (date, time, colour, range…) is answered as
// {field} for cdp.FillPicker to set; any other field's text is replaced
// as a paste over all of it would (insertJS).
var fillJS = `function(doc, h, text, pickers) {
  const G = globalThis;
  if (G.__vibespaceDoc !== doc) return {stale: true};
  const el = G.__vibespaceHandles && G.__vibespaceHandles.get(h);
  if (!el || !el.isConnected) return {stale: true};
  const types = JSON.parse(pickers);
  const f = (` + cdp.PickerFieldJS() + `).call(el, text, types);
  if (f.tag === "input" && types.includes(f.type)) return {field: f};
  return (` + insertJS + `)(doc, h, text, true);
}`

// pickerTypes is cdp.PickerTypes as fillJS takes them.
var pickerTypes = func() string {
	b, _ := json.Marshal(cdp.PickerTypes())
	return string(b)
}()

// Fill replaces a field's text, as a paste over all of it would, and
// reads the field back; a picker (date, time, datetime-local, month,
// week, colour, range) is set by its value with the input and change
// events a person's pick fires, and read back, as a Chromium tab's
// (cdp.FillPicker): a value it does not take is value_not_set, with what
// it holds. A text field costs one call, a picker two.
func (t *Tab) Fill(ctx context.Context, n kind.Node, text string) error {
	w, err := t.handle(n)
	if err != nil {
		return err
	}
	var r struct {
		inserted
		Field json.RawMessage `json:"field"`
	}
	if err := t.conn.CallJSON(ctx, w.tgt, fillJS, &r, bidi.Str(w.doc), bidi.Num(float64(w.h)), bidi.Str(text), bidi.Str(pickerTypes)); err != nil {
		return t.failIn(w, n, err)
	}
	if len(r.Field) > 0 {
		defer t.wake()
		_, err := cdp.FillPicker(ctx, n.Ref, r.Field, text, choiceNode{t: t, n: n, w: w})
		return err
	}
	return r.check(n, text, true)
}
