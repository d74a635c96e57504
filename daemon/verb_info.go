package daemon

import (
	"context"
	"github.com/vibespace/vibespace/daemon/args"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/vibespace/vibespace/daemon/displays"
	"github.com/vibespace/vibespace/daemon/doctor"
	"github.com/vibespace/vibespace/daemon/providerlaw"
	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/target"
)

// status answers what the daemon is and what the caller has.
func (d *Daemon) status(ctx context.Context, c *call) Response {
	d.mu.Lock()
	st := &Status{
		PID: os.Getpid(), Socket: d.cfg.SocketPath, StateDir: d.cfg.StateDir,
		Targets: len(d.targets), Started: d.started.UTC().Format(time.RFC3339),
		AuditPath: d.audit.Path(), MaxRequest: d.cfg.MaxRequest,
	}
	var disps []*display
	for _, disp := range d.reg.AllLocked() {
		if !disp.PerSession() {
			disps = append(disps, disp)
		}
	}
	for _, e := range d.targets {
		if e.rec.ExposedTo(c.Req.Session) {
			st.Yours++
		}
	}
	d.mu.Unlock()
	var names []string
	for _, disp := range disps {
		names = append(names, disp.Kind().Name())
	}
	sort.Strings(names)
	// The per-session displays, each with its session and its use, and
	// their ceiling and idle stop.
	st.Display = strings.Join(names, ", ")
	if sds := d.reg.SessionDisplays(); len(sds) > 0 {
		if st.Display != "" {
			st.Display += "; "
		}
		st.Display += "per-session displays: " + d.reg.SessionDisplaysWords(sds)
	}
	st.Live, _ = d.liveState()
	st.Kept = d.keptLogs()
	st.Stderr = d.relState(d.cfg.Stderr)
	st.Faults = d.faults()
	return Response{OK: true, Status: st}
}

// keptLogs names the log files there are now, relative to the state
// directory: the audit log's, then the daemon log's.
func (d *Daemon) keptLogs() []string {
	files := d.audit.Kept()
	if d.cfg.LogFile != "" {
		files = append(files, lease.Kept(d.cfg.LogFile, d.cfg.LogKeep)...)
	}
	for i, f := range files {
		files[i] = d.relState(f)
	}
	return files
}

// relState is path relative to the state directory when it is under it.
func (d *Daemon) relState(path string) string {
	if path == "" || !filepath.IsAbs(path) {
		return path
	}
	if rel, err := filepath.Rel(d.cfg.StateDir, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}

// doctor probes the machine (package daemon/doctor): the displays, the
// user's desktop, the browser, the providers, the live view.
func (d *Daemon) doctor(ctx context.Context, c *call) Response {
	m := doctor.Machine{Registry: d.reg, Displays: d.cfg.Displays, Desktop: d.cfg.Desktop, Browser: d.cfg.Browser, Live: d.liveState,
		Providers: func() []Check {
			return d.law.Doctor(providerlaw.Here{Browser: d.cfg.Browser != nil, KeySetAt: d.keys.SetAt, Displays: d.cfg.Displays})
		}}
	return Response{OK: true, Checks: m.Checks(ctx, c.Req.Session, c.Args.(args.Doctor).Env)}
}

// list answers the targets the caller may address, each with the roads its
// verbs have now (the capability law on its own probe), dropping any that
// are gone; windows the applications showed since the last scan are
// targets first (package daemon/displays).
func (d *Daemon) list(ctx context.Context, c *call) Response {
	d.reg.Discover(ctx) // a dialog shown since the last scan is listed now
	resp := Response{OK: true, Targets: []TargetInfo{}}
	// A display that does not answer costs one check per list, not one
	// per window: its windows are listed as last read, marked.
	answering := map[*display]bool{}
	for _, e := range d.entries(func(e *entry) bool { return e.rec.ExposedTo(c.Req.Session) }) {
		stale := false
		if e.disp != nil {
			ok, asked := answering[e.disp]
			if !asked {
				ok = d.reg.Answers(ctx, e.disp)
				answering[e.disp] = ok
			}
			stale = !ok
		}
		if !stale {
			_, err := d.relistWithin(ctx, e, displays.ListBudget)
			switch target.CodeOf(err) {
			case e.words().Gone:
				continue
			case target.CodeDisplayNotAnswering:
				answering[e.disp], stale = false, true
			}
		}
		ti := *d.info(e)
		if stale {
			ti.NotAnswering = d.reg.StalledSince(e.disp).UTC().Format(time.RFC3339)
		}
		ti.Capabilities = target.Capabilities(d.probe(ctx, e))
		if e.disp != nil {
			ti.Capabilities = target.UnderMode(e.id, ti.Mode, ti.Capabilities)
		}
		resp.Targets = append(resp.Targets, ti)
	}
	return resp
}
