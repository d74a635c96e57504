package cdp_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/target"
)

// knownDiff is a difference between the roads this test accepts: on one
// corpus page (corpusPages' name), in one view ("full", "-i"; "" for
// both), a line matching line, printed by either road where the other
// prints something else. Each says why it is right, or why it is
// tolerated. An entry that excuses nothing in a run that compared its page
// and view fails the test: the table cannot outlive what it excuses.
type knownDiff struct {
	page string
	view string
	// line matches a line of WriteText, indentation and refs kept: one
	// line of the diff, or the line of two nodes that are not the same DOM
	// node (compareRoads).
	line *regexp.Regexp
	why  string
	// renumbers says the node line matches takes a ref on one road only,
	// so the refs minted after it differ by one between the roads: the
	// lines that differ only in their refs are then accepted, each still
	// held to name the same DOM node by both roads' keys.
	renumbers bool
}

// knownDiffs is the table of known, justified differences between
// RoadPage and RoadAX on the corpus.
var knownDiffs = []knownDiff{
	{page: "form", line: regexp.MustCompile(`^(\s+image @e\d+|# "Form and table corpus": 15\d nodes, 42 action, 11 editable(; interactive)?)$`), renumbers: true,
		why: "an <input type=image> draws its picture with an <img> of the user agent's shadow tree, which Chromium's tree shows and no script of the page (nor ours) can reach; the button itself is the same node on both roads"},
	{page: "shadow", line: regexp.MustCompile(`^(# "Shadow corpus": 2\d nodes, \d action, 1 editable(; interactive)?|static "Closed text"|push button "Closed inside" @e\d+)$`), renumbers: true,
		why: "a closed shadow root is closed to scripts by definition: the page road sees its host's light children (as the page's own scripts would) but not the root's own content, which Chromium's tree shows"},
}

// roadName names a road in the reports.
func roadName(r cdp.Road) string {
	if r == cdp.RoadAX {
		return "ax"
	}
	return "page"
}

// The page road (RoadPage) and the AX road (RoadAX, the oracle) read the
// same tree on every page of the corpus: the same text an agent reads,
// full and interactive, line by line (roles, names, states, refs, values),
// each road with a ref table of its own; and every ref names the same DOM
// node by either road's key. Differences the table knownDiffs lists are
// accepted, each with its reason; any other fails the test with a diff of
// the lines.
func TestSnapshotRoadsEqual(t *testing.T) {
	needChromium(t)
	needDocs(t)
	srv := corpusServer(t)
	c := newContext(t)
	used := make([]bool, len(knownDiffs))
	compared := map[string]bool{} // "page view" this run compared
	for _, p := range corpusPages {
		t.Run(p.name, func(t *testing.T) {
			// The biggest page's four snapshots, and the settling reads
			// before them, take longer than ctxT allows under -race.
			ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
			defer cancel()
			tab := openAt(t, c, srv.URL+p.path)
			t.Cleanup(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				if err := c.CloseTab(ctx, tab.ID()); err != nil {
					t.Errorf("closing the tab: %v", err)
				}
			})
			cold := settle(t, tab, p)
			outOfProcess(t, tab, p.oopif)
			var ax *target.Snapshot // the AX road's full snapshot
			// Refs are minted over the whole tree: a node one road alone has
			// renumbers the refs of both views (the full view comes first).
			renumbered := new(bool)
			for _, view := range []string{"full", "-i"} {
				interactive := view == "-i"
				var snaps [2]*target.Snapshot
				var took [2]time.Duration
				for i, road := range []cdp.Road{cdp.RoadAX, cdp.RoadPage} {
					start := time.Now()
					s, err := tab.SnapshotRoad(ctx, target.NewRefTable(), interactive, road)
					took[i] = time.Since(start)
					if err != nil {
						t.Fatalf("%s snapshot by the %s road: %v", view, roadName(road), err)
					}
					snaps[i] = s
					if s.Root == nil || s.Census.Nodes < p.minNodes {
						t.Fatalf("%s snapshot by the %s road has %d nodes, want at least %d:\n%s",
							view, roadName(road), s.Census.Nodes, p.minNodes, s.Text())
					}
				}
				if !interactive {
					ax = snaps[0]
				}
				cen := snaps[0].Census
				t.Logf("%s %s: %d nodes (%d action, %d editable), %d lines; ax road %v (first read %v), page road %v",
					p.name, view, cen.Nodes, cen.Action, cen.Editable, strings.Count(snaps[0].Text(), "\n"),
					took[0].Round(time.Millisecond), cold.Round(time.Millisecond), took[1].Round(time.Millisecond))
				ex := excuser{page: p.name, view: view, used: used, renumber: renumbered}
				compareRoads(t, ctx, tab, view, snaps[0], snaps[1], ex)
				compared[p.name+" "+view] = true
			}
			// The tab lives on after both roads read it.
			title, err := tab.Title(ctx)
			if err != nil {
				t.Fatalf("the tab after the snapshots: %v", err)
			}
			if title == "" || title != ax.Title {
				t.Errorf("the tab's title after the snapshots is %q, the snapshot's %q", title, ax.Title)
			}
		})
	}
	for i, k := range knownDiffs {
		views := []string{k.view}
		if k.view == "" {
			views = []string{"full", "-i"}
		}
		ran := false
		for _, v := range views {
			ran = ran || compared[k.page+" "+v]
		}
		if ran && !used[i] {
			t.Errorf("known difference %d (%s %s /%s/: %s) no longer matches anything: remove it from the table",
				i, k.page, k.view, k.line, k.why)
		}
	}
}

// settle waits until the page shows what p.ready names (frames loaded,
// scripts run) and two AX-road reads in a row print the same, so that the
// roads compare one page, not one still changing; it returns how long the
// first read took (the first tree of a document costs the most).
func settle(t *testing.T, tab *cdp.Tab, p corpusPage) time.Duration {
	t.Helper()
	var first time.Duration
	var last string
	ready := false
	// Bounded by reads, not by the clock: a loaded machine reads a big
	// page slowly, not differently. Each read has its own deadline.
	const reads = 10
	for try := range reads {
		start := time.Now()
		s, err := tab.SnapshotRoad(ctxT(t), nil, false, cdp.RoadAX)
		if err != nil {
			t.Fatalf("reading the page: %v", err)
		}
		if try == 0 {
			first = time.Since(start)
		}
		text := s.Text()
		ready = true
		for _, want := range p.ready {
			ready = ready && strings.Contains(text, want)
		}
		if ready && text == last {
			return first
		}
		last = text
		time.Sleep(50 * time.Millisecond)
	}
	if !ready {
		t.Fatalf("the page never showed all of %q in %d reads:\n%s", p.ready, reads, last)
	}
	t.Fatalf("the page never settled: %d reads, no two in a row the same", reads)
	return 0
}

// outOfProcess holds that each frame of urls (substrings of their URLs)
// is a target of its own: a frame in another process.
func outOfProcess(t *testing.T, tab *cdp.Tab, urls []string) {
	t.Helper()
	if len(urls) == 0 {
		return
	}
	var raw jsonv2.Value
	if err := tab.BrowserCall(ctxT(t), "Target.getTargets", nil, &raw); err != nil {
		t.Fatal(err)
	}
	type info struct {
		Type string `json:"type"`
		URL  string `json:"url"`
	}
	var targets struct {
		TargetInfos []info `json:"targetInfos"`
	}
	if err := jsonv2.Unmarshal(raw, &targets); err != nil {
		t.Fatal(err)
	}
	for _, u := range urls {
		if !slices.ContainsFunc(targets.TargetInfos, func(ti info) bool { return ti.Type == "iframe" && strings.HasSuffix(ti.URL, u) }) {
			t.Errorf("the frame %s is not out of process: %+v", u, targets.TargetInfos)
		}
	}
}

// excuser applies the table of known differences to one page and view,
// and records which entries excused something.
type excuser struct {
	page, view string
	used       []bool
	renumber   *bool // an entry that renumbers (knownDiff.renumbers) accepted a line
}

// renumbered reports whether an entry that renumbers the refs accepted a
// line of this comparison.
func (e excuser) renumbered() bool { return e.renumber != nil && *e.renumber }

// excuses reports whether an entry of the table accepts line differing.
func (e excuser) excuses(line string) bool {
	for i, k := range knownDiffs {
		if k.page == e.page && (k.view == "" || k.view == e.view) && k.line.MatchString(line) {
			e.used[i] = true
			if k.renumbers && e.renumber != nil {
				*e.renumber = true
			}
			return true
		}
	}
	return false
}

// refPattern is a ref as WriteText prints it.
var refPattern = regexp.MustCompile(` @e[0-9]+\b`)

// rows is s's text, line by line, and the node each line prints (nil
// for the header), in the order WriteText writes them.
func rows(t *testing.T, s *target.Snapshot) ([]string, []*target.Node) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(s.Text(), "\n"), "\n")
	nodes := []*target.Node{nil}
	// A compact root without a ref has no line (target.Snapshot.WriteText).
	skip := s.Compact && s.Root.Ref == "" && s.Root.Unreadable == ""
	s.Root.Walk(func(n *target.Node, depth int) bool {
		if !skip || depth > 0 {
			nodes = append(nodes, n)
		}
		return true
	})
	if len(nodes) != len(lines) {
		t.Fatalf("%d lines of text for %d nodes", len(lines), len(nodes))
	}
	return lines, nodes
}

// compareRoads holds the two roads' snapshots equal. The lines are
// aligned with their refs left out, so that a node one road lacks is one
// difference, not one for every ref minted after it; then the aligned
// lines must be equal refs and all, and name the same DOM node: the
// backend node ids of the two roads' keys are equal. It reports what the
// table does not excuse: the lines as a unified diff (- the AX road's, +
// the page road's; the first 60), then the first lines whose refs differ,
// then the first nodes that differ.
func compareRoads(t *testing.T, ctx context.Context, tab *cdp.Tab, view string, ax, page *target.Snapshot, ex excuser) {
	t.Helper()
	al, an := rows(t, ax)
	pl, pn := rows(t, page)
	mask := func(lines []string) []string {
		out := make([]string, len(lines))
		for i, l := range lines {
			out[i] = refPattern.ReplaceAllString(l, " @e")
		}
		return out
	}
	var ops []diffOp
	var refs []string     // aligned lines whose refs differ
	var refPairs [][2]int // their nodes' indices, the AX road's and the page road's
	var nodes []string    // aligned lines whose nodes are not the same DOM node
	bad, keyed := 0, 0
	for _, op := range lineDiff(mask(al), mask(pl), maxEdits) {
		switch op.mark {
		case '-':
			op.text = al[op.ai-1]
		case '+':
			op.text = pl[op.bi-1]
		case ' ':
			a, p := al[op.ai-1], pl[op.bi-1]
			op.text = a
			if a != p { // the same line but for its refs
				if !ex.excuses(a) && !ex.excuses(p) {
					refs = append(refs, fmt.Sprintf("@@ ax line %d, page line %d @@\n-%s\n+%s", op.ai, op.bi, a, p))
					refPairs = append(refPairs, [2]int{op.ai - 1, op.bi - 1})
				}
				ops = append(ops, op)
				continue
			}
			if msg := sameNode(ctx, tab, an[op.ai-1], pn[op.bi-1]); msg != "" && !ex.excuses(a) {
				nodes = append(nodes, msg)
			} else if an[op.ai-1] != nil && an[op.ai-1].Key != "" {
				keyed++
			}
			ops = append(ops, op)
			continue
		}
		if op.bad = !ex.excuses(op.text); op.bad {
			bad++
		}
		ops = append(ops, op)
	}
	if bad > 0 {
		t.Errorf("%s view: %d lines differ between the roads (-ax +page, aligned with their refs left out), not in knownDiffs:\n%s",
			view, bad, diffReport(ops, 60))
	}
	if len(refs) > 0 && ex.renumbered() {
		// A node one road alone has took a ref: the later refs moved by
		// one, and each line must still name the same DOM node.
		for _, pair := range refPairs {
			if msg := sameNode(ctx, tab, an[pair[0]], pn[pair[1]]); msg != "" {
				nodes = append(nodes, msg)
			}
		}
		refs = nil
	}
	if len(refs) > 0 {
		// After a node one road lacks, every ref minted later moves: the
		// first few say whether there is more to it.
		t.Errorf("%s view: %d lines the roads print alike but for their refs, not in knownDiffs:\n%s",
			view, len(refs), firstOf(refs, 10))
	}
	if len(nodes) > 0 {
		t.Errorf("%s view: %d lines the roads print alike name different DOM nodes:\n%s", view, len(nodes), firstOf(nodes, 30))
	}
	if keyed == 0 {
		t.Errorf("%s view: no node with a key is on a line both roads print alike", view)
	}
}

// firstOf is the first n of lines, one a line, and how many more there are.
func firstOf(lines []string, n int) string {
	if len(lines) <= n {
		return strings.Join(lines, "\n")
	}
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n… and %d more", len(lines)-n)
}

// sameNode says how a and p, the nodes of a line both roads print alike,
// are not the same DOM node ("" when they are): the one with a key and the
// other without, or keys whose backend node ids differ.
func sameNode(ctx context.Context, tab *cdp.Tab, a, p *target.Node) string {
	if a == nil || p == nil || (a.Key == "" && p.Key == "") {
		return ""
	}
	line := strings.TrimSpace(nodeLine(a))
	if a.Key == "" || p.Key == "" {
		return fmt.Sprintf("%s: the ax road's key %q, the page road's %q", line, a.Key, p.Key)
	}
	aid, aerr := tab.BackendNodeID(ctx, a.Key)
	pid, perr := tab.BackendNodeID(ctx, p.Key)
	switch {
	case aerr != nil || perr != nil:
		return fmt.Sprintf("%s: BackendNodeID of the ax road's key %q: %d, %v; of the page road's key %q: %d, %v", line, a.Key, aid, aerr, p.Key, pid, perr)
	case aid != pid:
		return fmt.Sprintf("%s: the ax road's node %d (key %s), the page road's node %d (key %s)", line, aid, a.Key, pid, p.Key)
	}
	return ""
}

// nodeLine is n's own line of WriteText, at depth 0.
func nodeLine(n *target.Node) string {
	one := *n
	one.Children = nil
	s := &target.Snapshot{Compact: true, Root: &target.Node{Role: "document web", Children: []*target.Node{&one}}}
	text := s.Text()
	return text[strings.IndexByte(text, '\n')+1:]
}

// diffOp is one line of a diff: ' ' in both, '-' only in a, '+' only in b;
// bad when no known difference excuses it.
type diffOp struct {
	mark   byte
	text   string
	ai, bi int // the line's number in a and in b (1-based) where it is in them
	bad    bool
}

// maxEdits bounds the diff's work: its memory grows as the square of the
// edits (some 32 MB at 2000).
const maxEdits = 2000

// lineDiff is a shortest edit script from a to b (Myers' algorithm, after
// the common head and tail are set aside). Past maxEdits edits it gives
// up on the shortest and sets the rest of a against the rest of b, line
// by line.
func lineDiff(a, b []string, maxEdits int) []diffOp {
	var ops []diffOp
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		ops = append(ops, diffOp{mark: ' ', text: a[head], ai: head + 1, bi: head + 1})
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail] == b[len(b)-1-tail] {
		tail++
	}
	ma, mb := a[head:len(a)-tail], b[head:len(b)-tail]
	mid, ok := myers(ma, mb, maxEdits)
	if !ok { // line against line, so that the report starts where they part
		mid = nil
		for i := range max(len(ma), len(mb)) {
			switch {
			case i < len(ma) && i < len(mb) && ma[i] == mb[i]:
				mid = append(mid, diffOp{mark: ' ', text: ma[i], ai: i + 1, bi: i + 1})
				continue
			case i < len(ma):
				mid = append(mid, diffOp{mark: '-', text: ma[i], ai: i + 1})
			}
			if i < len(mb) {
				mid = append(mid, diffOp{mark: '+', text: mb[i], bi: i + 1})
			}
		}
	}
	for _, op := range mid {
		if op.ai > 0 {
			op.ai += head
		}
		if op.bi > 0 {
			op.bi += head
		}
		ops = append(ops, op)
	}
	for i := len(a) - tail; i < len(a); i++ {
		ops = append(ops, diffOp{mark: ' ', text: a[i], ai: i + 1, bi: i - len(a) + len(b) + 1})
	}
	return ops
}

// myers is the shortest edit script from a to b, or false when it takes
// more than max edits. Line numbers are 1-based, 0 where the line is not.
func myers(a, b []string, max int) ([]diffOp, bool) {
	n, m := len(a), len(b)
	off := n + m + 1
	v := make([]int, 2*off+1) // v[off+k]: the furthest x on diagonal k
	var trace [][]int         // trace[d]: v for k in [-d-1, d+1] before step d
	for d := 0; d <= n+m; d++ {
		if d > max {
			return nil, false
		}
		trace = append(trace, slices.Clone(v[off-d-1:off+d+2]))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1] // down: an insertion
			} else {
				x = v[off+k-1] + 1 // right: a deletion
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(a, b, trace), true
			}
		}
	}
	return backtrack(a, b, trace), true // not reached: n+m edits always do
}

func backtrack(a, b []string, trace [][]int) []diffOp {
	var rev []diffOp
	x, y := len(a), len(b)
	for d := len(trace) - 1; d >= 0; d-- {
		vd := trace[d]
		at := func(k int) int { return vd[k+d+1] }
		k := x - y
		var pk int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := at(pk)
		py := px - pk
		for x > px && y > py {
			rev = append(rev, diffOp{mark: ' ', text: a[x-1], ai: x, bi: y})
			x, y = x-1, y-1
		}
		if d == 0 {
			break
		}
		if x == px {
			rev = append(rev, diffOp{mark: '+', text: b[y-1], bi: y})
			y--
		} else {
			rev = append(rev, diffOp{mark: '-', text: a[x-1], ai: x})
			x--
		}
	}
	slices.Reverse(rev)
	return rev
}

// diffReport prints the bad lines of ops in hunks with two lines of
// context each side, the first limit of them; an excused difference
// among the context is marked '~'.
func diffReport(ops []diffOp, limit int) string {
	const around = 2
	show := make([]bool, len(ops))
	shown := 0
	for i, op := range ops {
		if !op.bad {
			continue
		}
		if shown++; shown > limit {
			break
		}
		for j := max(0, i-around); j <= min(len(ops)-1, i+around); j++ {
			show[j] = true
		}
	}
	var b strings.Builder
	printed := 0
	for i, op := range ops {
		if !show[i] {
			continue
		}
		if i == 0 || !show[i-1] {
			fmt.Fprintf(&b, "@@ ax line %d, page line %d @@\n", lineNo(ops, i, true), lineNo(ops, i, false))
		}
		if op.bad {
			if printed++; printed > limit {
				break
			}
		}
		mark := op.mark
		if mark != ' ' && !op.bad {
			mark = '~'
		}
		fmt.Fprintf(&b, "%c%s\n", mark, op.text)
	}
	if total := countBad(ops); total > limit {
		fmt.Fprintf(&b, "… and %d more differing lines\n", total-limit)
	}
	return b.String()
}

// lineNo is the number in a (or b) of the line at ops[i], or of the next
// line there is when ops[i] is not in it.
func lineNo(ops []diffOp, i int, inA bool) int {
	for ; i < len(ops); i++ {
		if inA && ops[i].ai > 0 {
			return ops[i].ai
		}
		if !inA && ops[i].bi > 0 {
			return ops[i].bi
		}
	}
	return 0
}

func countBad(ops []diffOp) int {
	n := 0
	for _, op := range ops {
		if op.bad {
			n++
		}
	}
	return n
}

// lineDiff finds the shortest edit script, line numbers and all, and the
// report shows the bad lines with their context.
func TestLineDiff(t *testing.T) {
	split := func(s string) []string { return strings.Fields(s) }
	for _, c := range []struct{ a, b, want string }{
		{"", "", ""},
		{"a b c", "a b c", "a b c"},
		{"a b c", "a c", "a -b c"},
		{"a c", "a b c", "a +b c"},
		{"a b c d", "a x c y", "a -b +x c -d +y"},
		{"a b", "", "-a -b"},
		{"", "a b", "+a +b"},
		{"x a b c", "a b c x", "-x a b c +x"},
	} {
		var got []string
		for _, op := range lineDiff(split(c.a), split(c.b), maxEdits) {
			got = append(got, strings.TrimSpace(string(op.mark)+op.text))
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("lineDiff(%q, %q) = %q, want %q", c.a, c.b, g, c.want)
		}
	}
	// Past the bound, line against line.
	var got []string
	for _, op := range lineDiff(split("h a b c t"), split("h x b y z t"), 1) {
		got = append(got, strings.TrimSpace(string(op.mark)+op.text))
	}
	if g, want := strings.Join(got, " "), "h -a +x b -c +y +z t"; g != want {
		t.Errorf("lineDiff past its bound = %q, want %q", g, want)
	}
	ops := lineDiff(split("a b c d e f g"), split("a b c X e f g"), maxEdits)
	for i := range ops {
		ops[i].bad = ops[i].mark != ' '
	}
	want := "@@ ax line 2, page line 2 @@\n b\n c\n-d\n+X\n e\n f\n"
	if got := diffReport(ops, 60); got != want {
		t.Errorf("report:\n%s\nwant:\n%s", got, want)
	}
}
