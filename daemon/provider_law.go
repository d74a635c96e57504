package daemon

import (
	"context"

	"github.com/vibespace/vibespace/provider"
	"github.com/vibespace/vibespace/target"
)

// The provider rows are one input of the capability law: every probe the
// daemon decides a verb on is stamped with the row its target comes from
// (provider.Row.Stamp), so target.Decide refuses what the row cannot do,
// not_on_this_provider, before any road; the listing shows it the same.

// rows is the provider table the daemon reads (Config.Providers, else
// the table itself).
func (d *Daemon) rows() []provider.Row {
	if d.cfg.Providers != nil {
		return d.cfg.Providers
	}
	return provider.All()
}

// row finds a row of the daemon's table by name; "" is chromium.
func (d *Daemon) row(name string) (provider.Row, bool) {
	if d.cfg.Providers != nil {
		return provider.LookupIn(d.cfg.Providers, name)
	}
	return provider.Lookup(name)
}

// entryRow is the row e comes from: a tab's profile's provider (chromium
// for the daemon's own browser), a desktop app's window (or a window found
// from it, a dialog) desktop-app, any other window of ours local-window. A
// window of the user's own desktop comes from no row (ok false).
func (d *Daemon) entryRow(e *entry) (provider.Row, bool) {
	if e.tab != nil {
		if r, ok := d.row(e.tab.key.Provider); ok {
			return r, true
		}
		// A name the table does not have: nothing is known it can do
		// beyond what its gate let through.
		return provider.Row{Name: e.tab.key.Provider}, true
	}
	d.mu.Lock()
	rec := e.rec
	if rec.Profile == "" && rec.From != "" {
		if o := d.targets[rec.From]; o != nil {
			rec.Profile = o.rec.Profile
		}
	}
	d.mu.Unlock()
	switch {
	case rec.Desktop:
		return provider.Row{}, false
	case rec.Profile != "":
		return d.row(provider.DesktopApp)
	}
	return d.row(provider.LocalWindow)
}

// probe is e's probe now, stamped with its provider row: what the law
// decides e's verbs on.
func (d *Daemon) probe(ctx context.Context, e *entry) target.Probe {
	p := e.t.Probe(ctx)
	if r, ok := d.entryRow(e); ok {
		p = r.Stamp(p)
	}
	return p
}
