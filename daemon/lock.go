package daemon

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// ErrRunning is returned by New when another daemon holds the state
// directory's lock.
var ErrRunning = errors.New("daemon: another daemon is already running for this state directory")

// lockFile holds an exclusive flock on path for the daemon's life. The lock
// dies with the process, so a daemon killed with -9 never leaves a stale one.
type lockFile struct{ f *os.File }

func acquireLock(path string) (*lockFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("daemon: lock file: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		b := make([]byte, 32)
		n, _ := f.ReadAt(b, 0)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			if pid := strings.TrimSpace(string(b[:n])); pid != "" {
				return nil, fmt.Errorf("%w (pid %s)", ErrRunning, pid)
			}
			return nil, ErrRunning
		}
		return nil, fmt.Errorf("daemon: flock: %w", err)
	}
	f.Truncate(0)
	f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return &lockFile{f: f}, nil
}

func (l *lockFile) release() {
	if l != nil && l.f != nil {
		syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
		l.f.Close()
	}
}
