package cdp_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cdp"
)

// BenchmarkLook: the effect check's looks at a page of about 650 nodes
// around a click that changes it, read part by part (the node's facts,
// the title and address, the digest and, before the act, the watcher's
// arming, all sent at once; after it, the watcher asked once the look is
// in: what the verifier did before cdp.Tab.Look) and in one look
// (cdp.Tab.Look, the title and address beside it), the two ways
// alternating in one loop so that both see the same load. It reports each
// way's median look before and after the act, and their ratios.
func BenchmarkLook(b *testing.B) {
	needChromium(b)
	page := benchPage() + `<p id="out">0</p><button onclick="document.getElementById('out').textContent = String(++window.bumps)">Bump</button><script>window.bumps = 0</script>`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	}))
	b.Cleanup(srv.Close)
	tab, err := newContext(b).NewTab(ctxT(b), srv.URL)
	if err != nil {
		b.Fatal(err)
	}
	node := nr(tab, refOf(b, tab, "push button", "Bump"))
	ctx := ctxT(b)
	const life = 3 * time.Second
	// beside runs the title's read beside f, as the verifier does.
	beside := func(f func()) {
		var wg sync.WaitGroup
		wg.Go(func() { _, _ = tab.ReadInfo(ctx) })
		f()
		wg.Wait()
	}
	parts := func() (before, after time.Duration, err error) {
		var mark uint64
		var errs [2]error
		t0 := time.Now()
		var wg sync.WaitGroup
		wg.Go(func() { _, errs[0] = tab.NodeFacts(ctx, node) })
		wg.Go(func() { _, errs[1] = tab.ContentDigest(ctx) })
		wg.Go(func() { mark, _ = tab.Arm(ctx, life) })
		beside(wg.Wait)
		before = time.Since(t0)
		if err := tab.Click(ctx, node); err != nil {
			return 0, 0, err
		}
		t0 = time.Now()
		wg.Go(func() { _, errs[0] = tab.NodeFacts(ctx, node) })
		wg.Go(func() { _, errs[1] = tab.ContentDigest(ctx) })
		beside(wg.Wait)
		told, err := tab.WatchTold(ctx, mark, 0, false)
		after = time.Since(t0)
		if err == nil && len(told.Changes) == 0 {
			err = fmt.Errorf("the watcher told no change of the click")
		}
		_, _ = tab.WatchTold(ctx, mark, 0, true)
		return before, after, errors.Join(err, errs[0], errs[1])
	}
	look := func() (before, after time.Duration, err error) {
		var l cdp.Look
		t0 := time.Now()
		beside(func() { l = tab.Look(ctx, cdp.LookFor{Node: &node, Digest: true, Arm: life}) })
		before = time.Since(t0)
		if err := errors.Join(l.FactsErr, l.DigestErr, l.ArmErr); err != nil {
			return 0, 0, err
		}
		if err := tab.Click(ctx, node); err != nil {
			return 0, 0, err
		}
		mark := l.Mark
		t0 = time.Now()
		beside(func() { l = tab.Look(ctx, cdp.LookFor{Node: &node, Digest: true, Told: mark}) })
		after = time.Since(t0)
		err = errors.Join(l.FactsErr, l.DigestErr, l.ToldErr)
		if err == nil && len(l.Told.Changes) == 0 {
			err = fmt.Errorf("the look told no change of the click")
		}
		_, _ = tab.WatchTold(ctx, mark, 0, true)
		return before, after, err
	}
	var ds [2][2][]time.Duration // [parts, look][before, after]
	i := 0
	for b.Loop() {
		way := i % 2
		i++
		f := parts
		if way == 1 {
			f = look
		}
		before, after, err := f()
		if err != nil {
			b.Fatal(err)
		}
		ds[way][0] = append(ds[way][0], before)
		ds[way][1] = append(ds[way][1], after)
	}
	if len(ds[1][0]) == 0 {
		return
	}
	p50 := func(d []time.Duration) float64 {
		d = slices.Clone(d)
		slices.Sort(d)
		return float64(d[len(d)/2]) / 1e6
	}
	b.ReportMetric(p50(ds[0][0]), "parts-before-p50-ms")
	b.ReportMetric(p50(ds[0][1]), "parts-after-p50-ms")
	b.ReportMetric(p50(ds[1][0]), "look-before-p50-ms")
	b.ReportMetric(p50(ds[1][1]), "look-after-p50-ms")
	b.ReportMetric(p50(ds[1][0])/p50(ds[0][0]), "before-ratio")
	b.ReportMetric(p50(ds[1][1])/p50(ds[0][1]), "after-ratio")
}
