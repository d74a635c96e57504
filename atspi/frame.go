package atspi

import (
	"context"
	"slices"

	"github.com/vibespace/vibespace/target"
)

// Frame is one top-level accessible of an application (a window: role
// frame, dialog, window…) with what is needed to match it to an X window.
type Frame struct {
	Object
	Role    string
	Name    string
	States  []string
	Extents target.Rect // screen coordinates
	// Relative is set when the toolkit gives only the frame's size: its
	// extents are relative to the window itself (GTK 4), so X and Y say
	// nothing of where it is. FindFrame places a frame it found at the
	// X window's origin.
	Relative bool
}

// Showing reports whether the frame is on screen.
func (f Frame) Showing() bool { return slices.Contains(f.States, "showing") }

// WindowHint is what the caller knows of an X window, to find its frame:
// the owning process, its title, its geometry in root coordinates and
// whether it says it is a dialog. It is a plain struct so this package does
// not depend on an X library.
type WindowHint struct {
	PID    int
	Title  string
	Bounds target.Rect
	// Dialog is set when the window says it is one
	// (_NET_WM_WINDOW_TYPE_DIALOG, or WM_TRANSIENT_FOR another window).
	Dialog bool
	// Others are the process's other mapped top-level windows: a frame
	// that fits one of them better is theirs, never this window's. Nil
	// says the window is the process's only one.
	Others []WindowHint
	// Taken are frames already found for other windows (that still
	// exist): they are never this window's.
	Taken []Object
}

// Frames returns the application's top-level accessibles, in GetChildren
// order, each with role (whatever it is: Qt's top-levels are fillers),
// name, states and screen extents (read with the same pipelined walk as a
// snapshot, one level deep).
func (b *Bus) Frames(ctx context.Context, app App) ([]Frame, error) {
	s, err := b.Walk(ctx, app.Root, WalkOptions{Depth: 1, NoText: true, NoCache: true, relative: true})
	if err != nil {
		return nil, err
	}
	if s.Root.Unreadable != "" {
		return nil, target.Refuse(target.CodeTimeout, "application %s did not list its windows: %s", app.Name, s.Root.Unreadable).With("pid", app.PID)
	}
	tk, _ := b.knownToolkit(app.Root.Name)
	out := make([]Frame, 0, len(s.Root.Children))
	for _, n := range s.Root.Children {
		o, err := ParseKey(n.Key)
		if err != nil {
			continue
		}
		f := Frame{Object: o, Role: n.Role, Name: n.Name, States: n.States, Relative: tk.gtk4()}
		if n.Bounds != nil {
			f.Extents = *n.Bounds
		}
		out = append(out, f)
	}
	return out, nil
}

// FindFrame returns the frame of process h.PID that is the X window h
// describes, whatever its role (a frame, a dialog, an alert, Qt's filler),
// by matchFrame (framematch.go): geometry, title, role and the process's
// other windows together. It is refused no_frame when no frame is this
// window's, or two fit it alike (never some other frame of the same
// application: the window has no accessible frame, not yet — an
// application registers its tree a little after its window maps — or one
// that cannot be told from another's), and app_not_found when the
// process has no accessible application. A frame that gives only its size
// (Relative) is returned placed at the window's origin.
func (b *Bus) FindFrame(ctx context.Context, h WindowHint) (Frame, error) {
	app, err := b.AppByPID(ctx, h.PID)
	if err != nil {
		return Frame{}, err
	}
	frames, err := b.Frames(ctx, app)
	if err != nil {
		return Frame{}, err
	}
	best, why := matchFrame(frames, h)
	if best < 0 {
		return Frame{}, target.Refuse(target.CodeNoFrame, "no accessible frame of process %d is window %q: %s", h.PID, h.Title, why).
			With("pid", h.PID).With("frames", len(frames)).With("reason", why)
	}
	f := frames[best]
	if f.Relative {
		f.Extents.X, f.Extents.Y = h.Bounds.X, h.Bounds.Y
		f.Relative = false
	}
	return f, nil
}

// WindowSnapshot finds the frame of the X window h describes and walks it
// (h.Bounds is the walk's Window unless o has one): the snapshot's Title
// is the window's title (the frame's name, else h.Title); the caller sets
// Target and assigns refs.
func (b *Bus) WindowSnapshot(ctx context.Context, h WindowHint, o WalkOptions) (*target.Snapshot, Frame, error) {
	f, err := b.FindFrame(ctx, h)
	if err != nil {
		return nil, Frame{}, err
	}
	if o.Window == nil && h.Bounds.W > 0 && h.Bounds.H > 0 {
		o.Window = &h.Bounds
	}
	s, err := b.Walk(ctx, f.Object, o)
	if err != nil {
		return nil, f, err
	}
	s.Title = f.Name
	if s.Title == "" {
		s.Title = h.Title
	}
	return s, f, nil
}
