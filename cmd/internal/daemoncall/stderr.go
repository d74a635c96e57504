package daemoncall

import (
	"os"
	"path/filepath"
)

// DaemonStderr is the file in the state directory a daemon the command
// lines start writes its standard error to: what is not its log (that is
// daemon.log, which the daemon writes and rotates itself) — a panic's
// trace, the Go runtime's last words. status names it.
const DaemonStderr = "daemon.stderr"

// maxStderr bounds DaemonStderr: a daemon starting finds a larger one
// renamed daemon.stderr.1 (one kept: the last crash's trace).
const maxStderr = 1 << 20

// openStderr opens the state directory's DaemonStderr for appending, after
// renaming it aside when it grew past its bound.
func openStderr(stateDir string) (*os.File, error) {
	p := filepath.Join(stateDir, DaemonStderr)
	if st, err := os.Stat(p); err == nil && st.Size() > maxStderr {
		os.Rename(p, p+".1")
	}
	return os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
}
