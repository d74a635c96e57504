package portal

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/vibespace/vibespace/internal/atomicfile"
)

// TokenStore keeps the newest restore token in one file (mode 0600, in a
// directory of mode 0700). A restore token is a standing grant: whoever
// holds it can start a session with no dialog, so it is never logged and
// never part of an error.
type TokenStore struct {
	path string
}

// OpenTokenStore returns the store at path; the file need not exist.
func OpenTokenStore(path string) *TokenStore { return &TokenStore{path: path} }

// Path is the store's file.
func (t *TokenStore) Path() string { return t.path }

// Load returns the stored token, or "" when there is none.
func (t *TokenStore) Load() (string, error) {
	b, err := os.ReadFile(t.path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("portal: token store: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// Save replaces the stored token with token, atomically: a temp file in
// the same directory, fsynced, renamed over the old one, and the directory
// fsynced.
func (t *TokenStore) Save(token string) error {
	if token == "" {
		return t.Clear()
	}
	if strings.ContainsAny(token, "\n\r") {
		return errors.New("portal: token store: the token has a line break")
	}
	dir := filepath.Dir(t.path)
	// A directory made here is 0700; an existing one is left as it is.
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("portal: token store: %w", err)
	}
	if err := atomicfile.Write(t.path, []byte(token+"\n")); err != nil {
		return fmt.Errorf("portal: token store: %w", err)
	}
	return nil
}

// Clear forgets the stored token.
func (t *TokenStore) Clear() error {
	if err := os.Remove(t.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("portal: token store: %w", err)
	}
	return nil
}
