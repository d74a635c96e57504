package cdp

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/vibespace/vibespace/internal/procgroup"
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
// process of group pgid holds ("pid 123: 127.0.0.1:41735"), matching the
// socket inodes of /proc/<pid>/fd against /proc/net/tcp and tcp6. Tests
// use it to check that a browser is reachable by no port.
func GroupListeners(pgid int) []string {
	listening := map[string]string{} // socket inode → local address
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n")[1:] {
			// "sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode …"
			fs := strings.Fields(line)
			if len(fs) < 10 || fs[3] != "0A" { // 0A: TCP_LISTEN
				continue
			}
			listening[fs[9]] = hexAddr(fs[1])
		}
	}
	var out []string
	for _, pid := range GroupProcesses(pgid) {
		dir := "/proc/" + strconv.Itoa(pid) + "/fd"
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			link, err := os.Readlink(dir + "/" + e.Name())
			if err != nil {
				continue
			}
			inode, ok := strings.CutPrefix(link, "socket:[")
			if !ok {
				continue
			}
			if addr, ok := listening[strings.TrimSuffix(inode, "]")]; ok {
				out = append(out, fmt.Sprintf("pid %d: %s", pid, addr))
			}
		}
	}
	return out
}

// hexAddr turns /proc/net/tcp's "0100007F:A2B7" into "127.0.0.1:41655"
// (an IPv6 address stays in hex, with its port decoded).
func hexAddr(s string) string {
	host, port, ok := strings.Cut(s, ":")
	p, err := strconv.ParseUint(port, 16, 16)
	if !ok || err != nil {
		return s
	}
	if len(host) == 8 {
		if v, err := strconv.ParseUint(host, 16, 32); err == nil {
			host = fmt.Sprintf("%d.%d.%d.%d", v&0xff, v>>8&0xff, v>>16&0xff, v>>24)
		}
	}
	return fmt.Sprintf("%s:%d", host, p)
}
