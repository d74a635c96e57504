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

// Load reads the state. A missing file is an empty State, not an error.
func (s *Store) Load() (State, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return State{Version: StateVersion}, nil
	}
	if err != nil {
		return State{}, fmt.Errorf("lease: read state: %w", err)
	}
	var st State
	if err := json.Unmarshal(b, &st); err != nil {
		return State{}, fmt.Errorf("lease: parse %s: %w", filepath.Base(s.path), err)
	}
	if st.Version != StateVersion {
		return State{}, fmt.Errorf("lease: state version %d, this build reads %d", st.Version, StateVersion)
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
