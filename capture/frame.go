package capture

import "github.com/vibespace/vibespace/target"

// The frame types are the shared model's (package target), so that a kind
// of target can hand the live view a source without importing this package.
type (
	// Format names the layout of a Frame's pixels.
	Format = target.PixelFormat
	// Frame is one picture of a target.
	Frame = target.Frame
	// Source is a stream of frames of one target.
	Source = target.FrameSource
)

// The pixel formats a Source may deliver.
const (
	FormatRGBA = target.FormatRGBA
	FormatBGRX = target.FormatBGRX
)
