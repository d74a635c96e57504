package xpra

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/vibespace/vibespace/x11"
)

// CallTimeout bounds one xpra command (a Python process: about 0.2 s here,
// seconds under load) when its context has no earlier deadline.
const CallTimeout = 10 * time.Second

// run runs `xpra <verb> :N --socket-dir=… args…` with the display's
// environment and answers its standard output. It is bounded by ctx and
// CallTimeout; the process is killed and reaped on either.
func (s *server) run(ctx context.Context, verb string, args ...string) (string, error) {
	bin, err := exec.LookPath("xpra")
	if err != nil {
		return "", fmt.Errorf("xpra: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, CallTimeout)
	defer cancel()
	argv := append([]string{verb, s.display, "--socket-dir=" + s.socketDir()}, args...)
	cmd := exec.CommandContext(ctx, bin, argv...)
	cmd.Env = s.env(s.base)
	cmd.WaitDelay = time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	if ctx.Err() != nil {
		return "", fmt.Errorf("xpra %s %s: no answer in time: %w", verb, strings.Join(args, " "), ctx.Err())
	}
	if err != nil {
		return "", fmt.Errorf("xpra %s %s: %v: %s", verb, strings.Join(args, " "), err, lastLines(errb.String()+out.String()))
	}
	return out.String(), nil
}

// control runs one `xpra control` command.
func (s *server) control(ctx context.Context, args ...string) (string, error) {
	return s.run(ctx, "control", args...)
}

// lastLines is the end of a command's output, without xpra's warning about
// running as root, for an error message.
func lastLines(s string) string {
	var keep []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if l = strings.TrimSpace(l); l != "" && l != "Warning: running as root" {
			keep = append(keep, l)
		}
	}
	if len(keep) > 3 {
		keep = keep[len(keep)-3:]
	}
	return strings.Join(keep, " / ")
}

// Map shows xpra's window wid (its _XPRA_WID): viewable, its pixels
// drawn, input to it delivered, with no client attached.
func (d *Display) Map(ctx context.Context, wid int) error {
	_, err := d.srv.control(ctx, "map", fmt.Sprint(wid))
	return err
}

// Unmap hides xpra's window wid again, as a client minimising it does.
func (d *Display) Unmap(ctx context.Context, wid int) error {
	_, err := d.srv.control(ctx, "unmap", fmt.Sprint(wid))
	return err
}

// Focus gives xpra's window wid the keyboard focus, as xpra's window
// manager does for a client.
func (d *Display) Focus(ctx context.Context, wid int) error {
	_, err := d.srv.control(ctx, "focus", fmt.Sprint(wid))
	return err
}

// ShowAll shows every window xpra manages.
func (d *Display) ShowAll(ctx context.Context) error {
	_, err := d.srv.control(ctx, "show-all-windows")
	return err
}

// ShowWait bounds how long Show waits for a window xpra was asked to map
// to become viewable.
const ShowWait = 3 * time.Second

// ErrStillHidden is a window that stayed unviewable after xpra was asked to
// show it.
var ErrStillHidden = errors.New("xpra: the window stayed hidden after xpra was asked to show it")

// Show shows X window id, which its application mapped and xpra holds
// hidden, and waits (ShowWait at most) until the X server says it is
// viewable; x is a connection to the display. A window xpra does not
// manage is ErrNotManaged.
func (d *Display) Show(ctx context.Context, x *x11.Display, id x11.WindowID) error {
	if err := d.srv.mapWindow(ctx, x, id); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, ShowWait)
	defer cancel()
	for {
		if w, err := x.Window(ctx, id); err == nil && w.Viewable {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (%s, %v)", ErrStillHidden, id, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Raise puts X window id on top of the display and gives it the focus
// through xpra, which manages the stacking order: a restack asked of the X
// server directly is not honoured under xpra.
func (d *Display) Raise(ctx context.Context, x *x11.Display, id x11.WindowID) error {
	wid, err := windowID(ctx, x, id)
	if err != nil {
		return err
	}
	return d.Focus(ctx, wid)
}
