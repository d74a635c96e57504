package rtc

import (
	"github.com/pion/interceptor"
	"github.com/pion/rtp"
)

// PlayoutDelayURI is the RTP header extension that tells the receiver how
// long it may buffer before showing a picture.
// http://www.webrtc.org/experiments/rtp-hdrext/playout-delay
const PlayoutDelayURI = "http://www.webrtc.org/experiments/rtp-hdrext/playout-delay"

// playoutDelay stamps every outgoing RTP packet with the playout-delay
// extension at min = max = 0, when it was negotiated. Without it Chrome
// adds 55–135 ms of jitter buffer on loopback (notes/live-view.md, trap 2).
type playoutDelay struct {
	interceptor.NoOp
	payload []byte
}

// playoutDelayFactory makes the interceptor for each peer connection.
type playoutDelayFactory struct{}

func (playoutDelayFactory) NewInterceptor(string) (interceptor.Interceptor, error) {
	b, err := rtp.PlayoutDelayExtension{MinDelay: 0, MaxDelay: 0}.Marshal()
	if err != nil {
		return nil, err
	}
	return &playoutDelay{payload: b}, nil
}

func (p *playoutDelay) BindLocalStream(info *interceptor.StreamInfo, w interceptor.RTPWriter) interceptor.RTPWriter {
	id := 0
	for _, e := range info.RTPHeaderExtensions {
		if e.URI == PlayoutDelayURI {
			id = e.ID
		}
	}
	if id == 0 {
		return w
	}
	return interceptor.RTPWriterFunc(func(h *rtp.Header, payload []byte, a interceptor.Attributes) (int, error) {
		if err := h.SetExtension(uint8(id), p.payload); err != nil {
			return 0, err
		}
		return w.Write(h, payload, a)
	})
}
