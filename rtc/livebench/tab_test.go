package livebench

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/emulation"
	cdptarget "github.com/chromedp/cdproto/target"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/rtc"
	"github.com/vibespace/vibespace/testenv"
)

// The content tab's viewport, in CSS pixels at device scale 1. It matches
// agent-browser's: startAgentBrowser runs `set viewport 1280 720`, which
// agent-browser sends as Emulation.setDeviceMetricsOverride (its stream is
// 1280×720), and our tab gets the same override, so both tab rows stream
// the same 1280×720 picture of the same page. The window-size flag alone
// would not do it: headless Chromium here keeps room for a browser UI it
// does not draw (--window-size=1280,720 gives a tab a 1280×633 viewport;
// openContentTab logs it).
const tabWidth, tabHeight = 1280, 720

// contentTabFlags are the flags of the window rows' content browser
// (openContentWindow) that apply to a headless one: --window-position has
// no window manager to obey. cdp.Launch adds --headless=new and its own
// base flags.
var contentTabFlags = []string{
	"--window-size=1280,720", "--force-device-scale-factor=1",
	"--disable-background-timer-throttling", "--disable-renderer-backgrounding", "--disable-backgrounding-occluded-windows",
}

// openContentTab starts a headless Chromium of ours showing url in a tab of
// a fresh context, with agent-browser's viewport. The browser is closed
// (its process group killed and reaped) when tb ends, if not before.
func openContentTab(tb testing.TB, ctx context.Context, url string) (*cdp.Browser, *cdp.Tab) {
	tb.Helper()
	br, err := cdp.Launch(ctx, cdp.Options{Headless: true, UserDataDir: tb.TempDir(), ExtraFlags: contentTabFlags, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		tb.Fatalf("content tab browser: %v", err)
	}
	tb.Cleanup(func() { _ = br.Close() })
	c, err := br.NewContext(ctx)
	if err != nil {
		tb.Fatalf("content tab browser: %v", err)
	}
	tab, err := c.NewTab(ctx, "")
	if err != nil {
		tb.Fatalf("content tab: %v", err)
	}
	var before viewport
	if err := tab.EvalInto(ctx, viewportJS, &before); err != nil {
		tb.Fatalf("content tab: %v", err)
	}
	if err := tab.Session().Call(ctx, emulation.CommandSetDeviceMetricsOverride, &emulation.SetDeviceMetricsOverrideParams{
		Width: tabWidth, Height: tabHeight, DeviceScaleFactor: 1,
	}, nil); err != nil {
		tb.Fatalf("content tab viewport: %v", err)
	}
	if err := tab.Navigate(ctx, url); err != nil {
		tb.Fatalf("content tab: %v", err)
	}
	var vp viewport
	if err := tab.EvalInto(ctx, viewportJS, &vp); err != nil {
		tb.Fatalf("content tab: %v", err)
	}
	if vp.W != tabWidth || vp.H != tabHeight || vp.DPR != 1 {
		tb.Fatalf("content tab viewport %gx%g at %g dppx, want %dx%d at 1", vp.W, vp.H, vp.DPR, tabWidth, tabHeight)
	}
	tb.Logf("content tab %s: viewport %gx%g at %g dppx (%gx%g before the override), browser pid %d", tab.ID(), vp.W, vp.H, vp.DPR, before.W, before.H, br.PID())
	return br, tab
}

// viewport is what viewportJS answers.
type viewport struct{ W, H, DPR float64 }

const viewportJS = "({W: window.innerWidth, H: window.innerHeight, DPR: window.devicePixelRatio})"

// tabPoint maps a point of the tab's picture (picW×picH, the pixels the
// viewer clicks in) to the viewport's CSS pixels (vpW×vpH), at the centre
// of the picture pixel, as the daemon does for a tab's live pane
// (daemon/live_tab.go). False when the point is outside the picture or a
// size is unknown.
func tabPoint(ev rtc.InputEvent, picW, picH int, vpW, vpH float64) (cdp.Point, bool) {
	if picW <= 0 || picH <= 0 || vpW <= 0 || vpH <= 0 {
		return cdp.Point{}, false
	}
	if ev.X < 0 || ev.Y < 0 || ev.X >= float64(picW) || ev.Y >= float64(picH) {
		return cdp.Point{}, false
	}
	return cdp.Point{X: (ev.X + 0.5) * vpW / float64(picW), Y: (ev.Y + 0.5) * vpH / float64(picH)}, true
}

// tabClicker delivers the viewer's clicks to the tab as CDP clicks: the
// point is mapped from the picture the hub encodes (its pipeline's size) to
// the viewport that window.innerWidth/innerHeight give, read at each click
// as the daemon does. Failures are logged to tb, not fatal: a lost click
// shows as an input not seen.
func tabClicker(tb testing.TB, ctx context.Context, tab *cdp.Tab, key string) func(*rtc.Hub, rtc.InputEvent) {
	return func(hub *rtc.Hub, ev rtc.InputEvent) {
		if ev.Type != rtc.InputClick || ev.Button != 1 {
			return
		}
		ictx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		st, ok := hub.Stats(key)
		if !ok {
			tb.Logf("tab input: no pipeline of %s", key)
			return
		}
		var vp viewport
		if err := tab.EvalInto(ictx, viewportJS, &vp); err != nil {
			tb.Logf("tab input: %v", err)
			return
		}
		at, ok := tabPoint(ev, st.Width, st.Height, vp.W, vp.H)
		if !ok {
			tb.Logf("tab input: %g,%g is not in the %dx%d picture of a %gx%g viewport", ev.X, ev.Y, st.Width, st.Height, vp.W, vp.H)
			return
		}
		if err := tab.ClickAt(ictx, at); err != nil {
			tb.Logf("tab input: %v", err)
		}
	}
}

// openContentWindowTab starts a headed Chromium of ours on d's display
// showing url in a tab of a fresh context, which a headed browser opens in
// a window of its own, sized so that its viewport is agent-browser's
// (Browser.setWindowBounds: the window is the viewport and the browser's
// bar). The browser is closed when tb ends, if not before.
func openContentWindowTab(tb testing.TB, ctx context.Context, d *testenv.Desktop, url string) (*cdp.Browser, *cdp.Tab) {
	tb.Helper()
	br, err := cdp.Launch(ctx, cdp.Options{Display: d.Display, Env: d.Env(), UserDataDir: tb.TempDir(), ExtraFlags: contentTabFlags, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		tb.Fatalf("content window tab browser: %v", err)
	}
	tb.Cleanup(func() { _ = br.Close() })
	c, err := br.NewContext(ctx)
	if err != nil {
		tb.Fatalf("content window tab browser: %v", err)
	}
	tab, err := c.NewTab(ctx, url)
	if err != nil {
		tb.Fatalf("content window tab: %v", err)
	}
	var win browser.GetWindowForTargetResult
	if err := br.Conn().Call(ctx, browser.CommandGetWindowForTarget, &browser.GetWindowForTargetParams{TargetID: cdptarget.ID(tab.ID())}, &win); err != nil {
		tb.Fatalf("content window tab: %v", err)
	}
	var o struct{ OW, OH, IW, IH float64 }
	if err := tab.EvalInto(ctx, "({OW: outerWidth, OH: outerHeight, IW: innerWidth, IH: innerHeight})", &o); err != nil {
		tb.Fatalf("content window tab: %v", err)
	}
	left, top := int64(0), int64(0)
	if err := br.Conn().Call(ctx, browser.CommandSetWindowBounds, &browser.SetWindowBoundsParams{WindowID: win.WindowID, Bounds: &browser.Bounds{
		Left: &left, Top: &top, Width: tabWidth + int64(o.OW-o.IW), Height: tabHeight + int64(o.OH-o.IH),
	}}, nil); err != nil {
		tb.Fatalf("content window tab: %v", err)
	}
	var vp viewport
	deadline := time.Now().Add(30 * time.Second)
	for {
		if err := tab.EvalInto(ctx, viewportJS, &vp); err != nil {
			tb.Fatalf("content window tab: %v", err)
		}
		if vp.W == tabWidth && vp.H == tabHeight {
			break
		}
		if time.Now().After(deadline) {
			tb.Fatalf("content window tab viewport %gx%g at %g dppx, want %dx%d", vp.W, vp.H, vp.DPR, tabWidth, tabHeight)
		}
		time.Sleep(50 * time.Millisecond)
	}
	tb.Logf("content window tab %s: viewport %gx%g at %g dppx (window %gx%g before), browser pid %d on %s", tab.ID(), vp.W, vp.H, vp.DPR, o.OW, o.OH, br.PID(), d.Display)
	return br, tab
}
