package tracelog

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// clock is an injected clock a test moves.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newClock() *clock { return &clock{t: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)} }

func step(c *clock, session, verb string, id target.ID) wire.TraceStep {
	return wire.TraceStep{Time: c.now(), Session: session, Verb: verb, Target: id, OK: true}
}

func verbs(steps []wire.TraceStep) string {
	var out []string
	for _, s := range steps {
		out = append(out, s.Verb)
	}
	return strings.Join(out, " ")
}

// TestStoreCapPerSession: a session keeps its last Steps steps, on disk
// too (its file compacted), and another session's are untouched.
func TestStoreCapPerSession(t *testing.T) {
	dir, c := t.TempDir(), newClock()
	s, err := Open(dir, Limits{Steps: 3}, c.now)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"a", "b", "c", "d", "e", "f", "g"} {
		c.add(time.Second)
		if err := s.Append(step(c, "one", v, "win:1")); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Append(step(c, "two", "x", "win:2")); err != nil {
		t.Fatal(err)
	}
	if got := verbs(s.Steps(Filter{Session: "one"})); got != "e f g" {
		t.Errorf("session one keeps %q, want the last three: e f g", got)
	}
	if got := verbs(s.Steps(Filter{Session: "two"})); got != "x" {
		t.Errorf("session two keeps %q", got)
	}
	steps, lines, _, _ := readSteps(s.path("one"))
	if lines >= 2*3 || len(steps) < 3 {
		t.Errorf("session one's file holds %d lines (%d steps): not compacted to its bound", lines, len(steps))
	}
	if got := verbs(s.Steps(Filter{Session: "one", Last: 2})); got != "f g" {
		t.Errorf("--last 2 answers %q", got)
	}
}

// TestStoreSurvivesRestart: what one store wrote, the next reads back, in
// order, per session, with files 0600 in a 0700 directory.
func TestStoreSurvivesRestart(t *testing.T) {
	dir, c := t.TempDir(), newClock()
	s, err := Open(dir, Limits{Steps: 10, Retention: time.Hour}, c.now)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"snapshot", "click", "type"} {
		c.add(time.Millisecond)
		st := step(c, "agent/1", v, "win:3")
		st.Ref, st.Role, st.Name, st.By, st.MS = "@e9", "check box", "Dark mode", target.RoadTree, 42
		if err := s.Append(st); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.SetPictures(true, "operator"); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(dir, Limits{Steps: 10, Retention: time.Hour}, c.now)
	if err != nil {
		t.Fatal(err)
	}
	got := s2.Steps(Filter{Session: "agent/1"})
	if verbs(got) != "snapshot click type" {
		t.Fatalf("after a restart: %q", verbs(got))
	}
	if got[1].Name != "Dark mode" || got[1].Ref != "@e9" || got[1].MS != 42 || got[1].By != target.RoadTree {
		t.Errorf("a step read back: %+v", got[1])
	}
	if st := s2.Setting(); !st.Pictures || st.Session != "operator" {
		t.Errorf("the pictures setting read back: %+v", st)
	}
	if !s2.Has("agent/1", "win:3") || s2.Has("agent/1", "win:4") || s2.Has("other", "win:3") {
		t.Error("Has answers wrong")
	}
	checkModes(t, dir)
}

// checkModes: every file under the trace directory is 0600, every
// directory 0700.
func checkModes(t *testing.T, dir string) {
	t.Helper()
	n := 0
	filepath.Walk(filepath.Join(dir, Dir), func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		want := os.FileMode(0o600)
		if fi.IsDir() {
			want = 0o700
		} else {
			n++
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s is %v, want %v", p, fi.Mode().Perm(), want)
		}
		return nil
	})
	if n == 0 {
		t.Error("no file was written")
	}
}

// TestStoreRetention: with an injected clock, steps and pictures older
// than the retention period are swept from memory and disk; a session
// with nothing left loses its file.
func TestStoreRetention(t *testing.T) {
	dir, c := t.TempDir(), newClock()
	s, err := Open(dir, Limits{Steps: 10, Retention: time.Hour}, c.now)
	if err != nil {
		t.Fatal(err)
	}
	old := step(c, "one", "click", "win:1")
	if old.Picture, err = s.SavePicture("one", c.now(), []byte("png-old")); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(old); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(step(c, "two", "click", "win:2")); err != nil {
		t.Fatal(err)
	}
	checkModes(t, dir)
	c.add(40 * time.Minute)
	fresh := step(c, "one", "type", "win:1")
	if fresh.Picture, err = s.SavePicture("one", c.now(), []byte("png-new")); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(fresh); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, old.Picture)); err != nil {
		t.Fatalf("a picture inside the retention period is gone: %v", err)
	}
	c.add(30 * time.Minute) // the first steps are 70 minutes old, the last 30
	s.Sweep()
	if got := verbs(s.Steps(Filter{Session: "one"})); got != "type" {
		t.Errorf("after the retention period session one keeps %q, want type", got)
	}
	if _, err := os.Stat(filepath.Join(dir, old.Picture)); !os.IsNotExist(err) {
		t.Errorf("the old step's picture is still there (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(dir, fresh.Picture)); err != nil {
		t.Errorf("the fresh step's picture went: %v", err)
	}
	if _, err := os.Stat(s.path("two")); !os.IsNotExist(err) {
		t.Errorf("session two's file outlived all its steps (%v)", err)
	}
	// The disk says the same after a restart.
	s2, err := Open(dir, Limits{Steps: 10, Retention: time.Hour}, c.now)
	if err != nil {
		t.Fatal(err)
	}
	if got := verbs(s2.Steps(Filter{})); got != "type" {
		t.Errorf("after a restart every session keeps %q, want type", got)
	}
	// A step dropped by the cap takes its picture with it.
	s3, err := Open(t.TempDir(), Limits{Steps: 1}, c.now)
	if err != nil {
		t.Fatal(err)
	}
	a := step(c, "one", "click", "win:1")
	a.Picture, _ = s3.SavePicture("one", c.now(), []byte("png"))
	s3.Append(a)
	c.add(time.Second)
	s3.Append(step(c, "one", "key", "win:1"))
	if _, err := os.Stat(filepath.Join(s3.dir, "..", a.Picture)); !os.IsNotExist(err) {
		t.Errorf("a picture outlived its step dropped by the cap (%v)", err)
	}
}

// TestStoreTargetAcrossSessions: a target's steps of every session, merged
// by time, the last N.
func TestStoreTargetAcrossSessions(t *testing.T) {
	c := newClock()
	s, err := Open(t.TempDir(), Limits{Steps: 10}, c.now)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range []struct{ s, v string }{{"a", "1"}, {"b", "2"}, {"a", "3"}, {"b", "4"}} {
		c.add(time.Second)
		id := target.ID("win:1")
		if i == 2 {
			id = "win:9"
		}
		s.Append(step(c, p.s, p.v, id))
	}
	if got := verbs(s.Steps(Filter{Target: "win:1"})); got != "1 2 4" {
		t.Errorf("win:1's steps of every session: %q", got)
	}
	if got := verbs(s.Steps(Filter{Target: "win:1", Last: 2})); got != "2 4" {
		t.Errorf("the last two: %q", got)
	}
}
