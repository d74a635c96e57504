package daemon

import "github.com/vibespace/vibespace/rtc"

// LiveHub exposes the live view's hub to the external tests (nil until the
// first watch).
func (d *Daemon) LiveHub() *rtc.Hub { return d.liveHub() }

// LiveInputCounts are the viewer input events acted on and dropped.
func (d *Daemon) LiveInputCounts() (accepted, dropped uint64) {
	return d.live.accepted.Load(), d.live.dropped.Load()
}
