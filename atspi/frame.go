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
// the owning process, its title and its geometry in root coordinates. It is
// a plain struct so this package does not depend on an X library.
type WindowHint struct {
	PID    int
	Title  string
	Bounds target.Rect
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
// describes, whatever its role (a frame, a dialog, Qt's filler). Among the
// process's showing frames it prefers, in order: the same title and
// overlapping extents, the same title, the largest overlap with h.Bounds;
// a single showing frame matches by itself. Client-side decorations make
// an X window larger than its frame's extents, so extents are compared by
// overlap, not equality; a frame that gives only its size (Relative) is
// compared as if it were at the window's origin, and the frame returned
// is placed there. It is refused no_frame when no
// frame fits (the window has no accessible frame, or not yet: an
// application registers its tree a little after its window maps), and
// app_not_found when the process has no accessible application.
func (b *Bus) FindFrame(ctx context.Context, h WindowHint) (Frame, error) {
	app, err := b.AppByPID(ctx, h.PID)
	if err != nil {
		return Frame{}, err
	}
	frames, err := b.Frames(ctx, app)
	if err != nil {
		return Frame{}, err
	}
	best, bestScore := -1, 0
	showing := 0
	for i, f := range frames {
		if !f.Showing() {
			continue
		}
		showing++
		score := 1
		e := f.Extents
		if f.Relative {
			e.X, e.Y = h.Bounds.X, h.Bounds.Y
		}
		ov := overlap(e, h.Bounds)
		if h.Title != "" && f.Name == h.Title {
			score += 1 << 40
		}
		if ov > 0 {
			score += 1 << 32
			score += ov
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	if best < 0 || (showing > 1 && bestScore < 1<<32) {
		return Frame{}, target.Refuse(target.CodeNoFrame, "no accessible frame of process %d matches window %q (yet)", h.PID, h.Title).
			With("pid", h.PID).With("frames", len(frames))
	}
	f := frames[best]
	if f.Relative {
		f.Extents.X, f.Extents.Y = h.Bounds.X, h.Bounds.Y
		f.Relative = false
	}
	return f, nil
}

// overlap is the area two rectangles share.
func overlap(a, b target.Rect) int {
	w := min(a.X+a.W, b.X+b.W) - max(a.X, b.X)
	h := min(a.Y+a.H, b.Y+b.H) - max(a.Y, b.Y)
	if w <= 0 || h <= 0 {
		return 0
	}
	return w * h
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
