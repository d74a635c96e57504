package profile

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/vibespace/vibespace/internal/atomicfile"
	"github.com/vibespace/vibespace/target"
)

// Profile is one registered browser profile: a persistent user-data-dir
// named by its id. The label is for people only.
type Profile struct {
	ID      string    `json:"id"`
	Label   string    `json:"label"`
	Created time.Time `json:"created"`
	// Backend is how its browser runs: BackendDesktopApp, or "" for the
	// CDP browser. App is how a desktop app starts (zero otherwise).
	Backend string `json:"backend,omitempty"`
	App     App    `json:"app,omitzero"`
	// Provider is where a CDP browser comes from when it is not the
	// daemon's own Chromium: ProviderCDP (an existing DevTools endpoint)
	// or a cloud provider ("cloud:<name>"); "" is the built-in Chromium.
	// Endpoint is its endpoint (the DevTools URL, or a cloud region host;
	// never a key). A profile with a Provider has no directory of ours.
	Provider string `json:"provider,omitempty"`
	Endpoint string `json:"endpoint,omitempty"`
}

// Registry is the profile registry and every session's attachment set,
// persisted in one file. It is safe for concurrent use: one mutex guards
// the state, and the only I/O done under it is the atomic write of the
// file; directories are created outside it.
type Registry struct {
	stateDir string
	path     string
	now      func() time.Time
	rand     func([]byte) (int, error) // crypto/rand.Read; tests force collisions

	mu sync.Mutex
	st *file
}

// Open reads (or creates) the registry under stateDir: the file
// stateDir/profiles.json and the directory stateDir/profiles (mode 0700),
// which holds one user-data-dir per profile. A profiles.json that does not
// parse is an error naming it; it is never replaced. now is the clock for
// creation times (nil = time.Now).
func Open(stateDir string, now func() time.Time) (*Registry, error) {
	if now == nil {
		now = time.Now
	}
	if stateDir == "" {
		return nil, errors.New("profile: empty state directory")
	}
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return nil, fmt.Errorf("profile: %w", err)
	}
	if err := mkdirPrivate(filepath.Join(stateDir, DirName)); err != nil {
		return nil, err
	}
	removeStaleTemps(stateDir)
	path := filepath.Join(stateDir, FileName)
	st, err := load(path)
	if err != nil {
		return nil, err
	}
	return &Registry{stateDir: stateDir, path: path, now: now, rand: rand.Read, st: st}, nil
}

// Path is the registry file.
func (r *Registry) Path() string { return r.path }

// mkdirPrivate makes dir (mode 0700) if it is missing and tightens its mode
// if it exists; a non-directory or a symlink there is an error.
func mkdirPrivate(dir string) error {
	err := os.Mkdir(dir, 0o700)
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("profile: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("profile: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("profile: %s exists and is not a directory", dir)
	}
	if fi.Mode().Perm() != 0o700 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("profile: %w", err)
		}
	}
	return nil
}

// saveLocked writes the state. The caller holds r.mu.
func (r *Registry) saveLocked() error {
	b, err := json.MarshalIndent(r.st, "", "  ")
	if err != nil {
		return fmt.Errorf("profile: encode: %w", err)
	}
	if err := atomicfile.Write(r.path, append(b, '\n')); err != nil {
		return fmt.Errorf("profile: %w", err)
	}
	return nil
}

// mutate runs fn on the state under the lock and persists the result when
// fn reports a change; if fn fails or the write fails, the state is left
// exactly as it was.
func (r *Registry) mutate(fn func(st *file) (changed bool, err error)) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	before := r.st.clone()
	changed, err := fn(r.st)
	if err != nil {
		r.st = before
		return err
	}
	if !changed {
		return nil
	}
	if err := r.saveLocked(); err != nil {
		r.st = before
		return err
	}
	return nil
}

// List returns every profile, oldest first.
func (r *Registry) List() []Profile {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Profile(nil), r.st.Profiles...)
}

// New registers a profile with a fresh id ("bp-" + 8 lowercase hex from
// crypto/rand, never one the registry has held) and creates its
// user-data-dir. The label is trimmed and must be 1..100 runes without
// control characters, not look like an id, and differ (ignoring case) from
// every other label: label_taken otherwise. The label never reaches a path
// or an argv: the directory is named by the id alone.
func (r *Registry) New(label string) (Profile, error) {
	return r.create(label, "", App{})
}

// create is New for a profile of backend, started as app says (a desktop
// app's; zero otherwise).
func (r *Registry) create(label, backend string, app App) (Profile, error) {
	return r.createRemote(label, backend, app, "", "")
}

// createRemote is create with a provider and its endpoint ("" for ours).
func (r *Registry) createRemote(label, backend string, app App, provider, endpoint string) (Profile, error) {
	l, err := cleanLabel(label)
	if err != nil {
		return Profile{}, err
	}
	var p Profile
	for range 16 {
		id, err := newID(r.rand)
		if err != nil {
			return Profile{}, err
		}
		// A directory left under that name (by hand, or by a registry file
		// that was lost) is never adopted: pick another id. Checked before
		// taking the lock, which guards no I/O but the atomic write.
		if _, err := os.Lstat(filepath.Join(r.stateDir, DirName, id)); !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		taken := false
		err = r.mutate(func(st *file) (bool, error) {
			for _, q := range st.Profiles {
				if strings.EqualFold(q.Label, l) {
					return false, target.Refuse(target.CodeLabelTaken, "a profile labelled %q exists already (%s, backend %s)", q.Label, q.ID, q.BackendWords()).
						With("label", q.Label).With("id", q.ID).With("backend", q.BackendWords())
				}
			}
			if st.hasID(id) {
				taken = true
				return false, nil
			}
			p = Profile{ID: id, Label: l, Created: r.now().UTC(), Backend: backend, App: app, Provider: provider, Endpoint: endpoint}
			st.Profiles = append(st.Profiles, p)
			return true, nil
		})
		if err != nil {
			return Profile{}, err
		}
		if !taken {
			break
		}
	}
	if p.ID == "" {
		return Profile{}, errors.New("profile: could not mint an unused id")
	}
	if p.Remote() {
		return p, nil // somebody else's browser: no directory of ours
	}
	if _, err := r.Dir(p.ID); err != nil {
		return p, err
	}
	return p, nil
}

func (st *file) hasID(id string) bool {
	for _, p := range st.Profiles {
		if p.ID == id {
			return true
		}
	}
	return false
}

// Dir returns the profile's user-data-dir, stateDir/profiles/<id>, creating
// it (mode 0700) if it is missing. An unknown id is unknown_profile.
func (r *Registry) Dir(id string) (string, error) {
	r.mu.Lock()
	ok := r.st.hasID(id)
	r.mu.Unlock()
	if !ok || !IsID(id) {
		return "", target.Refuse(target.CodeUnknownProfile, "no profile has the id %s", target.Echo(id)).With("ref", target.Clip(id))
	}
	dir := filepath.Join(r.stateDir, DirName, id)
	if err := mkdirPrivate(dir); err != nil {
		return "", err
	}
	return dir, nil
}

// Find looks a profile up by id or exact label (a label is matched after
// trimming spaces). A ref that names no profile and has the shape of a
// filesystem path is path_not_handle, carrying the command that registers a
// profile; any other miss is unknown_profile, listing the known profiles.
func (r *Registry) Find(ref string) (Profile, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p, ok := r.st.find(ref); ok {
		return p, nil
	}
	if LooksLikePath(ref) {
		return Profile{}, pathRefusal(ref)
	}
	return Profile{}, r.st.unknown(ref, nil)
}

func (st *file) find(ref string) (Profile, bool) {
	for _, p := range st.Profiles {
		if p.ID == ref {
			return p, true
		}
	}
	l := strings.TrimSpace(ref)
	for _, p := range st.Profiles {
		if p.Label == l && l != "" {
			return p, true
		}
	}
	return Profile{}, false
}

// known lists the registered profiles as "label (id)".
func (st *file) known() []string {
	out := make([]string, 0, len(st.Profiles))
	for _, p := range st.Profiles {
		out = append(out, fmt.Sprintf("%s (%s)", p.Label, p.ID))
	}
	return out
}

// unknown is the unknown_profile refusal for ref; handles, when not nil,
// are the asking session's own.
func (st *file) unknown(ref string, handles []string) *target.Refusal {
	msg := fmt.Sprintf("no profile or handle is named %q", ref)
	if len(st.Profiles) == 0 {
		msg += "; none is registered: create one with `" + registerCommand + "`"
	}
	rf := target.Refuse(target.CodeUnknownProfile, "%s", msg).
		With("ref", ref).
		With("profiles", st.known()).
		With("register", registerCommand)
	if handles != nil {
		rf.With("handles", handles)
	}
	return rf
}

// SessionsOf returns, sorted, the sessions that have profileID attached.
func (r *Registry) SessionsOf(profileID string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for s, st := range r.st.Sessions {
		for _, a := range st.Attachments {
			if a.ProfileID == profileID && profileID != "" {
				out = append(out, s)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}
