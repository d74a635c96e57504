// Package stages is the one place where the work that runs around every
// verb is registered, in order (package daemon/stage says what a stage
// is). The program (cmd/vibespace-daemon) gives this list to the daemon;
// a test that serves a real daemon gives it too, so it runs what users
// run.
package stages

import (
	"github.com/vibespace/vibespace/daemon/budget"
	"github.com/vibespace/vibespace/daemon/stage"
)

// All answers the stages in the order they run: each phase (admit,
// enter, finish) asks them in this order.
func All() []stage.Registration {
	return []stage.Registration{
		// budget: a session's steps. An acting verb is refused
		// budget_spent once its session's budget of steps or minutes is
		// spent, and budget_unreadable while budgets.json could not be
		// read back and its operator has not set it again (fails closed);
		// the same action that saw no visible change NoProgressAfter times
		// in a row on one target is refused no_progress. It answers budget
		// and browser.budget, keeps budgets.json across restarts, and says
		// in status while the budgets are lost. First: a verb over its
		// budget, or in a loop, is refused before any later stage admits
		// or enters it.
		{Name: budget.Name, New: budget.New},
	}
}
