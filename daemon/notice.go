package daemon

import (
	"context"
	"strings"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/notice"
)

// Nothing is lost without a word: what the daemon loses or cannot restore
// is owed, as a notice, to whoever it concerns and told on their next
// answer (package daemon/notice keeps them); the daemon persists a
// session's until told, logs each, and lists everyone's in status.

// noticesKey is where state.json keeps the notices not told yet.
const noticesKey = "notices"

// owe adds a notice, logs it, and persists it (a session's is kept until
// told).
func (d *Daemon) owe(n notice.Notice) {
	if n.At.IsZero() {
		n.At = d.cfg.Now().UTC()
	}
	d.notes.Add(n)
	d.cfg.Logger.Warn("told on the next answer: "+n.Text, "session", n.Session, "target", n.Target)
	if n.Session != "" {
		d.persist()
	}
}

// tell answers the notices owed to req's session on this answer, once.
func (d *Daemon) tell(req Request) string {
	text, dropped := d.notes.Tell(req.Session, strings.HasPrefix(req.Verb, "browser."))
	if dropped {
		d.persist()
	}
	return text
}

// restoreNotices takes back the notices an earlier daemon had not told.
func (d *Daemon) restoreNotices(st []byte) {
	if err := d.notes.Restore(st); err != nil {
		d.owe(notice.Notice{Text: "the notices an earlier daemon owed could not be read back (" + err.Error() + "); some news of lost windows or tabs may not reach you"})
	}
}

// faults is what status lists under faults: everyone's notices, then the
// conditions that hold now (the files not written, the audit not written
// and what it lost so far, what each registered stage lists: budgets that
// could not be read).
func (d *Daemon) faults() []string {
	l, lapsed := d.audit.Lapse()
	out := auditFaults(append(d.notes.Standing(), d.notes.WriteFaults()...), l, lapsed)
	return append(out, d.stages.Faults()...)
}

// wrote records the outcome of a write of the file name ("state.json",
// "budgets.json", …): its start and its end are told once to everyone.
func (d *Daemon) wrote(name string, err error) {
	now := d.cfg.Now().UTC()
	if say := d.notes.Wrote(name, err, now); say != "" {
		d.owe(notice.Notice{At: now, Text: say})
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
			d.owe(notice.Notice{Text: "the earlier daemon's displays could not be restored and were stopped, with the applications on them: " + strings.Join(stopped, ", ")})
		}
		if err != nil {
			d.cfg.Logger.Warn("stopping the displays of the lost state", "display", p.Name(), "err", err)
		}
	}
}
