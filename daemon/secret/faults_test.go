package secret

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenFaults (issue 35): a key file damaged while no daemon ran never
// stops Open (today a file it cannot read is a lockout) and is never taken
// as a key (today an empty file is one): the key is taken as not set, the
// file kept aside, and Found names the provider and how to set it again,
// never the value.
func TestOpenFaults(t *testing.T) {
	const name, value = "cloud:browserless", "tok-0123456789abcdef"
	for _, tc := range []struct {
		damage string
		do     func(t *testing.T, p string)
		why    string
	}{
		{"empty", func(t *testing.T, p string) { write(t, p, "", 0o600) }, "it is empty"},
		{"truncated", func(t *testing.T, p string) { write(t, p, value[:7], 0o600) }, "cut short"},
		{"garbage", func(t *testing.T, p string) { write(t, p, "{\x00garbage\n", 0o600) }, "it is not a key"},
		{"wrong permissions", func(t *testing.T, p string) {
			if err := os.Chmod(p, 0o666); err != nil {
				t.Fatal(err)
			}
		}, "another user could have written it"},
	} {
		t.Run(tc.damage, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "keys")
			s, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Set(name, value); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, fileOf(name))
			tc.do(t, p)
			s, err = Open(dir)
			if err != nil {
				t.Fatalf("Open refused: %v", err)
			}
			if s.Has(name) {
				v, _, _ := s.Get(name)
				t.Fatalf("a damaged key file is taken as a key (%q)", v)
			}
			found := strings.Join(s.Found(), "\n")
			want := "the key of provider " + name + " could not be read back"
			if !strings.Contains(found, want) || !strings.Contains(found, tc.why) || !strings.Contains(found, "key set "+name) {
				t.Fatalf("Found says %q, want %q … %q", found, want, tc.why)
			}
			if strings.Contains(found, value[:7]) {
				t.Fatalf("Found quotes the key: %q", found)
			}
			if aside, _ := filepath.Glob(p + ".damaged-*"); len(aside) != 1 {
				t.Fatalf("kept aside: %v", aside)
			}
			// Set again, it is a key once more.
			if err := s.Set(name, value); err != nil {
				t.Fatal(err)
			}
			if v, ok, err := s.Get(name); v != value || !ok || err != nil {
				t.Fatalf("Get after set again: %v %v", ok, err)
			}
		})
	}
}

// TestOpenLegacyKeys: a key file of the earlier format (the bare value,
// no newline) is read as the key and rewritten with its newline; only
// then is a file without one taken as cut short.
func TestOpenLegacyKeys(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "keys")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, fileOf("cloud:x"))
	write(t, p, "tok-legacy", 0o600)
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok, _ := s.Get("cloud:x"); !ok || v != "tok-legacy" || len(s.Found()) != 0 {
		t.Fatalf("legacy key: %q %v, found %q", v, ok, s.Found())
	}
	if b, _ := os.ReadFile(p); string(b) != "tok-legacy\n" {
		t.Fatalf("rewritten as %q", b)
	}
	if s, _ = Open(dir); !s.Has("cloud:x") || len(s.Found()) != 0 {
		t.Fatalf("reopened: found %q", s.Found())
	}
}

func write(t *testing.T, p, s string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}
