package displays_test

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/internal/procnet"
)

// checkLoopbackOnly fails t for every socket of pids that listens (TCP)
// or is bound (UDP) anywhere but loopback, read in each process's own
// network namespace, and answers how many it read.
func checkLoopbackOnly(t testing.TB, side string, pids []int) int {
	t.Helper()
	n := 0
	for _, pid := range pids {
		for _, s := range procnet.Of(pid) {
			n++
			if !s.Addr.Addr().IsLoopback() {
				t.Errorf("%s: a socket of ours open beyond loopback: %s (%s)", side, s, comm(pid))
			}
		}
	}
	return n
}

func comm(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	return strings.TrimSpace(string(b))
}
