//go:build !amd64

package native

// Elsewhere the numbers are not known here (arm64 has no poll; its
// ppoll's timeout is behind a pointer /proc does not show): idleness is
// unknown and the wait for an effect runs to its deadline.
const (
	pollSyscall       = -1
	epollWaitSyscall  = -1
	epollPwaitSyscall = -1
)
