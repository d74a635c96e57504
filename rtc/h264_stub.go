//go:build !cgo || vibespace_noh264

package rtc

import "errors"

// H264Available reports whether this build carries the H.264 encoder
// (openh264 through cgo; the vibespace_noh264 build tag leaves it out).
// This one does not: viewers get VP8.
func H264Available() bool { return false }

// NewH264 fails: this build has no openh264.
func NewH264(EncoderOptions) (Encoder, error) {
	return nil, errors.New("rtc: this build has no H.264 encoder (built without cgo or with the vibespace_noh264 tag)")
}
