package chromium

import (
	"fmt"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/internal/chromeflags"
	"github.com/vibespace/vibespace/target"
)

// A desktop app is a profile's browser run as a real, headed Chromium
// started as a window of a display: its accessibility on, its own
// user-data-dir, no DevTools and no automation switch at all. The daemon
// opens it as open opens any window (kind.AppRunner); nothing of the pool
// is started for it, but it is the pool's program (Options.Binary).

// DefaultAppDisplay is the display a desktop app opens on when
// Options.AppDisplay does not say: the seamless Xpra display, where each
// window is a picture of its own.
const DefaultAppDisplay = "xpra"

var _ kind.AppRunner = (*Pool)(nil)

// forceA11y turns Chromium's renderers' accessibility on whatever it
// detects, so the page is in the window's tree from the start.
const forceA11y = "--force-renderer-accessibility"

// The sizes a desktop app's window may be asked for, in pixels.
const (
	minAppWidth, minAppHeight = 320, 240
	maxAppWidth, maxAppHeight = 7680, 4320
)

// appURLSchemes are the addresses a desktop app may open.
var appURLSchemes = []string{"http", "https", "file", "about"}

// AppDisplay is the display desktop apps open on (Options.AppDisplay).
func (p *Pool) AppDisplay() string { return p.o.AppDisplay }

// AppArgv is the command line of a desktop app: the pool's program
// (Options.Binary), its user-data-dir, its accessibility switched on,
// chromeflags.Quiet, its window's size, and its address as an app window
// (--app: no tab strip, no toolbar; the window is the page).
func (p *Pool) AppArgv(dir string, app kind.App) []string { return AppArgv(p.o.Binary, dir, app) }

// CheckApp checks a desktop app's --url and --size (CheckApp).
func (p *Pool) CheckApp(url, size string) (kind.App, error) { return CheckApp(url, size) }

// AppURL is the address app opens (AppURL).
func (p *Pool) AppURL(app kind.App) string { return AppURL(app) }

// AppArgv is the command line of a desktop app of binary whose
// user-data-dir is dir (Pool.AppArgv); dir "" leaves it to the display's
// own (under its XDG_CONFIG_HOME: a desktop of the pool, whose wipe
// empties it, for the reach ladder's rung 4).
func AppArgv(binary, dir string, app kind.App) []string {
	argv := []string{binary}
	if dir != "" {
		argv = append(argv, "--user-data-dir="+dir)
	}
	argv = append(argv, forceA11y)
	if os.Geteuid() == 0 {
		argv = append(argv, "--no-sandbox") // Chromium refuses to run as root with its sandbox
	}
	argv = append(argv, chromeflags.Quiet()...)
	if app.Width > 0 && app.Height > 0 {
		argv = append(argv, fmt.Sprintf("--window-size=%d,%d", app.Width, app.Height))
	}
	return append(argv, "--app="+AppURL(app))
}

// AppURL is the address a desktop app opens: its own, else about:blank.
func AppURL(app kind.App) string {
	if app.URL == "" {
		return "about:blank"
	}
	return app.URL
}

// CheckApp reads a desktop app's --url and --size ("" is neither): a
// size is WxH within bounds, and an address is http, https, file or
// about, with no user name or password (it would sit in a command line,
// readable by every process).
func CheckApp(u, size string) (kind.App, error) {
	w, h, err := parseSize(size)
	if err != nil {
		return kind.App{}, err
	}
	if err := checkAppURL(u); err != nil {
		return kind.App{}, err
	}
	return kind.App{URL: u, Width: w, Height: h}, nil
}

// parseSize reads --size WxH ("" is no size: 0, 0).
func parseSize(s string) (w, h int, err error) {
	if s == "" {
		return 0, 0, nil
	}
	ws, hs, ok := strings.Cut(s, "x")
	w, werr := strconv.Atoi(ws)
	h, herr := strconv.Atoi(hs)
	if !ok || werr != nil || herr != nil || w < minAppWidth || h < minAppHeight || w > maxAppWidth || h > maxAppHeight {
		return 0, 0, target.Refuse(target.CodeBadRequest, "--size %s: a window's size is WxH in pixels, from %dx%d to %dx%d (e.g. 1280x800)",
			target.Echo(s), minAppWidth, minAppHeight, maxAppWidth, maxAppHeight).With("size", target.Clip(s))
	}
	return w, h, nil
}

// checkAppURL refuses an address a desktop app does not open.
func checkAppURL(s string) error {
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	scheme := ""
	if err == nil {
		scheme = strings.ToLower(u.Scheme)
	}
	switch {
	case err == nil && u.User != nil:
		return target.Refuse(target.CodeBadRequest, "--url: an address with a user name or password is not opened (it would be in the browser's command line); sign in on the page instead")
	case err != nil || !slices.Contains(appURLSchemes, scheme):
		return target.Refuse(target.CodeBadRequest, "--url %s: a desktop app opens an http, https, file or about address", target.Echo(s)).With("url", target.Clip(s))
	}
	return nil
}
