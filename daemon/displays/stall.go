package displays

import (
	"context"
	"time"

	"github.com/vibespace/vibespace/target"
)

// A display that stops answering (its X server stopped with SIGSTOP, or
// starved) must not hold every verb and list for the X calls' own
// deadlines. A window's facts are read within ReadBudget; a read that
// does not finish marks its display stalled. While it is stalled, a
// verb first asks the display, within HealthBudget, whether it answers
// again, and is refused display_not_answering at once if not; list answers
// the display's windows from what the daemon last read, marked.
const (
	ReadBudget   = 5 * time.Second
	ListBudget   = 2 * time.Second
	HealthBudget = time.Second
)

// StalledSince is when disp was found not answering, or zero.
func (r *Registry) StalledSince(disp *Display) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return disp.stalled
}

func (r *Registry) setStalled(disp *Display, stalled bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case stalled && disp.stalled.IsZero():
		disp.stalled = r.o.Now()
		r.o.Logger.Warn("a display stopped answering", "display", disp.name)
	case !stalled && !disp.stalled.IsZero():
		r.o.Logger.Info("a display answers again", "display", disp.name, "after", r.o.Now().Sub(disp.stalled))
		disp.stalled = time.Time{}
	}
}

// Answers reports whether a display marked stalled answers again (asked
// within HealthBudget); a display not marked is taken to answer.
func (r *Registry) Answers(ctx context.Context, disp *Display) bool {
	if r.StalledSince(disp).IsZero() {
		return true
	}
	hctx, cancel := context.WithTimeout(ctx, HealthBudget)
	defer cancel()
	if disp.d.Healthy(hctx) != nil {
		return false
	}
	r.setStalled(disp, false)
	return true
}

// notAnswering is the refusal of a verb on the window id of a stalled
// display.
func (r *Registry) notAnswering(disp *Display, id target.ID) error {
	ref := r.NotAnswering(disp, " of "+string(id), "nothing was done — try again when it answers")
	return ref.With("target", string(id))
}

// NotAnswering is the refusal of a verb on the stalled display
// disp: of names what of it (a window), did what the verb did not do.
func (r *Registry) NotAnswering(disp *Display, of, did string) *target.Refusal {
	since := r.StalledSince(disp)
	if since.IsZero() {
		since = r.o.Now()
	}
	at := since.UTC().Format(time.RFC3339)
	return target.Refuse(target.CodeDisplayNotAnswering,
		"display %s (%s)%s has not answered since %s (its X server is stopped or starved); %s",
		disp.d.Name(), disp.name, of, at, did).With("display", disp.name).With("since", at)
}

// Budgeted runs read on the window id of disp within budget: a read its
// own deadline cut, while the caller's context is still live, marks the
// display stalled and answers display_not_answering. A target on no
// display (disp nil: a tab) is read as it is: its reads are not budgeted
// here.
func (r *Registry) Budgeted(ctx context.Context, disp *Display, id target.ID, budget time.Duration, read func(context.Context) error) error {
	if disp == nil {
		return read(ctx)
	}
	if !r.Answers(ctx, disp) {
		return r.notAnswering(disp, id)
	}
	stalled, err := r.within(ctx, disp, budget, read)
	if stalled {
		return r.notAnswering(disp, id)
	}
	return err
}

// within runs read on disp within budget; a read its own deadline cut,
// while the caller's context is still live, marks disp stalled (stalled:
// the caller says so in its own words).
func (r *Registry) within(ctx context.Context, disp *Display, budget time.Duration, read func(context.Context) error) (stalled bool, err error) {
	rctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	err = read(rctx)
	if err != nil && rctx.Err() != nil && ctx.Err() == nil {
		r.setStalled(disp, true)
		return true, err
	}
	return false, err
}
