package lease

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vibespace/vibespace/internal/smallfs"
	"github.com/vibespace/vibespace/target"
)

// tick is a clock one second on at each reading.
func tick() func() time.Time {
	var mu sync.Mutex
	now := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Second)
		return now
	}
}

// readLines is the log read back from disk: each line, and what parsed of
// it as JSON (nil for a line that is not).
func readLines(t *testing.T, path string) (lines []string, parsed []map[string]any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		t.Errorf("the log does not end in a newline: …%q", b[max(0, len(b)-80):])
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		lines = append(lines, sc.Text())
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			m = nil
		}
		parsed = append(parsed, m)
	}
	return lines, parsed
}

// watched collects what RecordWatched told.
type watched struct{ told []Lapse }

func (w *watched) watch(l Lapse) { w.told = append(w.told, l) }

// TestAuditFullDisk (issue 35): on a real full filesystem the records the
// log cannot write are lost whole — the one a short write tore is taken
// away, never glued to the next — the lapse is told as it begins and as it
// ends, and when space comes back the log says, where they are missing,
// how many were lost and from when until when.
func TestAuditFullDisk(t *testing.T) {
	dir := smallfs.Mount(t, 256<<10)
	path := filepath.Join(dir, "audit.jsonl")
	a, err := OpenAudit(path, tick())
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var w watched
	rec := func(session string, i int) error {
		return a.RecordWatched(Entry{Session: session, Target: target.ID(fmt.Sprintf("win:%d", i)), Verb: "key", By: "keys", OK: true}, w.watch)
	}
	for i := range 3 {
		if err := rec("before", i); err != nil {
			t.Fatal(err)
		}
	}
	free := smallfs.Fill(t, dir)

	// The log's last page has room for some records; then one is cut
	// short, and every later one finds no room at all.
	const full = 60
	var firstLost, lost int
	for i := range full {
		err := rec("full", i)
		if err == nil {
			if lost > 0 {
				t.Fatalf("record %d written after %d were lost on a full disk", i, lost)
			}
			continue
		}
		if !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("record %d: %v, want no space left on device", i, err)
		}
		if lost == 0 {
			firstLost = i
		}
		lost++
	}
	if lost == 0 {
		t.Fatal("no record was lost on a full disk")
	}
	if len(w.told) != 1 || !w.told[0].Until.IsZero() || w.told[0].Lost != 1 || w.told[0].Why() != "no space left on device" {
		t.Fatalf("as the lapse began, told %+v; want one lapse begun, 1 lost, no space left on device", w.told)
	}
	since := w.told[0].Since
	if l, ok := a.Lapse(); !ok || l.Lost != lost || !l.Since.Equal(since) || l.Why() != "no space left on device" {
		t.Fatalf("Lapse() = %+v %v, want %d lost since %v", l, ok, lost, since)
	}
	// While the disk is full, the file holds whole lines only: the torn
	// bytes of the cut record were taken away.
	lines, parsed := readLines(t, path)
	if len(lines) != 3+firstLost {
		t.Fatalf("on the full disk the log has %d lines, want %d (3 before, %d that fit)", len(lines), 3+firstLost, firstLost)
	}
	for i, m := range parsed {
		if m == nil {
			t.Fatalf("line %d is not whole JSON: %q", i+1, lines[i])
		}
	}

	free()
	const after = 5
	for i := range after {
		if err := rec("after", i); err != nil {
			t.Fatalf("after space came back: %v", err)
		}
	}
	if len(w.told) != 2 || w.told[1].Until.IsZero() || w.told[1].Lost != lost || !w.told[1].Since.Equal(since) {
		t.Fatalf("as writing resumed, told %+v; want the lapse ended, %d lost since %v", w.told, lost, since)
	}
	if _, ok := a.Lapse(); ok {
		t.Fatal("Lapse() still reports a lapse after writing resumed")
	}
	until := w.told[1].Until

	// The oracle is the file read back.
	lines, parsed = readLines(t, path)
	if want := 3 + firstLost + 1 + after; len(lines) != want {
		t.Fatalf("the log has %d lines, want %d:\n%s", len(lines), want, bytes.Join(toBytes(lines), []byte("\n")))
	}
	for i, m := range parsed {
		if m == nil {
			t.Fatalf("line %d is not whole JSON: %q", i+1, lines[i])
		}
	}
	for i, m := range parsed {
		want := "before"
		switch {
		case i >= 3+firstLost+1:
			want = "after"
		case i == 3+firstLost:
			want = LostSession
		case i >= 3:
			want = "full"
		}
		if m["session"] != want {
			t.Fatalf("line %d is %q's, want %q's: %s", i+1, m["session"], want, lines[i])
		}
	}
	marker := parsed[3+firstLost]
	if marker["verb"] != "audit.lost" || marker["lost"] != float64(lost) ||
		marker["since"] != since.Format(time.RFC3339Nano) || marker["until"] != until.Format(time.RFC3339Nano) ||
		marker["error"] != "no space left on device" {
		t.Fatalf("the gap's record is %s; want audit.lost, lost %d, since %v, until %v, no space left on device", lines[3+firstLost], lost, since, until)
	}
	if !until.After(since) {
		t.Fatalf("the gap runs from %v until %v", since, until)
	}
}

// TestAuditTornLineOwnLine (issue 35): when the torn bytes of a cut record
// cannot be taken away (the log is append-only, chattr +a, so it cannot be
// truncated), they stay on a line of their own: the next record, the gap's,
// begins a new line and parses whole.
func TestAuditTornLineOwnLine(t *testing.T) {
	dir := smallfs.Mount(t, 256<<10)
	path := filepath.Join(dir, "audit.jsonl")
	a, err := OpenAudit(path, tick())
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	rec := func(session string, i int) error {
		return a.Record(Entry{Session: session, Target: target.ID(fmt.Sprintf("win:%d", i)), Verb: "key", By: "keys", OK: true})
	}
	if err := rec("before", 0); err != nil {
		t.Fatal(err)
	}
	appendOnly(t, path)
	free := smallfs.Fill(t, dir)
	lost, written := 0, 0
	for i := range 60 {
		if rec("full", i) != nil {
			lost++
		} else if lost == 0 {
			written++
		}
	}
	if lost == 0 {
		t.Fatal("no record was lost on a full disk")
	}
	free()
	if err := rec("after", 0); err != nil {
		t.Fatal(err)
	}
	lines, parsed := readLines(t, path)
	if want := 1 + written + 1 + 1 + 1; len(lines) != want {
		t.Fatalf("the log has %d lines, want %d (1 before, %d that fit, the torn one, the gap's, 1 after):\n%s", len(lines), want, written, bytes.Join(toBytes(lines), []byte("\n")))
	}
	torn := 1 + written
	for i, m := range parsed {
		if i == torn {
			if m != nil || !bytes.HasPrefix([]byte(lines[i]), []byte(`{"time":`)) {
				t.Fatalf("line %d should be the torn record, alone: %q", i+1, lines[i])
			}
			continue
		}
		if m == nil {
			t.Fatalf("line %d is not whole JSON: %q", i+1, lines[i])
		}
	}
	if m := parsed[torn+1]; m["verb"] != "audit.lost" || m["lost"] != float64(lost) {
		t.Fatalf("after the torn line, %s; want the gap's record, %d lost", lines[torn+1], lost)
	}
	if parsed[torn+2]["session"] != "after" {
		t.Fatalf("last line %s", lines[torn+2])
	}
}

// appendOnly sets the append-only attribute on path (chattr +a): it can be
// appended to, never truncated. Cleared when the test ends.
func appendOnly(t *testing.T, path string) {
	t.Helper()
	set := func(on bool) error {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		flags, err := unix.IoctlGetUint32(int(f.Fd()), unix.FS_IOC_GETFLAGS)
		if err != nil {
			return err
		}
		if on {
			flags |= fsAppendFL
		} else {
			flags &^= fsAppendFL
		}
		v := int(flags)
		return unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, v)
	}
	if err := set(true); err != nil {
		t.Skipf("chattr +a on tmpfs: %v", err)
	}
	t.Cleanup(func() { set(false) })
	if err := os.Truncate(path, 0); err == nil {
		t.Fatal("an append-only file was truncated")
	}
}

func toBytes(ss []string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

// fsAppendFL is FS_APPEND_FL of linux/fs.h: the append-only attribute.
const fsAppendFL = 0x20
