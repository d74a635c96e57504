package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/target"
)

// Nothing is lost without a word. What the daemon loses or cannot restore
// — a state file it had to set aside, a window whose display died, a tab
// that went with a killed daemon's browser — is owed, as a notice, to
// whoever it concerns, and told on their next answer:
//
//   - a notice for one session is told once, on that session's next
//     answer (of the CLI it concerns, when it is about a target: a tab's on
//     vibespace-browser's words, a window's on vibespace-window's), and
//     kept in state.json until then, so a restart does not drop it;
//   - a notice for everyone (Session "") is told once to each session
//     that asks while this daemon runs, and status lists it.

// noticesKey is where state.json keeps the notices not told yet.
const noticesKey = "notices"

// notice is one thing owed in words.
type notice struct {
	Session string          `json:"session,omitempty"` // "" everyone
	Target  target.ID       `json:"target,omitempty"`  // what it is about, if one target
	Text    string          `json:"text"`
	At      time.Time       `json:"at"`
	told    map[string]bool // for everyone's: the sessions told
}

// notices are the notices owed.
type notices struct {
	mu   sync.Mutex
	list []*notice
}

// owe adds a notice and persists it (a session's is kept until told).
func (d *Daemon) owe(n notice) {
	if n.At.IsZero() {
		n.At = d.cfg.Now().UTC()
	}
	d.notes.mu.Lock()
	d.notes.list = append(d.notes.list, &n)
	d.notes.mu.Unlock()
	d.cfg.Logger.Warn("told on the next answer: "+n.Text, "session", n.Session, "target", n.Target)
	if n.Session != "" {
		d.persist()
	}
}

// tell answers the notices owed to req's session on this answer, marking
// them told: a session's own are dropped (and the drop persisted), an
// everyone's remembers the session.
func (d *Daemon) tell(req Request) string {
	browser := strings.HasPrefix(req.Verb, "browser.")
	var told []string
	dropped := false
	d.notes.mu.Lock()
	keep := d.notes.list[:0]
	for _, n := range d.notes.list {
		switch {
		case n.Session == "":
			if !n.told[req.Session] {
				if n.told == nil {
					n.told = map[string]bool{}
				}
				n.told[req.Session] = true
				told = append(told, n.Text)
			}
			keep = append(keep, n)
		case n.Session == req.Session && (n.Target == "" || (n.Target.Kind() == target.KindTab) == browser):
			told = append(told, n.Text)
			dropped = true
		default:
			keep = append(keep, n)
		}
	}
	clear(d.notes.list[len(keep):])
	d.notes.list = keep
	d.notes.mu.Unlock()
	if dropped {
		d.persist()
	}
	return strings.Join(told, "; ")
}

// standing are the everyone's notices, for status.
func (d *Daemon) standing() []string {
	d.notes.mu.Lock()
	defer d.notes.mu.Unlock()
	var out []string
	for _, n := range d.notes.list {
		if n.Session == "" {
			out = append(out, n.At.Format(time.RFC3339)+": "+n.Text)
		}
	}
	return out
}

// noticesRecord is what state.json keeps of the notices: the sessions'
// own not told yet (everyone's are this daemon's to tell).
func (d *Daemon) noticesRecord() json.RawMessage {
	d.notes.mu.Lock()
	var keep []notice
	for _, n := range d.notes.list {
		if n.Session != "" {
			keep = append(keep, *n)
		}
	}
	d.notes.mu.Unlock()
	if len(keep) == 0 {
		return nil
	}
	b, _ := json.Marshal(keep)
	return b
}

// restoreNotices takes back the notices an earlier daemon had not told.
func (d *Daemon) restoreNotices(raw json.RawMessage) {
	if len(raw) == 0 {
		return
	}
	var ns []notice
	if err := json.Unmarshal(raw, &ns); err != nil {
		d.owe(notice{Text: "the notices an earlier daemon owed could not be read back (" + err.Error() + "); some news of lost windows or tabs may not reach you"})
		return
	}
	d.notes.mu.Lock()
	defer d.notes.mu.Unlock()
	for _, n := range ns {
		if n.Session != "" && n.Text != "" && !slices.ContainsFunc(d.notes.list, func(m *notice) bool { return m.Session == n.Session && m.Target == n.Target && m.Text == n.Text }) {
			d.notes.list = append(d.notes.list, &n)
		}
	}
}

// joinNotes joins notes, skipping empty ones.
func joinNotes(ns ...string) string {
	return strings.Join(slices.DeleteFunc(ns, func(s string) bool { return s == "" }), "; ")
}

// faults is what status lists under faults: everyone's notices, then the
// conditions that hold now (the files not written, the audit not written
// and what it lost so far, budgets that could not be read).
func (d *Daemon) faults() []string {
	l, lapsed := d.audit.Lapse()
	out := auditFaults(append(d.standing(), d.writeFaults()...), l, lapsed)
	if f := d.budgetFault(); f != "" {
		out = append(out, f)
	}
	return out
}

// conditions are the files the daemon cannot write now, by name: since
// when and why. status lists each while it holds; its start and its end
// are each told once to every session (a notice).
type conditions struct {
	mu sync.Mutex
	m  map[string]condition
}

type condition struct {
	since time.Time
	err   string
}

// wrote records the outcome of a write of the file name ("state.json",
// "budgets.json", …): an error starts a condition (told once), nil ends
// one (told once, with how long it held).
func (d *Daemon) wrote(name string, err error) {
	now := d.cfg.Now().UTC()
	d.conds.mu.Lock()
	c, held := d.conds.m[name]
	switch {
	case err != nil && !held:
		if d.conds.m == nil {
			d.conds.m = map[string]condition{}
		}
		d.conds.m[name] = condition{since: now, err: plainErr(err)}
	case err == nil && held:
		delete(d.conds.m, name)
	}
	d.conds.mu.Unlock()
	switch {
	case err != nil && !held:
		d.owe(notice{At: now, Text: name + " could not be written (" + plainErr(err) + "): what it keeps will not survive a restart until it can be written again"})
	case err == nil && held:
		d.owe(notice{At: now, Text: name + " is written again; it was not written from " + c.since.Format(time.RFC3339) + " to " + now.Format(time.RFC3339) + " (" + c.err + ")"})
	}
}

// writeFaults are status's lines for the files not written now.
func (d *Daemon) writeFaults() []string {
	d.conds.mu.Lock()
	defer d.conds.mu.Unlock()
	var out []string
	for name, c := range d.conds.m {
		out = append(out, name+" not written since "+c.since.Format(time.RFC3339)+" ("+c.err+")")
	}
	slices.Sort(out)
	return out
}

// plainErr is an error's last words (the cause), without the paths and
// prefixes wrapped around it: "no space left on device".
func plainErr(err error) string {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err.Error()
		}
		err = u
	}
}

// sweepOrphans stops the displays an earlier daemon started that this one
// has no records of (its state was lost): their windows cannot be
// addressed again, so nothing of them may run on unseen. Each stopped is
// said to everyone.
func (d *Daemon) sweepOrphans(ctx context.Context) {
	for _, p := range d.cfg.Displays {
		s, ok := p.(kind.Sweeper)
		if !ok {
			continue
		}
		stopped, err := s.Sweep(ctx)
		if len(stopped) > 0 {
			d.owe(notice{Text: "the earlier daemon's displays could not be restored and were stopped, with the applications on them: " + strings.Join(stopped, ", ")})
		}
		if err != nil {
			d.cfg.Logger.Warn("stopping the displays of the lost state", "display", p.Name(), "err", err)
		}
	}
}
