// Package statefile reads a file the daemon persisted and judges it whole
// or damaged. A damaged file is never read in part and never silently
// taken for "nothing was saved": it is set aside under a name that says
// when (state.json.damaged-20261205T101500Z), so nothing in it is lost
// and the next start does not trip on it again, and the caller is handed a
// Damage that says what was wrong, in words it can pass on to the user.
package statefile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// MaxSize bounds what Read takes in: a state file of ours is a few
// kilobytes; one larger than this is not one we wrote.
const MaxSize = 16 << 20

// Damage is what was wrong with a persisted file, and where it went.
type Damage struct {
	File    string    // the file's base name (state.json)
	Path    string    // where it was
	MovedTo string    // where it is now ("" when it could not be moved)
	Why     string    // what was wrong, in words ("truncated JSON: unexpected end of JSON input")
	At      time.Time // when it was found
	Err     error     // the error behind Why, if any
	// Restored, when the caller could take its content from elsewhere
	// (a copy), says from where, in words; "" when nothing was restored.
	Restored string
	// Missing: the file was not there, though something says it was
	// saved (Why says what); nothing was moved aside.
	Missing bool
}

func (d *Damage) Error() string {
	s := fmt.Sprintf("%s was damaged (%s)", d.File, d.Why)
	if d.Missing {
		s = d.File + " was missing (" + d.Why + ")"
	} else if d.MovedTo != "" {
		s += "; it was moved aside to " + filepath.Base(d.MovedTo)
	} else {
		s += "; it could not be moved aside"
	}
	if d.Restored != "" {
		s += "; restored from " + d.Restored
	}
	return s
}

func (d *Damage) Unwrap() error { return d.Err }

// Read reads the file at path. A missing file answers (nil, nil): nothing
// was saved. A file that is there but cannot be taken as it is — not a
// regular file, writable by another user or owned by one, unreadable,
// empty, larger than MaxSize, or refused by check (a parse) — is set aside
// and answered as a *Damage. A file whose only fault is that its owner
// cannot read or write it (mode 0000, 0400) is set back to 0600 and read.
// now stamps the name it is set aside under.
func Read(path string, check func([]byte) error, now time.Time) ([]byte, *Damage) {
	fi, d := Judge(path, now)
	if fi == nil || d != nil {
		return nil, d
	}
	dmg := func(why string, err error) *Damage {
		d := &Damage{File: filepath.Base(path), Path: path, Why: why, At: now.UTC(), Err: err}
		d.MovedTo, _ = SetAside(path, now)
		return d
	}
	if fi.Size() == 0 {
		return nil, dmg("it is empty", nil)
	}
	if fi.Size() > MaxSize {
		return nil, dmg(fmt.Sprintf("it is %d bytes, over the %d this daemon writes at most", fi.Size(), MaxSize), nil)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, dmg("it could not be read: "+plain(err), err)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	f.Close()
	if err != nil {
		return nil, dmg("it could not be read: "+plain(err), err)
	}
	if check != nil {
		if err := check(b); err != nil {
			return nil, dmg(err.Error(), err)
		}
	}
	return b, nil
}

// Judge examines the file at path as Read does, without reading it: for a
// file kept open and appended to (a log), not read back whole. A missing
// file answers (nil, nil). A file that is not a regular file, is owned by
// another user or is writable by one is set aside and answered as a
// *Damage; one whose owner cannot read or write it is set back to 0600.
// Otherwise it answers the file's FileInfo.
func Judge(path string, now time.Time) (fs.FileInfo, *Damage) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	dmg := func(why string, err error) *Damage {
		d := &Damage{File: filepath.Base(path), Path: path, Why: why, At: now.UTC(), Err: err}
		d.MovedTo, _ = SetAside(path, now)
		return d
	}
	if err != nil {
		return nil, dmg("it could not be examined: "+plain(err), err)
	}
	if !fi.Mode().IsRegular() {
		return nil, dmg(fmt.Sprintf("it is not a regular file but %s", kindOf(fi.Mode())), nil)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return nil, dmg(fmt.Sprintf("it is owned by uid %d, not by this user (uid %d)", st.Uid, os.Geteuid()), nil)
	}
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		return nil, dmg(fmt.Sprintf("its mode is %04o: another user could have written it", perm), nil)
	}
	if perm := fi.Mode().Perm(); perm&0o600 != 0o600 {
		if err := os.Chmod(path, 0o600); err != nil {
			return nil, dmg(fmt.Sprintf("its mode is %04o and could not be set back to 0600: %s", perm, plain(err)), err)
		}
	}
	return fi, nil
}

// SetAside renames the file at path to path.damaged-<UTC time> (with a
// number after it should that name be taken) and answers the new name.
func SetAside(path string, now time.Time) (string, error) {
	base := path + ".damaged-" + now.UTC().Format("20060102T150405Z")
	to := base
	for i := 2; ; i++ {
		if _, err := os.Lstat(to); errors.Is(err, fs.ErrNotExist) {
			break
		}
		if i > 100 {
			return "", fmt.Errorf("statefile: no free name beside %s", base)
		}
		to = fmt.Sprintf("%s.%d", base, i)
	}
	if err := os.Rename(path, to); err != nil {
		return "", err
	}
	return to, nil
}

// plain is an error's words without the path Go puts before them: the
// file is named by the Damage already.
func plain(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

// JSON is a check for Read that decodes the file into v, saying in plain
// words what is wrong with a file that does not decode: cut short (a write
// that never finished), not JSON at all, or JSON of another shape.
func JSON(v any) func([]byte) error {
	return func(b []byte) error {
		err := json.Unmarshal(b, v)
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case err == nil:
			return nil
		case errors.Is(err, io.ErrUnexpectedEOF) || err.Error() == "unexpected end of JSON input":
			return fmt.Errorf("it is cut short: %w", err)
		case errors.As(err, &syn):
			return fmt.Errorf("it is not JSON at byte %d: %w", syn.Offset, err)
		case errors.As(err, &typ):
			return fmt.Errorf("it is JSON of another shape (%s where %s belongs): %w", typ.Value, typ.Type, err)
		}
		return fmt.Errorf("it does not decode: %w", err)
	}
}
