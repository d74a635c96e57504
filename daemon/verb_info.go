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
	return Response{OK: true, Status: st}
}

// doctor probes the machine: the backend's checks, and the display's own
// (XTEST, MIT-SHM, AT-SPI) — which brings the display up.
func (d *Daemon) doctor(ctx context.Context, req Request) Response {
	checks := d.cfg.Backend.Doctor(ctx)
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
		if err := d.refresh(ctx, disp, e); target.CodeOf(err) == target.CodeWindowGone {
			continue
		}
		resp.Targets = append(resp.Targets, *d.info(e))
	}
	return resp
}
