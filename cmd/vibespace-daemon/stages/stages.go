// Package stages is the one place where the work that runs around every
// verb is registered, in order (package daemon/stage says what a stage
// is). The program (cmd/vibespace-daemon) gives this list to the daemon;
// a test that serves a real daemon gives it too, so it runs what users
// run.
package stages

import (
	"github.com/vibespace/vibespace/daemon/marks"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/daemon/verbaudit"
)

// All answers the stages in the order they run: each phase (admit,
// enter, finish) asks them in this order.
func All() []stage.Registration {
	return []stage.Registration{
		// marks: every marking verb (click, scroll, type, key, fill) that
		// ran on a target leaves where it acted, never text, as that
		// target's last mark for the live view's agent cursor.
		{Name: "marks", New: marks.New},
		// audit: every verb answered, run, refused or panicked, writes
		// one row to the audit log, after the stages before it finished
		// its answer.
		{Name: "audit", New: verbaudit.New},
	}
}
