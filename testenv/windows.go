package testenv

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/vibespace/vibespace/x11"
)

// WindowTitled waits (bounded by ctx) for a viewable top-level window of
// display whose title contains want — one of process pid, or of any
// process when pid is 0 — and answers it; the error names the titles there
// were.
func WindowTitled(ctx context.Context, display string, pid int, want string) (x11.Window, error) {
	x, err := x11.Open(ctx, display)
	if err != nil {
		return x11.Window{}, err
	}
	defer x.Close()
	var titles []string
	for {
		var ws []x11.Window
		if pid > 0 {
			ws, err = x.WindowsOfPID(ctx, pid)
		} else {
			ws, err = x.Windows(ctx)
		}
		titles = titles[:0]
		for _, w := range ws {
			if w.Viewable && strings.Contains(w.Title, want) {
				return w, nil
			}
			titles = append(titles, w.Title)
		}
		select {
		case <-ctx.Done():
			return x11.Window{}, fmt.Errorf("testenv: no viewable window (pid %d) on %s has a title with %q: %q (%v)", pid, display, want, titles, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
