package daemon

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/vibespace/vibespace/daemon/args"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/daemon/kind/kindtest"
	"github.com/vibespace/vibespace/internal/smallfs"
)

// auditLines reads audit.jsonl back from disk; every line must be whole
// JSON.
func auditLines(t *testing.T, dir string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, auditFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		t.Fatalf("audit.jsonl does not end in a newline: …%q", b[max(0, len(b)-80):])
	}
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("audit.jsonl line %d is not whole JSON (%v): %q", n, err, sc.Text())
		}
		out = append(out, m)
	}
	return out
}

// auditKeysOf counts session's key records.
func auditKeysOf(lines []map[string]any, session string) int {
	n := 0
	for _, m := range lines {
		if m["session"] == session && m["verb"] == "key" {
			n++
		}
	}
	return n
}

var (
	auditDownNote = regexp.MustCompile(`audit not written since (\S+) \(no space left on device\)`)
	auditDownLine = regexp.MustCompile(`^audit not written since (\S+): no space left on device \((\d+) records lost so far\)$`)
	auditBackNote = regexp.MustCompile(`the audit was not written from (\S+) to (\S+): (\d+) records lost \(no space left on device\)`)
)

// TestAuditFullDiskTold (issue 35): with the state directory on a real
// full filesystem, acting verbs still run, but every session is told once
// that the audit is not written, and status says so while it lasts, with
// what it lost so far; when space comes back, every session is told once
// how many records were lost and from when to when, and audit.jsonl, read
// back, is whole JSON lines with an audit.lost record saying the same
// where they are missing.
func TestAuditFullDiskTold(t *testing.T) {
	dir := smallfs.Mount(t, 256<<10)
	td := startDaemon(t, &kindtest.Provider{}, dir)
	win := string(td.open(t, "a"))
	key := func(i int) Response {
		t.Helper()
		resp := td.call(t, Request{Verb: "key", Session: "a", Target: win}.With(args.Key{Chord: string(rune('a' + i%26)), NoVerify: true}))
		wantCode(t, resp, "")
		return resp
	}
	const before, full, after = 3, 60, 10
	for i := range before {
		if r := key(i); auditNotes(r.Note) != "" {
			t.Fatalf("a note before the disk is full: %q", r.Note)
		}
	}
	free := smallfs.Fill(t, dir)

	// The disk is full: verbs still run; the first whose record is lost
	// tells its session, once.
	var since string
	for i := range full {
		r := key(i)
		if m := auditDownNote.FindStringSubmatch(r.Note); m != nil {
			if since != "" {
				t.Fatalf("key %d told again: %q", i, r.Note)
			}
			since = m[1]
		} else if n := auditNotes(r.Note); n != "" {
			t.Fatalf("key %d: note %q", i, n)
		}
	}
	if since == "" {
		t.Fatalf("%d verbs on a full disk and no answer said the audit is not written", full)
	}
	t.Logf("told a: audit not written since %s (no space left on device)", since)
	fitted := auditKeysOf(auditLines(t, dir), "a") - before
	lost := full - fitted
	if lost <= 0 {
		t.Fatalf("all %d records fitted on the full disk", full)
	}

	// status says it while it lasts, with what was lost so far (the
	// file's count), once in its faults; another session is told too.
	downFaults := func(st Response) []string {
		t.Helper()
		wantCode(t, st, "")
		var out []string
		for _, f := range st.Status.Faults {
			if strings.Contains(f, "audit not written") {
				out = append(out, f)
			}
		}
		return out
	}
	for _, s := range []string{"a", "b"} {
		st := td.call(t, Request{Verb: "status", Session: s})
		fs := downFaults(st)
		if len(fs) != 1 {
			t.Fatalf("status for %s lists %q under faults; want one line of the audit not written", s, st.Status.Faults)
		}
		m := auditDownLine.FindStringSubmatch(fs[0])
		if m == nil || m[1] != since || m[2] != fmt.Sprint(lost) {
			t.Fatalf("status fault %q; want audit not written since %s: no space left on device (%d records lost so far)", fs[0], since, lost)
		}
		t.Logf("status for %s: fault %q, note %q", s, fs[0], st.Note)
		if told := auditDownNote.MatchString(st.Note); told != (s == "b") {
			t.Fatalf("status for %s: note %q", s, st.Note)
		}
	}

	// Space comes back: the next answer of each session says what was
	// lost, once.
	free()
	var backNote []string
	for i := range after {
		r := key(i)
		if m := auditBackNote.FindStringSubmatch(r.Note); m != nil && i == 0 {
			backNote = m
		} else if n := auditNotes(r.Note); n != "" {
			t.Fatalf("key %d after space came back: note %q", i, n)
		}
	}
	if backNote == nil {
		t.Fatal("writing resumed and the answer did not say what was lost")
	}
	t.Logf("told a: %s", backNote[0])
	if backNote[1] != since || backNote[3] != fmt.Sprint(lost) {
		t.Fatalf("told %q; want from %s, %d records lost", backNote[0], since, lost)
	}
	st := td.call(t, Request{Verb: "status", Session: "b"})
	if fs := downFaults(st); len(fs) != 0 {
		t.Fatalf("status after writing resumed still lists %q", fs)
	}
	if !auditBackNote.MatchString(st.Note) || !slicesContainsMatch(st.Status.Faults, auditBackNote) {
		t.Fatalf("status for b after writing resumed: note %q, faults %q", st.Note, st.Status.Faults)
	}

	// The oracle: audit.jsonl read back. Whole lines only; the records
	// that fitted, then the gap's record, then the ones after.
	lines := auditLines(t, dir)
	if got := auditKeysOf(lines, "a"); got != before+fitted+after {
		t.Fatalf("audit.jsonl has %d key records of a, want %d", got, before+fitted+after)
	}
	var gap map[string]any
	keysBefore := 0
	for _, m := range lines {
		if m["verb"] == "audit.lost" {
			if gap != nil {
				t.Fatalf("two gap records: %v, %v", gap, m)
			}
			gap = m
			if keysBefore != before+fitted {
				t.Fatalf("the gap's record follows %d key records, want %d", keysBefore, before+fitted)
			}
		}
		if m["session"] == "a" && m["verb"] == "key" {
			keysBefore++
		}
	}
	if gap == nil {
		t.Fatal("no audit.lost record in audit.jsonl")
	}
	t.Logf("audit.jsonl: %d lines, the gap's record %v", len(lines), gap)
	if gap["lost"] != float64(lost) || gap["error"] != "no space left on device" || !strings.HasPrefix(fmt.Sprint(gap["since"]), strings.TrimSuffix(since, "Z")) ||
		!strings.HasPrefix(fmt.Sprint(gap["until"]), strings.TrimSuffix(backNote[2], "Z")) {
		t.Fatalf("the gap's record %v; want lost %d since %s until %s, no space left on device", gap, lost, since, backNote[2])
	}
}

// auditNotes are the notices of a note that speak of the audit (others,
// such as state.json's not written on the same full disk, are not this
// test's).
func auditNotes(note string) string {
	var out []string
	for _, n := range strings.Split(note, "; ") {
		if strings.Contains(n, "audit") {
			out = append(out, n)
		}
	}
	return strings.Join(out, "; ")
}

func slicesContainsMatch(ss []string, re *regexp.Regexp) bool {
	for _, s := range ss {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}
