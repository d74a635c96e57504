// Package stages is the one place where the work that runs around every
// verb is registered, in order (package daemon/stage says what a stage
// is). The program (cmd/vibespace-daemon) gives this list to the daemon;
// a test that serves a real daemon gives it too, so it runs what users
// run.
package stages

import (
	"github.com/vibespace/vibespace/daemon/batch"
	"github.com/vibespace/vibespace/daemon/browsing"
	"github.com/vibespace/vibespace/daemon/budget"
	"github.com/vibespace/vibespace/daemon/handoff"
	"github.com/vibespace/vibespace/daemon/headers"
	"github.com/vibespace/vibespace/daemon/inflight"
	"github.com/vibespace/vibespace/daemon/keys"
	"github.com/vibespace/vibespace/daemon/marks"
	"github.com/vibespace/vibespace/daemon/pool"
	"github.com/vibespace/vibespace/daemon/reach"
	"github.com/vibespace/vibespace/daemon/secrets"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/daemon/tabs"
	"github.com/vibespace/vibespace/daemon/trace"
	"github.com/vibespace/vibespace/daemon/verbaudit"
	"github.com/vibespace/vibespace/daemon/verifying"
	"github.com/vibespace/vibespace/daemon/watching"
)

// All answers the stages in the order they run, for a daemon with no
// desktop pool: each phase (admit, enter, finish) asks them in this order.
// Each call makes a fresh list (one daemon's).
func All() []stage.Registration { return Of(nil, nil) }

// WithPool is All for a daemon whose desktop pool is p (nil: none): the
// program adds p's desktops to its displays (pool.Pool.Desks).
func WithPool(p *pool.Pool) []stage.Registration { return Of(p, nil) }

// Of is All for a daemon whose desktop pool is p (nil: none) and whose
// hand-offs are on desk h, the one its live view shows (nil: a desk of the
// stage's own, which no page shows).
func Of(p *pool.Pool, h *handoff.Desk) []stage.Registration {
	// The trace is made after the in-flight record, and the in-flight
	// record hands it the verbs an earlier daemon was killed in as it
	// starts, once both are made.
	var tr *trace.Stage
	// The tabs name profiles with the profile words: they are made after
	// them and handed them.
	var br *browsing.Stage
	return []stage.Registration{
		// batch: batch and browser.batch, several steps in one call, each
		// run through the verb path as if sent alone (the core's Handle,
		// lent as stage.Env.Hands), stopping at the first refused or whose
		// --expect did not hold. It marks each step with the batch's id as
		// it admits it (the trace keeps it): first, so that a step an
		// earlier stage refuses is marked too.
		{Name: batch.Name, New: batch.New},
		// secrets: type and fill --secret NAME (a window's or a tab's)
		// take the secret's value from the key store here, before any
		// other stage admits the verb (unknown: no_secret), and the
		// answer is cleaned of it here, before any other stage finishes
		// it (the audit row, the trace): it says the secret's name and
		// length, never its value. Before every other stage that admits
		// or finishes, for both.
		{Name: secrets.Name, New: secrets.New},
		// budget: a session's steps. An acting verb is refused
		// budget_spent once its session's budget of steps or minutes is
		// spent, and budget_unreadable while budgets.json could not be
		// read back and its operator has not set it again (fails closed);
		// the same action that saw no visible change NoProgressAfter times
		// in a row on one target is refused no_progress. It answers budget
		// and browser.budget, keeps budgets.json across restarts, and says
		// in status while the budgets are lost. A verb over its budget,
		// or in a loop, is refused before any later stage admits or
		// enters it.
		{Name: budget.Name, New: budget.New},
		// pool: the desktop pool's words, borrow and return (a desktop
		// given back is wiped before anyone else borrows it); an open on a
		// desktop of the pool (open --on deskN) is admitted to its
		// borrower only (held); every verb of a borrower starts its idle
		// clock over, and a borrower refused budget_spent by the stage
		// before gives its desktop back, wiped, told on that answer.
		{Name: pool.Name, New: pool.Registration(p).New},
		// handoff: handoff and browser.handoff — the target shows "needs
		// you" with the agent's reason in the live view until a person
		// takes it over and hands it back (the answer says so, after how
		// long, and the diff of the target since), declines
		// (handoff_declined) or the bound passes (handoff_timeout). It
		// watches every takeover and handback finish; its audit rows
		// (handoff.ask, .taken, .back, .declined, .timeout, .cancelled)
		// never hold what the person typed.
		{Name: handoff.Name, New: handoff.Registration(h).New},
		// reach: the reach ladder (browser.reach): fetch → headless tree →
		// pixels → a borrowed desktop (the browser's headed program there,
		// opened through open --on deskN) → a person, climbing one rung on a
		// rung's own signal, each rung's verbs sent through the verb path
		// (the core's Handle). It also tells an acting verb that saw no
		// visible change again, or was refused no_tree, the next rung:
		// after budget (its no_progress) and before the audit and trace,
		// which keep the hint. Rung 5 asks the hand-off stage above
		// through the verb path (handoff, browser.handoff).
		reach.Registration(reach.Config{HandOff: &reach.ByVerb{Verb: "handoff"}}),
		// inflight: a verb that acts (or may) on a target is recorded
		// under inflight/ before it runs and the record removed once it
		// answered; the daemon that starts after a kill audits each
		// record left as outcome_unknown, puts it in the trace, and tells
		// it, once, on the next answer on its target (or to its session
		// when the target is gone).
		{Name: "inflight", New: inflight.New(func(f inflight.Flight) {
			if tr != nil {
				tr.Cut(f.Session, f.Target, f.Verb, f.Started)
			}
		})},
		// marks: every marking verb (click, scroll, type, key, fill) that
		// ran on a target leaves where it acted, never text, as that
		// target's last mark for the live view's agent cursor.
		{Name: "marks", New: marks.New},
		// audit: every verb answered, run, refused or panicked, writes
		// one row to the audit log, after the stages before it finished
		// its answer.
		{Name: "audit", New: verbaudit.New},
		// trace: every verb a session runs on a target is a step of its
		// trace (never the text typed; a picture after an acting step
		// only while the operator keeps pictures on); it answers trace and
		// browser.trace, reads an earlier daemon's trace back as the
		// daemon starts (what could not be is told), and gives the live
		// view a target's recent steps.
		{Name: "trace", New: func(env stage.Env) (stage.Stage, error) {
			s, err := trace.New(env)
			tr = s
			return s, err
		}},
		// verifying: every acting verb (click, type, fill, select, key,
		// scroll) is watched — its target looked at before it acts and
		// again until something changed or VerifyWait passed — and its
		// answer says the effect seen (confirmed, no visible change,
		// unverifiable…). It runs in no phase: the verb asks it (a
		// stage.Watcher) around its act, so the effect is on the answer
		// before any stage finishes it (the budget's no_progress, the
		// audit, the trace).
		{Name: verifying.Name, New: verifying.New},
		// browsing: the browser's profile words. It keeps the profile
		// registry and chooses, for the tab words (tabs), the browser
		// context a session's command acts in (its attachment, or its own ephemeral
		// context) and its provider's gate; it answers the profile words
		// that reach no tab (browser.profiles, use, attachments, detach,
		// pin, new-child, status). It runs in no phase.
		{Name: browsing.Name, New: func(env stage.Env) (stage.Stage, error) {
			s, err := browsing.New(env)
			br, _ = s.(*browsing.Stage)
			return s, err
		}},
		// keys: the provider keys' words (key.set, key.clear, key.list)
		// over the daemon's key store (stage.Env.Keys); the answer and
		// the audit name the provider, never the key. It runs in no
		// phase.
		{Name: keys.Name, New: keys.New},
		// tabs: the words on a session's tabs — open, tab (list, new,
		// close, select), get, eval, back, forward, reload, wait — and its
		// desktop apps (new --backend desktop-app, close), which it
		// answers; it reaches the session's current tab for every verb on
		// a tab (the core asks it), on the target table's primitives the
		// core lends it (stage.Env.Hands). It tells each session the tabs
		// an earlier daemon
		// lost when it was killed. It names profiles with browsing's
		// words. It runs in no phase.
		{Name: tabs.Name, New: func(env stage.Env) (stage.Stage, error) { return tabs.New(env, br) }},
		// watching: the watch verb — the live view's address (the
		// overview, or one target's pane; the live view starts on first
		// use) and, with --xpra, how a person attaches xpra's own client
		// to a window's display; the core reaches the target and lends it
		// the live view. It runs in no phase.
		{Name: watching.Name, New: watching.New},
		// headers: a text answer whose header line (target, title,
		// lease, mode, profile) is the one the session's previous answer
		// said is marked, and the command lines leave the line out. Last:
		// it finishes on the answer every stage before it finished.
		{Name: headers.Name, New: headers.New},
	}
}
