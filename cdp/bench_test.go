package cdp_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/target"
)

// benchPage is a page of about 650 accessibility nodes, the size of the one
// agent-browser was measured on (notes/browser.md).
func benchPage() string {
	var b strings.Builder
	b.WriteString(`<!doctype html><title>Bench page</title><h1>Bench page</h1>
<button id="inc" onclick="window.count = (window.count || 0) + 1">Increment</button>
<input id="name" aria-label="Name">`)
	for i := range 40 {
		fmt.Fprintf(&b, `<section><h2>Section %d</h2><p>Some text for section %d, with <a href="#s%d">a link</a>.</p>
<ul><li>one</li><li>two</li><li>three</li></ul><label>Field %d <input></label> <button>Act %d</button></section>`, i, i, i, i, i)
	}
	return b.String()
}

func benchTab(b *testing.B) *cdp.Tab {
	b.Helper()
	c := newContext(b)
	page := benchPage()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	}))
	b.Cleanup(srv.Close)
	tab, err := c.NewTab(ctxT(b), srv.URL)
	if err != nil {
		b.Fatal(err)
	}
	return tab
}

func refOf(b *testing.B, tab *cdp.Tab, role, name string) string {
	b.Helper()
	s, err := tab.Snapshot(ctxT(b), refsOf(tab), true)
	if err != nil {
		b.Fatal(err)
	}
	n := s.Root.Find(func(n *target.Node) bool { return n.Role == role && n.Name == name })
	if n == nil {
		b.Fatalf("no %s %q", role, name)
	}
	return n.Ref
}

// loopP50 runs f in b.Loop and also reports the median iteration in ms: on
// this shared machine the mean swings with the load, the median less.
func loopP50(b *testing.B, f func() error) {
	b.Helper()
	var ds []time.Duration
	for b.Loop() {
		start := time.Now()
		if err := f(); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(start))
	}
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2])/1e6, "p50-ms")
}

// The verbs' in-process cost on a warm tab (no CLI, no daemon): the floor
// the whole-process figures of issue 5 are built on. agent-browser is not
// installed here, so there is no peer column; the quiet peer figures are in
// notes/browser.md.
func BenchmarkVerbs(b *testing.B) {
	tab := benchTab(b)
	ctx := ctxT(b)
	inc := refOf(b, tab, "push button", "Increment")
	name := refOf(b, tab, "entry", "Name")
	b.Run("title", func(b *testing.B) { // the round-trip floor
		loopP50(b, func() error { _, err := tab.Title(ctx); return err })
	})
	for _, interactive := range []bool{false, true} {
		b.Run(fmt.Sprintf("snapshot/i=%v", interactive), func(b *testing.B) {
			var size int
			for b.Loop() {
				s, err := tab.Snapshot(ctx, refsOf(tab), interactive)
				if err != nil {
					b.Fatal(err)
				}
				size = len(s.Text())
			}
			b.ReportMetric(float64(size), "bytes")
		})
	}
	b.Run("click", func(b *testing.B) {
		loopP50(b, func() error { return tab.Click(ctx, nr(tab, inc)) })
	})
	b.Run("fill", func(b *testing.B) {
		loopP50(b, func() error { return tab.Fill(ctx, nr(tab, name), "hello") })
	})
	b.Run("type5", func(b *testing.B) {
		loopP50(b, func() error { return typeInto(ctx, tab, name, "hello") })
	})
	b.Run("screenshot", func(b *testing.B) {
		for b.Loop() {
			if _, err := tab.Screenshot(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("navigate", func(b *testing.B) {
		u, err := tab.URL(ctx)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if err := tab.Navigate(ctx, u); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// Opening a tab in a fresh context, to a loaded page.
func BenchmarkNewContextTab(b *testing.B) {
	b.Run("context+tab", func(b *testing.B) {
		for b.Loop() {
			c, err := sharedBrowser(b).NewContext(ctxT(b))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := c.NewTab(ctxT(b), "about:blank"); err != nil {
				b.Fatal(err)
			}
			if err := c.Close(ctxT(b)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
