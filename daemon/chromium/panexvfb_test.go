package chromium

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/xvfb"
)

// TestChoosePane: the serve flag's values. "" (the default) and auto are
// the window road where Xvfb is installed, else the screencast; an
// unknown road is an error naming the roads.
func TestChoosePane(t *testing.T) {
	_, noXvfb := exec.LookPath("Xvfb")
	road, why, err := ChoosePane("auto")
	want := PaneWindow
	if noXvfb != nil {
		want = PaneScreencast
	}
	if err != nil || road != want || !strings.Contains(why, "Xvfb") {
		t.Errorf(`ChoosePane("auto") = %q, %q, %v; want %s (Xvfb: %v)`, road, why, err, want, noXvfb)
	}
	if r, why, err := ChoosePane(""); r != want || err != nil || !strings.Contains(why, "default") || !strings.Contains(why, "Xvfb") {
		t.Errorf(`ChoosePane("") = %q, %q, %v; want the default, auto's road %s`, r, why, err, want)
	}
	if r, _, err := ChoosePane(PaneScreencast); r != PaneScreencast || err != nil {
		t.Errorf("ChoosePane(screencast) = %q, %v", r, err)
	}
	if r, _, err := ChoosePane(PaneWindow); (r != PaneWindow || err != nil) && noXvfb == nil {
		t.Errorf("ChoosePane(window) = %q, %v with Xvfb installed", r, err)
	}
	// Doctor says the road chosen, and why.
	for _, choice := range []string{"", "auto", PaneScreencast} {
		road, why, _ := ChoosePane(choice)
		p := New(Options{TabPane: road, PaneXvfb: road == PaneWindow, PaneWhy: why})
		row := paneRow(t.Context(), p)
		p.Close()
		if !strings.HasPrefix(row, road+": ") || !strings.Contains(row, why) {
			t.Errorf("doctor's tab pane row for %s: %q, want %s and why (%s)", choice, row, road, why)
		}
	}
	if _, _, err := ChoosePane("pixels"); err == nil || !strings.Contains(err.Error(), PaneWindow) || !strings.Contains(err.Error(), PaneScreencast) {
		t.Errorf("ChoosePane(pixels): %v, want an error naming the roads", err)
	}
}

// TestPaneXvfb: the window road as the daemon serves it (PaneXvfb). The
// shared browser runs headed on a private Xvfb of its own, which lists
// none of its windows as targets, opens no port, and is stopped with the
// browser (closed, and crashed). A tab there is the size a headless tab
// is: the same page in a headless pool's tab has the same viewport (the
// page's own innerWidth/innerHeight, scrollbar included: the page is
// taller than it), the same screenshot size (the PNG's) and the same
// interactive snapshot. Its pane is its window, of the viewport's size,
// wholly the page's colour.
func TestPaneXvfb(t *testing.T) {
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		var b strings.Builder
		for i := range 30 * len(r.URL.Query()["items"]) {
			fmt.Fprintf(&b, `<button style="display:block;height:40px">Item %d</button>`, i)
		}
		fmt.Fprintf(w, `<!doctype html><title>Sized</title><body style="margin:0;background:#3060c0">%s</body>`, b.String())
	}))
	defer page.Close()
	type look struct {
		viewport, shot, snap string
	}
	see := func(h *harness) look {
		h.ok(t, daemon.Request{Verb: "browser.open", Session: "kim"}.With(args.OpenURL{URL: page.URL + "?items"}))
		vp := h.ok(t, daemon.Request{Verb: "browser.eval", Session: "kim"}.With(args.Eval{Expr: "[innerWidth, innerHeight, devicePixelRatio].join('x')"}))
		shot := h.ok(t, daemon.Request{Verb: "browser.screenshot", Session: "kim"})
		img, err := png.DecodeConfig(bytes.NewReader(shot.PNG))
		if err != nil {
			t.Fatalf("the screenshot is no PNG: %v", err)
		}
		snap := h.ok(t, daemon.Request{Verb: "browser.snapshot", Session: "kim"}.With(args.Snapshot{Observe: args.Observe{Interactive: true}}))
		return look{string(vp.Value), fmt.Sprintf("%dx%d", img.Width, img.Height), snap.Text}
	}
	headless := startHarness(t, "", Options{IdleStop: -1}, nil)
	want := see(headless)
	headless.close()

	h := startHarness(t, "", Options{IdleStop: -1, TabPane: PaneWindow, PaneXvfb: true}, nil)
	got := see(h)
	t.Logf("headless: viewport %s, screenshot %s; pane browser: viewport %s, screenshot %s", want.viewport, want.shot, got.viewport, got.shot)
	if got.viewport != want.viewport || got.shot != want.shot || want.shot == "0x0" {
		t.Errorf("a pane browser's tab: viewport %s, screenshot %s; a headless tab's: %s, %s (want the same)", got.viewport, got.shot, want.viewport, want.shot)
	}
	if got.snap != want.snap {
		t.Errorf("the interactive snapshots differ:\npane browser:\n%s\nheadless:\n%s", got.snap, want.snap)
	}

	h.pool.mu.Lock()
	br := h.pool.browsers[""]
	h.pool.mu.Unlock()
	if br == nil || br.pane == nil || br.b.Display() != br.pane.Display || br.b.Display() == "" {
		t.Fatalf("the shared browser does not run on a private display: %+v", br)
	}
	xpids := xvfb.MarkedPIDs(br.pane.ID)
	if len(xpids) == 0 {
		t.Fatal("no process of the pane display runs")
	}
	for _, p := range xpids {
		if l := cdp.GroupListeners(p); len(l) > 0 {
			t.Errorf("the pane display's %s listens on TCP: %v", xvfb.ProcName(p), l)
		}
	}
	if l := cdp.GroupListeners(br.b.PID()); len(l) > 0 {
		t.Errorf("the pane browser listens on TCP: %v", l)
	}
	// Its windows are nobody's targets.
	for _, s := range []string{"kim", "lee"} {
		for _, ti := range h.ok(t, daemon.Request{Verb: "list", Session: s}).Targets {
			if ti.ID.Kind() != target.KindTab {
				t.Errorf("%s's list shows %s %q: only tabs were opened, and the pane display's windows are no targets", s, ti.ID, ti.Title)
			}
		}
	}

	// Its pane is its window.
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	bc, release, err := h.pool.Context(ctx, kind.BrowserKey{Session: "lee", Owner: "lee"})
	if err != nil {
		t.Fatal(err)
	}
	tb, err := bc.NewTab(ctx)
	release()
	if err != nil {
		t.Fatal(err)
	}
	if err := tb.(kind.Navigator).Navigate(ctx, page.URL); err != nil {
		t.Fatal(err)
	}
	src, err := tb.Frames(ctx, kind.FrameOptions{FPS: 30})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := src.(*tabWindow); !ok {
		t.Fatalf("the tab's pane is a %T, not its window", src)
	}
	f := nextColour(t, ctx, src, [3]byte{0x30, 0x60, 0xc0})
	if fs := fmt.Sprintf("%dx%d", f.Width, f.Height); fs != want.shot {
		t.Errorf("the pane is %s, a headless tab's screenshot %s", fs, want.shot)
	}
	src.Close()

	// A crash of the browser takes its display along.
	syscall.Kill(-br.b.PID(), syscall.SIGKILL)
	waitUntil(t, t.Context(), "the crashed browser's display stopped", func() (bool, string) {
		left := xvfb.MarkedPIDs(br.pane.ID)
		return len(left) == 0, fmt.Sprintf("left: %v", left)
	})
	// The next use starts both again; closing the pool stops both.
	h.ok(t, daemon.Request{Verb: "browser.open", Session: "kim"}.With(args.OpenURL{URL: page.URL}))
	h.pool.mu.Lock()
	br = h.pool.browsers[""]
	h.pool.mu.Unlock()
	if br == nil || br.pane == nil {
		t.Fatal("the shared browser started again without its display")
	}
	pid, id := br.b.PID(), br.pane.ID
	if len(xvfb.MarkedPIDs(id)) == 0 {
		t.Fatal("the new display does not run")
	}
	h.close()
	if left := append(cdp.GroupProcesses(pid), xvfb.MarkedPIDs(id)...); len(left) > 0 {
		t.Errorf("closed, the pool left processes %v", left)
	}
}

// TestPaneAhead: the window road's browser started ahead (Pool.Ahead, what
// the daemon's serve does at its start). A verb that asks meanwhile waits
// for that start and starts no browser of its own: one browser, the one
// started ahead, headed on its private display, is the first session's.
// Doctor's tab pane row says it is starting, then running. Unused, it is
// kept past the idle stop; once a session has used it and holds nothing,
// it is stopped idle as any shared browser.
func TestPaneAhead(t *testing.T) {
	needChromium(t)
	logs := &logCapture{}
	log := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	road, why, err := ChoosePane(PaneWindow)
	if err != nil {
		t.Fatal(err)
	}
	p := New(Options{StartTimeout: 2 * time.Minute, IdleStop: -1, TabPane: road, PaneXvfb: true, PaneWhy: why, Logger: log})
	defer p.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	row := func() string { return paneRow(ctx, p) }
	if r := row(); strings.Contains(r, "ahead") {
		t.Errorf("doctor's tab pane row speaks of a start ahead before any: %q", r)
	}
	ahead := p.Ahead(ctx)
	if r := row(); !strings.Contains(r, AheadStarting) {
		t.Errorf("doctor's tab pane row once Ahead returned: %q, want %q", r, AheadStarting)
	}
	// A verb meanwhile: it waits for the start ahead, and starts nothing.
	bc, release, err := p.Context(ctx, kind.BrowserKey{Session: "kim", Owner: "kim"})
	if err != nil {
		t.Fatal(err)
	}
	release()
	if err := <-ahead; err != nil {
		t.Fatalf("Ahead: %v", err)
	}
	if n := len(logs.records("INFO", "browser started")); n != 1 {
		t.Errorf("%d browsers started, want the one started ahead", n)
	}
	p.mu.Lock()
	br := p.browsers[""]
	p.mu.Unlock()
	if br == nil || !br.headed || br.pane == nil || !br.ahead {
		t.Fatalf("the shared browser is not the headed one started ahead: %+v", br)
	}
	if r := row(); !strings.Contains(r, AheadRunning) || !strings.Contains(r, fmt.Sprint(br.b.PID())) {
		t.Errorf("doctor's tab pane row: %q, want %q and its pid %d", r, AheadRunning, br.b.PID())
	}
	if _, err := bc.NewTab(ctx); err != nil {
		t.Fatal(err)
	}

	// A second pool, its browser started ahead and unused: kept past its
	// idle stop (the idle loop says so).
	logs2 := &logCapture{}
	p2 := New(Options{StartTimeout: 2 * time.Minute, IdleStop: 200 * time.Millisecond, TabPane: road, PaneXvfb: true, PaneWhy: why,
		Logger: slog.New(slog.NewJSONHandler(logs2, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	defer p2.Close()
	if err := <-p2.Ahead(ctx); err != nil {
		t.Fatal(err)
	}
	p2.mu.Lock()
	br2 := p2.browsers[""]
	p2.mu.Unlock()
	waitUntil(t, ctx, "the idle loop to keep the unused browser twice", func() (bool, string) {
		n := len(logs2.records("DEBUG", aheadKept))
		return n >= 2, fmt.Sprintf("%d times", n)
	})
	if !br2.alive() || len(logs2.records("INFO", "stopping the idle shared browser: none of its contexts holds a tab or a cookie")) > 0 {
		t.Fatal("the browser started ahead was stopped idle before any session used it")
	}
	// Used once, holding nothing: stopped idle.
	bc2, release2, err := p2.Context(ctx, kind.BrowserKey{Session: "lee", Owner: "lee"})
	if err != nil {
		t.Fatal(err)
	}
	_ = bc2
	release2()
	waitUntil(t, ctx, "the used, empty browser to stop idle", func() (bool, string) {
		return !br2.alive(), "still running"
	})
	if r := paneRow(ctx, p2); !strings.Contains(r, "not running") {
		t.Errorf("doctor's tab pane row once the browser stopped idle: %q", r)
	}
}

// paneRow is the detail of p's doctor row "tab pane".
func paneRow(ctx context.Context, p *Pool) string {
	for _, c := range p.Doctor(ctx) {
		if c.Name == "tab pane" {
			return c.Detail
		}
	}
	return ""
}
