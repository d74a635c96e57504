package native

import (
	"fmt"
	"time"

	"github.com/vibespace/vibespace/daemon/kind"
)

var _ kind.Mortal = (*display)(nil)

// Gone is closed when the server of our desktop (its Xvfb, or the xpra
// managing it) has ended; nil on the person's own desktop, which is not
// ours to watch, and on a desktop adopted from a record that did not
// name its server.
func (d *display) Gone() <-chan struct{} {
	h, ok := d.host.(ours)
	if !ok {
		return nil
	}
	return h.ServerGone()
}

// Death says how our desktop's server ended: "display :3 (Xvfb pid
// 4242)" or "xpra display :12 (xpra server pid 777)", "killed by signal 9
// (SIGKILL)".
func (d *display) Death() kind.Death {
	what := "display " + d.Name()
	if d.xp != nil {
		what = "xpra display " + d.Name()
	}
	h, ok := d.host.(ours)
	if !ok {
		return kind.Death{At: time.Now(), Display: what, How: "it stopped answering"}
	}
	end, ok := h.ServerEnd()
	if !ok {
		return kind.Death{At: time.Now(), Display: what, How: "it stopped answering"}
	}
	server := end.Name
	if server == "xpra" {
		server = "xpra server"
	}
	return kind.Death{At: end.At, Display: fmt.Sprintf("%s (%s pid %d)", what, server, end.PID), How: end.How}
}
