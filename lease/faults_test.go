package lease

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAuditOpenFaults (issue 35): an audit.jsonl damaged while no daemon
// ran never stops opening it, and what was wrong is said (Found): a torn
// last line (the next record begins a line of its own, never glued to
// it), a last line that is no record, a file another user could have
// written (set aside, a new one begun). Appending goes on.
func TestAuditOpenFaults(t *testing.T) {
	row := `{"time":"2026-12-05T10:00:00Z","session":"a","verb":"key","ok":true}` + "\n"
	for _, tc := range []struct {
		name, content string
		mode          os.FileMode
		found         string
		bad           int // lines that are no record after one more is appended
	}{
		{"whole", row + row, 0o600, "", 0},
		{"empty", "", 0o600, "", 0},
		{"truncated", row + row[:20], 0o600, "audit.jsonl ended in a line cut short", 1},
		{"garbage", row + "{\x00garbage\n", 0o600, "audit.jsonl's last line is not an audit row", 1},
		{"wrong permissions", row, 0o666, "audit.jsonl was damaged (its mode is 0666: another user could have written it)", 0},
		{"owner cannot write", row, 0o000, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.jsonl")
			if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, tc.mode); err != nil {
				t.Fatal(err)
			}
			a, err := OpenAudit(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			found := strings.Join(a.Found(), "\n")
			if tc.found == "" && found != "" || !strings.Contains(found, tc.found) {
				t.Fatalf("Found: %q, want %q", found, tc.found)
			}
			if err := a.Record(Entry{Session: "b", Verb: "type", OK: true}); err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(path)
			lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
			bad := 0
			for _, l := range lines {
				if !json.Valid([]byte(l)) {
					bad++
				}
			}
			var last Entry
			if bad != tc.bad || json.Unmarshal([]byte(lines[len(lines)-1]), &last) != nil || last.Session != "b" {
				t.Fatalf("%d lines that are no record, want %d; the last %q:\n%s", bad, tc.bad, lines[len(lines)-1], b)
			}
			if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
				t.Fatalf("mode %04o", fi.Mode().Perm())
			}
		})
	}
}

// TestAuditCannotOpen: an audit that cannot be opened answers the error
// and an Audit all the same, in a lapse from its opening: records are
// counted lost until the file can be opened, then the gap is recorded
// first.
func TestAuditCannotOpen(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "state")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(blocker, "audit.jsonl") // its directory is a file
	a, err := OpenAudit(path, nil)
	if err == nil || a == nil {
		t.Fatalf("OpenAudit = %v, %v", a, err)
	}
	l, lapsed := a.Lapse()
	if !lapsed || l.Since.IsZero() || !strings.Contains(l.Why(), "not a directory") {
		t.Fatalf("lapse %+v %v (%s)", l, lapsed, l.Why())
	}
	if err := a.Record(Entry{Session: "a", Verb: "key"}); err == nil {
		t.Fatal("a record was written nowhere")
	}
	if err := os.Remove(blocker); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(blocker, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := a.Record(Entry{Session: "a", Verb: "click", Time: time.Now()}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), `"verb":"audit.lost"`) || !strings.Contains(string(b), `"lost":1`) || !strings.Contains(string(b), `"verb":"click"`) {
		t.Fatalf("after it could be opened:\n%s", b)
	}
	a.Close()
	if err := a.Record(Entry{Session: "a", Verb: "key"}); err != os.ErrClosed {
		t.Fatalf("after Close: %v", err)
	}
}

// TestStoreMissingBesideCopy: a state.json missing beside a whole copy is
// restored from the copy, and said: the copy says something was saved.
func TestStoreMissingBesideCopy(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenStore(dir, "state.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Save(State{Targets: nil, Backends: map[string]json.RawMessage{"x": json.RawMessage(`1`)}}); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(s.Path()); err != nil {
		t.Fatal(err)
	}
	st, err := s.Load()
	if err == nil || !strings.Contains(err.Error(), "state.json was missing") || !strings.Contains(err.Error(), "restored from its copy state.json.copy") || string(st.Backends["x"]) != "1" {
		t.Fatalf("Load = %+v, %v", st, err)
	}
	// Neither there: nothing was saved, nothing claimed.
	os.Remove(s.Path() + ".copy")
	if _, err := s.Load(); err != nil {
		t.Fatal(err)
	}
}
