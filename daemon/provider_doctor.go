package daemon

import (
	"fmt"
	"strings"

	"github.com/vibespace/vibespace/daemon/displays"
	"github.com/vibespace/vibespace/provider"
)

// providerDoctor is one doctor row a provider: what it is, what it can and
// cannot do here, and, for a keyed one, whether its key is set (never the
// key).
func (d *Daemon) providerDoctor() []Check {
	var out []Check
	for _, r := range d.rows() {
		ok, here := d.providerHere(r)
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
		out = append(out, Check{Name: "provider " + r.Name, OK: ok, Detail: b.String()})
	}
	return out
}

// providerHere says whether r can be used on this daemon now, and why.
func (d *Daemon) providerHere(r provider.Row) (bool, string) {
	switch {
	case r.Kind == provider.KindTab && d.cfg.Browser == nil:
		return false, "not here: this daemon has no browser backend"
	case r.KeyScope != "":
		if at, ok := d.keys.SetAt(r.KeyScope); ok {
			return true, "key set " + at.UTC().Format("2006-01-02T15:04:05Z") + " (kept by the daemon, 0600; never shown)"
		}
		return false, "no key set: vibespace-browser key set " + r.Name + " (reads it from stdin)"
	case r.Remote():
		return true, "ready: it connects to the endpoint a profile names"
	case r.Kind == provider.KindWindow && len(d.cfg.Displays) == 0:
		return false, "not here: this daemon has no display"
	case r.Name == provider.DesktopApp:
		for _, p := range d.cfg.Displays {
			if displays.PerSession(p) {
				return true, "ready on the session displays (" + p.Name() + ")"
			}
		}
		return false, "not here: no per-session display (xpra) is registered"
	}
	return true, "ready"
}
