package chromium

import (
	"context"
	"fmt"
	"os/exec"
	"time"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/xvfb"
)

// The size of a headless browser's window here, in which its tab's
// viewport is 780×493 below an 87-pixel bar that is never drawn. A pane
// browser's windows take that size (paneGeometry, on a screen paneSlots
// wider), and their bar is as tall: its tabs' viewports, screenshots and
// snapshots are the size a headless tab's are (TestPaneXvfb measures both).
const paneWidth, paneHeight = 780, 580

// ChoosePane is the road of the shared browser's tabs for choice (a serve
// flag's value): PaneWindow or PaneScreencast as asked; "auto" and ""
// (the default) are PaneWindow where Xvfb is installed, else
// PaneScreencast. The window road measured 12–17× agent-browser's frame
// rate at under 0.05× its glass-to-glass delay (rtc/livebench, both
// pages), the screencast about 2–3× and 0.3–0.5× under the same load. Its
// headed browser and private display are started ahead, at the daemon's
// start (Pool.Ahead), so that no verb pays for them. why says which and
// why, in doctor's words. PaneWindow asked for without Xvfb is an error.
func ChoosePane(choice string) (road, why string, err error) {
	_, lookErr := exec.LookPath("Xvfb")
	const window = "the shared browser runs headed on a private Xvfb, a watched tab read through its own window"
	const screencast = "a watched tab is the CDP screencast of a headless browser"
	switch choice {
	case "":
		if lookErr != nil {
			return PaneScreencast, "the default where Xvfb is not installed: " + screencast + " (install xvfb for the faster window road)", nil
		}
		return PaneWindow, "the default where Xvfb is installed: " + window + " (--tab-pane screencast for a headless browser)", nil
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
	return "", "", fmt.Errorf("--tab-pane %q: the roads are %s and %s (auto, the default: %s where Xvfb is installed)", choice, PaneWindow, PaneScreencast, PaneWindow)
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

// Ahead's phases (Pool.aheadPhase).
const (
	aheadNone = iota
	aheadStarting
	aheadDone
)

// Ahead starts the shared browser now, if none runs, so that no verb pays
// for its start: the daemon calls it once, at its own start, on the
// window road, whose headed browser and private display are the slowest
// start a verb would otherwise pay (under a load average of 30–45 the
// first open of a session did not fit in one verb's 30 s). The start
// runs beside the caller (doctor says it is starting from the moment
// Ahead returns); its error, or nil, comes on the channel. It takes the
// pool's start slot as a verb's start does: a verb that arrives meanwhile
// waits for it there within its own bound, and is refused timeout if it
// does not come in time (the start goes on, for the next verb). The
// browser it starts is kept while idle until a session has used it
// (sharedIdle); once used, it is stopped idle as before, and the next
// verb starts it again. Doctor's tab pane row says where it stands.
func (p *Pool) Ahead(ctx context.Context) <-chan error {
	p.mu.Lock()
	p.aheadPhase = aheadStarting
	p.mu.Unlock()
	done := make(chan error, 1)
	// The start slot is taken before Ahead returns, so that a verb that
	// comes next waits for this start rather than making its own.
	var err error
	select {
	case p.startMu <- struct{}{}:
	case <-ctx.Done():
		err = ctx.Err()
	}
	go func() {
		if err == nil {
			err = p.startAhead(ctx)
			<-p.startMu
		}
		p.mu.Lock()
		p.aheadPhase, p.aheadErr = aheadDone, err
		p.mu.Unlock()
		if err != nil {
			p.o.Logger.Warn("the shared browser did not start ahead: the first verb that needs it starts it", "err", err)
		}
		done <- err
	}()
	return done
}

// startAhead starts the shared browser, the start slot held.
func (p *Pool) startAhead(ctx context.Context) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return fmt.Errorf("the pool is closed")
	}
	if br := p.browsers[""]; br != nil && br.alive() {
		p.mu.Unlock()
		return nil
	}
	p.mu.Unlock()
	start := time.Now()
	br, err := p.launch(ctx, kind.BrowserKey{})
	if err != nil {
		return err
	}
	// No session has used it yet; none can have while the start slot is
	// held (a new context is made under it).
	p.mu.Lock()
	br.ahead = true
	clear(br.users)
	if p.closed && p.browsers[""] == br {
		// The pool closed while it started, after Close took the
		// browsers it stops: this one is stopped here.
		delete(p.browsers, "")
		p.mu.Unlock()
		p.stopBrowser(br)
		return fmt.Errorf("the pool closed while the browser started")
	}
	p.mu.Unlock()
	p.o.Logger.Info("the shared browser started ahead", "pid", br.b.PID(), "headed", br.headed, "took", time.Since(start).Round(time.Millisecond))
	p.changed()
	return nil
}

// aheadState is what doctor's tab pane row adds about the browser Ahead
// started: "" when Ahead was not called.
func (p *Pool) aheadState() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch p.aheadPhase {
	case aheadStarting:
		return "; " + AheadStarting
	case aheadDone:
		if p.aheadErr != nil {
			return fmt.Sprintf("; its browser did not start ahead (%v): the first verb that needs it starts it", p.aheadErr)
		}
		if br := p.browsers[""]; br != nil && br.alive() {
			return fmt.Sprintf("; %s (pid %d)", AheadRunning, br.b.PID())
		}
		return "; its browser is not running (stopped idle, or it exited): the next verb that needs it starts it"
	}
	return ""
}

// aheadKept is logged when the idle stop keeps the browser Ahead started:
// no session has used it yet.
const aheadKept = "the shared browser is idle and kept: started ahead, no session has used it yet"

// What doctor's tab pane row says of the browser Ahead starts, while it
// starts and once it runs (a test harness waits for the latter, as a
// daemon started well ahead of its agents is).
const (
	AheadStarting = "its browser is starting ahead, since the daemon's start (a verb that needs it meanwhile waits for it within its own bound)"
	AheadRunning  = "its browser runs, started ahead at the daemon's start"
)
