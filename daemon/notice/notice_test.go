package notice

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"time"
)

// TestTellOnce: everyone's notice is told once to each session and stays
// standing; a session's is told once, to it alone, on the command line
// its target belongs to, and survives a Record/Restore until then.
func TestTellOnce(t *testing.T) {
	var b Book
	at := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	b.Add(Notice{Text: "state.json was damaged", At: at})
	b.Add(Notice{Session: "a", Target: "tab:2", Text: "tab:2 was lost", At: at})
	b.Add(Notice{Session: "a", Target: "win:1", Text: "win:1 was lost", At: at})

	var restored Book
	if err := restored.Restore(b.Record()); err != nil {
		t.Fatal(err)
	}
	for _, bk := range []*Book{&b, &restored} {
		if text, dropped := bk.Tell("a", false); !dropped || !strings.Contains(text, "win:1 was lost") || strings.Contains(text, "tab:2") {
			t.Fatalf("a's window answer: %q %v", text, dropped)
		}
		if text, dropped := bk.Tell("a", true); !dropped || text != "tab:2 was lost" {
			t.Fatalf("a's browser answer: %q %v", text, dropped)
		}
		if text, _ := bk.Tell("a", false); text != "" {
			t.Fatalf("told a twice: %q", text)
		}
	}
	// Everyone's is this daemon's to tell: not recorded, told to b once.
	if text, dropped := b.Tell("b", false); dropped || text != "state.json was damaged" {
		t.Fatalf("b's answer: %q %v", text, dropped)
	}
	if text, _ := restored.Tell("b", false); text != "" {
		t.Fatalf("everyone's notice came back from the record: %q", text)
	}
	if st := b.Standing(); len(st) != 1 || st[0] != "2026-12-05T10:00:00Z: state.json was damaged" {
		t.Fatalf("standing %v", st)
	}
	if b.Record() != nil {
		t.Fatalf("told notices are still recorded: %s", b.Record())
	}
}

// TestWrote: a file's write failing is said once as it begins and once as
// it ends, and is a fault line in between.
func TestWrote(t *testing.T) {
	var b Book
	t0 := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	err := fmt.Errorf("write state.json: %w", &fs.PathError{Op: "write", Path: "/x", Err: errors.New("no space left on device")})
	if say := b.Wrote("state.json", err, t0); !strings.Contains(say, "could not be written (no space left on device)") {
		t.Fatalf("start: %q", say)
	}
	if say := b.Wrote("state.json", err, t0.Add(time.Second)); say != "" {
		t.Fatalf("said again: %q", say)
	}
	if f := b.WriteFaults(); len(f) != 1 || f[0] != "state.json not written since 2026-12-05T10:00:00Z (no space left on device)" {
		t.Fatalf("faults %v", f)
	}
	if say := b.Wrote("state.json", nil, t0.Add(time.Minute)); !strings.Contains(say, "written again; it was not written from 2026-12-05T10:00:00Z to 2026-12-05T10:01:00Z") {
		t.Fatalf("end: %q", say)
	}
	if f := b.WriteFaults(); len(f) != 0 {
		t.Fatalf("faults after the end %v", f)
	}
}
