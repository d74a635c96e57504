package main_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/testenv"
)

// BenchmarkFirefoxBesideChromium runs each verb on a Firefox tab (a
// profile of provider firefox, over WebDriver BiDi) and on a Chromium tab
// (the daemon's own, over CDP) of one daemon, in the same run, alternately
// call by call, as an agent runs them (a whole vibespace-browser process
// each), on the same page; it reports both medians and Firefox ÷
// Chromium. Then the snapshot of the rows page (rows_bench_test.go's) at
// 100, 1,000 and 5,000 rows in both, marked cut when it does not show
// the last row. Firefox's start (20-30 s on a loaded machine) is outside
// the measurement. Each row prints the BiDi commands its verb costs the
// Firefox tab (bidiCommands, counted once in a daemon of this process).
func BenchmarkFirefoxBesideChromium(b *testing.B) {
	testenv.NeedIntegration(b, "firefox-esr")
	e := newEnv(b)
	e.StartServe("--chromium", chromium, "--verb-timeout", "3m")
	site := newSite(b)
	page := site.URL + "/big"
	e.OKJSON("fx", "new", "fox", "--browser", "firefox")
	e.OKJSON("fx", "use", "fox")
	tabs := []string{"ch", "fx"} // the sessions: Chromium's tab, Firefox's
	for _, s := range tabs {
		e.OK(s, "open", page) // cold starts, outside the measurement
	}
	name, inc := map[string]string{}, map[string]string{}
	refs := func() { // after open_warm: its navigation left the refs before it stale
		for _, s := range tabs {
			snap := e.Snapshot(s, "-i")
			name[s], inc[s] = ref(b, snap, "entry", "Name"), ref(b, snap, "push button", "Increment")
		}
	}
	shot := filepath.Join(b.TempDir(), "shot.png")
	cmds := bidiCommands(b, page)
	twoTexts, fills := [2]string{"hello", "world"}, map[string]int{}
	fixed := func(args ...string) func(string) []string { return func(string) []string { return args } }
	verbs := []struct {
		name string
		args func(s string) []string
	}{
		{"open_warm", fixed("open", page)},
		{"snapshot", fixed("snapshot")},
		{"snapshot_i", fixed("snapshot", "-i")},
		{"click", func(s string) []string { return []string{"click", inc[s], "--no-verify"} }},
		{"fill", func(s string) []string { return []string{"fill", name[s], "hello", "--no-verify"} }},
		{"click_checked", func(s string) []string { return []string{"click", inc[s]} }},
		// The fill with the check alternates two texts (the same text
		// again would be refused no_progress).
		{"fill_checked", func(s string) []string { fills[s]++; return []string{"fill", name[s], twoTexts[fills[s]%2]} }},
		{"type", func(s string) []string { return []string{"type", name[s], "abc", "--no-verify"} }},
		{"key", fixed("key", "Tab", "--no-verify")},
		{"scroll", fixed("scroll", "down", "--no-verify")},
		{"find", fixed("find", "Increment")},
		{"wait", fixed("wait", "--text", "Increment")},
		{"eval", fixed("eval", "1+1")},
		{"screenshot", fixed("screenshot", "--out", shot)},
		{"get_title", fixed("get", "title")},
	}
	for _, v := range verbs {
		b.Run(v.name, func(b *testing.B) {
			if v.name == "click" {
				refs()
			}
			ds := map[string][]time.Duration{}
			for b.Loop() {
				for _, s := range tabs {
					t0 := time.Now()
					e.OK(s, v.args(s)...)
					ds[s] = append(ds[s], time.Since(t0))
				}
			}
			ch, fx := medianMS(ds["ch"]), medianMS(ds["fx"])
			b.ReportMetric(ch, "chromium-p50-ms")
			b.ReportMetric(fx, "firefox-p50-ms")
			b.ReportMetric(fx/ch, "ff/ch")
			if n, ok := cmds[v.name]; ok {
				b.ReportMetric(float64(n), "bidi-commands")
			}
		})
	}

	// The rows page in both tabs: the snapshot's median, and whether it
	// shows the page's last row.
	pages := map[int]string{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /rows/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.PathValue("n"))
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, pages[n])
	})
	srv := httptest.NewServer(mux)
	b.Cleanup(srv.Close)
	for _, n := range []int{100, 1000, 5000} {
		pages[n] = rowsPage(n)
		b.Run(fmt.Sprintf("rows_%d", n), func(b *testing.B) {
			for _, s := range tabs {
				e.OK(s, "open", fmt.Sprintf("%s/rows/%d", srv.URL, n))
				e.OK(s, "snapshot") // the first tree of a document costs more: untimed
			}
			ds, cut, size := map[string][]time.Duration{}, map[string]bool{}, map[string]int{}
			rounds := 0
			for b.Loop() {
				if rounds++; n == 5000 && rounds > rowsFixedRounds[5000] {
					continue
				}
				for _, s := range tabs {
					t0 := time.Now()
					out := e.OK(s, "snapshot")
					ds[s] = append(ds[s], time.Since(t0))
					cut[s] = !strings.Contains(out, fmt.Sprintf(`"Button %d"`, n))
					size[s] = len(out)
				}
			}
			ch, fx := medianMS(ds["ch"]), medianMS(ds["fx"])
			b.ReportMetric(ch, "chromium-p50-ms")
			b.ReportMetric(fx, "firefox-p50-ms")
			b.ReportMetric(fx/ch, "ff/ch")
			b.ReportMetric(float64(size["ch"]), "chromium-B")
			b.ReportMetric(float64(size["fx"]), "firefox-B")
			if cut["ch"] || cut["fx"] {
				b.Logf("%d rows: the last row is not in the snapshot of chromium: %v, firefox: %v (the walk's node budget: snapshot --after reads on)", n, cut["ch"], cut["fx"])
			}
		})
	}
}
