// Package secret keeps provider keys, and the secrets an agent types by
// name (secret:NAME, daemon/secrets), on the daemon's side: one file per key
// in a directory only its owner can read (0700, each file 0600), written
// atomically (a temp file, fsync, rename, fsync of the directory). A key
// never leaves the store except through Get; Scrub blanks every stored
// value out of text before it is logged or answered.
package secret

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/vibespace/vibespace/internal/atomicfile"
	"github.com/vibespace/vibespace/internal/statefile"
	"github.com/vibespace/vibespace/target"
)

// Mask replaces a stored value in scrubbed text.
const Mask = "••••"

// MaxValueLen bounds a key's length: provider tokens are tens of bytes; a
// value this long is a pasted file, not a key.
const MaxValueLen = 4096

// maxNameLen bounds a name ("cloud:browserless").
const maxNameLen = 64

// Store is a directory of keys. It is safe for concurrent use within one
// process; the daemon's lock keeps other daemons out of the directory.
type Store struct {
	dir string
	mu  sync.Mutex
	// values caches what is on disk for Scrub, which must not read files on
	// every log line.
	values map[string]string
	// terminated: every key file ends in a newline (formatFile is there),
	// so one that does not was cut short.
	terminated bool
	found      []string
}

// formatFile, in the directory, says every key file is written as its
// value and a newline: a file without the newline was cut short. Files of
// an earlier version (the bare value) are rewritten so by Open before it
// is made.
const formatFile = ".format"

const formatV2 = "keys end in a newline\n"

// Open opens (creating it if needed) the key directory dir and forces its
// mode to 0700 and every key file's to 0600.
//
// A key that cannot be read back never stops it (that would lock the
// daemon out): a key file that is empty, cut short, not a key, not a
// regular file, or that another user owns or could have written, is set
// aside (name.key.damaged-<time>) and the key is taken as not set; Found
// says which key was lost, never its value. A directory it cannot make,
// tighten or read is said there too; it never answers an error.
func Open(dir string) (*Store, error) {
	s := &Store{dir: dir, values: map[string]string{}}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		// No lockout either: no key is known, and setting one fails
		// saying why.
		s.found = append(s.found, fmt.Sprintf("the keys directory %s could not be made (%s): no provider key is kept until it can be", dir, plain(err)))
		return s, nil
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		if err := os.Chmod(dir, 0o700); err != nil {
			s.found = append(s.found, fmt.Sprintf("the keys directory %s could not be set to mode 0700 (%s)", dir, plain(err)))
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		s.found = append(s.found, fmt.Sprintf("the keys directory %s could not be read (%s): no provider key is known; set them again: key set <provider>", dir, plain(err)))
		return s, nil
	}
	_, err = os.Stat(filepath.Join(dir, formatFile))
	s.terminated = err == nil
	now := time.Now()
	legacy := map[string]string{}
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		if atomicfile.IsTemp(e.Name()) { // a write cut short
			os.Remove(p)
			continue
		}
		name, ok := nameOfFile(e.Name())
		if !ok {
			continue
		}
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o077 != 0 && fi.Mode().Perm()&0o022 == 0 {
			// Readable by others, written by none: tightened, and said.
			if err := os.Chmod(p, 0o600); err == nil {
				s.found = append(s.found, fmt.Sprintf("the key of provider %s was readable by other users (mode %04o); it was set back to 0600 (you may want to replace it: key set %s)", name, fi.Mode().Perm(), name))
			}
		}
		var v string
		b, dmg := statefile.Read(p, s.check(&v), now)
		if dmg != nil {
			s.found = append(s.found, lost(name, dmg))
			continue
		}
		s.values[name] = v
		if !s.terminated && !strings.HasSuffix(string(b), "\n") {
			legacy[name] = v
		}
	}
	if !s.terminated {
		// Files of an earlier version: rewritten with their newline, then
		// the directory marked. Where that cannot be done (a read-only
		// directory) they are read as they are.
		for name, v := range legacy {
			if atomicfile.Write(filepath.Join(dir, fileOf(name)), []byte(v+"\n")) != nil {
				return s, nil
			}
		}
		if atomicfile.Write(filepath.Join(dir, formatFile), []byte(formatV2)) == nil {
			s.terminated = true
		}
	}
	return s, nil
}

// check is the statefile check of a key file: its value (into v) and a
// newline, or (before the format file) the bare value. Its words never
// quote the value.
func (s *Store) check(v *string) func([]byte) error {
	return func(b []byte) error {
		val, ok := strings.CutSuffix(string(b), "\n")
		if !ok && s.terminated {
			return errors.New("it is cut short (it does not end in a newline)")
		}
		if err := ValidValue(val); err != nil {
			return fmt.Errorf("it is not a key (it %s)", strings.TrimPrefix(err.Error(), "secret: the key "))
		}
		*v = val
		return nil
	}
}

// lost is the words of a key that could not be read back: which, why, and
// how to set it again; never its value.
func lost(name string, dmg *statefile.Damage) string {
	s := fmt.Sprintf("the key of provider %s could not be read back (%s: %s", name, dmg.File, dmg.Why)
	if dmg.MovedTo != "" {
		s += "; kept aside as " + filepath.Base(dmg.MovedTo)
	}
	return s + "); set it again: key set " + name
}

// Found says, in words, what Open could not read back or had to mend:
// each key lost (by provider, never its value), a directory it could not
// tighten or read.
func (s *Store) Found() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.found)
}

// plain is an error's last words, without the path.
func plain(err error) string {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err.Error()
		}
		err = u
	}
}

// Dir is the store's directory.
func (s *Store) Dir() string { return s.dir }

// ValidName reports why name cannot name a key, or nil. A name is 1–64
// characters of [a-z0-9], '-', '_', '.', and ':' (a provider's namespace
// separator), not starting with '.'. No '/', so no name reaches outside the
// directory.
func ValidName(name string) error {
	if name == "" || len(name) > maxNameLen {
		return fmt.Errorf("secret: a key's name is 1 to %d characters, not %d", maxNameLen, len(name))
	}
	if name[0] == '.' {
		return fmt.Errorf("secret: a key's name may not start with '.': %q", name)
	}
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_', r == '.', r == ':':
		default:
			return fmt.Errorf("secret: a key's name is lower-case letters, digits and - _ . : only: %q", name)
		}
	}
	return nil
}

// fileOf maps a valid name to its file: ':' becomes '~' (kept out of file
// names for tools that read ':' as a separator).
func fileOf(name string) string { return strings.ReplaceAll(name, ":", "~") + ".key" }

func nameOfFile(f string) (string, bool) {
	base, ok := strings.CutSuffix(f, ".key")
	if !ok {
		return "", false
	}
	name := strings.ReplaceAll(base, "~", ":")
	return name, ValidName(name) == nil
}

// ValidValue reports why v cannot be a key, or nil. The error never quotes
// the value.
func ValidValue(v string) error {
	if v == "" {
		return errors.New("secret: the key is empty")
	}
	if len(v) > MaxValueLen {
		return fmt.Errorf("secret: the key is %d bytes, more than %d: that is not a key", len(v), MaxValueLen)
	}
	if !utf8.ValidString(v) {
		return errors.New("secret: the key is not valid UTF-8")
	}
	for i, r := range v {
		if unicode.IsControl(r) || unicode.IsSpace(r) {
			return fmt.Errorf("secret: the key holds a control or space character at byte %d", i)
		}
	}
	return nil
}

// Set stores value under name, replacing any earlier one atomically: a
// reader sees the old key or the new one, never a part.
func (s *Store) Set(name, value string) error {
	if err := ValidName(name); err != nil {
		return err
	}
	if err := ValidValue(value); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	data := value
	if s.terminated {
		data += "\n"
	}
	if err := atomicfile.Write(filepath.Join(s.dir, fileOf(name)), []byte(data)); err != nil {
		return fmt.Errorf("secret: set %s: %w", name, err)
	}
	s.values[name] = value
	return nil
}

// Get returns the key stored under name; ok is false when there is none.
// A file that is no whole key (damaged since Open) is an error that says
// so, never its content.
func (s *Store) Get(name string) (value string, ok bool, err error) {
	if err := ValidName(name); err != nil {
		return "", false, err
	}
	b, err := os.ReadFile(filepath.Join(s.dir, fileOf(name)))
	if errors.Is(err, os.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("secret: get %s: %w", name, err)
	}
	s.mu.Lock()
	check := s.check(&value)
	s.mu.Unlock()
	if err := check(b); err != nil {
		return "", false, fmt.Errorf("secret: the key of provider %s could not be read (%v); set it again: key set %s", name, err, name)
	}
	return value, true, nil
}

// Clear removes the key stored under name. Clearing a key that is not set
// is not an error.
func (s *Store) Clear(name string) error {
	if err := ValidName(name); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	err := os.Remove(filepath.Join(s.dir, fileOf(name)))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("secret: clear %s: %w", name, err)
	}
	delete(s.values, name)
	return atomicfile.SyncDir(s.dir)
}

// Has reports whether a key is stored under name.
func (s *Store) Has(name string) bool {
	_, ok, err := s.Get(name)
	return ok && err == nil
}

// Entry is what may be said about a stored key: its name and when it was
// set. Never its value.
type Entry struct {
	Name  string
	SetAt time.Time
}

// List names the stored keys, sorted.
func (s *Store) List() ([]Entry, error) {
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("secret: %w", err)
	}
	var out []Entry
	for _, e := range ents {
		name, ok := nameOfFile(e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		out = append(out, Entry{Name: name, SetAt: fi.ModTime()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// SetAt is when the key under name was set; ok is false when there is none.
func (s *Store) SetAt(name string) (at time.Time, ok bool) {
	if ValidName(name) != nil {
		return time.Time{}, false
	}
	fi, err := os.Stat(filepath.Join(s.dir, fileOf(name)))
	if err != nil {
		return time.Time{}, false
	}
	return fi.ModTime(), true
}

// Scrub returns text with every stored value, and its URL-query-escaped
// and path-escaped forms, replaced by Mask.
func (s *Store) Scrub(text string) string {
	s.mu.Lock()
	vals := make([]string, 0, len(s.values)*3)
	for _, v := range s.values {
		vals = append(vals, v, url.QueryEscape(v), url.PathEscape(v))
	}
	s.mu.Unlock()
	// Longest first, so a value that contains another is masked whole.
	sort.Slice(vals, func(i, j int) bool { return len(vals[i]) > len(vals[j]) })
	for _, v := range vals {
		if v != "" {
			text = strings.ReplaceAll(text, v, Mask)
		}
	}
	return text
}

// ScrubErr is err with every stored value blanked out of its sentence,
// its facts and its cause (Scrub), when it is a refusal; any other error
// with them blanked out of its words. An error that names no stored value
// is answered as it is.
func (s *Store) ScrubErr(err error) error {
	if err == nil {
		return nil
	}
	r, ok := target.AsRefusal(err)
	if !ok {
		if t := s.Scrub(err.Error()); t != err.Error() {
			return errors.New(t)
		}
		return err
	}
	changed := false
	scrub := func(str string) string {
		t := s.Scrub(str)
		changed = changed || t != str
		return t
	}
	out := &target.Refusal{Code: r.Code, Message: scrub(r.Message)}
	for k, v := range r.Facts {
		if str, ok := v.(string); ok {
			v = scrub(str)
		}
		out.With(k, v)
	}
	if r.Err != nil {
		out.Err = errors.New(scrub(r.Err.Error()))
	}
	if !changed {
		return err
	}
	return out
}
