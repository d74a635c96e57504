package rtc

import "github.com/pion/webrtc/v4"

// keyedTrack is the pipeline's track. It asks for a keyframe each time a
// viewer's sender binds it: the pictures sent before are lost to that
// viewer, and a receiver that sends no PLI (pion, some WHEP players) would
// otherwise wait for the next periodic keyframe.
type keyedTrack struct {
	*webrtc.TrackLocalStaticSample
	onBind func()
}

// Bind is called by pion when a viewer's sender starts.
func (t *keyedTrack) Bind(c webrtc.TrackLocalContext) (webrtc.RTPCodecParameters, error) {
	p, err := t.TrackLocalStaticSample.Bind(c)
	if err == nil {
		t.onBind()
	}
	return p, err
}
