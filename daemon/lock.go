package daemon

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/vibespace/vibespace/daemon/notice"
)

// ErrRunning is returned by New when another daemon holds the state
// directory's lock.
var ErrRunning = errors.New("daemon: another daemon is already running for this state directory")

// lockFile holds an exclusive flock on path for the daemon's life. The lock
// dies with the process, so a daemon killed with -9 never leaves a stale one.
//
// On a state directory that cannot be written (a read-only mount), an
// existing lock file is opened read-only: flock needs no write access, and
// it locks the same file an older daemon locks, so the two still exclude
// each other. The pid is then not written into it. A read-only directory
// with no lock file in it cannot be locked at all: New refuses to start,
// saying so.
type lockFile struct{ f *os.File }

func acquireLock(path string) (*lockFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	readOnly := false
	if err != nil {
		werr := err
		// Only a directory that cannot be written falls back to reading;
		// anything else (a directory named daemon.lock: EISDIR) is no
		// lock at all.
		if !errors.Is(werr, syscall.EROFS) && !errors.Is(werr, fs.ErrPermission) {
			return nil, fmt.Errorf("daemon: lock file: %w", werr)
		}
		if f, err = os.Open(path); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("daemon: the state directory %s cannot be written (%s) and has no %s in it: the lock that keeps a second daemon out of it cannot be taken, so this daemon does not start", filepath.Dir(path), notice.Cause(werr), filepath.Base(path))
			}
			return nil, fmt.Errorf("daemon: lock file: %w", werr)
		}
		if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
			f.Close()
			return nil, fmt.Errorf("daemon: lock file: %w", werr)
		}
		readOnly = true
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
	if !readOnly {
		f.Truncate(0)
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &lockFile{f: f}, nil
}

func (l *lockFile) release() {
	if l != nil && l.f != nil {
		syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
		l.f.Close()
	}
}
