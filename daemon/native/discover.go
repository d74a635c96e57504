package native

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/x11"
	"github.com/vibespace/vibespace/xvfb"
)

var (
	_ kind.Discoverer   = (*display)(nil)
	_ kind.WindowCloser = (*window)(nil)
)

// Discover scans our display once: which top-level windows there are, which
// process made each (the X server says, x11.TopLevels: two round trips
// whatever their number), and, for each mapped and managed one that is
// new, whether its process is one of roots or descends from one
// (xvfb.DescendsFrom). Only a new window of ours is read further. Popups
// (override-redirect: menus, tooltips) are part of the window they pop
// from, and are left out; so is a window of 1×1 or less (a toolkit's
// hidden helper).
func (d *display) Discover(ctx context.Context, roots []int, known map[string]bool) ([]kind.Found, error) {
	tops, err := d.x.TopLevels(ctx)
	if err != nil {
		return nil, err
	}
	rootSet := make(map[int]bool, len(roots))
	for _, p := range roots {
		rootSet[p] = true
	}
	var out []kind.Found
	for _, t := range tops {
		key := keyOf(t.ID)
		hidden := !t.Viewable && t.Mapped && d.xp != nil // held hidden by xpra (seamless.go)
		if known[key] || !t.Viewable && !hidden || t.OverrideRedirect || t.PID <= 0 {
			continue
		}
		root := xvfb.DescendsFrom(t.PID, rootSet)
		if root == 0 {
			continue
		}
		xw, err := d.x.Window(ctx, t.ID)
		if err != nil {
			if ctx.Err() != nil {
				return out, err
			}
			continue // gone since the scan
		}
		if xw.Geometry.Width <= 1 || xw.Geometry.Height <= 1 {
			continue
		}
		if hidden {
			d.showLater(t.ID) // a later scan finds it viewable
			continue
		}
		w := d.window(t.ID, t.PID)
		w.set(xw)
		inf := info(xw)
		inf.PID = t.PID
		f := kind.Found{Target: w, Info: inf, Root: root}
		if t.PID != root {
			f.App = program(t.PID)
		}
		out = append(out, f)
	}
	return out, nil
}

// program is the name of the program process pid runs, for a target's App:
// its argv[0]'s base, else its command name.
func program(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err == nil {
		if argv0, rest, _ := strings.Cut(string(b), "\x00"); argv0 != "" {
			if strings.Trim(rest, "\x00") == "" {
				// One string: a process that rewrote its command line
				// as its title, words joined by spaces (Chromium does).
				argv0, _, _ = strings.Cut(argv0, " ")
			}
			return filepath.Base(argv0)
		}
	}
	return xvfb.ProcName(pid)
}

// closeWait bounds how long CloseWindow waits for the window to go.
const closeWait = 5 * time.Second

// CloseWindow asks the window to close (WM_DELETE_WINDOW) and waits,
// bounded, until it is destroyed; its application keeps running.
func (w *window) CloseWindow(ctx context.Context) (bool, error) {
	err := w.d.x.DeleteWindow(ctx, w.id)
	if errors.Is(err, x11.ErrNoDelete) {
		return false, target.Refuse(target.CodeNoClose, "window %s does not take WM_DELETE_WINDOW: it cannot be asked to close alone", keyOf(w.id)).Wrap(err)
	}
	if err != nil {
		return false, err
	}
	ctx, cancel := context.WithTimeout(ctx, closeWait)
	defer cancel()
	for {
		_, err := w.d.x.Window(ctx, w.id)
		switch {
		case target.CodeOf(err) == target.CodeWindowGone:
			return true, nil
		case ctx.Err() != nil:
			return false, nil
		case err != nil:
			return false, fmt.Errorf("after WM_DELETE_WINDOW: %w", err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(20 * time.Millisecond):
		}
	}
}
