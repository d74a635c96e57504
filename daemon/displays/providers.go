package displays

import (
	"fmt"
	"strings"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/notice"
	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/target"
)

// Provider is the registered display provider of name (the user's
// desktop's road too), or nil.
func (r *Registry) Provider(name string) kind.DisplayProvider {
	for _, p := range r.o.Providers {
		if p.Name() == name {
			return p
		}
	}
	if p := r.o.Desktop; p != nil && p.Name() == name {
		return p
	}
	return nil
}

// ProviderFor resolves open's --display: "" is the first registered one.
func (r *Registry) ProviderFor(name string) (kind.DisplayProvider, error) {
	if len(r.o.Providers) == 0 {
		return nil, target.Refuse(target.CodeNoDisplay, "this daemon has no display for windows (it was started without one; see doctor)")
	}
	if name == "" {
		return r.o.Providers[0], nil
	}
	if p := r.Provider(name); p != nil {
		return p, nil
	}
	return nil, target.Refuse(target.CodeNoDisplay, "there is no display %s here; the displays are: %s", target.Echo(name), strings.Join(r.Names(), ", ")).
		With("display", target.Clip(name)).With("displays", r.Names())
}

// Names are the registered providers' names, in order.
func (r *Registry) Names() []string {
	var out []string
	for _, p := range r.o.Providers {
		out = append(out, p.Name())
	}
	return out
}

// KeyOfTarget is the key of the display a window's record names: its
// provider's, and for a per-session provider its origin's (the session
// whose display it is).
func (r *Registry) KeyOfTarget(t target.Target) string {
	if p := r.Provider(t.Display); p != nil {
		return KeyFor(p, t.Origin)
	}
	return t.Display
}

// Desktop is the user's desktop display while it is open, else nil.
func (r *Registry) Desktop() *Display {
	if r.o.Desktop == nil {
		return nil
	}
	return r.Running(KeyFor(r.o.Desktop, ""))
}

// LostBeforeRestartLocked remembers the window t of an earlier daemon's
// state whose display (one we start) was gone when this daemon started —
// it died while no daemon ran — as lost, and says the notice its holder
// (the holder of its lease among leases, else its opener) is owed, as a
// death seen at once would (ok false: nobody is). The core's reconcile
// calls it for every target it drops, before it serves; it does nothing
// for one whose display runs, a tab, or a window of the user's own
// desktop. The caller keeps the notice (reconcile's own persist).
func (r *Registry) LostBeforeRestartLocked(t target.Target, leases []lease.Lease) (n notice.Notice, ok bool) {
	if t.Display == "" || r.m[r.KeyOfTarget(t)] != nil {
		return n, false
	}
	p := r.Provider(t.Display)
	if p == nil || (r.o.Desktop != nil && p.Name() == r.o.Desktop.Name()) {
		return n, false
	}
	what := t.Display + " display"
	if PerSession(p) {
		what += " of session " + t.Origin
	}
	l := Lost{ID: t.ID, Title: t.Title, At: r.o.Now().UTC(), Display: what, How: "it was gone when this daemon started (it died while no daemon ran)"}
	r.lost.add(l)
	who := t.Origin
	for _, ls := range leases {
		if ls.Target == t.ID && ls.Holder != "" {
			who = ls.Holder
		}
	}
	r.o.Logger.Warn("a display died while no daemon ran; its window is lost", "target", t.ID, "display", t.Display, "session", who)
	if who == "" {
		return n, false
	}
	return notice.Notice{Session: who, Target: t.ID, Text: l.Words() + fmt.Sprintf(" (%q)", t.Title), At: l.At}, true
}
