package sshroad

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Holds reports whether the master itself listens on 127.0.0.1:port here:
// a forward an earlier Forward made, which the master still keeps (a port
// taken here by the master's own forward is not taken by somebody else).
// It asks the master its pid (ssh -O check) and reads /proc: the sockets
// listening on 127.0.0.1:port and the master's open descriptors.
func (h *Host) Holds(ctx context.Context, port int) (bool, error) {
	code, last, err := h.control(ctx, "check")
	if err != nil {
		return false, err
	}
	pid, ok := masterPID(last)
	if code != 0 || !ok {
		return false, fmt.Errorf("no master running: %s", orNothing(last))
	}
	return listens(pid, port)
}

var masterPIDRe = regexp.MustCompile(`\(pid=(\d+)\)`)

// masterPID reads the pid out of ssh -O check's "Master running (pid=N)".
func masterPID(line string) (int, bool) {
	m := masterPIDRe.FindStringSubmatch(line)
	if m == nil {
		return 0, false
	}
	pid, err := strconv.Atoi(m[1])
	return pid, err == nil && pid > 0
}

// listens reports whether process pid holds a TCP socket listening on
// 127.0.0.1:port (of its own network namespace).
func listens(pid, port int) (bool, error) {
	inodes, err := listeningInodes(filepath.Join("/proc", strconv.Itoa(pid), "net", "tcp"), port)
	if err != nil || len(inodes) == 0 {
		return false, err
	}
	fdDir := filepath.Join("/proc", strconv.Itoa(pid), "fd")
	ents, err := os.ReadDir(fdDir)
	if err != nil {
		return false, err
	}
	for _, e := range ents {
		l, err := os.Readlink(filepath.Join(fdDir, e.Name()))
		if err != nil {
			continue // closed meanwhile
		}
		if in, ok := strings.CutPrefix(l, "socket:["); ok && inodes[strings.TrimSuffix(in, "]")] {
			return true, nil
		}
	}
	return false, nil
}

// tcpListen is the state column of a listening socket in /proc/net/tcp.
const tcpListen = "0A"

// listeningInodes are the inodes of the sockets of table (a
// /proc/<pid>/net/tcp) listening on 127.0.0.1:port.
func listeningInodes(table string, port int) (map[string]bool, error) {
	f, err := os.Open(table)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The kernel prints an IPv4 address as its 32 bits in this machine's
	// byte order, then the port in hex.
	want := fmt.Sprintf("%08X:%04X", binary.NativeEndian.Uint32([]byte{127, 0, 0, 1}), port)
	out := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Scan() // the header
	for sc.Scan() {
		// sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode …
		f := strings.Fields(sc.Text())
		if len(f) >= 10 && f[1] == want && f[3] == tcpListen {
			out[f[9]] = true
		}
	}
	return out, sc.Err()
}
