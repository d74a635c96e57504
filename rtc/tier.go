package rtc

import "github.com/vibespace/vibespace/target"

// Tier is the rate a pipeline runs at. A target watched at both tiers has
// a pipeline (and encoder) per tier, fed by the one capture of the target.
type Tier string

// The tiers.
const (
	// TierFull is the opened pane: the source's own rate and size.
	TierFull Tier = "full"
	// TierThumb is a thumbnail: Options.ThumbFPS (default 2 fps), scaled
	// so that its width is at most Options.ThumbWidth (default 320 px),
	// aspect kept, even dimensions, at Options.ThumbBitrate (default
	// 200 kbit/s) at most.
	TierThumb Tier = "thumb"
)

// ParseTier reads a tier as the WHEP endpoint's ?tier= gives it: "" or
// "full" is TierFull, "thumb" TierThumb; anything else is a bad_request
// refusal.
func ParseTier(s string) (Tier, error) {
	switch Tier(s) {
	case "", TierFull:
		return TierFull, nil
	case TierThumb:
		return TierThumb, nil
	}
	return "", target.Refuse(target.CodeBadRequest, "unknown live view tier %q: want full or thumb", s)
}

// thumbSize is the size a w×h picture is scaled to for a thumbnail no
// wider than maxW: even dimensions, aspect kept; ok is false when the
// picture is small enough already (it is then sent as it is).
func thumbSize(w, h, maxW int) (tw, th int, ok bool) {
	if w <= maxW {
		return w, h, false
	}
	tw = maxW &^ 1
	th = (h*tw + w/2) / w
	th = max(th+th%2, 2) // round up to even
	return max(tw, 2), th, true
}

// scaleI420Go fills dst with src scaled to dst's size (set by the caller:
// Width, Height) by averaging the source area each output sample covers:
// pure Go, the fallback of scaleI420.
func scaleI420Go(dst, src *I420) {
	dst.sizePlanes(dst.Width, dst.Height)
	boxScale(dst.Y, dst.StrideY, dst.Width, dst.Height, src.Y, src.StrideY, src.Width, src.Height)
	scw, sch := (src.Width+1)/2, (src.Height+1)/2
	dcw, dch := (dst.Width+1)/2, (dst.Height+1)/2
	boxScale(dst.U, dst.StrideC, dcw, dch, src.U, src.StrideC, scw, sch)
	boxScale(dst.V, dst.StrideC, dcw, dch, src.V, src.StrideC, scw, sch)
}

// sizePlanes sets p's strides and planes for a w×h picture, reusing its
// buffers when large enough.
func (p *I420) sizePlanes(w, h int) {
	cw, ch := (w+1)/2, (h+1)/2
	p.Width, p.Height, p.StrideY, p.StrideC = w, h, w, cw
	p.Y = grow(p.Y, w*h)
	p.U = grow(p.U, cw*ch)
	p.V = grow(p.V, cw*ch)
}

// boxScale scales one plane: each output sample is the mean of the source
// samples of its area (at least one).
func boxScale(dst []byte, dstride, dw, dh int, src []byte, sstride, sw, sh int) {
	for y := range dh {
		y0 := y * sh / dh
		y1 := max((y+1)*sh/dh, y0+1)
		for x := range dw {
			x0 := x * sw / dw
			x1 := max((x+1)*sw/dw, x0+1)
			sum := 0
			for sy := y0; sy < y1; sy++ {
				row := src[sy*sstride:]
				for sx := x0; sx < x1; sx++ {
					sum += int(row[sx])
				}
			}
			n := (y1 - y0) * (x1 - x0)
			dst[y*dstride+x] = byte((sum + n/2) / n)
		}
	}
}
