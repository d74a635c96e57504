package native

import (
	"context"
	"math"
	"sync/atomic"
	"time"

	"github.com/vibespace/vibespace/capture"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/portal"
	"github.com/vibespace/vibespace/target"
)

// Geometry of a window of the person's Wayland desktop, as its ScreenCast
// stream gives it (measured on GNOME Shell 43: see the package's tests).
//
// Mutter casts a window into a buffer the size of its monitor (in the
// monitor's pixels) and says, in each buffer's SPA_META_VideoCrop, where
// the window is in it: its whole surface, client-side shadow (GTK 4) and
// title bar (Qt 5's own) included, at the buffer's top left. The
// screenshot is that crop, so nothing of the window is cut.
//
// A pointer point of a window stream (NotifyPointerMotionAbsolute) is
// taken in the window surface's logical pixels, while the buffer holds
// the surface's own pixels: scale of them per logical pixel (the client's
// buffer scale: 2 on a monitor at scale 2, and 2 at 1.25, where clients
// draw at 2 and the compositor scales the monitor down). So a pixel p of
// the screenshot is the stream point (p + crop's top left) / scale.
//
// The scale is the screenshot's size over the window's accessible
// extents' (the toolkit's logical size of its content), rounded: a
// surface's decoration (a shadow, a title bar) adds a few logical pixels
// round its content, never a whole window's worth, and mutter 43 has no
// fractional buffer scales (wp_fractional_scale_v1 came later).
type geometry struct {
	crop  capture.Crop
	w, h  int // the screenshot's size: the crop's, in the buffer's pixels
	scale int
	// bw, bh are the accessible extents' size when the frame was seen (0:
	// unknown).
	bw, bh int
}

// geometryOf is the geometry of a frame f (w×h, cut at crop) of a window
// whose accessible extents are b (logical pixels).
func geometryOf(crop capture.Crop, w, h int, b target.Rect) geometry {
	g := geometry{crop: crop, w: w, h: h, scale: 1}
	if b.W > 0 && b.H > 0 {
		g.scale = max(1, int(math.Round(min(float64(w)/float64(b.W), float64(h)/float64(b.H)))))
		g.bw, g.bh = b.W, b.H
	}
	return g
}

// resized is g for a window whose accessible extents are now b: a window
// resized since its last frame was seen keeps its decoration, its scale
// and its place in the buffer, so its screenshot grows or shrinks by the
// extents' change at that scale (the next frame seen says it exactly).
func (g geometry) resized(b target.Rect) geometry {
	if g.bw == 0 || b.W <= 0 || b.H <= 0 || (b.W == g.bw && b.H == g.bh) {
		return g
	}
	g.w = max(1, g.w+(b.W-g.bw)*g.scale)
	g.h = max(1, g.h+(b.H-g.bh)*g.scale)
	g.bw, g.bh = b.W, b.H
	return g
}

// point is the stream point of pixel (x, y) of the screenshot.
func (g geometry) point(x, y float64) (float64, float64) {
	s := float64(g.scale)
	return (x + float64(g.crop.X)) / s, (y + float64(g.crop.Y)) / s
}

// streamCrop is the crop of a stream's newest frame, kept by its one
// reader (cropKept) for every reader of it.
type streamCrop struct{ p atomic.Pointer[capture.Crop] }

func (c *streamCrop) load() capture.Crop {
	if v := c.p.Load(); v != nil {
		return *v
	}
	return capture.Crop{}
}

// cropKept is a window's ScreenCast stream that keeps each frame's crop.
type cropKept struct {
	*capture.PipeWireStream
	crop *streamCrop
}

func (c *cropKept) Next(ctx context.Context) (target.Frame, error) {
	f, err := c.PipeWireStream.Next(ctx)
	if err == nil {
		cr := c.PipeWireStream.Crop()
		c.crop.p.Store(&cr)
	}
	return f, err
}

// windowFrames is a reader of a window's ScreenCast stream, its frames cut
// by the stream's own crop; the window keeps the geometry of each.
type windowFrames struct {
	s    target.FrameSource
	crop *streamCrop
	w    *wlWindow
}

func (f *windowFrames) Next(ctx context.Context) (target.Frame, error) {
	fr, err := f.s.Next(ctx)
	if err != nil {
		return fr, err
	}
	f.w.sawGeometry(geometryOf(f.crop.load(), fr.Width, fr.Height, f.w.seen().Bounds))
	return fr, nil
}

func (f *windowFrames) RequestKeyframe() { f.s.RequestKeyframe() }
func (f *windowFrames) Close() error     { return f.s.Close() }

func (w *wlWindow) sawGeometry(g geometry) {
	w.mu.Lock()
	w.geo = &g
	w.mu.Unlock()
}

// shown is i as the window's Info says it: its size is its screenshot's
// (a point's bounds) once a frame of its stream was seen — grown or shrunk
// by a resize since (resized) — its accessible extents' until then.
func (w *wlWindow) shown(i kind.Info) kind.Info {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.geo != nil {
		g := w.geo.resized(i.Bounds)
		i.Bounds.W, i.Bounds.H = g.w, g.h
	}
	return i
}

// geometryBudget bounds reading one frame for a point's geometry.
const geometryBudget = 5 * time.Second

// geometry is the window's geometry: the last frame's (resized to the
// extents last read), or, when no frame
// of its stream was seen yet, one frame's read now. A stream that gives
// no frame (this build reads no PipeWire, or the portal's stream cannot
// be read) leaves points in the stream's own coordinates, the window's
// accessible size its size: a window's at scale 1.
func (w *wlWindow) geometry(ctx context.Context, s *portal.Session, st portal.Stream) geometry {
	b := w.seen().Bounds
	w.mu.Lock()
	g := w.geo
	w.mu.Unlock()
	if g != nil {
		return g.resized(b)
	}
	unknown := geometry{w: b.W, h: b.H, scale: 1}
	if !capture.PipeWireBuiltIn {
		return unknown
	}
	rctx, cancel := context.WithTimeout(ctx, geometryBudget)
	defer cancel()
	src, err := w.open(rctx, s, st)
	if err != nil {
		return unknown
	}
	defer src.Close()
	if _, err := src.Next(rctx); err != nil {
		return unknown
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return *w.geo
}
