package tracelog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenFaults (issue 35): a session's trace file and the pictures
// setting, damaged while no daemon ran. Open never drops in silence what
// it could not read back (today a line that does not decode is skipped, an
// unreadable setting ignored): Found says what was lost, the steps that
// decode are kept, the file as it was is set aside, the pictures setting
// that cannot be read is off and said so, and a step appended after a
// torn line is not glued to it.
func TestOpenFaults(t *testing.T) {
	type damage struct {
		name string
		do   func(t *testing.T, p string)
	}
	damages := []damage{
		{"missing", func(t *testing.T, p string) { must(t, os.Remove(p)) }},
		{"empty", func(t *testing.T, p string) { must(t, os.WriteFile(p, nil, 0o600)) }},
		{"truncated", func(t *testing.T, p string) {
			b, err := os.ReadFile(p)
			must(t, err)
			must(t, os.WriteFile(p, b[:len(b)-9], 0o600))
		}},
		{"garbage", func(t *testing.T, p string) { must(t, os.WriteFile(p, []byte("{\x00garbage\n"), 0o600)) }},
		{"wrong permissions", func(t *testing.T, p string) { must(t, os.Chmod(p, 0o666)) }},
	}
	setUp := func(t *testing.T) (string, *clock) {
		dir, c := t.TempDir(), newClock()
		s, err := Open(dir, Limits{Steps: 10}, c.now)
		must(t, err)
		if _, err := s.SetPictures(true, "op"); err != nil {
			t.Fatal(err)
		}
		for _, v := range []string{"a", "b", "c"} {
			c.add(1e9)
			must(t, s.Append(step(c, "one", v, "win:1")))
		}
		return dir, c
	}
	for _, dm := range damages {
		t.Run("steps/"+dm.name, func(t *testing.T) {
			dir, c := setUp(t)
			p := filepath.Join(dir, Dir, fileName("one"))
			dm.do(t, p)
			s, err := Open(dir, Limits{Steps: 10}, c.now)
			must(t, err)
			found := strings.Join(s.Found(), "\n")
			got := verbs(s.Steps(Filter{Session: "one"}))
			switch dm.name {
			case "missing":
				if found != "" || got != "" {
					t.Fatalf("missing: found %q, steps %q", found, got)
				}
			case "empty":
				if !strings.Contains(found, "trace file was empty") {
					t.Fatalf("found %q", found)
				}
			case "truncated":
				if got != "a b" || !strings.Contains(found, `the trace of session "one": 1 of its 3 lines could not be read back`) || !strings.Contains(found, "line 3, the last, is cut short") {
					t.Fatalf("steps %q, found %q", got, found)
				}
			case "garbage":
				if got != "" || !strings.Contains(found, "1 of its 1 lines could not be read back") {
					t.Fatalf("steps %q, found %q", got, found)
				}
			case "wrong permissions":
				if got != "" || !strings.Contains(found, "another user could have written it") {
					t.Fatalf("steps %q, found %q", got, found)
				}
			}
			if dm.name != "missing" && dm.name != "empty" {
				if aside, _ := filepath.Glob(p + ".damaged-*"); len(aside) != 1 {
					t.Fatalf("kept aside: %v", aside)
				}
			}
			// Appending goes on, each step on a line of its own: read back
			// again, nothing is lost.
			c.add(1e9)
			must(t, s.Append(step(c, "one", "d", "win:1")))
			again, err := Open(dir, Limits{Steps: 10}, c.now)
			must(t, err)
			if f := again.Found(); len(f) != 0 || !strings.HasSuffix(verbs(again.Steps(Filter{Session: "one"})), "d") {
				t.Fatalf("reopened: found %q, steps %q", f, verbs(again.Steps(Filter{Session: "one"})))
			}
		})
		t.Run("setting/"+dm.name, func(t *testing.T) {
			dir, c := setUp(t)
			dm.do(t, filepath.Join(dir, Dir, settingFile))
			s, err := Open(dir, Limits{Steps: 10}, c.now)
			must(t, err)
			found := strings.Join(s.Found(), "\n")
			if s.Setting().Pictures {
				t.Fatal("a setting that could not be read back is taken as pictures on")
			}
			if dm.name == "missing" {
				if found != "" {
					t.Fatalf("missing: found %q", found)
				}
				return
			}
			if !strings.Contains(found, "the trace's pictures setting could not be read back") || !strings.Contains(found, "pictures are off until the operator sets them again") {
				t.Fatalf("found %q", found)
			}
			if got := verbs(s.Steps(Filter{Session: "one"})); got != "a b c" {
				t.Fatalf("steps %q", got)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
