package lease

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
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
}

// Audit is the append-only JSONL audit log. Each Record is one write(2) of
// one line to a file opened O_APPEND, so lines from concurrent writers never
// interleave. Under a Rotation the log is bounded: a line that would take
// it past the bound begins a new file and the old ones are kept as
// audit.jsonl.1, .2, …; a line is never split across two files. Safe for
// concurrent use.
type Audit struct {
	f   *RotatingFile
	now func() time.Time
}

// OpenAudit opens (creating, mode 0600) the audit log at path, unbounded.
// now is the clock for entries without a time; nil means time.Now.
func OpenAudit(path string, now func() time.Time) (*Audit, error) {
	return OpenAuditRotating(path, now, Rotation{})
}

// OpenAuditRotating is OpenAudit with the log bounded by r.
func OpenAuditRotating(path string, now func() time.Time, r Rotation) (*Audit, error) {
	f, err := OpenRotating(path, r)
	if err != nil {
		return nil, fmt.Errorf("lease: audit: %w", err)
	}
	if now == nil {
		now = time.Now
	}
	return &Audit{f: f, now: now}, nil
}

// Record appends one line.
func (a *Audit) Record(e Entry) error {
	if e.Time.IsZero() {
		e.Time = a.now()
	}
	e.Time = e.Time.UTC()
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("lease: encode audit entry: %w", err)
	}
	b = append(b, '\n')
	if _, err := a.f.Write(b); err != nil {
		if errors.Is(err, os.ErrClosed) {
			return os.ErrClosed
		}
		return fmt.Errorf("lease: write audit: %w", err)
	}
	return nil
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
