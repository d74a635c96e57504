package profile

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/target"
)

var idRE = regexp.MustCompile(`^bp-[0-9a-f]{8}$`)

// fixedClock is a deterministic clock for creation times.
func fixedClock() func() time.Time {
	t := time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC)
	return func() time.Time { t = t.Add(time.Second); return t }
}

func open(t *testing.T, dir string) *Registry {
	t.Helper()
	r, err := Open(dir, fixedClock())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustNew(t *testing.T, r *Registry, label string) Profile {
	t.Helper()
	p, err := r.New(label)
	if err != nil {
		t.Fatalf("New(%q): %v", label, err)
	}
	return p
}

func wantCode(t *testing.T, err error, code target.Code) *target.Refusal {
	t.Helper()
	rf, ok := target.AsRefusal(err)
	if !ok || rf.Code != code {
		t.Fatalf("err = %v, want refusal %s", err, code)
	}
	return rf
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func TestNewMintsUniqueIDsAndPrivateDirs(t *testing.T) {
	dir := t.TempDir()
	r := open(t, dir)
	seen := map[string]bool{}
	for i := range 200 {
		p := mustNew(t, r, "profile "+strings.Repeat("x", i%7)+string(rune('a'+i%26))+string(rune('A'+i/26)))
		if !idRE.MatchString(p.ID) || !IsID(p.ID) {
			t.Fatalf("id %q is not bp-<8 lowercase hex>", p.ID)
		}
		if seen[p.ID] {
			t.Fatalf("id %s minted twice", p.ID)
		}
		seen[p.ID] = true
		if got := mode(t, filepath.Join(dir, DirName, p.ID)); got != 0o700 {
			t.Fatalf("user-data-dir of %s has mode %o, want 700", p.ID, got)
		}
	}
	if got := mode(t, filepath.Join(dir, DirName)); got != 0o700 {
		t.Fatalf("profiles dir mode %o, want 700", got)
	}
	if got := mode(t, filepath.Join(dir, FileName)); got != 0o600 {
		t.Fatalf("%s mode %o, want 600", FileName, got)
	}
	// The oracle is the directory itself: exactly one entry per id.
	ents, err := os.ReadDir(filepath.Join(dir, DirName))
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != len(seen) {
		t.Fatalf("%d directories for %d profiles", len(ents), len(seen))
	}
	for _, e := range ents {
		if !seen[e.Name()] {
			t.Fatalf("unexpected entry %q under %s", e.Name(), DirName)
		}
	}
	if got := len(r.List()); got != 200 {
		t.Fatalf("List has %d profiles, want 200", got)
	}
}

// scripted returns a rand source that yields the given 4-byte words in
// order, then fails.
func scripted(words ...[4]byte) func([]byte) (int, error) {
	return func(b []byte) (int, error) {
		if len(words) == 0 {
			return 0, errors.New("script exhausted")
		}
		n := copy(b, words[0][:])
		words = words[1:]
		return n, nil
	}
}

func TestNewNeverReusesAnIDOrADirectory(t *testing.T) {
	dir := t.TempDir()
	r := open(t, dir)
	a, b, c := [4]byte{0, 0, 0, 1}, [4]byte{0xde, 0xad, 0xbe, 0xef}, [4]byte{0xab, 0xcd, 0xef, 0x01}
	r.rand = scripted(a)
	first := mustNew(t, r, "first")
	if first.ID != "bp-00000001" {
		t.Fatalf("id = %s, want bp-00000001 from the scripted source", first.ID)
	}
	// A directory somebody left under an id that is not registered.
	if err := os.Mkdir(filepath.Join(dir, DirName, "bp-deadbeef"), 0o700); err != nil {
		t.Fatal(err)
	}
	// The source repeats the registered id, then the leftover directory's,
	// then a fresh one: New must skip both.
	r.rand = scripted(a, b, c)
	second := mustNew(t, r, "second")
	if second.ID != "bp-abcdef01" {
		t.Fatalf("id = %s, want bp-abcdef01 (the registered id and the leftover dir skipped)", second.ID)
	}
	// A source that only ever repeats taken ids ends in an error, not a reuse.
	r.rand = scripted(a, a, a)
	if _, err := r.New("third"); err == nil {
		t.Fatal("New reused a taken id")
	}
	if n := len(r.List()); n != 2 {
		t.Fatalf("%d profiles, want 2", n)
	}
}

func TestLabelNeverReachesAPath(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "state")
	r := open(t, dir)
	labels := []string{"../../etc", "a/b/c", "/abs/olute", "~root", ".hidden", `back\slash`, "..", "nul ok"}
	ids := map[string]bool{}
	for _, l := range labels {
		p := mustNew(t, r, l)
		ids[p.ID] = true
		d, err := r.Dir(p.ID)
		if err != nil {
			t.Fatal(err)
		}
		if d != filepath.Join(dir, DirName, p.ID) {
			t.Fatalf("Dir(%s) = %s, want the id alone under %s", p.ID, d, DirName)
		}
	}
	// Walk everything under parent: the only names are the state dir, the
	// registry file, the profiles dir and one directory per id.
	err := filepath.Walk(parent, func(path string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(parent, path)
		switch {
		case rel == "." || rel == "state" || rel == filepath.Join("state", FileName) || rel == filepath.Join("state", DirName):
		case filepath.Dir(rel) == filepath.Join("state", DirName) && ids[filepath.Base(rel)]:
		default:
			t.Errorf("unexpected path %s", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// And the labels are where they belong: in the registry, intact.
	r2 := open(t, dir)
	var got []string
	for _, p := range r2.List() {
		got = append(got, p.Label)
	}
	if !reflect.DeepEqual(got, labels) {
		t.Fatalf("labels after reopen = %q, want %q", got, labels)
	}
}

func TestLabelRules(t *testing.T) {
	r := open(t, t.TempDir())
	bad := []string{"", "   ", "tab\there", "nl\nx", "nul\x00", "esc\x1b[1m", strings.Repeat("é", MaxLabel+1), "bp-0123abcd", "bk-x.1", "\xff\xfe"}
	for _, l := range bad {
		if _, err := r.New(l); target.CodeOf(err) != target.CodeBadRequest {
			t.Errorf("New(%q) = %v, want bad_request", l, err)
		}
	}
	p := mustNew(t, r, "  "+strings.Repeat("é", MaxLabel)+"  ")
	if p.Label != strings.Repeat("é", MaxLabel) {
		t.Fatalf("label not trimmed: %q", p.Label)
	}
	mustNew(t, r, "Work")
	rf := wantCode(t, func() error { _, err := r.New(" work "); return err }(), target.CodeLabelTaken)
	if rf.Facts["label"] != "Work" {
		t.Fatalf("label_taken facts %v, want the existing label", rf.Facts)
	}
	if n := len(r.List()); n != 2 {
		t.Fatalf("%d profiles after refusals, want 2", n)
	}
}

func TestWritesAreAtomicAndReopenGivesTheSameState(t *testing.T) {
	dir := t.TempDir()
	r := open(t, dir)
	work := mustNew(t, r, "work")
	mustNew(t, r, "personal")
	if _, err := r.Use("s1", "work", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Use("s1", "personal", "p"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.NewChild("s1"); err != nil {
		t.Fatal(err)
	}
	if err := r.Pin("s1", "p"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.UseFor("s2", work.ID, "w"); err != nil { // pending profile_changed for s2
		t.Fatal(err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*.tmp"))
	hidden, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(left)+len(hidden) > 0 {
		t.Fatalf("temporary files left: %v %v", left, hidden)
	}
	if got := mode(t, filepath.Join(dir, FileName)); got != 0o600 {
		t.Fatalf("mode %o, want 600", got)
	}
	// The file is what a reader of the file sees: plain JSON with both labels.
	b, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatalf("profiles.json is not JSON: %v", err)
	}
	r2 := open(t, dir)
	if !reflect.DeepEqual(r.List(), r2.List()) {
		t.Fatalf("profiles after reopen differ:\n%v\n%v", r.List(), r2.List())
	}
	for _, s := range []string{"s1", "s2"} {
		if !reflect.DeepEqual(r.Attachments(s), r2.Attachments(s)) {
			t.Fatalf("%s attachments after reopen differ:\n%v\n%v", s, r.Attachments(s), r2.Attachments(s))
		}
	}
	// What s2 has not been told yet survives the restart.
	_, err = r2.Resolve("s2", "")
	wantCode(t, err, target.CodeProfileChanged)
	// And child numbering continues where it was.
	c, err := r2.NewChild("s1")
	if err != nil {
		t.Fatal(err)
	}
	if c.Handle != SessionKey("s1")+".2" {
		t.Fatalf("child after reopen = %s, want .2", c.Handle)
	}
}

func TestCorruptFileIsAnErrorAndIsKept(t *testing.T) {
	cases := map[string]string{
		"garbage":        "{not json",
		"trailing":       `{"version":1,"profiles":[]} {}`,
		"version":        `{"version":9,"profiles":[]}`,
		"bad id":         `{"version":1,"profiles":[{"id":"bp-XYZ","label":"a","created":"2026-01-01T00:00:00Z"}]}`,
		"dup label":      `{"version":1,"profiles":[{"id":"bp-00000001","label":"a","created":"2026-01-01T00:00:00Z"},{"id":"bp-00000002","label":"A","created":"2026-01-01T00:00:00Z"}]}`,
		"unknown field":  `{"version":1,"profiles":[],"extra":true}`,
		"dangling":       `{"version":1,"profiles":[],"sessions":{"s":{"attachments":[{"handle":"w","profile_id":"bp-00000001","default":true}]}}}`,
		"two defaults":   `{"version":1,"profiles":[{"id":"bp-00000001","label":"a","created":"2026-01-01T00:00:00Z"},{"id":"bp-00000002","label":"b","created":"2026-01-01T00:00:00Z"}],"sessions":{"s":{"attachments":[{"handle":"a","profile_id":"bp-00000001","default":true},{"handle":"b","profile_id":"bp-00000002","default":true}]}}}`,
		"control label":  `{"version":1,"profiles":[{"id":"bp-00000001","label":"a\u0007","created":"2026-01-01T00:00:00Z"}]}`,
		"repeated hndl":  `{"version":1,"profiles":[{"id":"bp-00000001","label":"a","created":"2026-01-01T00:00:00Z"},{"id":"bp-00000002","label":"b","created":"2026-01-01T00:00:00Z"}],"sessions":{"s":{"attachments":[{"handle":"x","profile_id":"bp-00000001","default":true},{"handle":"x","profile_id":"bp-00000002","default":false}]}}}`,
		"empty file":     ``,
		"child with pid": `{"version":1,"profiles":[{"id":"bp-00000001","label":"a","created":"2026-01-01T00:00:00Z"}],"sessions":{"s":{"attachments":[{"handle":"own","own":true,"default":true},{"handle":"bk-1.1","child":true,"profile_id":"bp-00000001","default":false}]}}}`,
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, FileName)
			if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Open(dir, nil)
			if err == nil || !strings.Contains(err.Error(), path) {
				t.Fatalf("Open = %v, want an error naming %s", err, path)
			}
			b, _ := os.ReadFile(path)
			if string(b) != body {
				t.Fatalf("corrupt file was rewritten: %q", b)
			}
		})
	}
	// The positive control: the same shape, valid, opens.
	dir := t.TempDir()
	valid := `{"version":1,"profiles":[{"id":"bp-00000001","label":"a","created":"2026-01-01T00:00:00Z"}],"sessions":{"s":{"attachments":[{"handle":"a","profile_id":"bp-00000001","default":true}],"seen":"a*"}}}`
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(valid), 0o600); err != nil {
		t.Fatal(err)
	}
	r := open(t, dir)
	if c, err := r.Resolve("s", ""); err != nil || c.Attachment == nil || c.Attachment.ProfileID != "bp-00000001" {
		t.Fatalf("Resolve on the valid file = %+v, %v", c, err)
	}
}

func TestOpenRemovesStaleTemporaryFiles(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, "."+FileName+".123.tmp")
	if err := os.WriteFile(stale, []byte("half"), 0o600); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "keep.tmp")
	if err := os.WriteFile(other, []byte("not ours"), 0o600); err != nil {
		t.Fatal(err)
	}
	open(t, dir)
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Fatalf("stale temp file still there: %v", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Fatalf("a file that is not ours was removed: %v", err)
	}
}

func TestFailedWriteLeavesStateUnchanged(t *testing.T) {
	dir := t.TempDir()
	r := open(t, dir)
	mustNew(t, r, "work")
	if _, err := r.Use("s", "work", ""); err != nil {
		t.Fatal(err)
	}
	before, atts := r.List(), r.Attachments("s")
	// A directory where the file goes makes the rename fail.
	path := filepath.Join(dir, FileName)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := r.New("personal"); err == nil {
		t.Fatal("New succeeded with an unwritable registry")
	}
	if _, err := r.Detach("s", ""); err == nil {
		t.Fatal("Detach succeeded with an unwritable registry")
	}
	if !reflect.DeepEqual(before, r.List()) || !reflect.DeepEqual(atts, r.Attachments("s")) {
		t.Fatalf("state changed by failed writes: %v %v", r.List(), r.Attachments("s"))
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp"))
	if len(left) > 0 {
		t.Fatalf("temporary files left after failed writes: %v", left)
	}
}

func TestDir(t *testing.T) {
	dir := t.TempDir()
	r := open(t, dir)
	p := mustNew(t, r, "work")
	for _, id := range []string{"bp-00000000", "work", "../x", ""} {
		_, err := r.Dir(id)
		wantCode(t, err, target.CodeUnknownProfile)
	}
	d := filepath.Join(dir, DirName, p.ID)
	if err := os.Remove(d); err != nil {
		t.Fatal(err)
	}
	got, err := r.Dir(p.ID)
	if err != nil || got != d {
		t.Fatalf("Dir = %q, %v", got, err)
	}
	if m := mode(t, d); m != 0o700 {
		t.Fatalf("recreated dir mode %o", m)
	}
	if err := os.Chmod(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Dir(p.ID); err != nil {
		t.Fatal(err)
	}
	if m := mode(t, d); m != 0o700 {
		t.Fatalf("loose dir mode not tightened: %o", m)
	}
	// A symlink in its place is refused, not followed.
	if err := os.Remove(d); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(t.TempDir(), d); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Dir(p.ID); err == nil {
		t.Fatal("Dir accepted a symlink")
	}
}

func TestFind(t *testing.T) {
	r := open(t, t.TempDir())
	work := mustNew(t, r, "Vendor portal")
	odd := mustNew(t, r, "../../etc")
	for _, ref := range []string{work.ID, "Vendor portal", "  Vendor portal "} {
		if p, err := r.Find(ref); err != nil || p.ID != work.ID {
			t.Fatalf("Find(%q) = %v, %v", ref, p, err)
		}
	}
	// A registered label wins over the path shape.
	if p, err := r.Find("../../etc"); err != nil || p.ID != odd.ID {
		t.Fatalf("Find(label that looks like a path) = %v, %v", p, err)
	}
	for _, ref := range []string{"/srv/u/.config/chromium", "./prof", "~/p", ".p", `C:\x`, "a/b"} {
		_, err := r.Find(ref)
		rf := wantCode(t, err, target.CodePathNotHandle)
		if rf.Facts["register"] != "vibespace-browser new <label>" || !strings.Contains(rf.Message, "vibespace-browser new <label>") || !strings.Contains(rf.Message, "not a directory") {
			t.Fatalf("path_not_handle without the register command: %v", rf)
		}
	}
	for _, ref := range []string{"vendor portal", "bp-00000000", "nope", ""} {
		_, err := r.Find(ref)
		rf := wantCode(t, err, target.CodeUnknownProfile)
		known, _ := rf.Facts["profiles"].([]string)
		if len(known) != 2 || !strings.Contains(strings.Join(known, "|"), work.ID) {
			t.Fatalf("unknown_profile facts %v do not list the profiles", rf.Facts)
		}
	}
}
