// Package livebench measures the live view against the baselines it must
// beat, side by side in one run on the same animated content: our WebRTC
// pipeline (rtc.Hub over a capture.Window), naive JPEG frames over a
// WebSocket of the same window, the same pipeline over a capture.Tab of
// the page in a headless tab of ours, and agent-browser's own JPEG stream
// of the same page in its headless tab; on loopback and through a
// user-space emulation of a poor link. It holds only tests and benchmarks.
package livebench
