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
	"time"

	"github.com/vibespace/vibespace/target"
)

// Entry is one audit line: who did which verb on which target, by which
// road, and whether it worked. It has no field for what was typed, on
// purpose: the text an agent types never reaches the audit log.
type Entry struct {
	Time    time.Time   `json:"time"`
	Session string      `json:"session"`
	For     string      `json:"for,omitempty"` // the session whose state the verb changed, when not Session's own
	Target  target.ID   `json:"target,omitempty"`
	Verb    string      `json:"verb"`
	By      target.Road `json:"by,omitempty"` // tree | point | keys | pixels
	OK      bool        `json:"ok"`
	Code    target.Code `json:"code,omitempty"`
	// The operator's words (takeover, handback) and share: the user the
	// verb was asked as (--as), whether it was forced, the user a forced
	// takeover replaced, and whom share exposed the target to.
	User     string `json:"user,omitempty"`
	Force    bool   `json:"force,omitempty"`
	Replaced string `json:"replaced,omitempty"`
	With     string `json:"with,omitempty"`
	// Mode is the mode the mode verb set (auto, tree, pixels).
	Mode target.Mode `json:"mode,omitempty"`
	// Setting is what the operator's desktop verb set ("on: x11 :0",
	// "off", "pixels on"), or how the person's own input paused an agent
	// ("direct: a key on …").
	Setting string `json:"setting,omitempty"`
	// Desktop marks a verb on a window of the user's own desktop.
	Desktop bool `json:"desktop,omitempty"`
	// Lost, Since, Until and Error are the log's own record of a gap in it
	// (verb audit.lost, written when writing resumes): Lost records could
	// not be written from Since (the first one's time) until Until, because
	// of Error ("no space left on device").
	Lost  int       `json:"lost,omitempty"`
	Since time.Time `json:"since,omitzero"`
	Until time.Time `json:"until,omitzero"`
	Error string    `json:"error,omitempty"`
}

// LostVerb is the verb of the record of a gap in the log, and LostSession
// its session.
const (
	LostVerb    = "audit.lost"
	LostSession = "daemon (audit)"
)

// Lapse is a time the log could not be written: from Since (the first lost
// record's time) until Until (the time of the first record written again;
// zero while it lasts), Lost records were lost, the last for Err.
type Lapse struct {
	Since, Until time.Time
	Lost         int
	Err          error
}

// Why is the cause of the lapse in a few words: the system's, such as "no
// space left on device", when there is one.
func (l Lapse) Why() string {
	if l.Err == nil {
		return "unknown"
	}
	if errno, ok := errors.AsType[syscall.Errno](l.Err); ok {
		return errno.Error()
	}
	return l.Err.Error()
}

// Audit is the append-only JSONL audit log. Each Record is one write(2) of
// one line to a file opened O_APPEND, so lines from concurrent writers never
// interleave. Under a Rotation the log is bounded: a line that would take
// it past the bound begins a new file and the old ones are kept as
// audit.jsonl.1, .2, …; a line is never split across two files. Safe for
// concurrent use.
//
// A record that cannot be written (the disk is full) is lost, never half
// written: the torn bytes of a short write are taken away (RotatingFile).
// The log counts what it loses; when writing resumes, it first writes a
// record of the gap, {"verb":"audit.lost","lost":N,"since":…,"until":…},
// where the lost records would have been.
type Audit struct {
	mu       sync.Mutex // orders the records, and a gap's record before the next
	f        *RotatingFile
	now      func() time.Time
	lapse    *Lapse // while writing fails
	lastLine string // what was wrong with the last line found (checkLastLine)
}

// OpenAudit opens (creating, mode 0600) the audit log at path, unbounded.
// now is the clock for entries without a time; nil means time.Now.
func OpenAudit(path string, now func() time.Time) (*Audit, error) {
	return OpenAuditRotating(path, now, Rotation{})
}

// OpenAuditRotating is OpenAudit with the log bounded by r.
//
// An audit found damaged does not stop it: see OpenRotating (a file
// another user could have written set aside, a torn last line made a
// line of its own) and
// Found. An audit that cannot be opened answers the error and, with it,
// an Audit all the same, in a lapse from now (Lapse: the caller may serve
// on, saying the audit is not being written): its Records are counted
// lost, each trying to open the file again, until one can be written,
// after the record of the gap.
func OpenAuditRotating(path string, now func() time.Time, r Rotation) (*Audit, error) {
	if now == nil {
		now = time.Now
	}
	f, err := OpenRotating(path, r)
	a := &Audit{f: f, now: now}
	if err != nil {
		err = fmt.Errorf("lease: audit: %w", err)
		a.lapse = &Lapse{Since: now().UTC(), Err: err}
		return a, err
	}
	if len(f.Found()) == 0 {
		a.lastLine = checkLastLine(path)
	}
	return a, nil
}

// checkLastLine says, in words, what is wrong with the last line of the
// audit at path ("" when it is an audit row, or there is none): a file
// whose end is garbage was damaged; rows are appended after it all the
// same. Only the end is read (at most 64 KiB): the audit is not read
// back whole.
func checkLastLine(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return ""
	}
	n := min(st.Size(), 64<<10)
	b := make([]byte, n)
	if _, err := f.ReadAt(b, st.Size()-n); err != nil {
		return ""
	}
	b = bytes.TrimSuffix(b, []byte("\n"))
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		b = b[i+1:]
	} else if n < st.Size() {
		return filepath.Base(path) + "'s last line is longer than 64 KiB: not an audit row (the file was damaged); rows are appended after it"
	}
	var e Entry
	if err := json.Unmarshal(b, &e); err != nil || e.Verb == "" {
		return filepath.Base(path) + "'s last line is not an audit row (the file was damaged); rows are appended after it"
	}
	return ""
}

// Found says what opening found wrong with the audit and did about it, in
// words: a file set aside, a torn last line ended, a last line that is
// not an audit row. Empty when it was whole.
func (a *Audit) Found() []string {
	out := a.f.Found()
	if a.lastLine != "" {
		out = append(out, a.lastLine)
	}
	return out
}

// Record appends one line.
func (a *Audit) Record(e Entry) error { return a.RecordWatched(e, nil) }

// RecordWatched is Record, calling watch (when not nil) as a lapse begins
// — this record was the first lost; Until is zero — and as it ends: this
// record is written again, after the gap's record; Until is set. watch is
// called with the log's lock held, so in order; it must not use the log.
func (a *Audit) RecordWatched(e Entry, watch func(Lapse)) error {
	if e.Time.IsZero() {
		e.Time = a.now()
	}
	e.Time = e.Time.UTC()
	b, err := line(e)
	if err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.lapse != nil {
		l := *a.lapse
		l.Until = e.Time // writing resumes with e
		gap, err := line(Entry{Time: l.Until, Session: LostSession, Verb: LostVerb, Lost: l.Lost, Since: l.Since, Until: l.Until, Error: l.Why()})
		if err == nil {
			_, err = a.f.Write(gap)
		}
		if err != nil {
			return a.lost(e, err, watch)
		}
		a.lapse = nil
		if watch != nil {
			watch(l)
		}
	}
	if _, err := a.f.Write(b); err != nil {
		return a.lost(e, err, watch)
	}
	return nil
}

// lost counts e lost for err. Caller holds mu.
func (a *Audit) lost(e Entry, err error, watch func(Lapse)) error {
	if errors.Is(err, os.ErrClosed) {
		return os.ErrClosed
	}
	began := a.lapse == nil
	if began {
		a.lapse = &Lapse{Since: e.Time}
	}
	a.lapse.Lost++
	a.lapse.Err = err
	if began && watch != nil {
		watch(*a.lapse)
	}
	return fmt.Errorf("lease: write audit: %w", err)
}

// line is e as one line of JSON.
func line(e Entry) ([]byte, error) {
	b, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("lease: encode audit entry: %w", err)
	}
	return append(b, '\n'), nil
}

// Lapse is the lapse there is now, if writing fails.
func (a *Audit) Lapse() (Lapse, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.lapse == nil {
		return Lapse{}, false
	}
	return *a.lapse, true
}

// Close closes the log. Later Records fail with os.ErrClosed.
func (a *Audit) Close() error { return a.f.Close() }

// Path is the log's file.
func (a *Audit) Path() string { return a.f.Path() }

// Kept lists the log's files there are now: the current one, then the old
// ones from the newest.
func (a *Audit) Kept() []string { return a.f.Kept() }

// HighestHandles reads the audit log's files (the current one and the old
// ones kept) and answers the highest window and tab numbers any line
// names: what a daemon whose state was lost numbers on from, so a handle
// an agent still holds is never minted again for another target. Lines
// that do not decode are passed over.
func (a *Audit) HighestHandles() (win, tab int) {
	for _, p := range a.Kept() {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		for sc.Scan() {
			var e struct {
				Target target.ID `json:"target"`
			}
			if json.Unmarshal(sc.Bytes(), &e) != nil {
				continue
			}
			win, tab = max(win, e.Target.Number()), max(tab, e.Target.TabNumber())
		}
		f.Close()
	}
	return win, tab
}
