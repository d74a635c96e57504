package secret

import (
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func mode(t *testing.T, p string) fs.FileMode {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// TestModes: the directory is 0700 and each key 0600 even under a umask
// that would leave them readable to all, and an existing looser directory
// and file (readable by others, writable by none: one another user could
// have written is set aside, TestOpenFaults) are tightened by Open.
func TestModes(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	dir := filepath.Join(t.TempDir(), "keys")
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	loose := filepath.Join(dir, fileOf("cloud:other"))
	if err := os.WriteFile(loose, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m := mode(t, dir); m != 0o700 {
		t.Errorf("dir mode %o, want 700", m)
	}
	if m := mode(t, loose); m != 0o600 {
		t.Errorf("existing key mode %o, want 600", m)
	}
	if err := s.Set("cloud:browserless", "tok-123"); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, fileOf("cloud:browserless"))
	if m := mode(t, p); m != 0o600 {
		t.Errorf("key mode %o, want 600", m)
	}
	fresh := filepath.Join(t.TempDir(), "a", "keys")
	if _, err := Open(fresh); err != nil {
		t.Fatal(err)
	}
	if m := mode(t, fresh); m != 0o700 {
		t.Errorf("new dir mode %o, want 700", m)
	}
}

func TestSetGetClearHas(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	const n = "cloud:browserless"
	if s.Has(n) {
		t.Fatal("Has before Set")
	}
	if _, ok, err := s.Get(n); ok || err != nil {
		t.Fatalf("Get before Set: ok=%v err=%v", ok, err)
	}
	if err := s.Set(n, "first"); err != nil {
		t.Fatal(err)
	}
	if err := s.Set(n, "second"); err != nil {
		t.Fatal(err)
	}
	v, ok, err := s.Get(n)
	if v != "second" || !ok || err != nil {
		t.Fatalf("Get = %q %v %v", v, ok, err)
	}
	// Read the file itself, not through the store: the value and a
	// newline (a file without it was cut short).
	b, err := os.ReadFile(filepath.Join(s.Dir(), fileOf(n)))
	if err != nil || string(b) != "second\n" {
		t.Fatalf("file holds %q (%v)", b, err)
	}
	l, err := s.List()
	if err != nil || len(l) != 1 || l[0].Name != n || l[0].SetAt.IsZero() {
		t.Fatalf("List = %+v %v", l, err)
	}
	if err := s.Clear(n); err != nil {
		t.Fatal(err)
	}
	if s.Has(n) {
		t.Fatal("Has after Clear")
	}
	if err := s.Clear(n); err != nil {
		t.Fatalf("Clear twice: %v", err)
	}
	// Reopened, the store knows what is on disk.
	if err := s.Set(n, "third"); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(s.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if got := s2.Scrub("x third y"); got != "x "+Mask+" y" {
		t.Fatalf("reopened Scrub = %q", got)
	}
}

// TestAtomicReplace: a replace leaves no temp file, and a temp file left by
// a write cut short is removed by Open and never read as a key.
func TestAtomicReplace(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Set("cloud:browserless", "one"); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, fileOf("cloud:browserless"))
	st1, _ := os.Stat(p)
	if err := s.Set("cloud:browserless", "two"); err != nil {
		t.Fatal(err)
	}
	st2, _ := os.Stat(p)
	// A rename replaces the inode; an in-place write would keep it.
	if st1.Sys().(*syscall.Stat_t).Ino == st2.Sys().(*syscall.Stat_t).Ino {
		t.Error("the key was rewritten in place, not replaced by rename")
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 { // the key and the format file
		t.Errorf("dir holds %d entries, want 2", len(ents))
	}
	if err := os.WriteFile(filepath.Join(dir, ".cloud~browserless.key.123.tmp"), []byte("half"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".cloud~browserless.key.123.tmp")); !os.IsNotExist(err) {
		t.Errorf("leftover temp file still there: %v", err)
	}
}

func TestScrub(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	const v = "a+b/c=d&e"
	if err := s.Set("cloud:browserless", v); err != nil {
		t.Fatal(err)
	}
	if err := s.Set("cloud:short", "zz9"); err != nil {
		t.Fatal(err)
	}
	in := "dial wss://x/?token=" + url.QueryEscape(v) + " raw " + v + " path /" + url.PathEscape(v) + " and zz9."
	out := s.Scrub(in)
	for _, leak := range []string{v, url.QueryEscape(v), url.PathEscape(v), "zz9"} {
		if strings.Contains(out, leak) {
			t.Errorf("Scrub left %q in %q", leak, out)
		}
	}
	if want := "dial wss://x/?token=" + Mask + " raw " + Mask + " path /" + Mask + " and " + Mask + "."; out != want {
		t.Errorf("Scrub = %q, want %q", out, want)
	}
	if err := s.Clear("cloud:short"); err != nil {
		t.Fatal(err)
	}
	if got := s.Scrub("zz9"); got != "zz9" {
		t.Errorf("a cleared key is still masked: %q", got)
	}
}

func TestRefusals(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(filepath.Join(dir, "keys"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"", "../escape", "cloud/../../x", "/etc/passwd", ".hidden", "Cloud:X", "a b", strings.Repeat("a", 65)} {
		if err := s.Set(name, "v"); err == nil {
			t.Errorf("Set(%q) accepted", name)
		}
		if _, _, err := s.Get(name); err == nil {
			t.Errorf("Get(%q) accepted", name)
		}
		if err := s.Clear(name); err == nil {
			t.Errorf("Clear(%q) accepted", name)
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("something was written beside the key dir: %v", ents)
	}
	for _, v := range []string{"", "a\nb", "tab\there", "nul\x00", "\x1b[31m", strings.Repeat("k", MaxValueLen+1), "\xff\xfe"} {
		err := s.Set("cloud:browserless", v)
		if err == nil {
			t.Errorf("Set value %q accepted", v)
			continue
		}
		if len(v) > 2 && strings.Contains(err.Error(), v) {
			t.Errorf("the refusal quotes the value: %v", err)
		}
	}
	if s.Has("cloud:browserless") {
		t.Error("a refused value was stored")
	}
}
