package main_test

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cmd/internal/clitest"
	"github.com/vibespace/vibespace/target"
)

// peer is agent-browser 0.41.2 run as an agent runs it: one process per
// command, its own HOME and socket directory, one --session (clitest.Peer).
type peer struct {
	*clitest.Peer
	b *testing.B
}

func newPeer(b *testing.B) *peer { return &peer{clitest.NewPeer(b, chromium), b} }

// run runs one agent-browser command; it fails the benchmark unless the
// command succeeded.
func (p *peer) run(args ...string) string {
	p.b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.Bin, append(p.LaunchFlags(), args...)...)
	cmd.Env = p.Environ()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		p.b.Fatalf("agent-browser %v: %v\n%s%s", args, err, out.String(), errb.String())
	}
	return out.String()
}

// ariaRole maps our snapshot's AT-SPI role names (cdp's mapping) back to
// the ARIA roles agent-browser prints, for the roles a page's refs carry.
var ariaRole = map[string]string{
	"push button": "button", "entry": "textbox", "check box": "checkbox", "radio button": "radio",
	"combo box": "combobox", "link": "link", "heading": "heading", "spin button": "spinbutton",
	"slider": "slider", "list box": "listbox", "menu item": "menuitem", "page tab": "tab",
	"switch": "switch", "toggle button": "button",
	"list item": "option", // a select's option: AT-SPI (and our tree) call it a list item
}

// missingRefs counts the nodes agent-browser gave a ref that our -i
// snapshot has no ref for (by role and name).
func missingRefs(theirs string, ours *target.Snapshot) (missing []string, total int) {
	have := map[string]bool{}
	ours.Root.Walk(func(n *target.Node, _ int) bool {
		if n.Ref == "" {
			return true
		}
		role := n.Role
		if r, ok := ariaRole[role]; ok {
			role = r
		}
		have[role+"\x00"+n.Name] = true
		return true
	})
	for _, m := range clitest.PeerRef.FindAllStringSubmatch(theirs, -1) {
		total++
		name, _ := strconv.Unquote(`"` + m[2] + `"`)
		if !have[m[1]+"\x00"+name] {
			missing = append(missing, fmt.Sprintf("%s %q", m[1], name))
		}
	}
	return missing, total
}

// BenchmarkVersusAgentBrowser runs each verb, whole process each, ours and
// agent-browser's alternately on the same page in the same run, and reports
// both and the ratio (goal: ≤ 0.5 on every verb).
func BenchmarkVersusAgentBrowser(b *testing.B) {
	e := newEnv(b)
	e.Serve()
	p := newPeer(b)
	site := newSite(b)
	page := site.URL + "/big"

	// Cold starts, outside the measurement.
	e.OK("bench", "open", page)
	p.run("open", page)

	type verb struct {
		name         string
		ours, theirs func() []string
	}
	var ourName, ourInc, theirName, theirInc string
	refs := func() {
		snap := e.Snapshot("bench", "-i")
		ourName, ourInc = ref(b, snap, "entry", "Name"), ref(b, snap, "push button", "Increment")
		theirs := p.run("snapshot", "-i")
		theirName, theirInc = clitest.PeerRefOf(theirs, "textbox", "Name"), clitest.PeerRefOf(theirs, "button", "Increment")
		if theirName == "" || theirInc == "" {
			b.Fatalf("agent-browser's snapshot has no Name / Increment ref:\n%s", theirs)
		}
	}
	shot := filepath.Join(b.TempDir(), "shot.png")
	twoTexts, fills := [2]string{"hello", "world"}, 0
	cmds := cdpCommands(b, page)
	fixed := func(args ...string) func() []string { return func() []string { return args } }
	verbs := []verb{
		{"open_warm", fixed("open", page), fixed("open", page)},
		{"snapshot", fixed("snapshot"), fixed("snapshot")},
		{"snapshot_i", fixed("snapshot", "-i"), fixed("snapshot", "-i")},
		// agent-browser does not watch for an action's effect: ours does not
		// either here (and a fill of the same text, again and again, would
		// be refused no_progress). verify_bench_test.go measures the watch.
		{"click", func() []string { return []string{"click", ourInc, "--no-verify"} }, func() []string { return []string{"click", theirInc} }},
		{"fill", func() []string { return []string{"fill", ourName, "hello", "--no-verify"} }, func() []string { return []string{"fill", theirName, "hello"} }},
		// The same with the check on, the default an agent gets: the
		// click changes the page's counter (seen at once), the fill
		// alternates two texts (the same text again would be refused
		// no_progress), on both sides.
		{"click_checked", func() []string { return []string{"click", ourInc} }, func() []string { return []string{"click", theirInc} }},
		{"fill_checked", func() []string { fills++; return []string{"fill", ourName, twoTexts[fills%2]} }, func() []string { return []string{"fill", theirName, twoTexts[fills%2]} }},
		{"screenshot", fixed("screenshot", "--out", shot), fixed("screenshot", shot)},
		{"get_title", fixed("get", "title"), fixed("get", "title")},
	}
	for _, v := range verbs {
		b.Run(v.name, func(b *testing.B) {
			if v.name == "click" {
				refs()
			}
			var ours, theirs, status []time.Duration
			for b.Loop() {
				t0 := time.Now()
				e.OK("bench", v.ours()...)
				ours = append(ours, time.Since(t0))
				t0 = time.Now()
				p.run(v.theirs()...)
				theirs = append(theirs, time.Since(t0))
				if v.name == "get_title" {
					t0 = time.Now()
					e.OK("bench", "status")
					status = append(status, time.Since(t0))
				}
			}
			// Means, as before, and medians: on a shared machine one slow
			// run moves a mean of twenty a lot.
			b.ReportMetric(meanMS(ours), "ours-ms/op")
			b.ReportMetric(meanMS(theirs), "theirs-ms/op")
			b.ReportMetric(meanMS(ours)/meanMS(theirs), "ratio")
			b.ReportMetric(medianMS(ours), "ours-p50-ms")
			b.ReportMetric(medianMS(theirs), "theirs-p50-ms")
			b.ReportMetric(medianMS(ours)/medianMS(theirs), "p50-ratio")
			if n, ok := cmds[v.name]; ok {
				b.ReportMetric(float64(n), "cdp-commands")
			}
			if v.name == "get_title" {
				b.ReportMetric(meanMS(status), "ours-status-ms/op")
				b.ReportMetric(medianMS(status), "ours-status-p50-ms")
			}
		})
	}

	// The -i snapshot: bytes an agent reads, and whether ours carries
	// every ref theirs has.
	b.Run("snapshot_i_size", func(b *testing.B) {
		var ours, theirs string
		for b.Loop() {
			ours = e.OK("bench", "snapshot", "-i")
			theirs = p.run("snapshot", "-i")
		}
		missing, total := missingRefs(theirs, e.Snapshot("bench", "-i"))
		b.ReportMetric(float64(len(ours)), "ours-B")
		b.ReportMetric(float64(len(theirs)), "theirs-B")
		b.ReportMetric(float64(len(ours))/float64(len(theirs)), "ratio")
		b.ReportMetric(float64(total), "their-refs")
		b.ReportMetric(float64(e.Snapshot("bench").Census.Nodes), "page-nodes")
		full := p.run("snapshot")
		b.ReportMetric(float64(strings.Count(full, "\n")), "theirs-full-lines")
		b.ReportMetric(float64(len(e.OK("bench", "snapshot"))), "ours-full-B")
		b.ReportMetric(float64(len(full)), "theirs-full-B")
		b.ReportMetric(float64(len(missing)), "missing-refs")
		if len(missing) > 0 {
			b.Logf("refs agent-browser has and our -i snapshot lacks: %s", strings.Join(missing, ", "))
		}
	})
	if pid := p.DaemonPID(); pid <= 0 {
		b.Error("agent-browser recorded no daemon pid: its cleanup cannot find it")
	}
}

func meanMS(ds []time.Duration) float64 {
	if len(ds) == 0 {
		return 0
	}
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return float64(sum.Microseconds()) / 1000 / float64(len(ds))
}

func medianMS(ds []time.Duration) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return float64(m.Microseconds()) / 1000
}
