package lease

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vibespace/vibespace/internal/statefile"
	"github.com/vibespace/vibespace/target"
)

func TestStoreRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	s, err := OpenStore(dir, "state.json")
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Load()
	if err != nil || len(st.Targets) != 0 {
		t.Fatalf("empty load: %+v %v", st, err)
	}
	in := State{
		Targets:  []target.Target{{ID: "win:1", Kind: target.KindWindow, Title: "T", Origin: "a", Exposure: []string{"a"}, PID: 42, Key: "0x400007", Display: "xvfb"}},
		Leases:   []Lease{{Target: "win:1", Holder: "a", Since: time.Unix(100, 0).UTC(), Input: InputAgent}},
		Backends: map[string]json.RawMessage{"display": json.RawMessage(`{"name":":5"}`)},
	}
	if err := s.Save(in); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(s.Path())
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v %v", fi.Mode(), err)
	}
	if di, _ := os.Stat(dir); di.Mode().Perm() != 0o700 {
		t.Fatalf("dir mode %v", di.Mode())
	}
	out, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	if out.Targets[0].Key != "0x400007" || out.Targets[0].Display != "xvfb" || out.Leases[0].Holder != "a" || !strings.Contains(string(out.Backends["display"]), `":5"`) {
		t.Fatalf("%+v", out)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 || ents[0].Name() != "state.json" || ents[1].Name() != "state.json.copy" {
		t.Fatalf("want the state and its copy, no temp files: %v", ents)
	}
}

// TestStoreRestoresFromCopy: a state file cut short in place (the copy is
// another file, untouched) is set aside and the copy's state answered,
// with a Damage that says it was restored and from when.
func TestStoreRestoresFromCopy(t *testing.T) {
	dir := t.TempDir()
	s, _ := OpenStore(dir, "state.json")
	if err := s.Save(State{Targets: []target.Target{{ID: "win:4", Key: "0x1"}}}); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(s.Path(), 20); err != nil {
		t.Fatal(err)
	}
	st, err := s.Load()
	dmg, ok := errors.AsType[*statefile.Damage](err)
	if !ok || !strings.Contains(dmg.Restored, "state.json.copy, saved at ") {
		t.Fatalf("a damaged state with a whole copy: %v", err)
	}
	if len(st.Targets) != 1 || st.Targets[0].ID != "win:4" {
		t.Fatalf("restored %+v", st)
	}
	if !strings.Contains(dmg.Error(), "cut short") || !strings.Contains(dmg.Error(), "restored from its copy") {
		t.Fatalf("the damage says %q", dmg.Error())
	}
}

func TestStoreConcurrentSaves(t *testing.T) {
	s, _ := OpenStore(t.TempDir(), "state.json")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.Save(State{Targets: []target.Target{{ID: target.WindowID(i + 1)}}})
			if _, err := s.Load(); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
}

func TestStoreRejectsGarbage(t *testing.T) {
	for name, body := range map[string]string{
		"garbage":   "{not json",
		"truncated": `{"version":1,"targets":[{"id":"win:1"`,
		"empty":     "",
		"version":   `{"version":7}`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			s, _ := OpenStore(dir, "state.json")
			// No copy (an earlier build kept none), or a copy as damaged.
			os.WriteFile(s.Path(), []byte(body), 0o600)
			if name != "empty" {
				os.WriteFile(s.Path()+".copy", []byte(body), 0o600)
			}
			st, err := s.Load()
			dmg, ok := errors.AsType[*statefile.Damage](err)
			if !ok {
				t.Fatalf("a damaged state must be a Damage, not an empty state: %v", err)
			}
			if len(st.Targets) != 0 || st.Version != StateVersion {
				t.Fatalf("a damaged state answers %+v", st)
			}
			kept, _ := os.ReadFile(dmg.MovedTo)
			if dmg.MovedTo == "" || string(kept) != body {
				t.Fatalf("the damaged file is not kept aside as it was: %q in %q", kept, dmg.MovedTo)
			}
			if _, err := os.Stat(s.Path()); !os.IsNotExist(err) {
				t.Fatalf("the damaged file is still in place: %v", err)
			}
			// The next load is a fresh start, not the same damage again.
			if _, err := s.Load(); err != nil {
				t.Fatalf("after the damage was set aside: %v", err)
			}
		})
	}
}

func TestAuditNeverHoldsTypedText(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	a, err := OpenAudit(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a.Record(Entry{Session: "s", Target: "win:1", Verb: "type", By: target.RoadTree, OK: i%2 == 0, Code: map[bool]target.Code{true: "", false: target.CodeHeld}[i%2 == 0]})
		}()
	}
	wg.Wait()
	a.Close()
	if err := a.Record(Entry{Verb: "x"}); err == nil {
		t.Fatal("record after close")
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode())
	}
	f, _ := os.Open(path)
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		for k := range m {
			switch k {
			case "time", "session", "target", "verb", "by", "ok", "code":
			default:
				t.Fatalf("unexpected audit field %q", k)
			}
		}
		if strings.Contains(sc.Text(), "text") {
			t.Fatalf("audit line mentions text: %s", sc.Text())
		}
	}
	if n != 20 {
		t.Fatalf("%d lines", n)
	}
	// Reopening appends.
	a2, _ := OpenAudit(path, nil)
	a2.Record(Entry{Verb: "status"})
	a2.Close()
	b, _ := os.ReadFile(path)
	if strings.Count(string(b), "\n") != 21 {
		t.Fatal("reopen must append")
	}
}
