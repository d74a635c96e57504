package testenv

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"
)

// Event is one line of the fixture app's log (testenv/fixture/fixture.py).
// Which fields are set depends on Type:
//
//	ready      XID (the main window), PID
//	click      Widget (a push button: "alpha", "beta", "open-dialog", "slow", "doomed", "dialog-close")
//	removed    Widget "doomed": the button removed itself after its click
//	slow-done  Widget "slow", 3 s after its click, when the main loop runs again
//	toggled    Widget "check", Active
//	key        Widget (focused, "" if none), Keysym (GDK's name: "a", "Return", "U+20AC"),
//	           Keyval, Unicode ("" for control keys), Modifiers (held before this key)
//	text       Widget ("entry", "disabled-entry", "notes"), Text (the whole new text)
//	focus      Widget; for a list row also Text ("Row 4")
//	select     Widget "list", Text ("Row 4")
//	scroll     Widget ("list", or "window"/the nearest named widget elsewhere), Direction,
//	           DX, DY (smooth scrolling only), X, Y (in the receiving GDK window)
//	button     Widget "noaction", Button, X, Y (in the press area)
//	dialog     Widget "dialog", Text "opened" or "closed"
type Event struct {
	Seq       int      `json:"seq"`
	Time      float64  `json:"time"` // Unix seconds
	Type      string   `json:"type"`
	Widget    string   `json:"widget,omitempty"`
	Keysym    string   `json:"keysym,omitempty"`
	Keyval    uint32   `json:"keyval,omitempty"`
	Unicode   string   `json:"unicode,omitempty"`
	Modifiers []string `json:"modifiers,omitempty"` // "shift","lock","control","mod1","super","hyper","meta"
	Text      string   `json:"text,omitempty"`
	Active    bool     `json:"active,omitempty"`
	Button    int      `json:"button,omitempty"`
	X         float64  `json:"x,omitempty"`
	Y         float64  `json:"y,omitempty"`
	DX        float64  `json:"dx,omitempty"`
	DY        float64  `json:"dy,omitempty"`
	Direction string   `json:"direction,omitempty"` // "up","down","left","right","smooth"
	XID       uint32   `json:"xid,omitempty"`
	PID       int      `json:"pid,omitempty"`
}

// String renders the event compactly, with only the fields that are set, for
// test failure messages.
func (e Event) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "#%d %s", e.Seq, e.Type)
	str := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, " %s=%s", k, strconv.Quote(v))
		}
	}
	num := func(k string, v float64) {
		if v != 0 {
			fmt.Fprintf(&b, " %s=%g", k, v)
		}
	}
	str("widget", e.Widget)
	str("keysym", e.Keysym)
	str("unicode", e.Unicode)
	if len(e.Modifiers) > 0 {
		fmt.Fprintf(&b, " modifiers=%s", strings.Join(e.Modifiers, "+"))
	}
	str("text", e.Text)
	str("direction", e.Direction)
	if e.Type == "toggled" {
		fmt.Fprintf(&b, " active=%t", e.Active)
	}
	num("button", float64(e.Button))
	num("x", e.X)
	num("y", e.Y)
	num("dx", e.DX)
	num("dy", e.DY)
	num("xid", float64(e.XID))
	num("pid", float64(e.PID))
	return b.String()
}

// FixtureLog reads the fixture app's JSON-lines log. It keeps no state: every
// call reads the file afresh, so it is safe for concurrent use.
type FixtureLog struct {
	path string
}

// OpenFixtureLog returns a reader for the log at path. The file need not
// exist yet: until it does, the log is empty.
func OpenFixtureLog(path string) *FixtureLog {
	return &FixtureLog{path: path}
}

// Path returns the log file's path.
func (l *FixtureLog) Path() string { return l.path }

// fixtureLogPoll is how often WaitFrom rereads the log.
const fixtureLogPoll = 10 * time.Millisecond

// fixtureLogTail is how many of the last events a WaitFrom failure quotes.
const fixtureLogTail = 10

// Events returns every complete event in the log, in order. An incomplete
// last line (one the app is still writing) is left out; a complete line that
// is not valid JSON is an error.
func (l *FixtureLog) Events() ([]Event, error) {
	data, err := os.ReadFile(l.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("fixture log: %w", err)
	}
	if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
		data = data[:i+1]
	} else {
		data = nil
	}
	var events []Event
	for n := 1; len(data) > 0; n++ {
		line, rest, _ := bytes.Cut(data, []byte{'\n'})
		data = rest
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var e Event
		if err := json.Unmarshal(line, &e); err != nil {
			return events, fmt.Errorf("fixture log %s line %d: %w", l.path, n, err)
		}
		events = append(events, e)
	}
	return events, nil
}

// Len returns the number of complete events in the log so far (those before
// any unreadable line). Pass it to WaitFrom to wait only for what comes next.
func (l *FixtureLog) Len() int {
	events, _ := l.Events()
	return len(events)
}

// WaitFrom returns the first event at index from or later (as counted by Len
// and Events) for which match returns true, rereading the log every 10 ms
// until ctx ends. On ctx's end the error wraps ctx.Err() and quotes the last
// events that did arrive; an unreadable log ends the wait at once.
func (l *FixtureLog) WaitFrom(ctx context.Context, from int, match func(Event) bool) (Event, error) {
	ticker := time.NewTicker(fixtureLogPoll)
	defer ticker.Stop()
	checked := max(from, 0)
	var events []Event
	for {
		var err error
		events, err = l.Events()
		if err != nil {
			return Event{}, err
		}
		for ; checked < len(events); checked++ {
			if match(events[checked]) {
				return events[checked], nil
			}
		}
		select {
		case <-ctx.Done():
			return Event{}, l.waitError(ctx.Err(), from, events)
		case <-ticker.C:
		}
	}
}

// waitError describes a wait that ended with no match, quoting the last
// events seen so that a failing test says what did arrive.
func (l *FixtureLog) waitError(cause error, from int, events []Event) error {
	var b strings.Builder
	start := max(len(events)-fixtureLogTail, 0)
	for i, e := range events[start:] {
		marker := ""
		if start+i < from {
			marker = " (before from)"
		}
		fmt.Fprintf(&b, "\n\t[%d] %s%s", start+i, e, marker)
	}
	what := "last"
	if start == 0 {
		what = "all"
	}
	return fmt.Errorf("fixture log: no event at index >= %d matched: %w; %s %d of %d events in %s:%s",
		from, cause, what, len(events)-start, len(events), l.path, b.String())
}
