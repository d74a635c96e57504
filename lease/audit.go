package lease

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
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
}

// Audit is the append-only JSONL audit log. Each Record is one write(2) of
// one line to a file opened O_APPEND, so lines from concurrent writers (even
// two processes) never interleave. Safe for concurrent use.
type Audit struct {
	mu   sync.Mutex
	f    *os.File
	path string
	now  func() time.Time
}

// OpenAudit opens (creating, mode 0600) the audit log at path. now is the
// clock for entries without a time; nil means time.Now.
func OpenAudit(path string, now func() time.Time) (*Audit, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("lease: audit dir: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lease: open audit: %w", err)
	}
	if now == nil {
		now = time.Now
	}
	return &Audit{f: f, path: path, now: now}, nil
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
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.f == nil {
		return os.ErrClosed
	}
	if _, err := a.f.Write(b); err != nil {
		return fmt.Errorf("lease: write audit: %w", err)
	}
	return nil
}

// Close closes the log. Later Records fail with os.ErrClosed.
func (a *Audit) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.f == nil {
		return nil
	}
	err := a.f.Close()
	a.f = nil
	return err
}

// Path is the log's file.
func (a *Audit) Path() string { return a.path }
