package kind

import "time"

// Mortal is a display whose server can die under the daemon (an X server
// killed, an xpra server that crashed). The core watches Gone for every
// running display that has it: when it is closed, the display's windows
// are lost at once, each holder is told why, and a verb on a lost handle
// is refused saying when and why (never unknown_target).
type Mortal interface {
	// Gone is closed when the display's server has ended; nil when that
	// is not watched (the display then dies unseen until a call fails).
	Gone() <-chan struct{}
	// Death says how it ended, once Gone is closed.
	Death() Death
}

// Death is how a display died, in words for an answer.
type Death struct {
	At time.Time
	// Display names the display and its server: "display :3 (Xvfb pid
	// 4242)", "xpra display :12 (xpra server pid 777)".
	Display string
	// How it ended: "killed by signal 9 (SIGKILL)".
	How string
}
