package main_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/cmd/internal/clitest"
)

// The rows benchmark (issue 17, item 4): a page of N rows, each
//
//	<div><button>Button i</button> <a href>link i</a> <span>text i</span></div>
//
// and every tool's snapshot of the open tab, in milliseconds, all in the
// same run and interleaved call by call:
//
//   - ours, full and -i: the vibespace-browser snapshot command line against
//     our daemon, a whole process per call, as an agent runs it;
//   - agent-browser, full and -i: its command line's snapshot and
//     snapshot -i, a whole process per call (clitest.Peer);
//   - Playwright: page.ariaSnapshot() of playwright-core (make bench-deps)
//     on the system Chromium, warm (one untimed snapshot first), timed in
//     the node process itself (bench/ariasnapshot.mjs, one long-lived
//     process per row count that takes one snapshot per line it reads);
//   - raw: one Accessibility.getFullAXTree CDP call on a tab of a browser
//     this process launched (package cdp), the reply kept: its node count
//     and size.
//
// Each tool has its own Chromium (the same binary) and opens the same page
// from one httptest server on 127.0.0.1. Every tool gets one untimed call
// per row count first (the first tree of a document costs more; the -i
// columns read the tree their full snapshot just read), printed apart;
// then the rounds: each round calls every column once, starting one
// column further on each round so that no column always follows the same
// one. Figures are medians. A snapshot must show the page's first row; one
// that does not show its last row (a tool's node budget) is marked *.
//
// Every call is capped at rowsCallCap (an open, and Playwright's warm-up,
// at rowsWarmCap); a tool's own bound comes first where it has one (our
// daemon's verb bound is 30 s). A call that hits either is recorded as a
// timeout, not a failure, and that column is not called again at that row
// count: each try would cost the cap again, and the browser behind it is
// still busy with the call it gave up on (the raw column's tab, and
// Playwright's script, are closed then). An open that times out fails the
// row count: the page is not the one the snapshots would be of.
//
// Rounds: as -benchtime says (make bench: 20) for 100 and 1,000 rows, but
// at most rowsFixedRounds for the big pages, whose rounds take seconds to
// a minute (b.Loop's remaining iterations there do nothing; ns/op is
// dropped, it would be the sum of all the tools). The whole benchmark
// takes about ten minutes here, six of them at 20,000 rows.

// rowsCallCap bounds every call of every tool (a process is killed at it,
// a CDP call cancelled, Playwright's own timeout set to it).
const rowsCallCap = 60 * time.Second

// rowsWarmCap bounds each tool's open of the page, and Playwright's warm-up
// snapshot: its first snapshot of a big page takes tens of seconds (46 s
// at 20,000 rows on this machine, then 5 s a call).
const rowsWarmCap = 3 * rowsCallCap

// rowCounts are the page sizes, each a sub-benchmark (-bench Rows/5000).
var rowCounts = []int{100, 1000, 5000, 20000}

// rowsFixedRounds caps the rounds of the big pages.
var rowsFixedRounds = map[int]int{5000: 5, 20000: 3}

// rowsPage is the page of n rows.
func rowsPage(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<!doctype html><html><head><title>%d rows</title></head><body>\n", n)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "<div><button>Button %d</button> <a href>link %d</a> <span>text %d</span></div>\n", i, i, i)
	}
	b.WriteString("</body></html>\n")
	return b.String()
}

// outcome is one timed call.
type outcome struct {
	d        time.Duration
	bytes    int // what the call answered: stdout, the snapshot text, the CDP reply
	timedOut bool
	why      string // why it timed out
	cut      bool   // it finished but does not show the page's last row
}

// column is one tool's figures at one row count.
type column struct {
	name     string
	call     func() outcome
	first    string // the untimed first call: ms, or timeout
	ds       []time.Duration
	bytes    int
	cut      bool // the last finished call did not show the page's last row
	timeouts int
	why      string
}

func (c *column) record(o outcome) {
	if o.timedOut {
		c.timeouts++
		c.why = o.why
		return
	}
	c.ds = append(c.ds, o.d)
	c.bytes, c.cut = o.bytes, o.cut
}

// dead is a column not called again at this row count.
func (c *column) dead() bool { return c.timeouts > 0 }

// cell is the column's median, "timeout" when no call finished, with the
// count of timeouts beside a median when some did, and a * when the
// answer does not show the page's last row.
func (c *column) cell() string {
	switch {
	case len(c.ds) == 0 && c.timeouts > 0:
		return "timeout"
	case len(c.ds) == 0:
		return "-"
	}
	s := fmt.Sprintf("%.0f", medianMS(c.ds))
	if c.cut {
		s += "*"
	}
	if c.timeouts > 0 {
		s += fmt.Sprintf("+%dt/o", c.timeouts)
	}
	return s
}

// rowsResult is one row count's line of the table.
type rowsResult struct {
	n       int
	rounds  int
	cols    []*column
	axNodes int
	axBytes int
}

// BenchmarkRows is the rows table of issue 17 (see above).
func BenchmarkRows(b *testing.B) {
	e := newEnv(b)
	pw := needPlaywright(b)
	e.Serve()
	p := newPeer(b)

	pages := map[int]string{}
	for _, n := range rowCounts {
		pages[n] = rowsPage(n)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /rows/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.PathValue("n"))
		page, ok := pages[n]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, page)
	})
	srv := httptest.NewServer(mux) // 127.0.0.1
	b.Cleanup(srv.Close)

	// The raw column's browser: launched here, driven by package cdp.
	ctx, cancel := context.WithTimeout(context.Background(), rowsCallCap)
	browser, err := cdp.Launch(context.WithoutCancel(ctx), cdp.Options{Binary: pw.chromium, Headless: true, StartTimeout: rowsCallCap})
	cancel()
	if err != nil {
		b.Fatalf("launch Chromium for the raw getFullAXTree column: %v", err)
	}
	b.Cleanup(func() { browser.Close() })
	ctx, cancel = context.WithTimeout(context.Background(), rowsCallCap)
	bctx, err := browser.NewContext(ctx)
	cancel()
	if err != nil {
		b.Fatal(err)
	}

	var results []rowsResult
	for _, n := range rowCounts {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			url := fmt.Sprintf("%s/rows/%d", srv.URL, n)
			first, last := "Button 1", fmt.Sprintf("Button %d", n)

			// Open the page in each tool (untimed).
			if o, out := e.cappedCLI(rowsWarmCap, "open", url); o.timedOut {
				b.Fatalf("our open of %d rows timed out (%s): %s", n, o.why, out)
			}
			if o, out := p.capped(rowsWarmCap, "open", url); o.timedOut {
				b.Fatalf("agent-browser's open of %d rows timed out (%s): %s", n, o.why, out)
			}
			ctx, cancel := context.WithTimeout(context.Background(), rowsWarmCap)
			tab, err := bctx.NewTab(ctx, url)
			cancel()
			if err != nil {
				b.Fatalf("raw tab of %d rows: %v", n, err)
			}
			closeTab := func() {
				if tab == nil {
					return
				}
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				bctx.CloseTab(ctx, tab.ID())
				tab = nil
			}
			defer closeTab()
			script := pw.start(b, url, first, last) // its warm-up snapshot included
			defer script.close()

			res := rowsResult{n: n}
			var rawReply jsonv2.Value
			cols := []*column{
				{name: "ours", call: func() outcome {
					o, out := e.cappedCLI(rowsCallCap, "snapshot")
					return checkRows(b, "our snapshot", o, out, first, last)
				}},
				{name: "ours -i", call: func() outcome {
					o, out := e.cappedCLI(rowsCallCap, "snapshot", "-i")
					return checkRows(b, "our snapshot -i", o, out, first, last)
				}},
				{name: "agent-browser", call: func() outcome {
					o, out := p.capped(rowsCallCap, "snapshot")
					return checkRows(b, "agent-browser's snapshot", o, out, first, last)
				}},
				{name: "agent-browser -i", call: func() outcome {
					o, out := p.capped(rowsCallCap, "snapshot", "-i")
					return checkRows(b, "agent-browser's snapshot -i", o, out, first, last)
				}},
				{name: "playwright", call: func() outcome { return script.snap(b) }},
				{name: "getFullAXTree", call: func() outcome {
					ctx, cancel := context.WithTimeout(context.Background(), rowsCallCap)
					defer cancel()
					rawReply = nil
					t0 := time.Now()
					err := tab.Session().Call(ctx, accessibility.CommandGetFullAXTree, &accessibility.GetFullAXTreeParams{}, &rawReply)
					d := time.Since(t0)
					if errors.Is(err, context.DeadlineExceeded) {
						// The renderer is still building that tree: close
						// the tab, so it does not slow the others' calls.
						closeTab()
						return outcome{d: d, timedOut: true, why: fmt.Sprintf("no reply in %v", rowsCallCap)}
					}
					if err != nil {
						b.Fatalf("getFullAXTree of %d rows: %v", n, err)
					}
					return outcome{d: d, bytes: len(rawReply)}
				}},
			}
			res.cols = cols

			// One untimed call of each (Playwright's was its script's);
			// the -i columns read the tree their full snapshot just read.
			for _, c := range cols {
				switch c.name {
				case "ours -i", "agent-browser -i":
					continue
				case "playwright":
					c.first = fmt.Sprintf("%.0f", script.warmMS)
					if script.warmTimeout != "" {
						c.first = "timeout"
						c.record(outcome{timedOut: true, why: script.warmTimeout})
						b.Logf("%d rows: playwright's untimed first call timed out (%s)", n, script.warmTimeout)
					}
					continue
				}
				o := c.call()
				c.first = fmt.Sprintf("%.0f", float64(o.d.Microseconds())/1000)
				if o.timedOut {
					c.first = "timeout"
					b.Logf("%d rows: %s's untimed first call timed out (%s)", n, c.name, o.why)
					if c.name == "getFullAXTree" {
						c.record(o) // its tab is closed
					}
				}
			}
			if len(rawReply) > 0 {
				var tree struct{ Nodes []struct{} }
				if err := json.Unmarshal(rawReply, &tree); err != nil {
					b.Fatalf("getFullAXTree reply: %v", err)
				}
				res.axNodes, res.axBytes = len(tree.Nodes), len(rawReply)
			}

			limit := rowsFixedRounds[n]
			round := 0
			for b.Loop() {
				if limit > 0 && round >= limit {
					continue
				}
				for k := range cols {
					c := cols[(round+k)%len(cols)]
					if !c.dead() {
						c.record(c.call())
					}
				}
				round++
			}
			res.rounds = round
			results = append(results, res)
			reportRows(b, res)
		})
	}
	// On stdout: a benchmark's log is cut after ten lines.
	if len(results) > 0 {
		fmt.Print(rowsTable(results))
	}
}

// checkRows fails the benchmark when a snapshot that finished does not
// show the page's first row (a tool that read no page), and marks it cut
// when it does not show the last one (a tool's node budget; a half-loaded
// page would be one too).
func checkRows(b *testing.B, what string, o outcome, out, first, last string) outcome {
	b.Helper()
	if o.timedOut {
		return o
	}
	if !strings.Contains(out, first) {
		b.Fatalf("%s does not show %q (%d bytes):\n%s", what, first, len(out), firstLines(out, 20))
	}
	o.cut = !strings.Contains(out, last)
	return o
}

// reportRows reports one row count's medians and ratios as metrics, and
// logs its line.
func reportRows(b *testing.B, r rowsResult) {
	b.ReportMetric(0, "ns/op") // the sum of every tool's calls: meaningless
	unit := map[string]string{"ours": "ours", "ours -i": "ours-i", "agent-browser": "ab", "agent-browser -i": "ab-i", "playwright": "pw", "getFullAXTree": "ax"}
	med := map[string]float64{}
	for _, c := range r.cols {
		u := unit[c.name]
		if len(c.ds) > 0 {
			med[c.name] = medianMS(c.ds)
			b.ReportMetric(med[c.name], u+"-p50-ms")
			b.ReportMetric(float64(c.bytes), u+"-B")
		}
		if c.timeouts > 0 {
			b.ReportMetric(float64(c.timeouts), u+"-timeouts")
		}
	}
	if r.axNodes > 0 {
		b.ReportMetric(float64(r.axNodes), "ax-nodes")
	}
	if v, ok := ratio(med, "ours -i", "agent-browser -i"); ok {
		b.ReportMetric(v, "ours/ab-i")
	}
	if v, ok := ratio(med, "ours", "playwright"); ok {
		b.ReportMetric(v, "ours/pw")
	}
	var line strings.Builder
	fmt.Fprintf(&line, "%d rows, %d rounds:", r.n, r.rounds)
	for _, c := range r.cols {
		fmt.Fprintf(&line, " %s %s", c.name, c.cell())
		if c.why != "" {
			fmt.Fprintf(&line, " (%s)", c.why)
		}
		line.WriteString(";")
	}
	b.Log(strings.TrimSuffix(line.String(), ";"))
}

func ratio(med map[string]float64, a, b string) (float64, bool) {
	x, okx := med[a]
	y, oky := med[b]
	return x / y, okx && oky && y > 0
}

// rowsTable is the whole table: medians in ms, the raw call's node count
// and reply size, the ratios, and the bytes each tool answered.
func rowsTable(rs []rowsResult) string {
	var t strings.Builder
	t.WriteString("\nsnapshot of the open tab, median ms (t/o: timed out, and not called again at that size;\n")
	t.WriteString("* the answer does not show the page's last row)\n")
	fmt.Fprintf(&t, "%7s %6s | %10s %10s | %10s %10s | %10s | %10s %8s %7s | %9s %9s\n",
		"rows", "rounds", "ours", "ours -i", "ab", "ab -i", "pw warm", "AX call", "AX nodes", "AX MB", "ours/ab-i", "ours/pw")
	for _, r := range rs {
		med := map[string]float64{}
		for _, c := range r.cols {
			if len(c.ds) > 0 {
				med[c.name] = medianMS(c.ds)
			}
		}
		rat := func(a, b string) string {
			if v, ok := ratio(med, a, b); ok {
				return fmt.Sprintf("%.2f", v)
			}
			return "-"
		}
		fmt.Fprintf(&t, "%7d %6d |", r.n, r.rounds)
		for i, c := range r.cols {
			fmt.Fprintf(&t, " %10s", c.cell())
			if i == 1 || i == 3 || i == 4 {
				t.WriteString(" |")
			}
		}
		nodes, mb := "-", "-"
		if r.axNodes > 0 {
			nodes, mb = strconv.Itoa(r.axNodes), fmt.Sprintf("%.1f", float64(r.axBytes)/1e6)
		}
		fmt.Fprintf(&t, " %8s %7s | %9s %9s\n", nodes, mb, rat("ours -i", "agent-browser -i"), rat("ours", "playwright"))
	}
	t.WriteString("\nthe untimed first call per row count, ms (Playwright's: its warm-up ariaSnapshot)\n")
	fmt.Fprintf(&t, "%7s | %9s %9s %9s %9s\n", "rows", "ours", "ab", "pw", "AX call")
	for _, r := range rs {
		fmt.Fprintf(&t, "%7d |", r.n)
		for _, c := range r.cols {
			if c.first != "" {
				fmt.Fprintf(&t, " %9s", c.first)
			}
		}
		t.WriteString("\n")
	}
	t.WriteString("\nbytes answered (last finished call)\n")
	fmt.Fprintf(&t, "%7s | %9s %9s %9s %9s %9s\n", "rows", "ours", "ours -i", "ab", "ab -i", "pw")
	for _, r := range rs {
		fmt.Fprintf(&t, "%7d |", r.n)
		for _, c := range r.cols[:5] {
			s := "-"
			if len(c.ds) > 0 {
				s = strconv.Itoa(c.bytes)
				if c.cut {
					s += "*"
				}
			}
			fmt.Fprintf(&t, " %9s", s)
		}
		t.WriteString("\n")
	}
	return t.String()
}

// cappedCLI runs one vibespace-browser command as session "bench", killed
// at bound; a refusal [timeout] (the daemon's verb bound) is a
// timeout too. Any other failure fails the benchmark.
func (e *env) cappedCLI(bound time.Duration, args ...string) (outcome, string) {
	e.T.Helper()
	o, out, errout, code := runCapped(bound, e.Bin, e.Environ("bench"), args)
	if o.timedOut {
		return o, out
	}
	if code == 1 && strings.Contains(errout, "[timeout]") {
		return outcome{d: o.d, timedOut: true, why: "refused [timeout]"}, out
	}
	if code != 0 {
		e.T.Fatalf("vibespace-browser %v: exit %d\nstdout: %s\nstderr: %s", args, code, firstLines(out, 20), errout)
	}
	return o, out
}

// peerTimeout is how agent-browser says a call ran out of time.
var peerTimeout = regexp.MustCompile(`(?i)time(d)?[ -]?out`)

// capped runs one agent-browser command, killed at bound; a failure
// that says it timed out is a timeout too. Any other failure fails the
// benchmark.
func (p *peer) capped(bound time.Duration, args ...string) (outcome, string) {
	p.b.Helper()
	o, out, errout, code := runCapped(bound, p.Bin, p.Environ(), append(p.LaunchFlags(), args...))
	if o.timedOut {
		return o, out
	}
	if code != 0 && peerTimeout.MatchString(out+errout) {
		return outcome{d: o.d, timedOut: true, why: "its own timeout: " + firstLines(strings.TrimSpace(out+errout), 1)}, out
	}
	if code != 0 {
		p.b.Fatalf("agent-browser %v: exit %d\nstdout: %s\nstderr: %s", args, code, firstLines(out, 20), errout)
	}
	return o, out
}

// runCapped runs bin with args and env, killed at bound: the wall time,
// stdout, stderr and exit code; timedOut when bound killed it.
func runCapped(bound time.Duration, bin string, env, args []string) (outcome, string, string, int) {
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	cmd.WaitDelay = 5 * time.Second // stdout held open by a child it left behind
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	t0 := time.Now()
	err := cmd.Run()
	d := time.Since(t0)
	if ctx.Err() != nil {
		return outcome{d: d, timedOut: true, why: fmt.Sprintf("killed at the %v cap", bound)}, out.String(), errb.String(), -1
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		code = -1
		errb.WriteString(err.Error())
	}
	return outcome{d: d, bytes: out.Len()}, out.String(), errb.String(), code
}

// playwright is bench/ariasnapshot.mjs run by node with playwright-core
// from .bench, on the system Chromium.
type playwright struct {
	node, script, chromium string
}

// needPlaywright finds node, the script, playwright-core under .bench and
// Chromium; without them the benchmark fails under VIBESPACE_INTEGRATION=1
// (make bench-deps installs playwright-core), else it is skipped.
func needPlaywright(b *testing.B) playwright {
	b.Helper()
	root := clitest.ModuleRoot(b)
	missing := func(msg string) {
		msg += ": run make bench-deps"
		if os.Getenv("VIBESPACE_INTEGRATION") == "1" {
			b.Fatal(msg)
		}
		b.Skip("SKIP: " + msg)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not in PATH (the Playwright column runs on it)")
	}
	if _, err := os.Stat(filepath.Join(root, ".bench", "node_modules", "playwright-core", "package.json")); err != nil {
		missing(fmt.Sprintf("playwright-core is not installed under %s", filepath.Join(root, ".bench")))
	}
	script := filepath.Join(root, "bench", "ariasnapshot.mjs")
	if _, err := os.Stat(script); err != nil {
		b.Fatalf("the Playwright script is missing: %v", err)
	}
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		b.Fatalf("chromium is not in PATH (make deps installs it): %v", err)
	}
	return playwright{node: node, script: script, chromium: chromium}
}

// ariaScript is one running ariasnapshot.mjs, on one page.
type ariaScript struct {
	cmd    *exec.Cmd
	cancel context.CancelFunc
	stdin  io.WriteCloser
	lines  chan string // its stdout, line by line; closed at its end
	errb   *bytes.Buffer
	warmMS float64 // its untimed first snapshot
	// warmTimeout says why the load or the warm-up ran out of time; the
	// script is then ended and its column not called.
	warmTimeout string
	tmp         string // its TMPDIR: Playwright's browser profile is under it
	exited      chan struct{}
}

// start runs the script on url and waits for its warm-up snapshot.
// first and last are the page's first and last rows' text: a snapshot
// without the first fails the benchmark, one without the last is cut.
func (pw playwright) start(b *testing.B, url, first, last string) *ariaScript {
	b.Helper()
	// A deadline over the whole script's life: the rounds of the biggest
	// page are well under it.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	tmp := b.TempDir()
	args := []string{pw.script, "--chromium", pw.chromium, "--args", strings.Join(clitest.PeerChromiumFlags, ","),
		"--cap-ms", strconv.Itoa(int(rowsCallCap.Milliseconds())), "--warm-cap-ms", strconv.Itoa(int(rowsWarmCap.Milliseconds())),
		"--first", first, "--last", last, url}
	cmd := exec.CommandContext(ctx, pw.node, args...)
	// Its own browser profile under a directory of ours, so that what is
	// left of its browser can be found (by that path) and ended.
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	// Cancelled: SIGTERM, on which Playwright closes its browser; killed
	// 10 s later if it has not exited.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	s := &ariaScript{cmd: cmd, cancel: cancel, stdin: stdin, lines: make(chan string, 4), errb: &bytes.Buffer{}, tmp: tmp, exited: make(chan struct{})}
	cmd.Stderr = s.errb
	if err := cmd.Start(); err != nil {
		cancel()
		b.Fatalf("start %s: %v", pw.script, err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
		cmd.Wait()
		close(s.exited)
	}()
	// The launch, the load and the warm-up snapshot, each bounded.
	bound := 2*rowsWarmCap + 30*time.Second
	line, ok, late := s.next(bound)
	var ready struct {
		Ready   bool    `json:"ready"`
		First   bool    `json:"first"`
		WarmMS  float64 `json:"warmup_ms"`
		Timeout bool    `json:"timeout"`
		Error   string  `json:"error"`
	}
	if late {
		s.close()
		s.warmTimeout = fmt.Sprintf("no load and warm-up in %v", bound)
		return s
	}
	if ok && json.Unmarshal([]byte(line), &ready) == nil && ready.Timeout {
		s.close()
		s.warmTimeout = "load or warm-up: " + ready.Error
		return s
	}
	if !ok || json.Unmarshal([]byte(line), &ready) != nil || !ready.Ready {
		s.close()
		b.Fatalf("the Playwright script did not get ready on %s (line %q):\n%s", url, line, s.errb)
	}
	if !ready.First {
		s.close()
		b.Fatalf("Playwright's snapshot does not show %q (%s)", first, line)
	}
	s.warmMS = ready.WarmMS
	return s
}

// next is the script's next line, waiting at most bound: ok is false when
// it printed none, late when bound passed first (else it ended).
func (s *ariaScript) next(bound time.Duration) (line string, ok, late bool) {
	select {
	case l, ok := <-s.lines:
		return l, ok, false
	case <-time.After(bound):
		return "", false, true
	}
}

// snap asks for one timed snapshot: Playwright's own figure (the
// ariaSnapshot call, in the node process).
func (s *ariaScript) snap(b *testing.B) outcome {
	b.Helper()
	if s.stdin == nil {
		return outcome{timedOut: true, why: "the script was ended"}
	}
	t0 := time.Now()
	if _, err := io.WriteString(s.stdin, "snap\n"); err != nil {
		s.close()
		b.Fatalf("the Playwright script: %v\n%s", err, s.errb)
	}
	line, ok, late := s.next(rowsCallCap + 10*time.Second)
	if late {
		s.close() // its browser is still busy: end it
		return outcome{d: time.Since(t0), timedOut: true, why: "the script did not answer"}
	}
	if !ok {
		s.close()
		b.Fatalf("the Playwright script ended:\n%s", s.errb)
	}
	var r struct {
		MS      float64 `json:"ms"`
		Bytes   int     `json:"bytes"`
		Last    bool    `json:"last"`
		Timeout bool    `json:"timeout"`
		Error   string  `json:"error"`
	}
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		s.close()
		b.Fatalf("the Playwright script answered %q: %v\n%s", line, err, s.errb)
	}
	if r.Timeout {
		s.close() // the column is not called again; its browser is still busy
		return outcome{d: time.Since(t0), timedOut: true, why: r.Error}
	}
	return outcome{d: time.Duration(r.MS * float64(time.Millisecond)), bytes: r.Bytes, cut: !r.Last}
}

// close ends the script: the end of its stdin (it closes its browser and
// exits), else SIGTERM when that takes over 30 s, then SIGKILL; and ends
// by PID whatever of its browser is still running (its profile under our
// directory names it).
func (s *ariaScript) close() {
	if s.stdin == nil {
		return
	}
	s.stdin.Close()
	s.stdin = nil
	go func() { // drain what it still prints
		for range s.lines {
		}
	}()
	select {
	case <-s.exited:
	case <-time.After(30 * time.Second):
		s.cancel()
		<-s.exited
	}
	s.cancel()
	deadline := time.Now().Add(5 * time.Second)
	for len(clitest.ProcessesMentioning(s.tmp)) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	for _, pid := range clitest.ProcessesMentioning(s.tmp) {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}
