package main_test

import (
	"testing"
	"time"

	"github.com/vibespace/vibespace/cmd/internal/clitest"
)

// BenchmarkProviderOverhead: the same verbs, whole CLI process each, on a
// profile of the built-in browser (chromium) and on a profile of provider
// cdp (a Chromium the benchmark started, reached by its endpoint),
// interleaved in one run on the same page; it reports both medians and
// the ratio cdp / built-in per verb.
func BenchmarkProviderOverhead(b *testing.B) {
	e := newEnv(b)
	e.Serve()
	site := newSite(b)
	page := site.URL + "/big"
	endpoint := clitest.TheirChromium(b)
	e.OK("ours", "new", "ours")
	e.OK("ours", "use", "ours")
	e.OK("cdp", "new", "theirs", "--provider", "cdp", "--endpoint", endpoint)
	e.OK("cdp", "use", "theirs")
	sessions := []string{"ours", "cdp"}
	for _, s := range sessions { // cold starts and connects, outside the measurement
		e.OK(s, "open", page)
	}
	refOf := map[string]string{}
	refs := func() {
		for _, s := range sessions {
			refOf[s] = ref(b, e.Snapshot(s, "-i"), "push button", "Increment")
		}
	}
	type verb struct {
		name string
		args func(s string) []string
	}
	fixed := func(args ...string) func(string) []string { return func(string) []string { return args } }
	verbs := []verb{
		{"open_warm", fixed("open", page)},
		{"snapshot_i", fixed("snapshot", "-i")},
		{"click", func(s string) []string { return []string{"click", refOf[s], "--no-verify"} }},
		{"eval", fixed("eval", "document.title")},
		{"get_title", fixed("get", "title")},
	}
	for _, v := range verbs {
		b.Run(v.name, func(b *testing.B) {
			if v.name == "click" {
				refs()
			}
			got := map[string][]time.Duration{}
			for b.Loop() {
				for _, s := range sessions {
					t0 := time.Now()
					e.OK(s, v.args(s)...)
					got[s] = append(got[s], time.Since(t0))
				}
			}
			ours, theirs := medianMS(got["ours"]), medianMS(got["cdp"])
			b.ReportMetric(ours, "builtin-median-ms")
			b.ReportMetric(theirs, "cdp-median-ms")
			if ours > 0 {
				b.ReportMetric(theirs/ours, "cdp/builtin")
			}
			b.Logf("%-10s built-in %7.2f ms  cdp %7.2f ms  ratio %.2f  (n=%d each)", v.name, ours, theirs, theirs/ours, len(got["ours"]))
		})
	}
}
