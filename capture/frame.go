package capture

import "time"

// Format names the layout of a Frame's pixels.
type Format int

// The pixel formats a Source may deliver.
const (
	// FormatRGBA is 4 bytes a pixel, R G B A in memory (image.RGBA's layout).
	FormatRGBA Format = iota
	// FormatBGRX is 4 bytes a pixel, B G R X in memory (an LSB-first X
	// server's 24-bit ZPixmap).
	FormatBGRX
)

func (f Format) String() string {
	switch f {
	case FormatRGBA:
		return "rgba"
	case FormatBGRX:
		return "bgrx"
	}
	return "unknown"
}

// Frame is one picture of a target.
type Frame struct {
	Format Format
	Width  int
	Height int
	// Stride is the number of bytes between the starts of two rows.
	Stride int
	// Pix holds Height rows of Stride bytes. It belongs to the receiver:
	// a Source never writes into a Pix it has delivered.
	Pix []byte
	// Time is when the pixels were read.
	Time time.Time
	// Seq counts the frames the Source delivered, from 1.
	Seq uint64
	// Forced is set when the frame was delivered because a keyframe was
	// requested, although its pixels had not changed.
	Forced bool
}
