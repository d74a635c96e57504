package native

import (
	"context"
	"errors"

	"github.com/vibespace/vibespace/atspi"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/x11"
)

// A window's tree is its own: the X window is matched to its accessible
// frame by what the X server says of it and of every other window of its
// process — geometry, title and whether it is a dialog
// (_NET_WM_WINDOW_TYPE, WM_TRANSIENT_FOR) — and what the frames found for
// the process's other windows are (atspi.FindFrame weighs them). An
// untitled dialog over its main window, two windows of one title, a
// window that retitles itself, a window closed and another opened in its
// place: each has its own frame or none (no_frame: the snapshot is
// refused no_tree, auto resolves to pixels), never a neighbour's.

// hint is what finds the window's frame on the accessibility bus: the
// window as the X server has it now, and the process's other mapped
// top-level windows with the frames already found for them. It reads the
// process's windows (x11.WindowsOfPID) and each one's role (one round
// trip each): once per window, when its frame is not known yet. A window
// the listing lacks (unmapped, or gone meanwhile) is taken as Info last
// read it. A display with no X connection (the Wayland road's table of
// frames) has only what Info last read.
func (w *window) hint(ctx context.Context) atspi.WindowHint {
	d := w.d
	self := w.seen()
	h := atspi.WindowHint{PID: w.pid}
	var others []x11.Window
	if d.x == nil {
		i := info(self)
		return atspi.WindowHint{PID: w.pid, Title: i.Title, Bounds: i.Bounds}
	}
	if w.pid > 0 {
		if xs, err := d.x.WindowsOfPID(ctx, w.pid); err == nil {
			for _, x := range xs {
				if x.ID == w.id {
					self = x
				} else {
					others = append(others, x)
				}
			}
		}
	}
	h.Title, h.Bounds = self.Title, info(self).Bounds
	h.Dialog = d.dialog(ctx, w.id)
	d.mu.Lock()
	for _, o := range others {
		if f, ok := d.frames[o.ID]; ok {
			h.Taken = append(h.Taken, f)
		}
	}
	d.mu.Unlock()
	for _, o := range others {
		i := info(o)
		h.Others = append(h.Others, atspi.WindowHint{PID: w.pid, Title: i.Title, Bounds: i.Bounds, Dialog: d.dialog(ctx, o.ID)})
	}
	return h
}

// dialog reports whether window id says it is a dialog; a window whose
// role cannot be read is not one.
func (d *display) dialog(ctx context.Context, id x11.WindowID) bool {
	r, err := d.x.WindowRole(ctx, id)
	return err == nil && r.Dialog()
}

// noFrame is the snapshot's refusal of a window none of whose process's
// frames is its own: no_tree, with the matching's reason (err, no_frame)
// in its words and facts.
func noFrame(id x11.WindowID, err error) error {
	why := noFrameWhy(err)
	return target.Refuse(target.CodeNoTree, "window %s has no accessible tree of its own (yet): %s; take a screenshot and use click --at, type and key, or try again once it has", keyOf(id), why).
		With("window", keyOf(id)).With("reason", why).Wrap(err)
}

// noFrameWhy says why a window has no frame of its own, from FindFrame's
// no_frame refusal err (what auto resolves to pixels by, and the
// snapshot's refusal).
func noFrameWhy(err error) string {
	why := "the application is on the accessibility bus, but none of its frames is this window"
	var r *target.Refusal
	if errors.As(err, &r) {
		if s, ok := r.Facts["reason"].(string); ok && s != "" {
			why += ": " + s
		}
	}
	return why
}
