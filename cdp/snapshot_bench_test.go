package cdp_test

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/domsnapshot"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/target"
)

// BenchmarkSnapshotSteps breaks a tab's snapshot of the bench page into its
// steps: the round-trip floor, the getFullAXTree call (reply discarded, and
// kept raw: its size in bytes), decoding the reply, building the snapshot,
// minting refs, the interactive view and the text. Each reports its median.
func BenchmarkSnapshotSteps(b *testing.B) {
	tab := benchTab(b)
	ctx := ctxT(b)
	sess := tab.Session()
	params := &accessibility.GetFullAXTreeParams{}
	// The first tree of a document costs more (BenchmarkSnapshotAXEnabled
	// measures it): take it before the steps.
	if err := sess.Call(ctx, accessibility.CommandGetFullAXTree, params, nil); err != nil {
		b.Fatal(err)
	}
	b.Run("title", func(b *testing.B) {
		loopP50(b, func() error { _, err := tab.Title(ctx); return err })
	})
	b.Run("ax-call-discard", func(b *testing.B) {
		cpu := browserCPU(b)
		loopP50(b, func() error { return sess.Call(ctx, accessibility.CommandGetFullAXTree, params, nil) })
		cpu.report(b)
	})
	// The script-clickable and frames pass (clickable.go): one capture
	// with the cursor style, reply discarded.
	b.Run("dom-capture-discard", func(b *testing.B) {
		cpu := browserCPU(b)
		capture := &domsnapshot.CaptureSnapshotParams{ComputedStyles: []string{"cursor"}}
		loopP50(b, func() error { return sess.Call(ctx, domsnapshot.CommandCaptureSnapshot, capture, nil) })
		cpu.report(b)
	})
	var raw jsonv2.Value
	b.Run("ax-call-raw", func(b *testing.B) {
		cpu := browserCPU(b)
		defer cpu.report(b)
		loopP50(b, func() error {
			raw = nil
			return sess.Call(ctx, accessibility.CommandGetFullAXTree, params, &raw)
		})
		b.ReportMetric(float64(len(raw)), "bytes")
	})
	nodes, err := cdp.DecodeAXTree(raw)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%d AX nodes, %d bytes", len(nodes), len(raw))
	if f := os.Getenv("AXDUMP"); f != "" { // a reply for TestDecodeAXTreeRecorded
		if err := os.WriteFile(f, raw, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("ref-decode+build", func(b *testing.B) {
		loopP50(b, func() error { _, err := cdp.RefSnapshot(raw); return err })
	})
	b.Run("decode+build", func(b *testing.B) {
		loopP50(b, func() error {
			nodes, err := cdp.DecodeAXTree(raw)
			cdp.BuildSnapshot(nodes, 1)
			return err
		})
	})
	b.Run("decode", func(b *testing.B) {
		loopP50(b, func() error { _, err := cdp.DecodeAXTree(raw); return err })
	})
	b.Run("scan", func(b *testing.B) {
		loopP50(b, func() error { _, err := cdp.ScanAXTree(raw); return err })
	})
	b.Run("validate+copy", func(b *testing.B) {
		loopP50(b, func() error { var v jsonv2.Value; return jsonv2.Unmarshal(raw, &v) })
	})
	b.Run("build", func(b *testing.B) {
		loopP50(b, func() error { cdp.BuildSnapshot(nodes, 1); return nil })
	})
	s := cdp.BuildSnapshot(nodes, 1)
	refs := target.NewRefTable()
	b.Run("refs", func(b *testing.B) {
		loopP50(b, func() error { cdp.AssignRefs(refs, s); return nil })
	})
	b.Run("interactive", func(b *testing.B) {
		loopP50(b, func() error { s.InteractiveView(); return nil })
	})
	b.Run("text", func(b *testing.B) {
		loopP50(b, func() error { _ = s.Text(); return nil })
	})
	iv := s.InteractiveView()
	b.Run("text-i", func(b *testing.B) {
		loopP50(b, func() error { _ = iv.Text(); return nil })
	})
	for _, interactive := range []bool{false, true} {
		name := "snapshot"
		if interactive {
			name += "-i"
		}
		b.Run(name, func(b *testing.B) {
			loopP50(b, func() error { _, err := tab.Snapshot(ctx, refsOf(tab), interactive); return err })
		})
	}
	// With the Accessibility domain enabled on the session.
	if err := sess.Call(ctx, accessibility.CommandEnable, nil, nil); err != nil {
		b.Fatal(err)
	}
	b.Run("enabled/ax-call-discard", func(b *testing.B) {
		cpu := browserCPU(b)
		loopP50(b, func() error { return sess.Call(ctx, accessibility.CommandGetFullAXTree, params, nil) })
		cpu.report(b)
	})
	b.Run("enabled/snapshot", func(b *testing.B) {
		loopP50(b, func() error { _, err := tab.Snapshot(ctx, refsOf(tab), false); return err })
	})
	if err := sess.Call(ctx, accessibility.CommandDisable, nil, nil); err != nil {
		b.Fatal(err)
	}
	b.Run("disabled-again/ax-call-discard", func(b *testing.B) {
		loopP50(b, func() error { return sess.Call(ctx, accessibility.CommandGetFullAXTree, params, nil) })
	})
}

// cpuMark is the CPU time the shared browser's processes had used, by kind
// (browser, renderer, other), at a moment.
type cpuMark struct {
	pid int
	at  map[string]float64
}

func browserCPU(b *testing.B) cpuMark {
	pid := sharedBrowser(b).PID()
	return cpuMark{pid: pid, at: cpuByKind(pid)}
}

// report adds each kind's CPU ms per iteration since the mark.
func (m cpuMark) report(b *testing.B) {
	now := cpuByKind(m.pid)
	for k, v := range now {
		b.ReportMetric((v-m.at[k])/float64(b.N), k+"-cpu-ms/op")
	}
}

func cpuByKind(pgid int) map[string]float64 {
	out := map[string]float64{}
	for _, pid := range cdp.GroupProcesses(pgid) {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		kind := "browser"
		if i := bytes.Index(cmd, []byte("--type=")); i >= 0 {
			kind = string(cmd[i+7:])
			kind = kind[:strings.IndexAny(kind, "\x00 ")]
			if kind != "renderer" {
				kind = "other"
			}
		}
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+2:]))
		ut, _ := strconv.ParseFloat(f[11], 64)
		st, _ := strconv.ParseFloat(f[12], 64)
		out[kind] += (ut + st) * 10 // clock ticks of 10 ms
	}
	return out
}

// BenchmarkSnapshotAXEnabled compares getFullAXTree on three tabs of the
// same page, one plain, one with the Accessibility domain enabled on its
// session and one with the DOM domain enabled, alternating call by call;
// and the first call after a navigation, and the navigation itself, on
// each.
func BenchmarkSnapshotAXEnabled(b *testing.B) {
	plain := benchTab(b)
	ctx := ctxT(b)
	u, err := plain.URL(ctx)
	if err != nil {
		b.Fatal(err)
	}
	enabled, err := newContext(b).NewTab(ctx, u)
	if err != nil {
		b.Fatal(err)
	}
	if err := enabled.Session().Call(ctx, accessibility.CommandEnable, nil, nil); err != nil {
		b.Fatal(err)
	}
	withDOM, err := newContext(b).NewTab(ctx, u)
	if err != nil {
		b.Fatal(err)
	}
	if err := withDOM.Session().Call(ctx, dom.CommandEnable, &dom.EnableParams{}, nil); err != nil {
		b.Fatal(err)
	}
	params := &accessibility.GetFullAXTreeParams{}
	tabs := []*cdp.Tab{plain, enabled, withDOM}
	names := []string{"plain", "enabled", "dom"}
	call := func(t *cdp.Tab) error { return t.Session().Call(ctx, accessibility.CommandGetFullAXTree, params, nil) }
	for _, t := range tabs { // the first tree of each document
		if err := call(t); err != nil {
			b.Fatal(err)
		}
	}
	alternate := func(b *testing.B, step func(t *cdp.Tab) error) {
		ds := make([][]time.Duration, len(tabs))
		for b.Loop() {
			for i, t := range tabs {
				start := time.Now()
				if err := step(t); err != nil {
					b.Fatal(err)
				}
				ds[i] = append(ds[i], time.Since(start))
			}
		}
		for i, d := range ds {
			slices.Sort(d)
			b.ReportMetric(float64(d[len(d)/2])/1e6, names[i]+"-p50-ms")
		}
	}
	b.Run("repeat", func(b *testing.B) {
		ctx = ctxT(b) // each part gets its own minute
		alternate(b, call)
	})
	b.Run("navigate", func(b *testing.B) {
		ctx = ctxT(b)
		alternate(b, func(t *cdp.Tab) error { return t.Navigate(ctx, u) })
	})
	b.Run("first-after-navigate", func(b *testing.B) {
		ctx = ctxT(b)
		ds := make([][]time.Duration, len(tabs))
		for b.Loop() {
			for i, t := range tabs {
				if err := t.Navigate(ctx, u); err != nil {
					b.Fatal(err)
				}
				start := time.Now()
				if err := call(t); err != nil {
					b.Fatal(err)
				}
				ds[i] = append(ds[i], time.Since(start))
			}
		}
		for i, d := range ds {
			slices.Sort(d)
			b.ReportMetric(float64(d[len(d)/2])/1e6, names[i]+"-p50-ms")
		}
	})
}

// BenchmarkSnapshotOldNew alternates, call by call on one tab, the snapshot
// as it was built before the decoder by hand (cdp.Tab.RefTabSnapshot) and as
// it is, text included as in BenchmarkVerbs: the median wall time of each,
// and the CPU time this process spent on each (decoding and building run
// here; the browser's share is the same for both).
func BenchmarkSnapshotOldNew(b *testing.B) {
	tab := benchTab(b)
	for _, interactive := range []bool{false, true} {
		b.Run(fmt.Sprintf("i=%v", interactive), func(b *testing.B) {
			ctx := ctxT(b)
			ways := []func() (*target.Snapshot, error){
				func() (*target.Snapshot, error) { return tab.RefTabSnapshot(ctx, refsOf(tab), interactive) },
				func() (*target.Snapshot, error) { return tab.Snapshot(ctx, refsOf(tab), interactive) },
			}
			names := []string{"old", "new"}
			wall := make([][]time.Duration, 2)
			cpu := make([]time.Duration, 2)
			texts := make([]string, 2)
			for b.Loop() {
				for i, way := range ways {
					c0, t0 := selfCPU(), time.Now()
					s, err := way()
					if err != nil {
						b.Fatal(err)
					}
					texts[i] = s.Text()
					wall[i] = append(wall[i], time.Since(t0))
					cpu[i] += selfCPU() - c0
				}
				if texts[0] != texts[1] {
					b.Fatalf("the snapshots differ:\n%s\n---\n%s", texts[0], texts[1])
				}
			}
			for i, d := range wall {
				slices.Sort(d)
				b.ReportMetric(float64(d[len(d)/2])/1e6, names[i]+"-p50-ms")
				b.ReportMetric(float64(cpu[i])/1e6/float64(len(d)), names[i]+"-cpu-ms/op")
			}
		})
	}
}

// selfCPU is the CPU time this process has used, all threads.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSnapshotCost is a whole tab snapshot of the bench page (the
// tree, the frames and script-clickable pass, the build, refs, the
// interactive view and its text), median wall time per call and the
// browser's CPU: the figure issue 15's page pass is measured by, before
// and after.
func BenchmarkSnapshotCost(b *testing.B) {
	tab := benchTab(b)
	if _, err := tab.Snapshot(ctxT(b), refsOf(tab), false); err != nil { // the first tree costs more
		b.Fatal(err)
	}
	for _, interactive := range []bool{false, true} {
		b.Run(fmt.Sprintf("i=%v", interactive), func(b *testing.B) {
			ctx := ctxT(b)
			cpu := browserCPU(b)
			defer cpu.report(b)
			loopP50(b, func() error {
				s, err := tab.Snapshot(ctx, refsOf(tab), interactive)
				if err == nil {
					_ = s.Text()
				}
				return err
			})
		})
	}
}
