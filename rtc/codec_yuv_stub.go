//go:build !cgo || vibespace_noyuv

package rtc

import "github.com/vibespace/vibespace/capture"

// convertFrame fills p with frame f: pure Go in this build (no libyuv).
func convertFrame(p *I420, f capture.Frame) error { return p.Convert(f) }
