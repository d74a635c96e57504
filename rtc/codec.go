package rtc

import (
	"strings"

	"github.com/pion/webrtc/v4"
)

// Codec names the video codec of a pipeline.
type Codec string

// The codecs a pipeline may use.
const (
	// CodecVP8 is VP8 through libvpx: the baseline every browser decodes.
	CodecVP8 Codec = "vp8"
	// CodecH264 is H.264 constrained baseline (profile-level-id 42e01f,
	// packetization-mode 1) through openh264 in screen-content mode: text
	// stays readable at a fraction of VP8's bitrate. It is used when the
	// viewer offers it and the build has it (H264Available).
	CodecH264 Codec = "h264"
)

// h264Fmtp is what we promise of our H.264 stream.
const h264Fmtp = "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f"

// h264Codec is H.264 with the same feedback as vp8Codec, and no RTX.
var h264Codec = webrtc.RTPCodecParameters{
	RTPCodecCapability: webrtc.RTPCodecCapability{
		MimeType:     webrtc.MimeTypeH264,
		ClockRate:    90000,
		SDPFmtpLine:  h264Fmtp,
		RTCPFeedback: vp8Codec.RTCPFeedback,
	},
	PayloadType: 102,
}

// parameters are the RTP parameters registered for c.
func (c Codec) parameters() webrtc.RTPCodecParameters {
	if c == CodecH264 {
		return h264Codec
	}
	return vp8Codec
}

// capability is the track capability of c.
func (c Codec) capability() webrtc.RTPCodecCapability {
	p := c.parameters().RTPCodecCapability
	p.RTCPFeedback = nil
	return p
}

// offersH264 reports whether an SDP offer accepts our H.264 stream in a
// video section: an H264/90000 payload type whose fmtp has
// packetization-mode=1 and a constrained-baseline profile-level-id (42e0xx:
// the level may differ, RFC 6184 §8.2.2, as pion matches it).
func offersH264(offer string) bool {
	video := false
	h264PT := map[string]bool{}
	fmtp := map[string]string{}
	for line := range strings.SplitSeq(offer, "\n") {
		line = strings.TrimRight(line, "\r")
		if rest, ok := strings.CutPrefix(line, "m="); ok {
			video = strings.HasPrefix(rest, "video ")
			continue
		}
		if !video {
			continue
		}
		if rest, ok := strings.CutPrefix(line, "a=rtpmap:"); ok {
			pt, enc, _ := strings.Cut(rest, " ")
			if strings.EqualFold(enc, "H264/90000") {
				h264PT[pt] = true
			}
		} else if rest, ok := strings.CutPrefix(line, "a=fmtp:"); ok {
			pt, params, _ := strings.Cut(rest, " ")
			fmtp[pt] += ";" + params
		}
	}
	for pt := range h264PT {
		mode, plid := "0", ""
		for p := range strings.SplitSeq(fmtp[pt], ";") {
			k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
			switch strings.ToLower(k) {
			case "packetization-mode":
				mode = v
			case "profile-level-id":
				plid = strings.ToLower(v)
			}
		}
		if mode == "1" && len(plid) == 6 && plid[:4] == "42e0" {
			return true
		}
	}
	return false
}

// pipeKey names a pipeline: one per watched target, codec and tier,
// shared by every viewer of that target at that tier that negotiated that
// codec.
type pipeKey struct {
	key   string
	codec Codec
	tier  Tier
}

func (p *Pipeline) pk() pipeKey { return pipeKey{p.key, p.codec, p.tier} }

// chooseCodec is H.264 when the viewer's offer accepts our H.264 stream and
// this hub has an H.264 encoder, VP8 otherwise.
func (h *Hub) chooseCodec(offer string) Codec {
	if h.o.NewH264Encoder != nil && offersH264(offer) {
		return CodecH264
	}
	return CodecVP8
}

// encoderFor is the encoder maker of a pipeline of codec c.
func (h *Hub) encoderFor(c Codec) NewEncoderFunc {
	if c == CodecH264 {
		return h.o.NewH264Encoder
	}
	return h.o.NewEncoder
}

// padEven makes p a copy of img grown to even width and height, the last
// column and row repeated, and returns p. Its buffers are reused.
func (p *I420) padEven(img *I420) *I420 {
	w, h := img.Width+img.Width%2, img.Height+img.Height%2
	cw, ch := w/2, h/2 // img has ceil(w/2) × ceil(h/2) chroma samples already
	p.Width, p.Height, p.StrideY, p.StrideC = w, h, w, cw
	p.Y = grow(p.Y, w*h)
	p.U = grow(p.U, cw*ch)
	p.V = grow(p.V, cw*ch)
	for y := range h {
		sy := min(y, img.Height-1)
		row := p.Y[y*w : y*w+w]
		copy(row, img.Y[sy*img.StrideY:sy*img.StrideY+img.Width])
		if w > img.Width {
			row[w-1] = row[w-2]
		}
	}
	for y := range ch {
		copy(p.U[y*cw:y*cw+cw], img.U[y*img.StrideC:y*img.StrideC+cw])
		copy(p.V[y*cw:y*cw+cw], img.V[y*img.StrideC:y*img.StrideC+cw])
	}
	return p
}
