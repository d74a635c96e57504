package kind

// Attacher is a display a person can attach a client of its own to (Xpra's:
// the windows appear on the person's desktop as windows of their own), and
// through it watch and drive every window of the display without us.
type Attacher interface {
	// AttachCommands answers the exact commands a person runs to attach:
	// local from this machine as the same user, ssh (in order) from
	// another machine, sshHost ("user@host") being how they reach this
	// one.
	AttachCommands(sshHost string) (local string, ssh []string, err error)
}
