package daemon

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/vibespace/vibespace/daemon/notice"
	"github.com/vibespace/vibespace/lease"
)

// When the audit cannot be written (the state directory's disk is full),
// verbs still run: the daemon's disk does not stop an agent. But nothing
// is lost without a word (notice.go):
//
//   - as the first record is lost, everyone is told once, on their next
//     answer, "audit not written since T (no space left on device)", and
//     while it lasts status lists under faults "audit not written since
//     T: no space left on device (N records lost so far)";
//   - as writing resumes, the log first writes where the lost records
//     would have been {"verb":"audit.lost","lost":N,"since":T1,"until":T2},
//     and everyone is told once "the audit was not written from T1 to T2:
//     N records lost (…)", which replaces the first notice (a session not
//     told that one yet is told this one alone).
//
// No record is half written: the torn bytes of a write the full disk cut
// short are taken away (lease.RotatingFile).

// auditLapsed is told by the audit, in order, as writing first fails and
// as it resumes.
func (d *Daemon) auditLapsed(l lease.Lapse) {
	if l.Until.IsZero() {
		d.owe(notice.Notice{Text: auditDown(l.Since) + " (" + l.Why() + ")"})
		return
	}
	d.notes.DropEveryones(auditDown(l.Since))
	d.owe(notice.Notice{Text: fmt.Sprintf("the audit was not written from %s to %s: %s lost (%s)", stamp(l.Since), stamp(l.Until), records(l.Lost), l.Why())})
}

// auditDown begins the words of a lapse of the audit since since.
func auditDown(since time.Time) string { return "audit not written since " + stamp(since) }

// auditFaults are status's faults with the audit's lapse, if there is one
// now: its line, with what it lost so far, stands for the notice owed as
// it began.
func auditFaults(faults []string, l lease.Lapse, lapsed bool) []string {
	if !lapsed {
		return faults
	}
	down := auditDown(l.Since)
	faults = slices.DeleteFunc(faults, func(f string) bool { return strings.Contains(f, ": "+down+" (") })
	return append(faults, fmt.Sprintf("%s: %s (%s lost so far)", down, l.Why(), records(l.Lost)))
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func records(n int) string {
	if n == 1 {
		return "1 record"
	}
	return fmt.Sprintf("%d records", n)
}
