package cdp

import (
	"strings"
	"sync"

	"github.com/vibespace/vibespace/internal/procgroup"
	"github.com/vibespace/vibespace/internal/procnet"
)

// GroupProcesses lists the live (not zombie) processes whose process group
// is pgid, read from /proc. Tests use it to check that Close left nothing
// behind.
func GroupProcesses(pgid int) []int { return procgroup.Live(pgid) }

// tailBuffer keeps the last n lines of a stream, for error messages.
type tailBuffer struct {
	mu    sync.Mutex
	n     int
	lines []string
}

func newTailBuffer(n int) *tailBuffer { return &tailBuffer{n: n} }

func (t *tailBuffer) add(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, line)
	if len(t.lines) > t.n {
		t.lines = t.lines[len(t.lines)-t.n:]
	}
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.lines, "\n")
}

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
