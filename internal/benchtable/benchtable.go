// Package benchtable reads the output of `go test -bench` (every package's,
// in one stream) and judges it against a list of goals: each goal is one row
// of the table `make bench` ends with — ours ÷ the peer's figure measured in
// the same run, the goal, met or not. A figure a run did not produce (a
// benchmark skipped, failed or renamed) is a row "not measured", never met.
package benchtable

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Metric names one figure of one benchmark: the package's import path
// relative to the module (as `go test` prints it after "pkg:", with the
// module's own prefix cut), the benchmark's full name without the
// GOMAXPROCS suffix, and the unit it was reported with (b.ReportMetric's
// unit, or ns/op).
type Metric struct {
	Pkg, Bench, Unit string
}

func (m Metric) String() string { return m.Pkg + " " + m.Bench + " " + m.Unit }

// Goal is one row. Ours is divided by Peer when Peer is set (Peer.Unit
// empty means no peer: Ours is judged as it is). The row is met when the
// figure is at most Goal (AtLeast false: times, bytes, a cost) or at least
// Goal (AtLeast true: frames per second).
type Goal struct {
	Row     string
	Ours    Metric
	Peer    Metric
	AtLeast bool
	Goal    float64
	// Words says the goal as the issue that set it says it ("≥ 15× faster
	// than pyatspi"); the table prints it beside the number it checks.
	Words string
}

// Results is every figure of one run, by metric: a figure reported more
// than once (-count, or a benchmark that reports in each of its runs) keeps
// every value; the table uses their median.
type Results map[Metric][]float64

// Parse reads `go test -bench` output. Lines it does not know are skipped:
// the stream holds test logs, PASS/ok lines and tables printed by the
// benchmarks themselves.
func Parse(r io.Reader, module string) (Results, error) {
	out := Results{}
	pkg := ""
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if p, ok := strings.CutPrefix(line, "pkg: "); ok {
			pkg = strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(p), module), "/")
			continue
		}
		if !strings.HasPrefix(line, "Benchmark") {
			continue
		}
		f := strings.Fields(line)
		// name, iterations, then value-unit pairs.
		if len(f) < 4 || len(f)%2 != 0 {
			continue
		}
		if _, err := strconv.ParseInt(f[1], 10, 64); err != nil {
			continue
		}
		name := trimProcs(f[0])
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			m := Metric{Pkg: pkg, Bench: name, Unit: f[i+1]}
			out[m] = append(out[m], v)
		}
	}
	return out, sc.Err()
}

// trimProcs cuts the "-N" that `go test` appends to a benchmark's name when
// GOMAXPROCS is above one.
func trimProcs(name string) string {
	i := strings.LastIndexByte(name, '-')
	if i < 0 || i == len(name)-1 {
		return name
	}
	if _, err := strconv.Atoi(name[i+1:]); err != nil {
		return name
	}
	return name[:i]
}

// value is the median of a metric's figures, and whether the run had any.
func (r Results) value(m Metric) (float64, bool) {
	vs := slices.Clone(r[m])
	if len(vs) == 0 {
		return 0, false
	}
	slices.Sort(vs)
	mid := len(vs) / 2
	if len(vs)%2 == 1 {
		return vs[mid], true
	}
	return (vs[mid-1] + vs[mid]) / 2, true
}

// Verdict is one goal judged.
type Verdict struct {
	Goal
	// Of, Against and Figure are ours, the peer's and what is judged
	// (ours ÷ the peer's, or ours alone when there is no peer).
	Of, Against, Figure float64
	// Missing names the metric the run did not produce ("" when measured).
	Missing string
	Met     bool
}

// Judge judges every goal against one run's results.
func Judge(r Results, goals []Goal) []Verdict {
	out := make([]Verdict, 0, len(goals))
	for _, g := range goals {
		v := Verdict{Goal: g}
		ours, ok := r.value(g.Ours)
		if !ok {
			v.Missing = g.Ours.String()
			out = append(out, v)
			continue
		}
		v.Of, v.Figure = ours, ours
		if g.Peer.Unit != "" {
			peer, ok := r.value(g.Peer)
			if !ok || peer == 0 {
				v.Missing = g.Peer.String()
				out = append(out, v)
				continue
			}
			v.Against, v.Figure = peer, ours/peer
		}
		if math.IsNaN(v.Figure) || math.IsInf(v.Figure, 0) {
			v.Missing = g.Ours.String() + " (not a number)"
		} else if g.AtLeast {
			v.Met = v.Figure >= g.Goal
		} else {
			v.Met = v.Figure <= g.Goal
		}
		out = append(out, v)
	}
	return out
}

// Write prints the verdicts as one table and a last line counting them.
func Write(w io.Writer, vs []Verdict) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%-44s %10s %10s %9s %9s  %-5s %s\n", "row", "ours", "peer", "ours÷peer", "goal", "met", "the goal in words")
	met := 0
	for _, v := range vs {
		op := "≤"
		if v.AtLeast {
			op = "≥"
		}
		goal := op + " " + short(v.Goal.Goal)
		if v.Missing != "" {
			fmt.Fprintf(bw, "%-44s %10s %10s %9s %9s  %-5s %s — not measured: no %s in this run\n", v.Row, "—", "—", "—", goal, "no", v.Words, v.Missing)
			continue
		}
		peer, ratio := "—", short(v.Figure)
		if v.Goal.Peer.Unit != "" {
			peer = short(v.Against)
		} else {
			ratio = "—"
		}
		mark := "no"
		if v.Met {
			mark, met = "yes", met+1
		}
		fmt.Fprintf(bw, "%-44s %10s %10s %9s %9s  %-5s %s\n", v.Row, short(v.Of), peer, ratio, goal, mark, v.Words)
	}
	fmt.Fprintf(bw, "%d of %d goals met\n", met, len(vs))
	return bw.Flush()
}

// short prints a figure with three significant digits.
func short(f float64) string {
	return strconv.FormatFloat(f, 'g', 3, 64)
}
