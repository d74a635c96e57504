package target

import (
	"context"
	"time"
)

// PixelFormat names the layout of a Frame's pixels.
type PixelFormat int

// The pixel formats a FrameSource may deliver.
const (
	// FormatRGBA is 4 bytes a pixel, R G B A in memory (image.RGBA's layout).
	FormatRGBA PixelFormat = iota
	// FormatBGRX is 4 bytes a pixel, B G R X in memory (an LSB-first X
	// server's 24-bit ZPixmap).
	FormatBGRX
)

func (f PixelFormat) String() string {
	switch f {
	case FormatRGBA:
		return "rgba"
	case FormatBGRX:
		return "bgrx"
	}
	return "unknown"
}

// Frame is one picture of a target, as its live pane shows it.
type Frame struct {
	Format PixelFormat
	Width  int
	Height int
	// Stride is the number of bytes between the starts of two rows.
	Stride int
	// Pix holds Height rows of Stride bytes. It belongs to the receiver:
	// a FrameSource never writes into a Pix it has delivered.
	Pix []byte
	// Time is when the pixels were read.
	Time time.Time
	// Seq counts the frames the source delivered, from 1.
	Seq uint64
	// Forced is set when the frame was delivered because a keyframe was
	// requested, although its pixels had not changed.
	Forced bool
}

// FrameSource is a stream of frames of one target: what a kind of target
// gives the live view (package capture has the sources of X11 windows and
// CDP tabs).
//
// Next blocks until the next frame is due and has changed (or a keyframe
// was requested), and returns it; it returns ctx's error when ctx ends and
// a *Refusal when the target is gone (window_gone, tab_gone) or cannot be
// read (window_not_visible, no_capture). Next is called from one goroutine
// at a time; RequestKeyframe and Close may be called from any goroutine.
type FrameSource interface {
	Next(ctx context.Context) (Frame, error)
	// RequestKeyframe makes the next due frame be delivered even if its
	// pixels did not change.
	RequestKeyframe()
	// Close releases the source; a Next in progress returns.
	Close() error
}
