package cdp_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkFormVerbs: what reading a value back costs. fill is the paste
// road alone; fill+readback what the tab's fill does now (one more
// resolve and two page calls); date the picker road; select a <select>.
func BenchmarkFormVerbs(b *testing.B) {
	c := newContext(b)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Form bench</title>
<input id="name" aria-label="Name"> <input id="when" type="date" aria-label="When">
<select aria-label="Fruit"><option>Apple</option><option>Banana</option></select>`)
	}))
	b.Cleanup(srv.Close)
	ctx := ctxT(b)
	tab, err := c.NewTab(ctx, srv.URL)
	if err != nil {
		b.Fatal(err)
	}
	name, when, fruit := refOf(b, tab, "entry", "Name"), refOf(b, tab, "Date", "When"), refOf(b, tab, "combo box", "Fruit")
	b.Run("fill", func(b *testing.B) {
		loopP50(b, func() error { return tab.Fill(ctx, nr(tab, name), "hello") })
	})
	b.Run("fill+readback", func(b *testing.B) {
		loopP50(b, func() error { return tab.FillValue(ctx, nr(tab, name), "hello") })
	})
	b.Run("date", func(b *testing.B) {
		loopP50(b, func() error { return tab.FillValue(ctx, nr(tab, when), "2026-12-02") })
	})
	i := 0
	b.Run("select", func(b *testing.B) {
		loopP50(b, func() error {
			i++
			_, err := tab.Select(ctx, nr(tab, fruit), []string{[]string{"Apple", "Banana"}[i%2]})
			return err
		})
	})
}
