package rtc

import (
	"github.com/pion/ice/v4"
	"github.com/pion/interceptor"
	"github.com/pion/interceptor/pkg/cc"
	"github.com/pion/interceptor/pkg/gcc"
	"github.com/pion/webrtc/v4"
)

// vp8Codec is VP8 with NACK, PLI, FIR and transport-cc feedback, and
// deliberately no RTX (trap 1: pion's GCC pacer drops RTX packets). The
// other codec, h264Codec, is in codec.go.
var vp8Codec = webrtc.RTPCodecParameters{
	RTPCodecCapability: webrtc.RTPCodecCapability{
		MimeType:  webrtc.MimeTypeVP8,
		ClockRate: 90000,
		RTCPFeedback: []webrtc.RTCPFeedback{
			{Type: webrtc.TypeRTCPFBNACK},
			{Type: webrtc.TypeRTCPFBNACK, Parameter: "pli"},
			{Type: webrtc.TypeRTCPFBCCM, Parameter: "fir"},
			{Type: webrtc.TypeRTCPFBTransportCC},
		},
	},
	PayloadType: 96,
}

// newAPI builds the pion API for one viewer: its own media engine, with
// only the codec chosen for it, and its own interceptors, so its bandwidth
// estimator is its own. onEstimator receives that estimator when the peer
// connection is made; log records what is sent to the viewer
// (stall.go).
func (h *Hub) newAPI(codec Codec, onEstimator func(cc.BandwidthEstimator), log *sendLog) (*webrtc.API, error) {
	m := &webrtc.MediaEngine{}
	if err := m.RegisterCodec(codec.parameters(), webrtc.RTPCodecTypeVideo); err != nil {
		return nil, err
	}
	if err := m.RegisterHeaderExtension(webrtc.RTPHeaderExtensionCapability{URI: PlayoutDelayURI}, webrtc.RTPCodecTypeVideo); err != nil {
		return nil, err
	}
	reg := &interceptor.Registry{}
	o := h.o
	bwe, err := cc.NewInterceptor(func() (cc.BandwidthEstimator, error) {
		return gcc.NewSendSideBWE(
			gcc.SendSideBWEInitialBitrate(o.StartBitrate),
			gcc.SendSideBWEMinBitrate(o.MinBitrate),
			gcc.SendSideBWEMaxBitrate(o.MaxBitrate),
			gcc.SendSideBWEPacer(gcc.NewNoOpPacer()),
			gcc.WithLoggerFactory(h.logs),
		)
	})
	if err != nil {
		return nil, err
	}
	bwe.OnNewPeerConnection(func(_ string, e cc.BandwidthEstimator) { onEstimator(e) })
	reg.Add(bwe)
	if err := webrtc.ConfigureTWCCHeaderExtensionSender(m, reg); err != nil {
		return nil, err
	}
	if err := webrtc.ConfigureNack(m, reg); err != nil {
		return nil, err
	}
	if err := webrtc.ConfigureRTCPReports(reg); err != nil {
		return nil, err
	}
	reg.Add(playoutDelayFactory{})
	reg.Add(sendLogFactory{log})

	s := webrtc.SettingEngine{}
	s.LoggerFactory = h.logs
	s.SetICETimeouts(o.ICEDisconnectedTimeout, o.ICEFailedTimeout, o.ICEKeepalive)
	networks := []webrtc.NetworkType{webrtc.NetworkTypeUDP4}
	if h.tcpMux != nil {
		networks = append(networks, webrtc.NetworkTypeTCP4)
		s.SetICETCPMux(h.tcpMux)
	}
	s.SetNetworkTypes(networks)
	s.SetIncludeLoopbackCandidate(true)
	s.SetIPFilter(o.keepIP)
	// No multicast DNS: it would open sockets on every interface
	// (0.0.0.0:5353 and more), and we offer no .local candidates. A
	// viewer's own .local candidates need no resolving here: its checks
	// reach ours and are learnt as peer-reflexive.
	s.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	if o.ICEUDPMux != nil {
		s.SetICEUDPMux(o.ICEUDPMux)
	}
	return webrtc.NewAPI(webrtc.WithMediaEngine(m), webrtc.WithInterceptorRegistry(reg), webrtc.WithSettingEngine(s)), nil
}
