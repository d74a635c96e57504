// Package rtc is the live view's WebRTC side: one Pipeline per watched
// target (capture → I420 → encoder → one pion track) shared by every viewer
// of it, and WHEP-style signalling (an HTTP POST of the offer answered with
// the complete answer).
//
// What the pipeline does, and why (notes/live-view.md):
//   - VP8 through libvpx (cgo): realtime, one thread, CBR, bitrate set live,
//     keyframes forced on request. A build without cgo (or with the
//     vibespace_novpx tag) compiles, and every watch is refused with
//     live_view_unavailable.
//   - H.264 through openh264 (cgo) when the viewer's offer accepts
//     constrained baseline 42e01f with packetization-mode 1: screen-content
//     real-time mode, one thread, bitrate set live, IDR forced on request;
//     it holds its bitrate by skipping pictures (the source is then asked
//     for the picture again, so a target that stops changing is still
//     shown as it last was, at most 8 times in a row). On scrolling text it needs about two thirds
//     of VP8's bytes (BenchmarkScrollingTextVP8VsH264). The
//     vibespace_noh264 build tag leaves it out (Debian's openh264 carries
//     no patent licence): such a build, like one without cgo, never offers
//     H.264 and every viewer gets VP8.
//   - Frames are converted to I420 by libyuv (cgo, -lyuv; Debian
//     libyuv-dev), 0.2–0.6 ms for 1280×720 where the pure-Go Convert takes
//     7–20 ms; the vibespace_noyuv tag (or no cgo) keeps the pure-Go one.
//   - One pipeline per target, codec and tier: viewers that negotiated the
//     same codec at the same tier share its encoder; a VP8-only viewer of a
//     target watched in H.264 gets a second pipeline. Each viewer's media
//     engine registers only its codec.
//   - Two tiers (Tier): the full one, and thumbnails (?tier=thumb on the
//     WHEP POST): 2 fps, scaled by libyuv's I420Scale (pure-Go box filter
//     without libyuv) to at most 320 px wide, aspect kept, even sizes, at
//     200 kbit/s at most (Options.ThumbFPS, ThumbWidth, ThumbBitrate).
//   - One capture per target: its source is opened once, whatever the
//     number of its pipelines (tiers, codecs), read by one goroutine, and
//     each pipeline takes the newest frame it has not seen at its tier's
//     rate. A source with SetFPS(int) (capture.Window) runs at the highest
//     rate among the target's tiers: a target watched only as a thumbnail
//     is captured at 2 fps. A keyframe request of any pipeline asks the
//     shared source for a picture. The source fails (window_gone): every
//     pipeline of the target ends with its error. The last pipeline to
//     stop closes it (Hub.Sources, Hub.SourceOpens count them).
//   - Congestion control: TWCC feedback into pion's GCC with the no-op
//     pacer; the lowest target among a pipeline's viewers drives the shared
//     encoder's bitrate.
//   - No RTX is negotiated: pion's GCC pacer drops RTX packets. NACKs are
//     answered by resending on the media stream.
//   - Every RTP packet carries the playout-delay header extension at 0/0,
//     or Chrome holds 55–135 ms of jitter buffer.
//   - Two ICE roads: UDP host candidates (loopback by default, or one
//     socket for all viewers: Options.ICEUDPMux), and, with
//     Options.ICETCPListener, a passive ICE-TCP host candidate at that one
//     listener's address, offered to every viewer: the road of a viewer
//     that reaches the hub through a tunnel carrying TCP only (ssh -L).
//     What waits to be written to a TCP viewer is bounded (1 MiB): a slow
//     one loses packets, never stalls the track its pipeline shares.
//   - PLI and FIR force a keyframe, at most one per KeyframeMinInterval; a
//     request inside the interval is kept and answered when it ends. The
//     capture source is asked for a picture too, so a still window still
//     answers.
//
// A viewer whose peer connection fails or closes (page closed, browser
// killed, DELETE of its WHEP resource) is dropped; when the last viewer of a
// target leaves, its pipeline stops and its source is closed.
package rtc
