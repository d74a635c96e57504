package sshroad

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

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

// MasterPID reads the pid out of ssh -O check's "Master running (pid=N)":
// the first "(pid=" followed by digits and ")". Read by hand, not by a
// regular expression compiled at package init: this package is linked into
// every command line, whose every call is a fresh process, and the compile
// was 2% of a call's CPU (perf, vibespace-browser get title).
func MasterPID(line string) (int, bool) {
	for rest := line; ; {
		_, after, ok := strings.Cut(rest, "(pid=")
		if !ok {
			return 0, false
		}
		digits, _, ok := strings.Cut(after, ")")
		if ok && digits != "" && strings.Trim(digits, "0123456789") == "" {
			pid, err := strconv.Atoi(digits)
			return pid, err == nil && pid > 0
		}
		rest = after
	}
}

// listens reports whether process pid holds a TCP socket listening on
// 127.0.0.1:port (of its own network namespace).
func listens(pid, port int) bool {
	want := netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), uint16(port))
	return slices.ContainsFunc(procnet.Of(pid), func(s procnet.Socket) bool { return s.TCP() && s.Addr == want })
}
