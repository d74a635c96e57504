package wire

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"
)

// FromFD makes a Client of a connected stream socket other than the
// daemon's own (one end of a socketpair whose other end is a bridge's
// standard input and output, such as ssh running vibespace-daemon bridge on
// another host). The Client owns fd; Close closes it, then calls closed
// (nil: nothing more), whose error it returns.
func FromFD(fd int, closed func() error) *Client {
	cl := &Client{fd: fd, closed: closed}
	cl.r = bufio.NewReaderSize(fdReader{cl}, 64<<10)
	return cl
}

// BridgeGreeting is the line a bridge writes before the daemon's bytes,
// followed by a space and what it says of itself (its version).
const BridgeGreeting = "vibespace-bridge"

// Greeting reads the bridge's first line, bounded by timeout, and returns
// what follows BridgeGreeting on it.
func (cl *Client) Greeting(timeout time.Duration) (string, error) {
	if err := cl.setTimeout(timeout); err != nil {
		return "", err
	}
	line, err := cl.r.ReadString('\n')
	if err != nil {
		return "", fmt.Errorf("the bridge said no greeting: %w", err)
	}
	rest, ok := strings.CutPrefix(strings.TrimRight(line, "\n"), BridgeGreeting)
	if !ok {
		return "", fmt.Errorf("the bridge's first line is not its greeting: %q", bound(line))
	}
	return strings.TrimSpace(rest), nil
}

// bound shortens s for an error message.
func bound(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

// Socketpair is a connected pair of stream sockets, both close-on-exec:
// one end for FromFD, the other (as an *os.File) a child's stdin and
// stdout.
func Socketpair() (ours int, theirs *os.File, err error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, nil, os.NewSyscallError("socketpair", err)
	}
	return fds[0], os.NewFile(uintptr(fds[1]), "bridge"), nil
}
