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
//   - Congestion control: TWCC feedback into pion's GCC with the no-op
//     pacer; the lowest target among a pipeline's viewers drives the shared
//     encoder's bitrate.
//   - No RTX is negotiated: pion's GCC pacer drops RTX packets. NACKs are
//     answered by resending on the media stream.
//   - Every RTP packet carries the playout-delay header extension at 0/0,
//     or Chrome holds 55–135 ms of jitter buffer.
//   - PLI and FIR force a keyframe, at most one per KeyframeMinInterval; a
//     request inside the interval is kept and answered when it ends. The
//     capture source is asked for a picture too, so a still window still
//     answers.
//
// A viewer whose peer connection fails or closes (page closed, browser
// killed, DELETE of its WHEP resource) is dropped; when the last viewer of a
// target leaves, its pipeline stops and its source is closed.
package rtc
