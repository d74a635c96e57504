// Package verbaudit is the stage that writes the audit row of every verb
// the daemon answers, whether it ran, was refused or panicked (code
// internal): who asked (the session, and the other session an operator's
// --for named), the verb, the road it took, whether it ran and the code of
// its refusal, what the verb added (user, force, replaced, with, mode,
// setting), the target it ended on and whether that is a window of the
// user's own desktop. It writes through stage.Env.Record; the audit log
// itself, its lapses and the core's own rows (an idle handback, a
// person's input) stay the core's. It is named for the row it writes, not
// "audit", which is the log (package lease) it writes to.
package verbaudit

import (
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/lease"
)

// Stage is the verb audit stage.
type Stage struct {
	record func(lease.Entry)
}

// New makes the stage (stage.Registration.New).
func New(env stage.Env) (stage.Stage, error) {
	return &Stage{record: env.Record}, nil
}

// Name names the stage.
func (s *Stage) Name() string { return "audit" }

// Finish writes the verb's row.
func (s *Stage) Finish(c *stage.Call, a *stage.Answer) {
	s.record(row(c, a))
}

// row is the audit row of the verb c answered with a.
func row(c *stage.Call, a *stage.Answer) lease.Entry {
	ent := lease.Entry{
		Session: c.Req.Session, For: c.Req.ForOther(), Verb: c.Req.Verb, By: c.Road, OK: a.Err == nil, Code: a.Resp.Code,
		User: c.Fact.User, Force: c.Fact.Force, Replaced: c.Fact.Replaced, With: c.Fact.With, Mode: c.Fact.Mode, Setting: c.Fact.Setting,
		Target: c.ID(),
	}
	if c.Target != nil {
		ent.Desktop = a.Resp.Target != nil && a.Resp.Target.Desktop
	}
	return ent
}
