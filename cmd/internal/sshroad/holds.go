package sshroad

import (
	"context"
	"fmt"
	"net/netip"
	"regexp"
	"slices"
	"strconv"

	"github.com/vibespace/vibespace/internal/procnet"
)

// Holds reports whether the master itself listens on 127.0.0.1:port here:
// a forward an earlier Forward made, which the master still keeps (a port
// taken here by the master's own forward is not taken by somebody else).
// It asks the master its pid (ssh -O check) and reads its sockets from
// /proc (package procnet).
func (h *Host) Holds(ctx context.Context, port int) (bool, error) {
	code, last, err := h.control(ctx, "check")
	if err != nil {
		return false, err
	}
	pid, ok := MasterPID(last)
	if code != 0 || !ok {
		return false, fmt.Errorf("no master running: %s", orNothing(last))
	}
	return listens(pid, port), nil
}

var masterPIDRe = regexp.MustCompile(`\(pid=(\d+)\)`)

// MasterPID reads the pid out of ssh -O check's "Master running (pid=N)".
func MasterPID(line string) (int, bool) {
	m := masterPIDRe.FindStringSubmatch(line)
	if m == nil {
		return 0, false
	}
	pid, err := strconv.Atoi(m[1])
	return pid, err == nil && pid > 0
}

// listens reports whether process pid holds a TCP socket listening on
// 127.0.0.1:port (of its own network namespace).
func listens(pid, port int) bool {
	want := netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), uint16(port))
	return slices.ContainsFunc(procnet.Of(pid), func(s procnet.Socket) bool { return s.TCP() && s.Addr == want })
}
