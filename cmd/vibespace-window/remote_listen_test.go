package main_test

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// inetSocket is one socket a process holds that could take traffic from a
// network: a listening TCP socket or a bound UDP one.
type inetSocket struct {
	PID   int
	Proto string // tcp, tcp6, udp, udp6
	Addr  net.IP
	Port  int
}

func (s inetSocket) String() string {
	return fmt.Sprintf("pid %d (%s): %s %s", s.PID, comm(s.PID), s.Proto, net.JoinHostPort(s.Addr.String(), strconv.Itoa(s.Port)))
}

func comm(pid int) string {
	b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "comm"))
	return strings.TrimSpace(string(b))
}

// inetSockets are the listening TCP and bound UDP sockets process pid
// holds, read from its own network namespace's tables (/proc/<pid>/net/…)
// and its descriptors.
func inetSockets(t testing.TB, pid int) []inetSocket {
	t.Helper()
	dir := filepath.Join("/proc", strconv.Itoa(pid))
	type entry struct {
		proto string
		ip    net.IP
		port  int
	}
	byInode := map[string]entry{}
	for _, proto := range []string{"tcp", "tcp6", "udp", "udp6"} {
		data, err := os.ReadFile(filepath.Join(dir, "net", proto))
		if err != nil {
			continue // the process ended, or no such table
		}
		for _, line := range strings.Split(string(data), "\n")[1:] {
			// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode …
			f := strings.Fields(line)
			if len(f) < 10 {
				continue
			}
			// TCP: 0A is LISTEN. UDP: 07 is an unconnected (bound) socket.
			if (strings.HasPrefix(proto, "tcp") && f[3] != "0A") || (strings.HasPrefix(proto, "udp") && f[3] != "07") {
				continue
			}
			ip, port, err := procAddr(f[1])
			if err != nil {
				t.Fatalf("%s/net/%s: %q: %v", dir, proto, f[1], err)
			}
			byInode[f[9]] = entry{proto, ip, port}
		}
	}
	ents, err := os.ReadDir(filepath.Join(dir, "fd"))
	if err != nil {
		return nil // the process ended
	}
	var out []inetSocket
	for _, e := range ents {
		link, err := os.Readlink(filepath.Join(dir, "fd", e.Name()))
		if err != nil {
			continue
		}
		in, ok := strings.CutPrefix(link, "socket:[")
		if !ok {
			continue
		}
		if en, ok := byInode[strings.TrimSuffix(in, "]")]; ok {
			out = append(out, inetSocket{PID: pid, Proto: en.proto, Addr: en.ip, Port: en.port})
		}
	}
	return out
}

// procAddr decodes /proc/net's "0100007F:A2B7": the address as 32-bit
// words in this machine's byte order, then the port in hex.
func procAddr(s string) (net.IP, int, error) {
	a, p, ok := strings.Cut(s, ":")
	if !ok {
		return nil, 0, fmt.Errorf("no port")
	}
	raw, err := hex.DecodeString(a)
	if err != nil || (len(raw) != 4 && len(raw) != 16) {
		return nil, 0, fmt.Errorf("bad address")
	}
	ip := make(net.IP, len(raw))
	for i := 0; i < len(raw); i += 4 {
		binary.BigEndian.PutUint32(ip[i:], binary.NativeEndian.Uint32(raw[i:]))
	}
	port, err := strconv.ParseUint(p, 16, 16)
	return ip, int(port), err
}

var masterPIDRe = regexp.MustCompile(`\(pid=(\d+)\)`)

// masterPIDs are the pids of the ssh masters the command lines of e left
// running, as each says itself (ssh -O check on its control socket).
func masterPIDs(t testing.TB, e *env) []int {
	t.Helper()
	socks, _ := filepath.Glob(filepath.Join(e.Run, "vibespace", "ssh-*"))
	var pids []int
	for _, s := range socks {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		out, _ := exec.CommandContext(ctx, "ssh", "-o", "ControlPath="+s, "-O", "check", "x").CombinedOutput()
		cancel()
		if m := masterPIDRe.FindSubmatch(out); m != nil {
			pid, _ := strconv.Atoi(string(m[1]))
			pids = append(pids, pid)
		}
	}
	return pids
}

// checkLoopbackOnly fails t for every socket of pids that listens (TCP)
// or is bound (UDP) anywhere but loopback, and answers how many it read.
func checkLoopbackOnly(t testing.TB, side string, pids []int) int {
	t.Helper()
	n := 0
	for _, pid := range pids {
		for _, s := range inetSockets(t, pid) {
			n++
			if !s.Addr.IsLoopback() {
				t.Errorf("%s: a socket of ours open beyond loopback: %s", side, s)
			}
		}
	}
	return n
}
