package chromium

import (
	"context"
	"fmt"
	"os/exec"

	"github.com/vibespace/vibespace/xvfb"
)

// The size of a headless browser's window here, in which its tab's
// viewport is 780×493 below an 87-pixel bar that is never drawn. A pane
// browser's windows take that size (paneGeometry, on a screen paneSlots
// wider), and their bar is as tall: its tabs' viewports, screenshots and
// snapshots are the size a headless tab's are (TestPaneXvfb measures both).
const paneWidth, paneHeight = 780, 580

// ChoosePane is the road of the shared browser's tabs for choice (a serve
// flag's value): PaneWindow or PaneScreencast as asked; "auto" is
// PaneWindow where Xvfb is installed, else PaneScreencast; "" is the
// default, PaneScreencast (the window road's first verb starts an Xvfb
// and a headed browser, which on a heavily loaded machine did not always
// fit in one verb's time). why says which and why, in doctor's words.
// PaneWindow asked for without Xvfb is an error.
func ChoosePane(choice string) (road, why string, err error) {
	_, lookErr := exec.LookPath("Xvfb")
	const window = "the shared browser runs headed on a private Xvfb, a watched tab read through its own window"
	const screencast = "a watched tab is the CDP screencast of a headless browser"
	switch choice {
	case "":
		return PaneScreencast, "the default: " + screencast + " (--tab-pane window or auto for the faster window road)", nil
	case PaneScreencast:
		return PaneScreencast, "chosen (--tab-pane screencast): " + screencast, nil
	case PaneWindow:
		if lookErr != nil {
			return "", "", fmt.Errorf("--tab-pane window needs Xvfb, which is not installed (%v): install xvfb, or choose screencast", lookErr)
		}
		return PaneWindow, "chosen (--tab-pane window): " + window, nil
	case "auto":
		if lookErr != nil {
			return PaneScreencast, "chosen (--tab-pane auto) where Xvfb is not installed: " + screencast + " (install xvfb for the faster window road)", nil
		}
		return PaneWindow, "chosen (--tab-pane auto) where Xvfb is installed: " + window, nil
	}
	return "", "", fmt.Errorf("--tab-pane %q: the roads are %s and %s (auto: %s where Xvfb is installed)", choice, PaneWindow, PaneScreencast, PaneWindow)
}

// startPaneXvfb starts the private display of one pane browser
// (Options.PaneXvfb): Xvfb alone, no bus, sized to hold each of its
// windows wholly at one of paneSlots places. It is not detached: it dies
// with the daemon, as the browser does.
func startPaneXvfb(ctx context.Context, o Options) (*xvfb.Desktop, error) {
	logf := func(f string, a ...any) { o.Logger.Debug(fmt.Sprintf(f, a...)) }
	return xvfb.Start(ctx, xvfb.Options{Width: paneWidth + paneSlots, Height: paneHeight, XOnly: true, Logf: logf})
}

// closePane stops br's private display, if it has one, once the browser
// is gone.
func (p *Pool) closePane(br *browser) {
	if br.pane == nil {
		return
	}
	if err := br.pane.Close(); err != nil {
		p.o.Logger.Warn("stopping a browser's pane display", "display", br.pane.Display, "err", err)
	}
}
