package main

import "github.com/vibespace/vibespace/internal/benchtable"

type metric = benchtable.Metric

// The goals, in the order of the table. Where an issue set a goal its
// figure and words are here (issue 37: the walk, the browser verbs, the
// check, the live panes); where none did, the goal is to be at least as
// fast as the peer, and the words say so.
var goals = func() []benchtable.Goal {
	var g []benchtable.Goal
	walk := func(app string, times float64, words string) {
		b := "BenchmarkWalk/" + app
		g = append(g, benchtable.Goal{
			Row:  "walk " + app + " vs pyatspi",
			Ours: metric{Pkg: "atspi", Bench: b, Unit: "ms/walk"}, Peer: metric{Pkg: "atspi", Bench: b, Unit: "pyatspi-ms"},
			Goal: 1 / times, Words: words,
		})
	}
	walk("gtk3-widget-factory", 15, "≥ 15× faster than pyatspi")
	walk("gtk3-demo", 15, "≥ 15× faster than pyatspi")
	walk("qt5-fixture", 5, "≥ 5× faster than pyatspi")
	walk("gtk4-fixture", 5, "≥ 5× faster than pyatspi")
	g = append(g, benchtable.Goal{
		Row:  "app CPU per walk, gtk3-widget-factory (ms)",
		Ours: metric{Pkg: "atspi", Bench: "BenchmarkWalk/gtk3-widget-factory", Unit: "app-cpu-ms"},
		Goal: 12, Words: "the application's own CPU per walk ≤ 12 ms",
	})

	const browser = "cmd/vibespace-browser"
	for _, v := range []struct {
		name  string
		goal  float64
		words string
	}{
		{"open_warm", 0.6, "≤ 0.6× agent-browser"},
		{"snapshot", 0.6, "≤ 0.6× agent-browser"},
		{"snapshot_i", 0.6, "≤ 0.6× agent-browser"},
		{"click", 0.6, "≤ 0.6× agent-browser, --no-verify"},
		{"fill", 0.6, "≤ 0.6× agent-browser, --no-verify"},
		{"click_checked", 0.8, "≤ 0.8× agent-browser with the check on"},
		{"fill_checked", 0.8, "≤ 0.8× agent-browser with the check on"},
		{"screenshot", 0.6, "≤ 0.6× agent-browser"},
		{"get_title", 0.6, "≤ 0.6× agent-browser"},
	} {
		b := "BenchmarkVersusAgentBrowser/" + v.name
		g = append(g, benchtable.Goal{
			Row:  "tab " + v.name + " vs agent-browser",
			Ours: metric{Pkg: browser, Bench: b, Unit: "ours-p50-ms"}, Peer: metric{Pkg: browser, Bench: b, Unit: "theirs-p50-ms"},
			Goal: v.goal, Words: v.words,
		})
	}
	// Issue 38's three tasks: it set no figure, so the goal is the
	// default one, no more than the peer (bytes read, the answer read).
	for _, task := range []string{"signup", "table", "docs"} {
		b := "BenchmarkTasksVersusAgentBrowser/" + task
		g = append(g, benchtable.Goal{
			Row:  "task " + task + ": bytes read vs agent-browser",
			Ours: metric{Pkg: browser, Bench: b, Unit: "ours-B"}, Peer: metric{Pkg: browser, Bench: b, Unit: "theirs-B"},
			Goal: 1, Words: "no more bytes than agent-browser for the same task, its answer read",
		})
	}
	for _, v := range []string{"click", "fill"} {
		b := "BenchmarkVerifyPage/" + v
		g = append(g, benchtable.Goal{
			Row:  "tab " + v + ": the check's cost",
			Ours: metric{Pkg: browser, Bench: b, Unit: "verify-p50-ms"}, Peer: metric{Pkg: browser, Bench: b, Unit: "no-verify-p50-ms"},
			Goal: 1.15, Words: "checked ≤ 1.15× unchecked (ours against ourselves)",
		})
	}

	const live = "rtc/livebench"
	row := func(name, unit string) metric {
		return metric{Pkg: live, Bench: "BenchmarkLiveView/" + name, Unit: unit}
	}
	for _, codec := range []string{"vp8", "h264"} {
		// Each road of a tab's pane: the tab's window on a private
		// display (tabwin, daemon/chromium's PaneWindow, the default where
		// Xvfb is installed) and the screencast (tab, the road without
		// Xvfb); on the heavy animated page (rows without a page's name)
		// and the light one.
		for _, road := range []string{"tabwin", "tab"} {
			for _, page := range []string{"", "light-"} {
				tab, ab := codec+"-"+road+"-"+page+"loopback", "agent-browser-tab-"+page+"loopback"
				name := "tab pane " + page + codec
				if road == "tab" {
					name = "tab pane (screencast) " + page + codec
				}
				g = append(g,
					benchtable.Goal{Row: name + " fps vs agent-browser", Ours: row(tab, "frames/s"), Peer: row(ab, "frames/s"),
						AtLeast: true, Goal: 1, Words: "as many frames as agent-browser's stream"},
					benchtable.Goal{Row: name + " g2g p50 vs agent-browser", Ours: row(tab, "g2g-p50-ms"), Peer: row(ab, "g2g-p50-ms"),
						Goal: 1, Words: "frames as fast as agent-browser's stream"},
					benchtable.Goal{Row: name + " input→frame vs agent-browser", Ours: row(tab, "input-p50-ms"), Peer: row(ab, "input-p50-ms"),
						Goal: 1, Words: "input seen as fast as through agent-browser's stream"},
				)
			}
		}
		win, jpeg := codec+"-window-loopback", "jpegws-window-loopback"
		g = append(g,
			benchtable.Goal{Row: "window pane " + codec + " g2g p50 vs JPEG-WS", Ours: row(win, "g2g-p50-ms"), Peer: row(jpeg, "g2g-p50-ms"),
				Goal: 0.3, Words: "≤ 0.3× JPEG over WebSocket"},
			benchtable.Goal{Row: "window pane " + codec + " input→frame vs JPEG-WS", Ours: row(win, "input-p50-ms"), Peer: row(jpeg, "input-p50-ms"),
				Goal: 0.4, Words: "≤ 0.4× JPEG over WebSocket"},
		)
	}

	for _, b := range []string{"BenchmarkKey", "BenchmarkType/ascii100", "BenchmarkType/unicode100"} {
		g = append(g, benchtable.Goal{
			Row:  "x11 " + b[len("Benchmark"):] + " vs xdotool",
			Ours: metric{Pkg: "x11", Bench: b, Unit: "ms/op-vibespace"}, Peer: metric{Pkg: "x11", Bench: b, Unit: "ms/op-xdotool"},
			Goal: 1, Words: "at least as fast as xdotool (no issue set a figure)",
		})
	}
	return g
}()
