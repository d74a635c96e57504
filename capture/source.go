package capture

import "context"

// Source is a stream of frames of one target.
//
// Next blocks until the next frame is due and has changed (or a keyframe
// was requested), and returns it; it returns ctx's error when ctx ends and
// a *target.Refusal when the target is gone (window_gone) or cannot be read
// (window_not_visible, no_capture). Next is called from one goroutine at a
// time; RequestKeyframe and Close may be called from any goroutine.
type Source interface {
	Next(ctx context.Context) (Frame, error)
	// RequestKeyframe makes the next due frame be delivered even if its
	// pixels did not change.
	RequestKeyframe()
	// Close releases the source; a Next in progress returns.
	Close() error
}
