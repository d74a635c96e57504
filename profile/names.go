package profile

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/vibespace/vibespace/target"
)

const (
	idPrefix    = "bp-" // a profile id: "bp-" + 8 lowercase hex
	childPrefix = "bk-" // a child handle: "bk-<parentkey>.<n>"

	// OwnHandle is the handle of the session's own ephemeral context once
	// new-child has made it an explicit attachment. It is reserved: no alias
	// or label slug may take it.
	OwnHandle = "own"

	// DetachAll, given to Detach as the handle, removes every attachment of
	// the session, children included.
	DetachAll = "--all"

	// MaxLabel is the longest label, in runes.
	MaxLabel = 100
	// MaxTask is the longest task of a child (new-child --task), in runes.
	MaxTask = 100
	// MaxAlias is the longest alias (and label slug), in bytes.
	MaxAlias = 32

	// registerCommand is what a path_not_handle or unknown_profile refusal
	// tells the agent to run.
	registerCommand = "vibespace-browser new <label>"
)

// newID mints a profile id from read (crypto/rand.Read outside tests).
func newID(read func([]byte) (int, error)) (string, error) {
	var b [4]byte
	if _, err := read(b[:]); err != nil {
		return "", fmt.Errorf("profile: mint id: %w", err)
	}
	return idPrefix + hex.EncodeToString(b[:]), nil
}

// IsID reports whether s has the form of a profile id: "bp-" and 8
// lowercase hex digits.
func IsID(s string) bool {
	if len(s) != len(idPrefix)+8 || !strings.HasPrefix(s, idPrefix) {
		return false
	}
	for _, c := range s[len(idPrefix):] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// SessionKey is the short stable key a session's children are minted under:
// "bk-" and the first 8 hex digits of SHA-256("vibespace-browser-session\x00"
// + session). It depends on the session name only, so it survives daemon
// restarts; it is not a secret (session names are not either).
func SessionKey(session string) string {
	sum := sha256.Sum256([]byte("vibespace-browser-session\x00" + session))
	return childPrefix + hex.EncodeToString(sum[:4])
}

// childHandle is the n-th child handle of session.
func childHandle(session string, n int) string {
	return fmt.Sprintf("%s.%d", SessionKey(session), n)
}

// cleanLabel trims and validates a label: 1..MaxLabel runes of valid UTF-8,
// no control characters. The label is shown to people only; it never
// reaches a path or an argv, so '/' and ".." are allowed.
func cleanLabel(label string) (string, error) {
	l, err := cleanText("a profile label", label, MaxLabel)
	if err != nil {
		return "", err
	}
	if l == "" {
		return "", target.Refuse(target.CodeBadRequest, "a profile label cannot be empty")
	}
	if IsID(l) || strings.HasPrefix(l, childPrefix) {
		return "", target.Refuse(target.CodeBadRequest, "a profile label cannot look like an id or a child handle (%s…, %s…)", idPrefix, childPrefix)
	}
	return l, nil
}

// cleanTask trims and validates a child's task: like a label but may be
// empty (the helper is then named by its number) and may read like anything.
func cleanTask(task string) (string, error) { return cleanText("a task", task, MaxTask) }

// cleanText trims s, text shown to people only, and checks it is valid
// UTF-8 of at most max runes without control characters; what names it in
// the refusal.
func cleanText(what, s string, max int) (string, error) {
	t := strings.TrimSpace(s)
	switch n := utf8.RuneCountInString(t); {
	case !utf8.ValidString(t):
		return "", target.Refuse(target.CodeBadRequest, "%s must be valid UTF-8", what)
	case n > max:
		return "", target.Refuse(target.CodeBadRequest, "%s is at most %d characters (this one has %d)", what, max, n).With("max", max)
	}
	for _, r := range t {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return "", target.Refuse(target.CodeBadRequest, "%s cannot contain control characters (found %U)", what, r)
		}
	}
	return t, nil
}

// validAlias checks an alias given to use --alias.
func validAlias(a string) error {
	if a == "" || len(a) > MaxAlias {
		return target.Refuse(target.CodeBadRequest, "an alias is 1..%d characters of a-z 0-9 - _", MaxAlias).With("alias", a)
	}
	for _, c := range a {
		if !slugChar(c) {
			return target.Refuse(target.CodeBadRequest, "an alias is 1..%d characters of a-z 0-9 - _ (found %q)", MaxAlias, c).With("alias", a)
		}
	}
	if a[0] == '-' || a[0] == '_' {
		return target.Refuse(target.CodeBadRequest, "an alias starts with a-z or 0-9 (it would read as a flag)").With("alias", a)
	}
	if reservedHandle(a) {
		return target.Refuse(target.CodeBadRequest, "the alias %q is reserved (%s…, %s… and %q are minted here)", a, idPrefix, childPrefix, OwnHandle).With("alias", a)
	}
	return nil
}

func slugChar(c rune) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

// reservedHandle reports names no alias or slug may take.
func reservedHandle(h string) bool {
	return h == OwnHandle || strings.HasPrefix(h, idPrefix) || strings.HasPrefix(h, childPrefix)
}

// slug makes a handle from a label: ASCII letters, digits and '_' kept
// (lowercased), every other run of characters one '-', trimmed, at most
// MaxAlias bytes, starting with a letter or digit.
// It returns "" when nothing usable is left or the result is reserved.
func slug(label string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(label) {
		if r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	s := strings.TrimLeft(b.String(), "_-")
	if len(s) > MaxAlias {
		s = strings.TrimRight(s[:MaxAlias], "-_")
	}
	if reservedHandle(s) {
		return ""
	}
	return s
}

// LooksLikePath reports whether a --profile value has the shape of a
// filesystem path rather than a registry handle: it contains '/' or '\',
// or starts with '.' or '~'.
func LooksLikePath(ref string) bool {
	return strings.ContainsAny(ref, `/\`) || strings.HasPrefix(ref, ".") || strings.HasPrefix(ref, "~")
}

// pathRefusal is the refusal for a directory given where a handle belongs.
func pathRefusal(ref string) *target.Refusal {
	return target.Refuse(target.CodePathNotHandle,
		"%q is a filesystem path, but --profile takes a registry handle (an id, label or alias), not a directory; register a profile with `%s`, then `vibespace-browser use <label>`",
		ref, registerCommand).
		With("ref", ref).
		With("register", registerCommand)
}
