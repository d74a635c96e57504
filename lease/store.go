package lease

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/vibespace/vibespace/internal/atomicfile"
	"github.com/vibespace/vibespace/internal/statefile"
	"github.com/vibespace/vibespace/target"
)

// StateVersion is the version of the State file format.
const StateVersion = 1

// State is everything the daemon persists: targets, their leases, and
// opaque records of the backends (for example the display it started and the
// PIDs it must stop later), keyed by backend name.
type State struct {
	Version  int                        `json:"version"`
	Saved    time.Time                  `json:"saved"`
	Targets  []target.Target            `json:"targets"`
	Leases   []Lease                    `json:"leases"`
	Backends map[string]json.RawMessage `json:"backends,omitempty"`
}

// Store keeps State in one file, written atomically: a temp file in the same
// directory, fsync, rename, fsync of the directory. Files are mode 0600.
// Safe for concurrent use; concurrent Saves are serialised.
type Store struct {
	mu   sync.Mutex
	path string
}

// OpenStore returns the store of file name in dir, creating dir (0700).
func OpenStore(dir, name string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("lease: state dir: %w", err)
	}
	return &Store{path: filepath.Join(dir, name)}, nil
}

// Path is the state file.
func (s *Store) Path() string { return s.path }

// Load reads the state. A missing file is an empty State, not an error. A
// file that cannot be taken whole (cut short, not JSON, of a version this
// build does not read, writable by another user, …) is set aside beside it
// and answered as a *statefile.Damage: never a lockout. When the copy Save
// keeps beside it (state.json.copy) is whole, its state is answered with
// the Damage (Restored says so); otherwise an empty State: the caller
// starts afresh, and says so.
//
// A missing file beside a whole copy is no "nothing was saved": the copy
// says something was. Its state is answered with a Damage that says the
// file was missing.
func (s *Store) Load() (State, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, dmg := s.read(s.path)
	if dmg == nil && st.Saved.IsZero() {
		if _, err := os.Lstat(s.path); errors.Is(err, fs.ErrNotExist) {
			if cp, cdmg := s.read(s.copyPath()); cdmg == nil && !cp.Saved.IsZero() {
				return cp, &statefile.Damage{File: filepath.Base(s.path), Path: s.path, Missing: true, At: time.Now().UTC(),
					Why: "its copy " + filepath.Base(s.copyPath()) + " is there", Restored: fmt.Sprintf("its copy %s, saved at %s", filepath.Base(s.copyPath()), cp.Saved.UTC().Format(time.RFC3339))}
			}
		}
	}
	if dmg == nil {
		return st, nil
	}
	if cp, cdmg := s.read(s.copyPath()); cdmg == nil && !cp.Saved.IsZero() {
		dmg.Restored = fmt.Sprintf("its copy %s, saved at %s", filepath.Base(s.copyPath()), cp.Saved.UTC().Format(time.RFC3339))
		return cp, dmg
	}
	return State{Version: StateVersion}, dmg
}

// read reads one state file (the state or its copy).
func (s *Store) read(path string) (State, *statefile.Damage) {
	var st State
	check := func(b []byte) error {
		if err := statefile.JSON(&st)(b); err != nil {
			return err
		}
		if st.Version != StateVersion {
			return fmt.Errorf("it is of version %d; this build reads %d", st.Version, StateVersion)
		}
		return nil
	}
	b, dmg := statefile.Read(path, check, time.Now())
	if dmg != nil || b == nil {
		return State{Version: StateVersion}, dmg
	}
	return st, nil
}

// copyPath is the copy of the state Save keeps beside it: a file damaged
// from outside (cut short in place, overwritten) is restored from it.
func (s *Store) copyPath() string { return s.path + ".copy" }

// Save writes st atomically.
func (s *Store) Save(st State) error {
	st.Version = StateVersion
	if st.Saved.IsZero() {
		st.Saved = time.Now().UTC()
	}
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return fmt.Errorf("lease: encode state: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b = append(b, '\n')
	if err := atomicfile.Write(s.path, b); err != nil {
		return fmt.Errorf("lease: %w", err)
	}
	// The copy is written second, so it is never newer than the state; a
	// failure to write it leaves the state as it was written.
	if err := atomicfile.Write(s.copyPath(), b); err != nil {
		return fmt.Errorf("lease: the state's copy: %w", err)
	}
	return nil
}
