//go:build !cgo || vibespace_noyuv

package rtc

import "github.com/vibespace/vibespace/capture"

// convertFrame fills p with frame f: pure Go in this build (no libyuv).
func convertFrame(p *I420, f capture.Frame) error { return p.Convert(f) }

// scaleI420 fills dst (Width and Height set) with src scaled: pure Go in
// this build (no libyuv).
func scaleI420(dst, src *I420) error {
	scaleI420Go(dst, src)
	return nil
}
