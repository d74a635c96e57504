package atspi

import (
	"strings"
	"testing"

	"github.com/godbus/dbus/v5"

	"github.com/vibespace/vibespace/target"
)

// The windows and frames of the multi-window fixture
// (testenv/fixture/multiwin.py) as our Xvfb and its AT-SPI registry give
// them: the X windows' geometry, title and type, and each frame's role,
// name and extents.
var (
	mwMain    = WindowHint{PID: 1, Title: "Multiwin main", Bounds: target.Rect{X: 20, Y: 20, W: 640, H: 480}}
	mwDialog  = WindowHint{PID: 1, Title: "", Bounds: target.Rect{X: 113, Y: 204, W: 454, H: 112}, Dialog: true}
	mwTwinA   = WindowHint{PID: 1, Title: "Twin", Bounds: target.Rect{X: 700, Y: 20, W: 300, H: 200}}
	mwTwinB   = WindowHint{PID: 1, Title: "Twin", Bounds: target.Rect{X: 760, Y: 120, W: 300, H: 200}}
	mwChanger = WindowHint{PID: 1, Title: "Changer", Bounds: target.Rect{X: 1100, Y: 20, W: 300, H: 200}}

	showing = []string{"enabled", "sensitive", "showing", "visible"}
)

func frameAt(path, role, name string, r target.Rect) Frame {
	return Frame{Object: Object{Name: ":1.5", Path: dbus.ObjectPath("/org/a11y/atk/" + path)}, Role: role, Name: name, States: showing, Extents: r}
}

var (
	fMain    = frameAt("main", "frame", "Multiwin main", mwMain.Bounds)
	fDialog  = frameAt("dialog", "alert", "Warning", mwDialog.Bounds)
	fTwinA   = frameAt("twina", "frame", "Twin", mwTwinA.Bounds)
	fTwinB   = frameAt("twinb", "frame", "Twin", mwTwinB.Bounds)
	fChanger = frameAt("changer", "frame", "Changer", mwChanger.Bounds)
)

// with is h with others as its process's other windows and taken as the
// frames found for them already.
func with(h WindowHint, others []WindowHint, taken ...Frame) WindowHint {
	for _, o := range others {
		if o.Bounds != h.Bounds || o.Title != h.Title || o.Dialog != h.Dialog {
			h.Others = append(h.Others, o)
		}
	}
	for _, f := range taken {
		h.Taken = append(h.Taken, f.Object)
	}
	return h
}

func wantFrame(t *testing.T, what string, frames []Frame, h WindowHint, want Frame) {
	t.Helper()
	i, why := matchFrame(frames, h)
	if i < 0 {
		t.Fatalf("%s: no frame (%s), want %q at %v", what, why, want.Name, want.Object.Path)
	}
	if frames[i].Object != want.Object {
		t.Fatalf("%s: frame %q %s at %v, want %q at %v", what, frames[i].Name, frames[i].Role, frames[i].Object.Path, want.Name, want.Object.Path)
	}
}

func wantNone(t *testing.T, what string, frames []Frame, h WindowHint, because string) {
	t.Helper()
	i, why := matchFrame(frames, h)
	if i >= 0 {
		t.Fatalf("%s: frame %q %s at %v, want none (a neighbour's frame)", what, frames[i].Name, frames[i].Role, frames[i].Object.Path)
	}
	if !strings.Contains(why, because) {
		t.Fatalf("%s: no frame because %q, want it to say %q", what, why, because)
	}
}

// TestMatchFrameEveryWindow: each window of the multi-window fixture gets
// its own frame — the untitled dialog its alert, not the main window's
// frame that covers it; each twin its own of two frames of one title, the
// second partly over the first.
func TestMatchFrameEveryWindow(t *testing.T) {
	all := []WindowHint{mwMain, mwDialog, mwTwinA, mwTwinB, mwChanger}
	frames := []Frame{fMain, fDialog, fTwinA, fTwinB, fChanger}
	for _, c := range []struct {
		name string
		h    WindowHint
		want Frame
	}{
		{"main", mwMain, fMain}, {"untitled dialog", mwDialog, fDialog},
		{"twin A", mwTwinA, fTwinA}, {"twin B", mwTwinB, fTwinB}, {"changer", mwChanger, fChanger},
	} {
		wantFrame(t, c.name, frames, with(c.h, all), c.want)
		// Alone (the caller knows no other window), and the frames in
		// another order: the same answer.
		wantFrame(t, c.name+" alone", frames, c.h, c.want)
		rev := []Frame{fChanger, fTwinB, fTwinA, fDialog, fMain}
		wantFrame(t, c.name+" frames reversed", rev, with(c.h, all), c.want)
	}
}

// TestMatchFrameNeverANeighbours: a window whose own frame is not (yet) on
// the bus, or not showing, gets none — not the main window's frame over
// it, not its twin's of the same title, not the only frame of its process
// when the process shows another window.
func TestMatchFrameNeverANeighbours(t *testing.T) {
	all := []WindowHint{mwMain, mwDialog, mwTwinA, mwTwinB, mwChanger}
	wantNone(t, "the dialog before its frame", []Frame{fMain, fTwinA, fTwinB, fChanger}, with(mwDialog, all), "none of its 4 showing frames")
	wantNone(t, "the dialog, its process's only frame the main window's", []Frame{fMain}, with(mwDialog, all), "")
	hidden := fDialog
	hidden.States = []string{"enabled", "sensitive"}
	wantNone(t, "the dialog, its frame not showing", []Frame{fMain, hidden}, with(mwDialog, all), "")

	// Twin B's frame missing: twin A's is near (within the edges'
	// tolerance once moved closer) and of the same title, but it is twin
	// A's.
	near := mwTwinB
	near.Bounds.X, near.Bounds.Y = 740, 60
	wantNone(t, "twin B before its frame", []Frame{fMain, fDialog, fTwinA, fChanger}, with(near, []WindowHint{mwMain, mwDialog, mwTwinA, near, mwChanger}), "fits window \"Twin\"")
	// ... and it is twin A's as well when twin A's frame was found already.
	wantNone(t, "twin B, twin A's frame taken", []Frame{fMain, fDialog, fTwinA, fChanger}, with(near, []WindowHint{mwMain, mwDialog, mwTwinA, near, mwChanger}, fTwinA), "none of its 3 showing frames")
	// A window no toolkit knows (a plain X window of the process) over the
	// main window, of its title, every frame found for the others already.
	bare := WindowHint{PID: 1, Title: "Multiwin main", Bounds: target.Rect{X: 150, Y: 150, W: 200, H: 100}}
	wantNone(t, "a bare window, every frame taken", []Frame{fMain, fDialog, fTwinA, fTwinB, fChanger}, with(bare, all, fMain, fDialog, fTwinA, fTwinB, fChanger), "each of its 5 showing frames is another window's")
	wantNone(t, "a bare window, no frame found yet", []Frame{fMain, fDialog, fTwinA, fTwinB, fChanger}, with(bare, all), "none of its 5 showing frames is where")

	// One X window and one frame, wherever it says it is: nothing else it
	// could be.
	far := fMain
	far.Extents = target.Rect{X: 0, Y: 0, W: 100, H: 100}
	wantFrame(t, "the only window and the only frame", []Frame{far}, mwMain, far)
	// Two frames, a window that fits neither: none.
	wantNone(t, "two frames, neither where the window is", []Frame{far, fChanger}, mwMain, "is where the window is")
}

// TestMatchFrameTwinsAlike: two windows of one title at one place are told
// apart only by which frame was found for the other already; until then
// neither gets one.
func TestMatchFrameTwinsAlike(t *testing.T) {
	b := mwTwinA
	fb := fTwinB
	fb.Extents = mwTwinA.Bounds
	frames := []Frame{fTwinA, fb}
	a := mwTwinA
	a.Others = []WindowHint{b}
	wantNone(t, "twin A, twin B at its place", frames, a, "as well")
	wantNone(t, "twin A alone, two frames alike", frames, mwTwinA, "alike")
	wantFrame(t, "twin B, twin A's frame found", frames, WindowHint{PID: 1, Title: "Twin", Bounds: mwTwinA.Bounds, Taken: []Object{fTwinA.Object}}, fb)
}

// TestMatchFrameRetitledAndReplaced: a window that retitled itself keeps
// matching its frame by where it is, whether the frame's name followed yet
// or not; a window closed and another opened at its place with its title
// gets the new frame, never the old one gone from the bus or defunct.
func TestMatchFrameRetitledAndReplaced(t *testing.T) {
	all := []WindowHint{mwMain, mwDialog, mwTwinA, mwTwinB, mwChanger}
	retitled := mwChanger
	retitled.Title = "Changer retitled 1"
	all[4] = retitled
	wantFrame(t, "retitled, the frame's name not yet", []Frame{fMain, fDialog, fTwinA, fTwinB, fChanger}, with(retitled, all), fChanger)
	renamed := fChanger
	renamed.Name = retitled.Title
	wantFrame(t, "retitled, the frame's name too", []Frame{fMain, fDialog, fTwinA, fTwinB, renamed}, with(retitled, all), renamed)

	all[4] = mwChanger
	fC := frameAt("twinc", "frame", "Twin", mwTwinB.Bounds)
	old := fTwinB
	old.States = []string{"defunct"}
	wantFrame(t, "twin C in twin B's place, twin B's frame defunct", []Frame{fMain, fDialog, fTwinA, old, fC}, with(mwTwinB, all), fC)
	wantFrame(t, "twin C in twin B's place, twin B's frame gone", []Frame{fMain, fDialog, fTwinA, fC}, with(mwTwinB, all), fC)
}

// TestMatchFrameRoleAndDecorations: where two frames fit one place, the
// dialog window takes the dialog's frame and the normal window the
// other's; a frame's extents with a window manager's title bar, or a
// client-side shadow, still fit; a GTK 4 frame (its size only) is placed
// at the window's origin; a frame with no extents fits only by its title.
func TestMatchFrameRoleAndDecorations(t *testing.T) {
	place := target.Rect{X: 100, Y: 100, W: 400, H: 300}
	dlg := frameAt("d", "dialog", "", place)
	win := frameAt("w", "frame", "", place)
	frames := []Frame{win, dlg}
	wantFrame(t, "the dialog", frames, WindowHint{PID: 1, Bounds: place, Dialog: true}, dlg)
	wantFrame(t, "the normal window", frames, WindowHint{PID: 1, Bounds: place}, win)

	decorated := frameAt("m", "frame", "Doc", target.Rect{X: 96, Y: 70, W: 408, H: 334}) // a title bar and borders counted in
	wantFrame(t, "a decorated frame", []Frame{decorated, fChanger}, WindowHint{PID: 1, Title: "Doc", Bounds: place}, decorated)
	shadowed := WindowHint{PID: 1, Title: "Doc", Bounds: target.Rect{X: 74, Y: 74, W: 452, H: 352}} // CSD shadows in the X window
	wantFrame(t, "a window with shadows", []Frame{frameAt("m", "frame", "Doc", place), fChanger}, shadowed, frameAt("m", "frame", "Doc", place))

	rel := frameAt("g4", "frame", "GTK 4", target.Rect{W: 400, H: 300})
	rel.Relative = true
	wantFrame(t, "a GTK 4 frame", []Frame{rel, fChanger}, WindowHint{PID: 1, Title: "GTK 4", Bounds: place}, rel)

	none := frameAt("n", "frame", "Named", target.Rect{})
	wantFrame(t, "no extents, its title", []Frame{none, fChanger}, WindowHint{PID: 1, Title: "Named", Bounds: place}, none)
	wantNone(t, "no extents, another title", []Frame{none, fChanger}, WindowHint{PID: 1, Title: "Other", Bounds: place}, "")
}
