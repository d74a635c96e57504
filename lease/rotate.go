package lease

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/vibespace/vibespace/internal/statefile"
)

// Rotation bounds a log file: once it would grow past MaxBytes, it is
// renamed path.1 (path.1 becomes path.2, and so on, Keep old files in
// all; the oldest is removed) and a new one is begun. MaxBytes <= 0 means
// no bound.
type Rotation struct {
	MaxBytes int64
	Keep     int
}

// RotatingFile is an append-only file under a Rotation. Each Write is one
// write(2) to the file opened O_APPEND, made whole into one file: a write
// that would cross the bound goes to a new file (a write larger than the
// bound goes alone into a file of its own). Safe for concurrent use within
// one process; another process must not rotate the same path (the daemon
// holds its state directory's lock).
//
// A write cut short (the disk is full) leaves no torn line joined to the
// next: the bytes it did write are truncated away, so the file ends where
// it ended before. When they cannot be (the file is append-only, chattr
// +a), they stay, and the next write begins with a newline: the torn bytes
// are then a line of their own, never the head of the next line.
type RotatingFile struct {
	mu   sync.Mutex
	path string
	r    Rotation
	f    *os.File
	size int64
	torn bool // the file ends in the torn bytes of a short write: the next write begins with a newline
	// closed: Close was called (f is also nil while the file could not be
	// opened, and Write tries again).
	closed bool
	// found is what opening found and did, in words: a file set aside, a
	// torn last line.
	found []string
}

// OpenRotating opens (creating, mode 0600, in a 0700 directory) path for
// appending under r.
//
// The file found there is judged as a state file is (statefile.Judge): one
// that is not a regular file, or another user owns or could have written,
// is set aside (path.damaged-<time>) and a new one begun; one its owner
// cannot read or write is set back to 0600. A file whose last line was cut
// short (a writer killed mid-line, a file cut) is taken as torn: the next
// write begins with a newline, so it is not glued to the torn line. Found
// says what was.
//
// A file that cannot be opened (a read-only directory) answers the error
// and, with it, a RotatingFile all the same: each Write tries to open it
// again and fails with the reason until it can be, so a caller may serve
// on without it.
func OpenRotating(path string, r Rotation) (*RotatingFile, error) {
	rf := &RotatingFile{path: path, r: r}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return rf, fmt.Errorf("lease: %s dir: %w", filepath.Base(path), err)
	}
	if _, dmg := statefile.Judge(path, time.Now()); dmg != nil {
		rf.found = append(rf.found, dmg.Error()+"; a new "+filepath.Base(path)+" is begun")
	}
	if err := rf.open(); err != nil {
		return rf, err
	}
	return rf, nil
}

func (rf *RotatingFile) open() error {
	f, err := os.OpenFile(rf.path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("lease: open %s: %w", filepath.Base(rf.path), err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("lease: stat %s: %w", filepath.Base(rf.path), err)
	}
	rf.f, rf.size, rf.torn = f, st.Size(), false
	if last := make([]byte, 1); rf.size > 0 {
		if _, err := f.ReadAt(last, rf.size-1); err == nil && last[0] != '\n' {
			rf.torn = true
			rf.found = append(rf.found, filepath.Base(rf.path)+" ended in a line cut short (a write that never finished, or a damaged file); what follows begins on a line of its own")
		}
	}
	return nil
}

// Found says what opening found and did about the file there, in words:
// a file set aside, a torn last line. Empty when it was whole.
func (rf *RotatingFile) Found() []string {
	rf.mu.Lock()
	defer rf.mu.Unlock()
	return slices.Clone(rf.found)
}

// Write appends b in one write(2), rotating first when b would take the
// file past the bound. When the file could not be opened, it is tried
// again first. A write that fails leaves nothing of b in the file
// and reports 0, unless its torn bytes could not be taken away (then n of
// them are there, and the next write begins a line of its own).
func (rf *RotatingFile) Write(b []byte) (int, error) {
	rf.mu.Lock()
	defer rf.mu.Unlock()
	if rf.closed {
		return 0, os.ErrClosed
	}
	if rf.f == nil {
		if err := rf.open(); err != nil {
			return 0, err
		}
	}
	if rf.r.MaxBytes > 0 && rf.size > 0 && rf.size+int64(len(b)) > rf.r.MaxBytes {
		// A rotation that fails leaves the line in the current file: it
		// grows past its bound rather than lose the line.
		_ = rf.rotate()
	}
	lead := 0
	if rf.torn {
		b = append([]byte{'\n'}, b...)
		lead = 1
	}
	n, err := rf.f.Write(b)
	if err != nil && n > 0 {
		n = rf.untear(n)
	}
	rf.size += int64(n)
	switch {
	case n == len(b):
		rf.torn = false
	case n > 0:
		rf.torn = true
	}
	return max(n-lead, 0), err
}

// untear takes away the n bytes a short write left at the end of the file
// and reports how many are left there: 0, or n when they could not be
// taken away. The file is ours alone and opened O_APPEND, so they are its
// last n bytes. Caller holds mu.
func (rf *RotatingFile) untear(n int) int {
	st, err := rf.f.Stat()
	if err != nil || st.Size() < int64(n) {
		return n
	}
	if err := rf.f.Truncate(st.Size() - int64(n)); err != nil {
		return n
	}
	return 0
}

// rotate shifts the old files up by one and begins a new file. Caller
// holds mu. On a failure the current file stays in use.
func (rf *RotatingFile) rotate() error {
	keep := max(rf.r.Keep, 0)
	if keep == 0 {
		if err := os.Truncate(rf.path, 0); err != nil {
			return fmt.Errorf("lease: rotate %s: %w", filepath.Base(rf.path), err)
		}
		rf.size, rf.torn = 0, false
		return nil
	}
	os.Remove(rf.old(keep))
	for i := keep - 1; i >= 1; i-- {
		if err := os.Rename(rf.old(i), rf.old(i+1)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("lease: rotate %s: %w", filepath.Base(rf.path), err)
		}
	}
	if err := os.Rename(rf.path, rf.old(1)); err != nil {
		return fmt.Errorf("lease: rotate %s: %w", filepath.Base(rf.path), err)
	}
	old := rf.f
	if err := rf.open(); err != nil {
		// The renamed file is still open: keep writing there.
		return err
	}
	old.Close()
	rf.torn = false // the torn bytes, if any, end the old file
	return nil
}

func (rf *RotatingFile) old(i int) string { return rf.path + "." + strconv.Itoa(i) }

// Kept lists the files there are now, the current one first, then the old
// ones from the newest.
func (rf *RotatingFile) Kept() []string {
	rf.mu.Lock()
	defer rf.mu.Unlock()
	return Kept(rf.path, rf.r.Keep)
}

// Kept lists path and its old files path.1 … path.keep that exist, the
// current one first.
func Kept(path string, keep int) []string {
	var out []string
	for i := 0; i <= keep; i++ {
		p := path
		if i > 0 {
			p = path + "." + strconv.Itoa(i)
		}
		if _, err := os.Stat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// Path is the current file.
func (rf *RotatingFile) Path() string { return rf.path }

// Close closes the file. Later Writes fail with os.ErrClosed.
func (rf *RotatingFile) Close() error {
	rf.mu.Lock()
	defer rf.mu.Unlock()
	rf.closed = true
	if rf.f == nil {
		return nil
	}
	err := rf.f.Close()
	rf.f = nil
	return err
}
