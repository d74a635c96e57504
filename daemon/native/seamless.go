package native

import (
	"context"
	"errors"
	"fmt"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/x11"
	"github.com/vibespace/vibespace/xpra"
)

// On an Xpra display (display.xp set) a window nobody views is unmapped:
// its pixels are black and input sent to it is lost. The daemon shows each
// window as it appears (Launch through xvfb.Shower, Discover for later
// windows), and a window found hidden again (a person's xpra client
// minimised it) is shown again before a verb grabs it or sends it input —
// never a grab of black pixels or a click that goes nowhere.

// shown makes sure window id is viewable: on an Xpra display a window its
// application mapped is shown if xpra holds it hidden. A window that stays
// hidden (or one its application unmapped itself) is window_not_visible; a
// deadline that ends first, timeout.
func (d *display) shown(ctx context.Context, id x11.WindowID) error {
	xw, err := d.x.Window(ctx, id)
	if err != nil || xw.Viewable {
		return err
	}
	if d.xp == nil || !xw.Mapped {
		return target.Refuse(target.CodeWindowNotVisible, "window %s is not viewable (its application unmapped or minimised it): its pixels cannot be read nor input sent to it", keyOf(id)).With("window", keyOf(id))
	}
	err = d.xp.Show(ctx, d.x, id)
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return target.Refuse(target.CodeTimeout, "window %s is hidden on the xpra display %s and was not shown in time", keyOf(id), d.Name()).With("window", keyOf(id)).Wrap(err)
	}
	return target.Refuse(target.CodeWindowNotVisible, "window %s is hidden on the xpra display %s and could not be shown: %v", keyOf(id), d.Name(), err).With("window", keyOf(id)).Wrap(err)
}

// showLater shows a hidden window a scan found, in the background: a scan
// is one cheap look at the display within a budget, and asking xpra takes
// a process of its (0.2 s, seconds under load). The next scan finds the
// window viewable. One show per window at a time.
func (d *display) showLater(id x11.WindowID) {
	d.mu.Lock()
	if d.showing[id] {
		d.mu.Unlock()
		return
	}
	d.showing[id] = true
	d.mu.Unlock()
	go func() {
		defer func() {
			d.mu.Lock()
			delete(d.showing, id)
			d.mu.Unlock()
		}()
		ctx, cancel := context.WithTimeout(context.Background(), xpra.CallTimeout)
		defer cancel()
		_ = d.xp.Show(ctx, d.x, id) // not shown: the next scan asks again
	}()
}

// raiseSeamless puts window id on top of an Xpra display, through xpra
// (which ignores a restack asked of the X server), unless it is on top
// already: asking xpra costs a process of its (0.2 s), so a window an agent
// keeps acting on is not raised again each time.
func (d *display) raiseSeamless(ctx context.Context, id x11.WindowID) error {
	if d.xp == nil {
		return nil
	}
	tops, err := d.x.TopLevels(ctx)
	if err != nil {
		return err
	}
	for i := len(tops) - 1; i >= 0; i-- {
		if tops[i].Viewable && !tops[i].OverrideRedirect {
			if tops[i].ID == id {
				return nil
			}
			break
		}
	}
	if err := d.xp.Raise(ctx, d.x, id); err != nil {
		return fmt.Errorf("raise window %s through xpra: %w", keyOf(id), err)
	}
	return nil
}

// watchWords says who watches an Xpra display through xpra's own client,
// for doctor.
func (d *display) watchWords() string {
	w, err := d.xp.Watchers()
	switch {
	case err != nil:
		return "whether an xpra client is attached is unknown: " + err.Error()
	case w.Attached:
		return "an xpra client is attached since " + w.Since.Format("15:04:05")
	}
	return "no xpra client attached"
}

// AttachCommands is how a person attaches to the display (watch --xpra).
func (d *display) AttachCommands(host string) (local string, ssh []string, err error) {
	if d.xp == nil {
		return "", nil, target.Refuse(target.CodeNoAttach, "display %s is our Xvfb, which has no client of its own to attach: open the application with --display xpra, or watch it in the live view", d.Name())
	}
	a, err := d.xp.AttachCommands(host)
	if errors.Is(err, xpra.ErrBadHost) {
		return "", nil, target.Refuse(target.CodeBadRequest, "--ssh %s is not [user@]host: the commands are for a person's shell, so nothing else goes in them", target.Echo(host)).Wrap(err)
	}
	if err != nil {
		return "", nil, fmt.Errorf("the xpra display %s: %w", d.Name(), err)
	}
	return a.Local, a.SSH, nil
}

// Watchers says whether a person watches the display through xpra's own
// client (read from the file xpra's connect hooks write: no call to
// xpra). xpra runs a hook when a client connects and when the last one
// leaves, not when one of several leaves, so an attached display counts
// one client: at least one.
func (d *display) Watchers(ctx context.Context) (kind.Watchers, error) {
	if d.xp == nil {
		return kind.Watchers{}, nil
	}
	w, err := d.xp.Watchers()
	if err != nil || !w.Attached {
		return kind.Watchers{}, err
	}
	return kind.Watchers{Count: 1, Since: w.Since, How: "an xpra client"}, nil
}
