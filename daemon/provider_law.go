package daemon

import (
	"context"

	"github.com/vibespace/vibespace/daemon/providerlaw"
	"github.com/vibespace/vibespace/target"
)

// The provider rows are one input of the capability law: every probe the
// daemon decides a verb on is stamped with the row its target comes from
// (package daemon/providerlaw, d.law), so target.Decide refuses what the
// row cannot do, not_on_this_provider, before any road; the listing shows
// it the same.

// probe is e's probe now, stamped with its provider row: what the law
// decides e's verbs on. The row is chosen by e's origin, read here of its
// record: a window found from another (a dialog) has the profile of the
// one it came from.
func (d *Daemon) probe(ctx context.Context, e *entry) target.Probe {
	p := e.t.Probe(ctx)
	if e.tab != nil {
		return d.law.Stamp(p, providerlaw.Origin{Tab: true, Provider: e.tab.key.Provider})
	}
	d.mu.Lock()
	o := providerlaw.Origin{Desktop: e.rec.Desktop, Profile: e.rec.Profile}
	if o.Profile == "" && e.rec.From != "" {
		if from := d.targets[e.rec.From]; from != nil {
			o.Profile = from.rec.Profile
		}
	}
	d.mu.Unlock()
	return d.law.Stamp(p, o)
}
