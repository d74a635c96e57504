package main_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/cmd/internal/clitest"
)

// tablePage is a form of 36 fields above a table of 200 people, each row
// with an Edit link and a Delete button: a page an agent pays for in
// bytes on every snapshot.
func tablePage() string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><title>People</title></head><body><h1>People</h1><form onsubmit="return false">`)
	kinds := []string{"text", "email", "tel", "number", "checkbox", "date"}
	for i := 1; i <= 36; i++ {
		k := kinds[i%len(kinds)]
		fmt.Fprintf(&b, `<label for="f%d">Field %d</label> <input id="f%d" type="%s"><br>`, i, i, i, k)
	}
	b.WriteString(`<button>Save</button></form><table><thead><tr><th>Name</th><th>Email</th><th>Actions</th></tr></thead><tbody>`)
	for i := 1; i <= 200; i++ {
		fmt.Fprintf(&b, `<tr><td>Person %d</td><td>person%d@example.org</td><td><a href="#edit%d">Edit</a> <button>Delete</button></td></tr>`, i, i, i)
	}
	b.WriteString(`</tbody></table></body></html>`)
	return b.String()
}

var (
	ourRefs   = regexp.MustCompile(`@e\d+`)
	theirRefs = regexp.MustCompile(`\bref=e\d+`)
)

// BenchmarkObserveVersusAgentBrowser compares, in one run and on the same
// pages, what an agent reads: the bytes and refs of snapshot -i (ours and
// agent-browser 0.41.2's), and after one click the bytes of our --diff
// beside agent-browser's snapshot --delta (its full state once, then
// deltas). Every figure is a whole command's stdout, as an agent reads it
// (ours with its target line).
func BenchmarkObserveVersusAgentBrowser(b *testing.B) {
	e := newEnv(b)
	e.Serve()
	p := newPeer(b)
	site := newSite(b)
	tables := newObserveSite(b, map[string]string{"/table": tablePage()})
	type row struct {
		what          string
		ours, theirs  int
		oRefs, tRefs  int
		oLine, tLines string
	}
	pages := []struct {
		name, url string
		role, nm  string // what the click clicks: our role, agent-browser's role, the name
		theirRole string
	}{
		{"bench page", site.URL + "/big", "push button", "Increment", "button"},
		{"form + 200 rows", tables.URL + "/table", "check box", "Field 4", "checkbox"},
	}
	var rows []row
	measure := func() {
		rows = nil
		for _, pg := range pages {
			e.OK("bench", "open", pg.url)
			p.run("open", pg.url)
			ours := e.OK("bench", "snapshot", "-i")
			theirs := p.run("snapshot", "-i")
			rows = append(rows, row{what: pg.name + ": snapshot -i", ours: len(ours), theirs: len(theirs),
				oRefs: len(ourRefs.FindAllString(ours, -1)), tRefs: len(theirRefs.FindAllString(theirs, -1))})

			// One click, then what changed.
			ourRef := ref(b, e.Snapshot("bench", "-i"), pg.role, pg.nm)
			theirRef := ""
			for _, m := range clitest.PeerRef.FindAllStringSubmatch(p.run("snapshot", "-i"), -1) {
				if m[1] == pg.theirRole && m[2] == pg.nm {
					theirRef = "@" + m[3]
				}
			}
			if theirRef == "" {
				b.Fatalf("agent-browser's snapshot has no %s %q", pg.theirRole, pg.nm)
			}
			e.OK("bench", "snapshot")      // our baseline: the session's last snapshot
			p.run("snapshot", "--delta")   // theirs: full state once
			p.run("snapshot", "--delta")   // and again (unchanged), so the next is a delta
			e.OK("bench", "click", ourRef) // the same click on each side
			p.run("click", theirRef)
			ours = e.OK("bench", "snapshot", "--diff")
			theirs = p.run("snapshot", "--delta")
			rows = append(rows, row{what: pg.name + ": after a click, --diff vs --delta", ours: len(ours), theirs: len(theirs),
				oLine: strings.Join(diffLines(ours), " | "), tLines: firstLines(theirs, 40)})
			e.OK("bench", "click", ourRef) // back as it was, for the -i variant
			p.run("click", theirRef)
			e.OK("bench", "snapshot", "-i")
			p.run("snapshot", "-i", "--delta", "--full")
			e.OK("bench", "click", ourRef)
			p.run("click", theirRef)
			ours = e.OK("bench", "snapshot", "-i", "--diff")
			theirs = p.run("snapshot", "-i", "--delta")
			rows = append(rows, row{what: pg.name + ": after a click, -i --diff vs -i --delta", ours: len(ours), theirs: len(theirs),
				oLine: strings.Join(diffLines(ours), " | "), tLines: firstLines(theirs, 40)})
		}
	}
	// Sizes, not timings: one pass is the figure (a pass takes seconds).
	// The loop reads the last page's -i snapshot on both sides, so the
	// figures hold over repeated reads (the sizes must not move).
	measure()
	want := rows[len(rows)-3]
	for b.Loop() {
		// ± a few bytes: the lease's "since" in our target line, their
		// revision counter.
		if ours, theirs := len(e.OK("bench", "snapshot", "-i")), len(p.run("snapshot", "-i")); abs(ours-want.ours) > 16 || abs(theirs-want.theirs) > 16 {
			b.Logf("snapshot -i of the last page moved: ours %d B (first %d), theirs %d B (first %d)", ours, want.ours, theirs, want.theirs)
		}
	}
	var t strings.Builder
	fmt.Fprintf(&t, "\n%-52s %9s %9s %6s %6s %6s\n", "", "ours B", "theirs B", "ratio", "our@", "their@")
	for _, r := range rows {
		fmt.Fprintf(&t, "%-52s %9d %9d %6.2f", r.what, r.ours, r.theirs, float64(r.ours)/float64(r.theirs))
		if r.oRefs+r.tRefs > 0 {
			fmt.Fprintf(&t, " %6d %6d", r.oRefs, r.tRefs)
		}
		t.WriteString("\n")
		if r.oLine != "" || r.tLines != "" {
			fmt.Fprintf(&t, "    ours:   %s\n    theirs: %s\n", r.oLine, r.tLines)
		}
	}
	// On stdout: a benchmark's log is cut after a few lines.
	fmt.Print(t.String())
	for i, r := range rows {
		b.ReportMetric(float64(r.ours), fmt.Sprintf("ours-B-%d", i))
		b.ReportMetric(float64(r.theirs), fmt.Sprintf("theirs-B-%d", i))
	}
}

// firstLines is the first n lines of s, joined with " | ".
func firstLines(s string, n int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(ls) > n {
		ls = append(ls[:n], fmt.Sprintf("… (%d lines)", len(ls)))
	}
	return strings.Join(ls, " | ")
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
