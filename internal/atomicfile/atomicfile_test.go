package atomicfile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestWriteReplacesByRename(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	dir := t.TempDir()
	p := filepath.Join(dir, "state.json")
	if err := Write(p, []byte("one")); err != nil {
		t.Fatal(err)
	}
	st1, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if st1.Mode().Perm() != 0o600 {
		t.Errorf("mode %v under umask 0, want 0600", st1.Mode().Perm())
	}
	if err := Write(p, []byte("two")); err != nil {
		t.Fatal(err)
	}
	st2, _ := os.Stat(p)
	if st1.Sys().(*syscall.Stat_t).Ino == st2.Sys().(*syscall.Stat_t).Ino {
		t.Error("rewritten in place, not replaced by rename")
	}
	if b, _ := os.ReadFile(p); string(b) != "two" {
		t.Errorf("content %q, want two", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("dir holds %d entries after two writes, want 1", len(ents))
	}
}

func TestWriteFailureLeavesOld(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "state.json")
	if err := Write(p, []byte("old")); err != nil {
		t.Fatal(err)
	}
	// A directory where the file should be: the rename fails.
	q := filepath.Join(dir, "sub")
	if err := os.Mkdir(q, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(q, "x"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(q, []byte("new")); err == nil {
		t.Fatal("Write over a non-empty directory succeeded")
	}
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Errorf("other file changed: %q", b)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if IsTemp(e.Name()) {
			t.Errorf("temp file %s left after a failed write", e.Name())
		}
	}
}

func TestRemoveTemps(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{".a.json.123.tmp", ".b.key.9.tmp", "keep.tmp", "a.json", ".hidden"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	RemoveTemps(dir, "a.json")
	has := func(n string) bool { _, err := os.Stat(filepath.Join(dir, n)); return err == nil }
	if has(".a.json.123.tmp") || !has(".b.key.9.tmp") {
		t.Errorf("RemoveTemps(a.json): a's temp kept %v, b's temp removed %v", has(".a.json.123.tmp"), !has(".b.key.9.tmp"))
	}
	RemoveTemps(dir, "")
	if has(".b.key.9.tmp") {
		t.Error("RemoveTemps(\"\") kept .b.key.9.tmp")
	}
	for _, n := range []string{"keep.tmp", "a.json", ".hidden"} {
		if !has(n) {
			t.Errorf("RemoveTemps removed %s, not a temp file", n)
		}
	}
}
