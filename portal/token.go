package portal

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/vibespace/vibespace/internal/atomicfile"
	"github.com/vibespace/vibespace/internal/statefile"
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
//
// A token file that is not whole — empty, cut short (Save ends it with a
// newline), not a token, not a regular file, or one another user owns or
// could have written — is never sent: it is set aside
// (restore-token.damaged-<time>) and answered as a *statefile.Damage,
// with "" (the portal's dialog comes back once, and its answer's token
// is saved anew). Its words never quote the token.
func (t *TokenStore) Load() (string, error) {
	var tok string
	check := func(b []byte) error {
		s, ok := strings.CutSuffix(string(b), "\n")
		switch {
		case !ok:
			return errors.New("it is cut short (it does not end in a newline)")
		case s == "":
			return errors.New("it holds no token")
		case len(s) > maxToken:
			return fmt.Errorf("it is %d bytes, more than a token's %d", len(s), maxToken)
		case !utf8.ValidString(s):
			return errors.New("it is not a token (not UTF-8)")
		}
		for i, r := range s {
			if unicode.IsControl(r) || unicode.IsSpace(r) {
				return fmt.Errorf("it is not a token (a control or space character at byte %d)", i)
			}
		}
		tok = s
		return nil
	}
	if _, dmg := statefile.Read(t.path, check, time.Now()); dmg != nil {
		return "", dmg
	}
	return tok, nil
}

// maxToken bounds a restore token (a UUID, in the portals there are).
const maxToken = 4096

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
