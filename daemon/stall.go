package daemon

import (
	"context"
	"time"

	"github.com/vibespace/vibespace/target"
)

// A display that stops answering (its X server stopped with SIGSTOP, or
// starved) must not hold every verb and list for the X calls' own
// deadlines. A window's facts are read within readBudget; a read that
// does not finish marks its display stalled. While it is stalled, a
// verb first asks the display, within healthBudget, whether it answers
// again, and is refused display_not_answering at once if not; list answers
// the display's windows from what the daemon last read, marked.
const (
	readBudget   = 5 * time.Second
	listBudget   = 2 * time.Second
	healthBudget = time.Second
)

// stalledSince is when disp was found not answering, or zero.
func (d *Daemon) stalledSince(disp *display) time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	return disp.stalled
}

func (d *Daemon) setStalled(disp *display, stalled bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case stalled && disp.stalled.IsZero():
		disp.stalled = d.cfg.Now()
		d.cfg.Logger.Warn("a display stopped answering", "display", disp.name)
	case !stalled && !disp.stalled.IsZero():
		d.cfg.Logger.Info("a display answers again", "display", disp.name, "after", d.cfg.Now().Sub(disp.stalled))
		disp.stalled = time.Time{}
	}
}

// answers reports whether a display marked stalled answers again (asked
// within healthBudget); a display not marked is taken to answer.
func (d *Daemon) answers(ctx context.Context, disp *display) bool {
	if d.stalledSince(disp).IsZero() {
		return true
	}
	hctx, cancel := context.WithTimeout(ctx, healthBudget)
	defer cancel()
	if disp.d.Healthy(hctx) != nil {
		return false
	}
	d.setStalled(disp, false)
	return true
}

// notAnswering is the refusal of a verb on a window of a stalled display.
func (d *Daemon) notAnswering(e *entry) error {
	r := d.displayNotAnswering(e.disp, " of "+string(e.id), "nothing was done — try again when it answers")
	return r.With("target", string(e.id))
}

// displayNotAnswering is the refusal of a verb on the stalled display
// disp: of names what of it (a window), did what the verb did not do.
func (d *Daemon) displayNotAnswering(disp *display, of, did string) *target.Refusal {
	since := d.stalledSince(disp)
	if since.IsZero() {
		since = d.cfg.Now()
	}
	at := since.UTC().Format(time.RFC3339)
	return target.Refuse(target.CodeDisplayNotAnswering,
		"display %s (%s)%s has not answered since %s (its X server is stopped or starved); %s",
		disp.d.Name(), disp.name, of, at, did).With("display", disp.name).With("since", at)
}

// budgeted runs read on a window within budget: a read its own deadline
// cut, while the caller's context is still live, marks the display stalled
// and answers display_not_answering. A tab's reads are not budgeted here.
func (d *Daemon) budgeted(ctx context.Context, e *entry, budget time.Duration, read func(context.Context) error) error {
	if e.disp == nil {
		return read(ctx)
	}
	if !d.answers(ctx, e.disp) {
		return d.notAnswering(e)
	}
	stalled, err := d.within(ctx, e.disp, budget, read)
	if stalled {
		return d.notAnswering(e)
	}
	return err
}

// within runs read on disp within budget; a read its own deadline cut,
// while the caller's context is still live, marks disp stalled (stalled:
// the caller says so in its own words).
func (d *Daemon) within(ctx context.Context, disp *display, budget time.Duration, read func(context.Context) error) (stalled bool, err error) {
	rctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	err = read(rctx)
	if err != nil && rctx.Err() != nil && ctx.Err() == nil {
		d.setStalled(disp, true)
		return true, err
	}
	return false, err
}
