//go:build !cgo || vibespace_novpx

package rtc

import "github.com/vibespace/vibespace/target"

// VP8Available reports whether this build carries the VP8 encoder (libvpx
// through cgo). This one does not.
func VP8Available() bool { return false }

// NewVP8 refuses with live_view_unavailable: this build has no libvpx.
func NewVP8(EncoderOptions) (Encoder, error) {
	return nil, errNoEncoder("this build has no VP8 encoder (built without cgo or with the vibespace_novpx tag; rebuild with CGO_ENABLED=1 and libvpx-dev)")
}

// errNoEncoder is the refusal when this build has no encoder.
func errNoEncoder(why string) error {
	return target.Refuse(target.CodeLiveViewUnavailable, "the live view is unavailable: %s", why)
}
