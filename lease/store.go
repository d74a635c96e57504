package lease

import (
	"encoding/json"
	"fmt"
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
// and answered as a *statefile.Damage: the caller starts afresh and says
// so, never locked out by its own file.
func (s *Store) Load() (State, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
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
	b, dmg := statefile.Read(s.path, check, time.Now())
	if dmg != nil {
		return State{Version: StateVersion}, dmg
	}
	if b == nil {
		return State{Version: StateVersion}, nil
	}
	return st, nil
}

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
	if err := atomicfile.Write(s.path, append(b, '\n')); err != nil {
		return fmt.Errorf("lease: %w", err)
	}
	return nil
}
