package chromium

import (
	"context"
	"fmt"
	"image"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	proto "github.com/chromedp/cdproto/target"

	"github.com/vibespace/vibespace/capture"
	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/x11"
)

// The roads of a watched tab's pictures (Options.TabPane).
const (
	// PaneWindow reads the tab's own window on its headed browser's
	// display (capture.Window: MIT-SHM, driven by XDamage), less the
	// browser's bar above the page. Measured in rtc/livebench on a 2-core
	// machine, the same page in the same run: VP8 19 fps at 83–87 ms
	// glass-to-glass, against 2–6 fps at 0.6–2 s for the screencast (and
	// for agent-browser's JPEG stream), whose paint → arrival inside
	// Chromium alone took 0.5–1 s under load.
	PaneWindow = "window"
	// PaneScreencast is the CDP screencast of the tab (capture.Tab):
	// JPEG pictures over the pipe, decoded here. The only road of a
	// headless browser's tab.
	PaneScreencast = "screencast"
)

// paneTimeout bounds finding a tab's window: the CDP and X11 calls, and
// the wait for the X server to show the window where the browser put it.
const paneTimeout = 10 * time.Second

// Frames is the tab's pictures for the live view: its window when its
// browser is headed (PaneWindow, unless Options.TabPane is
// PaneScreencast), else the CDP screencast of the tab (capture.Tab).
func (t *tab) Frames(ctx context.Context, o kind.FrameOptions) (target.FrameSource, error) {
	if disp := t.c.Browser().Display(); disp != "" && t.pane != PaneScreencast {
		src, err := windowPane(ctx, t.t, t.c.Browser(), disp, o)
		if err == nil || ctx.Err() != nil || target.CodeOf(err) == target.CodeTabGone {
			return src, err
		}
		// A window that cannot be read (not found, too big for the
		// screen): the screencast still shows the tab, slower.
		if t.log != nil {
			t.log.Warn("tab pane: its window cannot be read; the screencast shows it", "tab", t.t.ID(), "err", err)
		}
	}
	return capture.NewTab(t.t, capture.TabOptions{FPS: o.FPS})
}

// paneSlots is how many pixels narrower than the screen a pane browser's
// windows are: as many places at the top of the screen where one lies
// wholly on it apart from the others (findTabWindow).
const paneSlots = 64

// paneGeometry is the flags that size a pane browser's windows to the
// screen of disp less paneSlots across, at its top left; none when the
// display cannot be asked (the browser's own default then).
func paneGeometry(ctx context.Context, disp string) []string {
	ctx, cancel := context.WithTimeout(ctx, paneTimeout)
	defer cancel()
	x, err := x11.Open(ctx, disp)
	if err != nil {
		return nil
	}
	defer x.Close()
	w, h := x.ScreenSize()
	if w <= 2*paneSlots || h <= 0 {
		return nil
	}
	return []string{"--window-position=0,0", fmt.Sprintf("--window-size=%d,%d", w-paneSlots, h)}
}

// tabWindow is the Source of a tab read through its window: a
// capture.Window on its own X connection, closed with it. A window that
// went is the tab gone.
type tabWindow struct {
	*capture.Window
	x  *x11.Display
	id string
}

func (w *tabWindow) Next(ctx context.Context) (capture.Frame, error) {
	f, err := w.Window.Next(ctx)
	if target.CodeOf(err) == target.CodeWindowGone {
		err = target.Refuse(target.CodeTabGone, "the window of tab %s closed", w.id).With("tab", w.id).Wrap(err)
	}
	return f, err
}

func (w *tabWindow) Close() error {
	err := w.Window.Close()
	if cerr := w.x.Close(); err == nil {
		err = cerr
	}
	return err
}

// WindowPane is the PaneWindow road of tab t of b, a headed browser, at
// fps frames a second: what Frames gives a tab of the pool's headed
// browsers (rtc/livebench measures it beside the screencast). A browser
// that is not headed has no window to read: no_capture.
func WindowPane(ctx context.Context, t *cdp.Tab, b *cdp.Browser, fps int) (target.FrameSource, error) {
	if b.Display() == "" {
		return nil, target.Refuse(target.CodeNoCapture, "tab %s's browser is headless: it has no window to read", t.ID())
	}
	return windowPane(ctx, t, b, b.Display(), kind.FrameOptions{FPS: fps})
}

// windowPane opens the window road of tab t of headed browser b on display
// disp: it finds the X window the browser made for the tab (the browser's
// own, of its process, where the browser says the tab's window is) and
// the page's part of it.
func windowPane(ctx context.Context, t *cdp.Tab, b *cdp.Browser, disp string, o kind.FrameOptions) (target.FrameSource, error) {
	ctx, cancel := context.WithTimeout(ctx, paneTimeout)
	defer cancel()
	x, err := x11.Open(ctx, disp)
	if err != nil {
		return nil, target.Refuse(target.CodeNoCapture, "the display %s of tab %s's window cannot be reached: %v", disp, t.ID(), err).Wrap(err)
	}
	// Each top-level window keeps its own pixels while another covers it:
	// the tabs' windows all lie at the same place. The daemon's own
	// display asks it too; asking twice is harmless.
	_ = x.KeepOwnPixels(ctx)
	id, crop, err := findTabWindow(ctx, t, b, x)
	if err != nil {
		x.Close()
		return nil, err
	}
	w := capture.NewWindow(x, id, capture.WindowOptions{FPS: o.FPS, Crop: crop})
	return &tabWindow{Window: w, x: x, id: t.ID()}, nil
}

// findTabWindow is the X window of tab t, and where its page lies in it.
// The browser says where the tab's window is (Browser.getWindowForTarget);
// the X server says which windows of the browser's process lie there. A
// window that shares its place with another (the browser stacks or
// cascades the windows it opens), or does not lie wholly on the screen,
// is moved by the browser to the top of the screen, at the first place
// from the left no window of the browser's holds, and looked for there.
func findTabWindow(ctx context.Context, t *cdp.Tab, b *cdp.Browser, x *x11.Display) (x11.WindowID, image.Rectangle, error) {
	var res cdpbrowser.GetWindowForTargetResult
	err := b.Conn().Call(ctx, cdpbrowser.CommandGetWindowForTarget, &cdpbrowser.GetWindowForTargetParams{TargetID: proto.ID(t.ID())}, &res)
	if err != nil {
		return 0, image.Rectangle{}, err
	}
	if res.Bounds == nil || res.Bounds.Left == nil || res.Bounds.Top == nil {
		return 0, image.Rectangle{}, target.Refuse(target.CodeNoCapture, "the browser does not say where the window of tab %s is", t.ID())
	}
	at := x11.Geometry{X: int(*res.Bounds.Left), Y: int(*res.Bounds.Top), Width: int(res.Bounds.Width), Height: int(res.Bounds.Height)}
	sw, sh := x.ScreenSize()
	moved := false
	for {
		ws, err := x.WindowsOfPID(ctx, b.PID())
		if err != nil {
			return 0, image.Rectangle{}, err
		}
		var here []x11.Window
		taken := map[x11.Geometry]bool{}
		for _, w := range ws {
			if !w.Viewable {
				continue
			}
			taken[w.Geometry] = true
			if w.Geometry == at {
				here = append(here, w)
			}
		}
		onScreen := at.X >= 0 && at.Y >= 0 && at.X+at.Width <= sw && at.Y+at.Height <= sh
		switch {
		case len(here) == 1 && onScreen:
			crop, err := pagePart(ctx, t, here[0].Geometry)
			return here[0].ID, crop, err
		case len(here) == 1 && moved:
			return 0, image.Rectangle{}, target.Refuse(target.CodeNoCapture, "the window of tab %s (%dx%d) does not fit the screen of %s (%dx%d)", t.ID(), at.Width, at.Height, x.Name(), sw, sh).
				With("tab", t.ID())
		case len(here) > 0:
			at.X, at.Y = 0, 0
			for taken[at] {
				at.X++
			}
			left, top := int64(at.X), int64(at.Y)
			err := b.Conn().Call(ctx, cdpbrowser.CommandSetWindowBounds, &cdpbrowser.SetWindowBoundsParams{
				WindowID: res.WindowID, Bounds: &cdpbrowser.Bounds{Left: &left, Top: &top},
			}, nil)
			if err != nil {
				return 0, image.Rectangle{}, err
			}
			moved = true
		}
		// Not (yet) where the browser says: the window is being mapped or
		// moved.
		select {
		case <-ctx.Done():
			return 0, image.Rectangle{}, target.Refuse(target.CodeTimeout, "the window of tab %s was not found on %s at %+v (%d windows of the browser there)", t.ID(), x.Name(), at, len(ws)).Wrap(ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// pagePart is where the page lies in the tab's window of geometry g: below
// the browser's bar, the viewport's size (window.innerWidth and
// innerHeight, scrollbars included: a screenshot's area) at the device's
// pixel ratio, centred across.
func pagePart(ctx context.Context, t *cdp.Tab, g x11.Geometry) (image.Rectangle, error) {
	var vp struct{ W, H, R float64 }
	if err := t.EvalInto(ctx, "({W: innerWidth, H: innerHeight, R: devicePixelRatio})", &vp); err != nil {
		return image.Rectangle{}, err
	}
	if vp.R <= 0 {
		vp.R = 1
	}
	w, h := int(vp.W*vp.R+0.5), int(vp.H*vp.R+0.5)
	if w <= 0 || h <= 0 || w > g.Width || h > g.Height {
		return image.Rectangle{}, target.Refuse(target.CodeNoCapture, "the page of tab %s (%dx%d) does not fit its window (%dx%d)", t.ID(), w, h, g.Width, g.Height).
			With("tab", t.ID())
	}
	left := (g.Width - w) / 2
	top := g.Height - h
	return image.Rect(left, top, left+w, top+h), nil
}
