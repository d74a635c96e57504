package rtc

import (
	"log/slog"
	"net"
	"time"

	"github.com/pion/ice/v4"
)

// Options configure a Hub. The zero value is usable; zero fields take the
// defaults named below. They are frozen once New returns.
type Options struct {
	// Logger receives the hub's and pion's messages; nil discards them.
	Logger *slog.Logger
	// NewEncoder makes a pipeline's encoder; nil means NewVP8.
	NewEncoder NewEncoderFunc
	// NewH264Encoder makes the encoder of a pipeline whose viewers offered
	// H.264. nil means NewH264 when this build has it (H264Available) and
	// NewEncoder is nil too; a caller that chose its own NewEncoder and no
	// NewH264Encoder gets that encoder only, and VP8 is always negotiated.
	NewH264Encoder NewEncoderFunc
	// NoH264 never negotiates H.264, even with a viewer that offers it.
	NoH264 bool
	// StartBitrate, MinBitrate and MaxBitrate bound the encoder's target in
	// bits per second (defaults 1 Mbit/s, 150 kbit/s, 4 Mbit/s).
	StartBitrate, MinBitrate, MaxBitrate int
	// ThumbFPS, ThumbWidth and ThumbBitrate are the thumbnail tier's rate,
	// widest picture (scaled down to it, aspect kept, even dimensions) and
	// highest bitrate in bits per second (defaults 2 fps, 320 px,
	// 200 kbit/s).
	ThumbFPS, ThumbWidth, ThumbBitrate int
	// KeyframeMinInterval is the shortest time between two keyframes made on
	// request (default 500 ms).
	KeyframeMinInterval time.Duration
	// ConnectTimeout drops a viewer that has not connected this long after
	// its offer was answered (default 20 s).
	ConnectTimeout time.Duration
	// GatherTimeout bounds the gathering of our ICE candidates (default 5 s).
	GatherTimeout time.Duration
	// ICE consent timeouts: a viewer that stops answering is disconnected
	// after ICEDisconnectedTimeout and dropped after ICEFailedTimeout more
	// (defaults 2 s, 4 s, keepalive 500 ms).
	ICEDisconnectedTimeout, ICEFailedTimeout, ICEKeepalive time.Duration
	// AllowIP picks the local addresses offered as ICE candidates; nil means
	// loopback only (the live view is served on 127.0.0.1).
	AllowIP func(net.IP) bool
	// ICEUDPMux, if set, carries every viewer's ICE traffic over that one
	// socket (webrtc.NewICEUDPMux over a net.PacketConn) instead of a socket
	// per viewer. The caller owns it and closes it after the Hub. The
	// benchmarks pass the media through an emulated poor link this way.
	ICEUDPMux ice.UDPMux
	// ICETCPListener, if set, is a second road beside UDP: every viewer is
	// also offered a passive ICE-TCP host candidate at this listener's
	// address (RFC 6544, the packets framed as RFC 4571 says), and one
	// listener carries every viewer's ICE-TCP connection. A viewer that can
	// reach only a TCP port (an ssh tunnel forwards TCP alone) gets its
	// video that way. Bind it to one address (127.0.0.1:M): only that
	// address is offered. The Hub owns it from New on and closes it in
	// Close.
	ICETCPListener net.Listener
}

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.NewH264Encoder == nil && o.NewEncoder == nil && H264Available() {
		o.NewH264Encoder = NewH264
	}
	if o.NoH264 {
		o.NewH264Encoder = nil
	}
	if o.NewEncoder == nil {
		o.NewEncoder = NewVP8
	}
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.StartBitrate, 1_000_000)
	def(&o.MinBitrate, 150_000)
	def(&o.MaxBitrate, 4_000_000)
	o.MinBitrate = min(o.MinBitrate, o.MaxBitrate)
	def(&o.ThumbFPS, 2)
	def(&o.ThumbWidth, 320)
	def(&o.ThumbBitrate, 200_000)
	o.ThumbWidth = max(o.ThumbWidth, 2)
	o.StartBitrate = min(max(o.StartBitrate, o.MinBitrate), o.MaxBitrate)
	dur := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	dur(&o.KeyframeMinInterval, 500*time.Millisecond)
	dur(&o.ConnectTimeout, 20*time.Second)
	dur(&o.GatherTimeout, 5*time.Second)
	dur(&o.ICEDisconnectedTimeout, 2*time.Second)
	dur(&o.ICEFailedTimeout, 4*time.Second)
	dur(&o.ICEKeepalive, 500*time.Millisecond)
	return o
}

func (o Options) keepIP(ip net.IP) bool {
	if o.AllowIP != nil {
		return o.AllowIP(ip)
	}
	return ip.IsLoopback()
}
