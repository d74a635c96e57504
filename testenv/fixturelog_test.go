package testenv

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// appendLog appends raw text to the log file at path, as the fixture app does.
func appendLog(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

func tempLog(t *testing.T) (*FixtureLog, string) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	return OpenFixtureLog(path), path
}

func TestFixtureLogMissingFileIsEmpty(t *testing.T) {
	l, _ := tempLog(t)
	events, err := l.Events()
	if err != nil || len(events) != 0 {
		t.Fatalf("Events() = %v, %v; want none, nil", events, err)
	}
	if n := l.Len(); n != 0 {
		t.Fatalf("Len() = %d, want 0", n)
	}
}

func TestFixtureLogIgnoresPartialLastLine(t *testing.T) {
	l, path := tempLog(t)
	appendLog(t, path, `{"seq": 0, "time": 1.5, "type": "ready", "xid": 2097155, "pid": 42}`+"\n"+
		`{"seq": 1, "time": 2.0, "type": "click", "widget": "alpha"}`+"\n"+
		`{"seq": 2, "time": 2.5, "type": "key", "wid`)
	events, err := l.Events()
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 2 {
		t.Fatalf("got %d events %v, want 2 (the partial line left out)", len(events), events)
	}
	if e := events[0]; e.Type != "ready" || e.XID != 2097155 || e.PID != 42 || e.Time != 1.5 {
		t.Errorf("events[0] = %+v", e)
	}
	if e := events[1]; e.Seq != 1 || e.Type != "click" || e.Widget != "alpha" {
		t.Errorf("events[1] = %+v", e)
	}

	appendLog(t, path, `get": "entry", "keysym": "a", "keyval": 97, "unicode": "a", "modifiers": ["control", "shift"]}`+"\n")
	events, err = l.Events()
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 3 || l.Len() != 3 {
		t.Fatalf("got %d events, want 3 once the line is complete", len(events))
	}
	e := events[2]
	if e.Widget != "entry" || e.Keysym != "a" || e.Keyval != 97 || e.Unicode != "a" ||
		strings.Join(e.Modifiers, "+") != "control+shift" {
		t.Errorf("events[2] = %+v", e)
	}
}

func TestFixtureLogNoNewlineYet(t *testing.T) {
	l, path := tempLog(t)
	appendLog(t, path, `{"seq": 0, "time": 1, "type": "ready"}`)
	if n := l.Len(); n != 0 {
		t.Fatalf("Len() = %d, want 0 while the only line is unterminated", n)
	}
}

func TestFixtureLogUnicodeRoundTrip(t *testing.T) {
	l, path := tempLog(t)
	// As Python's json.dumps(..., ensure_ascii=False) writes it: raw UTF-8, the tab escaped.
	appendLog(t, path, `{"seq": 0, "time": 1.0, "type": "text", "widget": "entry", "text": "Hello, wörld! <>&\t€"}`+"\n")
	events, err := l.Events()
	if err != nil {
		t.Fatal(err)
	}
	if want := "Hello, wörld! <>&\t€"; len(events) != 1 || events[0].Text != want {
		t.Fatalf("got %+v, want text %q", events, want)
	}
}

func TestFixtureLogBadLine(t *testing.T) {
	l, path := tempLog(t)
	appendLog(t, path, `{"seq": 0, "time": 1, "type": "ready"}`+"\n"+"not json\n")
	events, err := l.Events()
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("Events() error = %v, want one naming line 2", err)
	}
	if len(events) != 1 || l.Len() != 1 {
		t.Fatalf("got %d events before the bad line, want 1", len(events))
	}
	_, err = l.WaitFrom(t.Context(), 0, func(Event) bool { return false })
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("WaitFrom on a corrupt log = %v, want the parse error at once", err)
	}
}

func TestFixtureLogWaitFromSkipsEarlierEvents(t *testing.T) {
	l, path := tempLog(t)
	appendLog(t, path, `{"seq": 0, "time": 1, "type": "click", "widget": "alpha"}`+"\n"+
		`{"seq": 1, "time": 2, "type": "click", "widget": "beta"}`+"\n"+
		`{"seq": 2, "time": 3, "type": "click", "widget": "alpha"}`+"\n")
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	isAlpha := func(e Event) bool { return e.Widget == "alpha" }
	for _, tc := range []struct{ from, wantSeq int }{{-1, 0}, {0, 0}, {1, 2}, {2, 2}} {
		e, err := l.WaitFrom(ctx, tc.from, isAlpha)
		if err != nil || e.Seq != tc.wantSeq {
			t.Errorf("WaitFrom(from=%d) = %v, %v; want seq %d", tc.from, e, err, tc.wantSeq)
		}
	}
}

func TestFixtureLogWaitFromSeesLaterEvents(t *testing.T) {
	l, path := tempLog(t)
	appendLog(t, path, `{"seq": 0, "time": 1, "type": "ready"}`+"\n")
	from := l.Len()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()

	type result struct {
		e   Event
		err error
	}
	done := make(chan result, 1)
	go func() {
		e, err := l.WaitFrom(ctx, from, func(e Event) bool { return e.Type == "toggled" })
		done <- result{e, err}
	}()
	appendLog(t, path, `{"seq": 1, "time": 2, "type": "click", "widget": "check"}`+"\n"+`{"seq": 2, "time": 2, "type": "tog`)
	appendLog(t, path, `gled", "widget": "check", "active": true}`+"\n")

	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.e.Seq != 2 || !r.e.Active || r.e.Widget != "check" {
		t.Fatalf("WaitFrom = %+v, want seq 2 toggled active", r.e)
	}
}

func TestFixtureLogWaitFromTimeoutSaysWhatArrived(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l, path := tempLog(t)
		var lines strings.Builder
		for i := range 15 {
			lines.WriteString(`{"seq": ` + strconv.Itoa(i) + `, "time": 1, "type": "key", "widget": "entry", "keysym": "k` + strconv.Itoa(i) + `"}` + "\n")
		}
		appendLog(t, path, lines.String())

		ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
		defer cancel()
		_, err := l.WaitFrom(ctx, 12, func(e Event) bool { return e.Type == "click" })
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("WaitFrom error = %v, want one wrapping context.DeadlineExceeded", err)
		}
		msg := err.Error()
		for _, want := range []string{
			"index >= 12", "last 10 of 15 events",
			`[5] #5 key widget="entry" keysym="k5" (before from)`,
			`[14] #14 key widget="entry" keysym="k14"`,
		} {
			if !strings.Contains(msg, want) {
				t.Errorf("error message lacks %q:\n%s", want, msg)
			}
		}
		if strings.Contains(msg, `"k4"`) {
			t.Errorf("error message quotes more than the last 10 events:\n%s", msg)
		}
	})
}

func TestFixtureLogWaitFromTimeoutOnEmptyLog(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l, _ := tempLog(t)
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		_, err := l.WaitFrom(ctx, 0, func(Event) bool { return true })
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "all 0 of 0 events") {
			t.Fatalf("WaitFrom on a missing log = %v", err)
		}
	})
}

func TestEventString(t *testing.T) {
	for _, tc := range []struct {
		e    Event
		want string
	}{
		{Event{Seq: 3, Type: "key", Widget: "entry", Keysym: "a", Keyval: 97, Unicode: "a", Modifiers: []string{"control"}},
			`#3 key widget="entry" keysym="a" unicode="a" modifiers=control`},
		{Event{Seq: 4, Type: "toggled", Widget: "check"}, `#4 toggled widget="check" active=false`},
		{Event{Seq: 5, Type: "button", Widget: "noaction", Button: 3, X: 88, Y: 29.5}, `#5 button widget="noaction" button=3 x=88 y=29.5`},
		{Event{Seq: 6, Type: "text", Widget: "entry", Text: "a\tb"}, `#6 text widget="entry" text="a\tb"`},
	} {
		if got := tc.e.String(); got != tc.want {
			t.Errorf("String() = %s\nwant       %s", got, tc.want)
		}
	}
}
