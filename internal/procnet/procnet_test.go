package procnet

import (
	"net"
	"net/netip"
	"os"
	"slices"
	"testing"
)

// Of finds this process's own listening TCP and bound UDP sockets, at
// their addresses, and not a connected TCP socket nor a closed listener.
func TestOf(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pc, err := net.ListenPacket("udp6", "[::1]:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	c, err := net.Dial("tcp4", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tcp := netip.MustParseAddrPort(ln.Addr().String())
	udp := netip.MustParseAddrPort(pc.LocalAddr().String())
	conn := netip.MustParseAddrPort(c.LocalAddr().String())
	has := func(ss []Socket, proto string, a netip.AddrPort) bool {
		return slices.ContainsFunc(ss, func(s Socket) bool { return s.Proto == proto && s.Addr == a && s.PID == os.Getpid() })
	}
	ss := Of(os.Getpid())
	if !has(ss, "tcp", tcp) || !has(ss, "udp6", udp) {
		t.Fatalf("Of misses tcp %s or udp6 %s: %v", tcp, udp, ss)
	}
	if slices.ContainsFunc(ss, func(s Socket) bool { return s.Addr.Port() == conn.Port() }) {
		t.Fatalf("a connected socket (port %d) was taken for a listener: %v", conn.Port(), ss)
	}
	for _, s := range ss {
		if s.TCP() != (s.Proto == "tcp" || s.Proto == "tcp6") {
			t.Errorf("%v: TCP() is %v", s, s.TCP())
		}
	}
	ln.Close()
	if has(Of(os.Getpid()), "tcp", tcp) {
		t.Fatalf("a closed listener on %s is still found", tcp)
	}
	if got := Of(-1); got != nil {
		t.Fatalf("Of a process that does not exist: %v", got)
	}
}
