package daemon

import (
	"context"
	"os"
	"sort"
	"time"

	"github.com/vibespace/vibespace/target"
)

// status answers what the daemon is and what the caller has.
func (d *Daemon) status(ctx context.Context, req Request) Response {
	d.mu.Lock()
	st := &Status{
		PID: os.Getpid(), Socket: d.cfg.SocketPath, StateDir: d.cfg.StateDir,
		Targets: len(d.targets), Started: d.started.UTC().Format(time.RFC3339),
		AuditPath: d.audit.Path(), MaxRequest: d.cfg.MaxRequest,
	}
	if d.display != nil {
		st.Display = d.display.Name()
	}
	for _, e := range d.targets {
		if e.t.ExposedTo(req.Session) {
			st.Yours++
		}
	}
	d.mu.Unlock()
	st.Live, _ = d.liveState()
	return Response{OK: true, Status: st}
}

// doctor probes the machine: the backend's checks, and the display's own
// (XTEST, MIT-SHM, AT-SPI) — which brings the display up.
func (d *Daemon) doctor(ctx context.Context, req Request) Response {
	checks := d.cfg.Backend.Doctor(ctx)
	live, liveOK := d.liveState()
	checks = append(checks, Check{Name: "live view", OK: liveOK, Detail: live})
	if d.cfg.Browser == nil {
		checks = append(checks, Check{Name: "browser", Detail: "no browser backend: this daemon was started without one (browser.* verbs are refused no_browser)"})
	} else {
		checks = append(checks, d.cfg.Browser.Doctor(ctx)...)
	}
	disp, err := d.ensureDisplay(ctx)
	if err != nil {
		checks = append(checks, Check{Name: "display", Detail: "could not start: " + err.Error()})
	} else {
		checks = append(checks, disp.Doctor(ctx)...)
	}
	return Response{OK: true, Checks: checks}
}

// list answers the targets the caller may address, dropping any that are
// gone.
func (d *Daemon) list(ctx context.Context, req Request) Response {
	d.mu.Lock()
	disp := d.display
	var es []*entry
	for _, e := range d.targets {
		if e.t.ExposedTo(req.Session) {
			es = append(es, e)
		}
	}
	d.mu.Unlock()
	sort.Slice(es, func(i, j int) bool { return es[i].t.ID.Number() < es[j].t.ID.Number() })
	resp := Response{OK: true, Targets: []TargetInfo{}}
	for _, e := range es {
		if err := d.refresh(ctx, disp, e); target.CodeOf(err) == target.CodeWindowGone || target.CodeOf(err) == target.CodeTabGone {
			continue
		}
		ti := *d.info(e)
		if e.t.ID.Kind() == target.KindTab {
			ti.Capabilities = tabCapabilities()
		} else if disp != nil {
			ti.Capabilities = capabilities(disp.Probe(ctx, ti.PID))
		}
		resp.Targets = append(resp.Targets, ti)
	}
	return resp
}

// capabilities applies the law to every verb on a window probed as p. For
// the verbs on a node, the answer is the road the node will need; the node
// itself decides at use.
func capabilities(p target.Probe) []target.Capability {
	var out []target.Capability
	for _, v := range []target.Verb{target.VerbSnapshot, target.VerbScreenshot} {
		out = append(out, target.Decide(v, p, nil))
	}
	tree := target.Decide(target.VerbSnapshot, p, nil)
	for _, v := range []struct {
		verb target.Verb
		why  string
	}{
		{target.VerbClickRef, "per node: Action.DoAction where the node has an Action; no_action where it has none"},
		{target.VerbTypeRef, "per node: EditableText, or focus and keys where the node takes focus and injection exists"},
	} {
		c := target.Capability{Verb: v.verb, Road: target.RoadTree, Why: v.why}
		if !tree.OK() {
			c.Road, c.Why, c.Refusal = target.RoadNone, tree.Why, tree.Refusal
		}
		out = append(out, c)
	}
	for _, v := range []target.Verb{target.VerbClickAt, target.VerbTypeFocus, target.VerbKey, target.VerbScroll} {
		out = append(out, target.Decide(v, p, nil))
	}
	return out
}
