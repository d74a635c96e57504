// Package providerlaw is the provider law as the daemon applies it, out of
// the daemon's core: the provider table the daemon reads (its configured
// rows, else package provider's own), the row a target comes from, the
// stamp that row puts on the target's probe, and doctor's row of each
// provider.
//
// The provider rows are one input of the capability law: every probe the
// daemon decides a verb on is stamped with the row its target comes from
// (provider.Row.Stamp), so target.Decide refuses what the row cannot do,
// not_on_this_provider, before any road; the listing shows it the same.
//
// The core asks it (a Law it keeps) with the facts of a target it read
// under its own lock (Origin); the package holds no lock and no target, and
// never imports the core (layout_test.go).
package providerlaw

import (
	"fmt"
	"strings"
	"time"

	"github.com/vibespace/vibespace/daemon/displays"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/provider"
	"github.com/vibespace/vibespace/target"
)

// Law is the provider table a daemon reads. The zero Law reads the table
// itself (provider.All).
type Law struct {
	rows []provider.Row // nil: provider.All()
}

// New is the law over rows (Config.Providers); nil is the table itself.
func New(rows []provider.Row) Law { return Law{rows: rows} }

// Rows is the provider table the daemon reads (Config.Providers, else
// the table itself).
func (l Law) Rows() []provider.Row {
	if l.rows != nil {
		return l.rows
	}
	return provider.All()
}

// Row finds a row of the daemon's table by name; "" is chromium.
func (l Law) Row(name string) (provider.Row, bool) {
	if l.rows != nil {
		return provider.LookupIn(l.rows, name)
	}
	return provider.Lookup(name)
}

// Origin is what a target's row is chosen by, as the core read it of the
// target's record.
type Origin struct {
	// Tab is set for a tab; Provider is then its profile's provider
	// ("": chromium, the daemon's own browser).
	Tab      bool
	Provider string
	// Desktop is set for a window of the user's own desktop.
	Desktop bool
	// Profile is the desktop app's profile a window was opened for — or,
	// for a window found from another (a dialog), the one that window was
	// opened for; "" for none.
	Profile string
}

// RowOf is the row a target of origin o comes from: a tab's profile's
// provider (chromium for the daemon's own browser), a desktop app's window
// (or a window found from it, a dialog) desktop-app, any other window of
// ours local-window. A window of the user's own desktop comes from no row
// (ok false).
func (l Law) RowOf(o Origin) (provider.Row, bool) {
	if o.Tab {
		if r, ok := l.Row(o.Provider); ok {
			return r, true
		}
		// A name the table does not have: nothing is known it can do
		// beyond what its gate let through.
		return provider.Row{Name: o.Provider}, true
	}
	switch {
	case o.Desktop:
		return provider.Row{}, false
	case o.Profile != "":
		return l.Row(provider.DesktopApp)
	}
	return l.Row(provider.LocalWindow)
}

// Stamp is p, a target's probe now, stamped with the row of its origin o:
// what the law decides its verbs on.
func (l Law) Stamp(p target.Probe, o Origin) target.Probe {
	if r, ok := l.RowOf(o); ok {
		p = r.Stamp(p)
	}
	return p
}

// Here is what the daemon has now that a provider needs: whether it has a
// browser backend, when a provider's key was set (never the key) and the
// display providers registered.
type Here struct {
	Browser  bool
	KeySetAt func(scope string) (at time.Time, ok bool)
	Displays []kind.DisplayProvider
}

// Doctor is doctor's rows of the providers, one each: what it is, what it
// can and cannot do here, and, for a keyed one, whether its key is set
// (never the key).
func (l Law) Doctor(h Here) []wire.Check {
	var out []wire.Check
	for _, r := range l.Rows() {
		ok, here := h.provider(r)
		var b strings.Builder
		fmt.Fprintf(&b, "%s, %s tier (%s targets, leased per %s): %s", r.Name, r.Tier, r.Kind, r.LeaseKind, here)
		if r.Profile {
			fmt.Fprintf(&b, "; new <label> --provider %s", r.Name)
			if r.Endpoint == "required" {
				b.WriteString(" --endpoint <ws://…|http://…>")
			} else if r.Endpoint == "optional" {
				fmt.Fprintf(&b, " [--endpoint <region host, default %s>]", r.DefaultEndpoint)
			}
		}
		if !r.OwnsDir {
			b.WriteString("; no directory of ours")
		}
		if len(r.Cannot) > 0 {
			var cs []string
			for _, c := range r.Cannot {
				cs = append(cs, c.Feature+" ("+c.Why+")")
			}
			b.WriteString("; cannot: " + strings.Join(cs, "; "))
		}
		out = append(out, wire.Check{Name: "provider " + r.Name, OK: ok, Detail: b.String()})
	}
	return out
}

// provider says whether r can be used on this daemon now, and why.
func (h Here) provider(r provider.Row) (bool, string) {
	switch {
	case r.Kind == provider.KindTab && !h.Browser:
		return false, "not here: this daemon has no browser backend"
	case r.KeyScope != "":
		if at, ok := h.KeySetAt(r.KeyScope); ok {
			return true, "key set " + at.UTC().Format("2006-01-02T15:04:05Z") + " (kept by the daemon, 0600; never shown)"
		}
		return false, "no key set: vibespace-browser key set " + r.Name + " (reads it from stdin)"
	case r.Remote():
		return true, "ready: it connects to the endpoint a profile names"
	case r.Kind == provider.KindWindow && len(h.Displays) == 0:
		return false, "not here: this daemon has no display"
	case r.Name == provider.DesktopApp:
		for _, p := range h.Displays {
			if displays.PerSession(p) {
				return true, "ready on the session displays (" + p.Name() + ")"
			}
		}
		return false, "not here: no per-session display (xpra) is registered"
	}
	return true, "ready"
}
