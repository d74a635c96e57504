// Package procnet reads, from /proc, the sockets a process holds that can
// take traffic from a network: its listening TCP sockets and its bound UDP
// ones, in the process's own network namespace.
package procnet

import (
	"encoding/binary"
	"encoding/hex"
	"net/netip"
	"os"
	"strconv"
	"strings"
)

// Socket is one listening TCP or bound UDP socket of a process.
type Socket struct {
	PID   int
	Proto string // "tcp", "tcp6", "udp" or "udp6"
	Addr  netip.AddrPort
}

// TCP reports whether s is a listening TCP socket (else it is bound UDP).
func (s Socket) TCP() bool { return strings.HasPrefix(s.Proto, "tcp") }

func (s Socket) String() string {
	return "pid " + strconv.Itoa(s.PID) + ": " + s.Proto + " " + s.Addr.String()
}

// The states of /proc/net's tables that count: a TCP socket in LISTEN, an
// unconnected (bound) UDP socket.
const (
	tcpListen = "0A"
	udpBound  = "07"
)

// Of lists the sockets pid holds: the tables of its own network namespace
// (/proc/<pid>/net/tcp, tcp6, udp, udp6) matched against its descriptors.
// A process that is gone holds none.
func Of(pid int) []Socket {
	dir := "/proc/" + strconv.Itoa(pid)
	type entry struct {
		proto string
		addr  netip.AddrPort
	}
	byInode := map[string]entry{}
	for _, proto := range []string{"tcp", "tcp6", "udp", "udp6"} {
		data, err := os.ReadFile(dir + "/net/" + proto)
		if err != nil {
			continue
		}
		want := tcpListen
		if strings.HasPrefix(proto, "udp") {
			want = udpBound
		}
		for _, line := range strings.Split(string(data), "\n")[1:] {
			// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode …
			f := strings.Fields(line)
			if len(f) < 10 || f[3] != want {
				continue
			}
			if a, ok := parseAddr(f[1]); ok {
				byInode[f[9]] = entry{proto, a}
			}
		}
	}
	if len(byInode) == 0 {
		return nil
	}
	ents, err := os.ReadDir(dir + "/fd")
	if err != nil {
		return nil
	}
	var out []Socket
	for _, e := range ents {
		link, err := os.Readlink(dir + "/fd/" + e.Name())
		if err != nil {
			continue // closed meanwhile
		}
		in, ok := strings.CutPrefix(link, "socket:[")
		if !ok {
			continue
		}
		if en, ok := byInode[strings.TrimSuffix(in, "]")]; ok {
			out = append(out, Socket{PID: pid, Proto: en.proto, Addr: en.addr})
		}
	}
	return out
}

// parseAddr decodes /proc/net's "0100007F:A2B7": the address as 32-bit
// words in this machine's byte order, then the port in hex.
func parseAddr(s string) (netip.AddrPort, bool) {
	a, p, ok := strings.Cut(s, ":")
	if !ok {
		return netip.AddrPort{}, false
	}
	raw, err := hex.DecodeString(a)
	if err != nil || (len(raw) != 4 && len(raw) != 16) {
		return netip.AddrPort{}, false
	}
	ip := make([]byte, len(raw))
	for i := 0; i < len(raw); i += 4 {
		binary.BigEndian.PutUint32(ip[i:], binary.NativeEndian.Uint32(raw[i:]))
	}
	port, err := strconv.ParseUint(p, 16, 16)
	if err != nil {
		return netip.AddrPort{}, false
	}
	addr, _ := netip.AddrFromSlice(ip)
	return netip.AddrPortFrom(addr.Unmap(), uint16(port)), true
}
