package lease

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestAuditRotates: under a size bound the audit log is rotated into
// audit.jsonl.1, .2 (no more are kept), no file grows past the bound, and
// under concurrent writers every line is whole, in exactly one file.
func TestAuditRotates(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	const bound = 4 << 10
	a, err := OpenAuditRotating(path, nil, Rotation{MaxBytes: bound, Keep: 2})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 200 {
				if err := a.Record(Entry{Session: strings.Repeat("s", w+1), Verb: "snapshot", By: "tree", OK: i%2 == 0}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	kept := a.Kept()
	if len(kept) != 3 || kept[0] != path || kept[1] != path+".1" || kept[2] != path+".2" {
		t.Fatalf("kept %v", kept)
	}
	if _, err := os.Stat(path + ".3"); err == nil {
		t.Fatal("a third old file was kept")
	}
	for _, p := range kept {
		st, err := os.Stat(p)
		if err != nil || st.Size() > bound || st.Size() == 0 {
			t.Fatalf("%s: %v %v", p, st.Size(), err)
		}
		f, _ := os.Open(p)
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var e Entry
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Verb != "snapshot" {
				t.Fatalf("%s: a broken line %q: %v", filepath.Base(p), sc.Text(), err)
			}
		}
		f.Close()
	}
	a.Close()
	if err := a.Record(Entry{Verb: "x"}); err != os.ErrClosed {
		t.Fatalf("after Close: %v", err)
	}
	// Opened again, it appends to what is there and rotates from there.
	b, err := OpenAuditRotating(path, nil, Rotation{MaxBytes: bound, Keep: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	before, _ := os.Stat(path)
	b.Record(Entry{Verb: "again"})
	if after, _ := os.Stat(path); after.Size() <= before.Size() && before.Size()+60 < bound {
		t.Fatalf("reopened: %d then %d", before.Size(), after.Size())
	}
}

// TestRotatingFileBigWrite: a write larger than the bound goes whole into a
// file of its own.
func TestRotatingFileBigWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "daemon.log")
	rf, err := OpenRotating(path, Rotation{MaxBytes: 10, Keep: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer rf.Close()
	rf.Write([]byte("abc\n"))
	big := strings.Repeat("x", 30) + "\n"
	rf.Write([]byte(big))
	rf.Write([]byte("def\n"))
	cur, _ := os.ReadFile(path)
	old, _ := os.ReadFile(path + ".1")
	if string(cur) != "def\n" || string(old) != big {
		t.Fatalf("current %q, old %q", cur, old)
	}
}
