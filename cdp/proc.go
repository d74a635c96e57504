package cdp

import (
	"github.com/vibespace/vibespace/internal/procgroup"
	"github.com/vibespace/vibespace/internal/procnet"
)

// GroupProcesses lists the live (not zombie) processes whose process group
// is pgid, read from /proc. Tests use it to check that Close left nothing
// behind.
func GroupProcesses(pgid int) []int { return procgroup.Live(pgid) }

// GroupListeners lists the TCP sockets in the LISTEN state that a live
// process of group pgid holds ("pid 123: tcp 127.0.0.1:41735"), read from
// /proc (package procnet). Tests use it to check that a browser is
// reachable by no port.
func GroupListeners(pgid int) []string {
	var out []string
	for _, pid := range GroupProcesses(pgid) {
		for _, s := range procnet.Of(pid) {
			if s.TCP() {
				out = append(out, s.String())
			}
		}
	}
	return out
}
