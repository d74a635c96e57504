package native

import (
	"context"

	"github.com/vibespace/vibespace/x11"
	"github.com/vibespace/vibespace/xvfb"
)

// host is what a display needs of the X server and buses it runs on: ours
// (an xvfb.Desktop we started, alone or under an Xpra server), or the
// user's own desktop (theirs.go), which we never start, stop or launch on.
type host interface {
	display() string     // the X display's name (":7")
	a11yAddress() string // the accessibility bus's address
	record() any         // what the daemon persists to reattach it
	// openX opens a connection to the X display, authenticated as the
	// host requires.
	openX(ctx context.Context) (*x11.Display, error)
	launch(ctx context.Context, argv ...string) (*xvfb.App, error)
	owns(pid int) bool // the process is ours to stop
	alive(ctx context.Context) error
	close() error // stops what we started, and only that
	a11ySwitch() string
	a11ySwitchesOff(ctx context.Context) ([]string, error)
	// serverPID is the X server's process (or of what runs it), where
	// it is ours and of this host: 0 when not (idle.go).
	serverPID() int
}

// ours is a desktop we started.
type ours struct{ *xvfb.Desktop }

func (h ours) display() string     { return h.Display }
func (h ours) a11yAddress() string { return h.A11yAddress }
func (h ours) record() any         { return h.State() }
func (h ours) openX(ctx context.Context) (*x11.Display, error) {
	return x11.Open(ctx, h.Display)
}
func (h ours) launch(ctx context.Context, argv ...string) (*xvfb.App, error) {
	return h.Launch(ctx, argv...)
}
func (h ours) owns(pid int) bool               { return h.Owns(pid) }
func (h ours) alive(ctx context.Context) error { return h.Alive(ctx) }
func (h ours) close() error                    { return h.Close() }
func (h ours) a11ySwitch() string              { return h.A11ySwitch }
func (h ours) serverPID() int                  { return h.ServerPID() }
func (h ours) a11ySwitchesOff(ctx context.Context) ([]string, error) {
	return h.A11ySwitchesOff(ctx)
}
