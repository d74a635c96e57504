package profile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/vibespace/vibespace/internal/atomicfile"
)

// FileName is the registry file under the state directory.
const FileName = "profiles.json"

// DirName is the directory under the state directory that holds one
// user-data-dir per profile, named by id.
const DirName = "profiles"

const fileVersion = 1

// file is the on-disk shape of profiles.json.
type file struct {
	Version  int                      `json:"version"`
	Profiles []Profile                `json:"profiles"`
	Sessions map[string]*sessionState `json:"sessions,omitempty"`
}

// sessionState is one session's attachment set and what it has been told.
type sessionState struct {
	Attachments []Attachment `json:"attachments"`
	// NextChild is the number the next new-child takes; child numbers are
	// never reused within a session, even after the children are reaped.
	NextChild int `json:"next_child,omitempty"`
	// Seen is the fingerprint of the set as the session last learned it
	// (by resolving, or by changing the set itself). "" is the empty set,
	// which is what a session that has learned nothing yet believes it has.
	Seen string `json:"seen,omitempty"`
}

func (s *sessionState) clone() *sessionState {
	c := *s
	c.Attachments = append([]Attachment(nil), s.Attachments...)
	return &c
}

func (f *file) clone() *file {
	c := &file{Version: f.Version, Profiles: append([]Profile(nil), f.Profiles...), Sessions: make(map[string]*sessionState, len(f.Sessions))}
	for k, v := range f.Sessions {
		c.Sessions[k] = v.clone()
	}
	return c
}

// load reads path; a missing file is an empty registry, anything that does
// not parse or validate is an error naming the file.
func load(path string) (*file, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &file{Version: fileVersion, Sessions: map[string]*sessionState{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("profile: read %s: %w", path, err)
	}
	var f file
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("profile: %s is corrupt (left as it is; move it aside to start empty): %w", path, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("profile: %s is corrupt (left as it is; move it aside to start empty): trailing data after the JSON object", path)
	}
	if err := f.validate(); err != nil {
		return nil, fmt.Errorf("profile: %s is corrupt (left as it is; move it aside to start empty): %w", path, err)
	}
	if f.Sessions == nil {
		f.Sessions = map[string]*sessionState{}
	}
	return &f, nil
}

// validate checks the invariants a loaded file must hold.
func (f *file) validate() error {
	if f.Version != fileVersion {
		return fmt.Errorf("version %d, want %d", f.Version, fileVersion)
	}
	ids := map[string]bool{}
	labels := map[string]bool{}
	for _, p := range f.Profiles {
		if !IsID(p.ID) {
			return fmt.Errorf("profile id %q is not bp-<8 hex>", p.ID)
		}
		if ids[p.ID] {
			return fmt.Errorf("profile id %s appears twice", p.ID)
		}
		ids[p.ID] = true
		if err := p.validBackend(); err != nil {
			return err
		}
		l, err := cleanLabel(p.Label)
		if err != nil || l != p.Label {
			return fmt.Errorf("profile %s has an invalid label", p.ID)
		}
		key := strings.ToLower(p.Label)
		if labels[key] {
			return fmt.Errorf("label %q appears twice", p.Label)
		}
		labels[key] = true
	}
	for s, st := range f.Sessions {
		if s == "" || st == nil {
			return errors.New("a session entry without a name or a body")
		}
		handles := map[string]bool{}
		defaults := 0
		for _, a := range st.Attachments {
			if a.Handle == "" || handles[a.Handle] {
				return fmt.Errorf("session %q: empty or repeated handle %q", s, a.Handle)
			}
			handles[a.Handle] = true
			switch {
			case a.Child || a.Own:
				if a.ProfileID != "" || a.Child && a.Own {
					return fmt.Errorf("session %q: attachment %q is malformed", s, a.Handle)
				}
			case !ids[a.ProfileID]:
				return fmt.Errorf("session %q: attachment %q names unknown profile %q", s, a.Handle, a.ProfileID)
			}
			if a.Default {
				defaults++
			}
		}
		if len(st.Attachments) > 0 && defaults != 1 {
			return fmt.Errorf("session %q: %d defaults, want exactly 1", s, defaults)
		}
	}
	return nil
}

// removeStaleTemps deletes temporary files a crash between CreateTemp and
// Rename left behind. Open calls it before anyone else writes.
func removeStaleTemps(dir string) {
	atomicfile.RemoveTemps(dir, FileName)
}
