package daemon

import (
	"context"
	"encoding/json"
	"github.com/vibespace/vibespace/daemon/args"
	"log/slog"
	"time"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/target"
)

// DesktopGate is the user's own desktop as the core asks it (Config.Desktop;
// package daemon/yourdesktop is the one the program registers): a display
// of the registry like the others, whose windows are listed as they are,
// nobody's and exposed to every session (kind.Lister, package daemon/displays), and
// whose admission — the operator's setting, the pixels grant, the person's
// own input — is the gate's, asked here and nowhere else:
//
//   - open, close and share ask Never;
//   - lookup asks Forgotten for a handle it has no target for (desktop
//     off forgot it);
//   - reachHandle asks Admit before a window verb takes the lease;
//   - handback tells Resumed;
//   - the desktop verb is Check and Answer; doctor's rows are Doctor;
//   - the setting is kept in the state (Keep, Restore).
//
// Close leaves the desktop's display and its targets be (it is not ours
// to stop).
type DesktopGate interface {
	// Provider is the road to the desktop (nil: none).
	Provider() kind.DesktopProvider
	// Bind lends the gate the core's hands, once, as the daemon is made.
	Bind(DesktopHost)
	Check(c *stage.Call) error
	Answer(ctx context.Context, c *stage.Call) (Response, error)
	Admit(rec target.Target, c *stage.Call) error
	Forgotten(handle string) error
	// Never is the refusal of what is never done on the user's desktop
	// (open there, rec the zero target; close or share a window of it),
	// else nil; ours names the daemon's own displays.
	Never(verb string, rec target.Target, ours []string) error
	Resumed(rec target.Target)
	Doctor(ctx context.Context, env *kind.DesktopEnv) []Check
	Keep(records map[string]json.RawMessage)
	Restore(records map[string]json.RawMessage)
}

// DesktopHost is what the core lends the desktop's gate; package
// daemon/yourdesktop spells the same interface (yourdesktop.Host), where
// each method is said.
type DesktopHost = interface {
	Now() time.Time
	Logger() *slog.Logger
	Record(lease.Entry)
	Persist()
	Display() kind.Display
	Open(kd kind.Display, opened func()) bool
	Discover(ctx context.Context, kd kind.Display)
	Count(kd kind.Display) int
	Close(kd kind.Display, forgot func([]target.ID)) (held []lease.Lease, ok bool)
	Grant(c *stage.Call, on bool) (id target.ID, mine, changed bool, err error)
	Pause(kd kind.Display, user, session, how string)
}

// desktopRoad is the road to the user's desktop, or nil.
func (d *Daemon) desktopRoad() kind.DesktopProvider { return d.cfg.Desktop.Provider() }

// desktopProvider is cfg's road to the user's desktop as the display
// registry knows it: a display provider, nil (not a nil road) when there
// is none.
func desktopProvider(cfg Config) kind.DisplayProvider {
	if p := cfg.Desktop.Provider(); p != nil {
		return p
	}
	return nil
}

func checkDesktop(d *Daemon, c *call) error { return d.cfg.Desktop.Check(&c.Call) }

// desktop answers the operator's desktop verb through the gate.
func (d *Daemon) desktop(ctx context.Context, c *call) Response {
	resp, err := d.cfg.Desktop.Answer(ctx, &c.Call)
	if t, ok := c.Target.(stageTarget); ok { // desktop pixels reached a window
		c.e = t.e
	}
	return d.finish(c, resp, err)
}

// checkDesktopWindow asks the gate, before c takes the lease of its
// window, whether the user's desktop admits c's verb there.
func (d *Daemon) checkDesktopWindow(c *call) error {
	d.mu.Lock()
	rec := c.e.rec
	d.mu.Unlock()
	return d.cfg.Desktop.Admit(rec, &c.Call)
}

// noDesktop is the gate of a daemon with no road to the user's desktop:
// it admits everything (there is no window of it) and the desktop verb
// says so.
type noDesktop struct{}

func (noDesktop) Provider() kind.DesktopProvider              { return nil }
func (noDesktop) Bind(DesktopHost)                            {}
func (noDesktop) Check(*stage.Call) error                     { return nil }
func (noDesktop) Admit(target.Target, *stage.Call) error      { return nil }
func (noDesktop) Forgotten(string) error                      { return nil }
func (noDesktop) Never(string, target.Target, []string) error { return nil }
func (noDesktop) Resumed(target.Target)                       {}
func (noDesktop) Keep(map[string]json.RawMessage)             {}
func (noDesktop) Restore(map[string]json.RawMessage)          {}
func (noDesktop) Doctor(context.Context, *kind.DesktopEnv) []Check {
	return []Check{{Name: "your desktop", Detail: "no road to your desktop in this daemon"}}
}
func (noDesktop) Answer(_ context.Context, c *stage.Call) (Response, error) {
	if w := c.Args.(args.Desktop).Action; w == "" || w == "status" {
		return Response{Did: "this daemon has no road to your desktop"}, nil
	}
	return Response{}, target.Refuse(target.CodeNoDisplay, "this daemon has no road to your desktop (it was started without one; see doctor)")
}

// desktopHands is the core as the desktop's gate sees it (DesktopHost).
type desktopHands struct{ d *Daemon }

func (h desktopHands) Now() time.Time        { return h.d.cfg.Now() }
func (h desktopHands) Logger() *slog.Logger  { return h.d.cfg.Logger }
func (h desktopHands) Record(e lease.Entry)  { h.d.record(e) }
func (h desktopHands) Persist()              { h.d.persist() }
func (h desktopHands) Display() kind.Display { return h.display(nil) }

// display is the desktop's display while it is open (and is kd, unless kd
// is nil), else nil.
func (h desktopHands) display(kd kind.Display) kind.Display {
	if disp := h.d.reg.Desktop(); disp != nil && (kd == nil || disp.Kind() == kd) {
		return disp.Kind()
	}
	return nil
}

func (h desktopHands) Open(kd kind.Display, opened func()) bool {
	d := h.d
	disp := d.reg.NewDisplay(d.desktopRoad(), kd, "")
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.reg.GetLocked(disp.Key()) != nil {
		return false
	}
	d.reg.PutLocked(disp)
	opened()
	return true
}

func (h desktopHands) Discover(ctx context.Context, kd kind.Display) {
	if disp := h.d.reg.Desktop(); disp != nil && disp.Kind() == kd {
		h.d.reg.DiscoverOn(ctx, disp)
	}
}

func (h desktopHands) Count(kd kind.Display) int {
	h.d.mu.Lock()
	defer h.d.mu.Unlock()
	n := 0
	for _, e := range h.d.targets {
		if e.disp != nil && e.disp.Kind() == kd {
			n++
		}
	}
	return n
}

func (h desktopHands) Close(kd kind.Display, forgot func([]target.ID)) ([]lease.Lease, bool) {
	d := h.d
	disp := d.reg.Desktop()
	if disp == nil || disp.Kind() != kd {
		return nil, false
	}
	var held []lease.Lease
	for _, e := range d.entries(func(e *entry) bool { return e.disp == disp }) {
		if l := d.leases.Get(e.id); l.Holder != "" {
			held = append(held, l)
		}
	}
	// One step: the display and its targets go, and the verbs in flight on
	// them are cut, so none begins between the two.
	d.mu.Lock()
	if d.reg.GetLocked(disp.Key()) != disp { // closed meanwhile by another desktop off
		d.mu.Unlock()
		return nil, false
	}
	d.reg.DeleteLocked(disp.Key())
	var ids []target.ID
	for id, e := range d.targets {
		if e.disp != disp {
			continue
		}
		ids = append(ids, id)
		delete(d.targets, id)
		for _, cancel := range e.flight {
			cancel()
		}
	}
	forgot(ids)
	d.mu.Unlock()
	for _, id := range ids {
		d.leases.Drop(id)
	}
	d.persist()
	if err := d.reg.Close(disp); err != nil {
		d.cfg.Logger.Warn("closing our connections to the user's desktop", "err", err)
	}
	return held, true
}

func (h desktopHands) Grant(c *stage.Call, on bool) (target.ID, bool, bool, error) {
	d := h.d
	e, err := d.find(c.Req.Target)
	if err != nil {
		return "", false, false, err
	}
	c.Target = stageTarget{d: d, e: e}
	d.mu.Lock()
	mine := e.rec.Desktop
	changed := mine && e.rec.Pixels != on
	if changed {
		e.rec.Pixels = on
	}
	d.mu.Unlock()
	if changed {
		d.persist()
	}
	return e.id, mine, changed, nil
}

// Pause pauses every agent holding a window of kd, the person driving
// (how says why): their in-flight verbs are cut at once, the state
// persisted once, each pause audited, what their input held released.
func (h desktopHands) Pause(kd kind.Display, user, session, how string) {
	d := h.d
	var paused []*entry
	for _, e := range d.entries(func(e *entry) bool { return e.disp != nil && e.disp.Kind() == kd }) {
		l, changed := d.leases.Touched(e.id, user, session, how)
		if !changed {
			continue
		}
		n := d.cancelFlight(e)
		paused = append(paused, e)
		d.cfg.Logger.Info("the person's own input paused an agent", "target", e.id, "holder", l.Holder, "how", how, "cancelled", n)
	}
	if len(paused) == 0 {
		return
	}
	d.persist()
	for _, e := range paused {
		d.record(lease.Entry{Session: session, Target: e.id, Verb: "takeover", User: user, OK: true, Setting: "direct: " + how, Desktop: true})
		go d.releaseFor(context.Background(), e)
	}
}

// AdoptDesktop makes a window found on the user's desktop a target,
// nobody's, exposed to every session; it reports whether it did (the
// caller persists once for a scan). It is the display registry's hand
// (displays.Host).
func (h displayHands) AdoptDesktop(disp *display, f kind.Found) bool {
	d := h.d
	d.mu.Lock()
	for _, e := range d.targets {
		if e.disp == disp && e.rec.Key == f.Info.Key {
			d.mu.Unlock()
			return false
		}
	}
	if d.reg.GetLocked(disp.Key()) != disp { // closed meanwhile
		d.mu.Unlock()
		return false
	}
	d.next++
	rec := target.Target{
		ID: target.WindowID(d.next), Kind: target.KindWindow, Title: f.Info.Title, App: f.App,
		PID: f.Info.PID, Key: f.Info.Key, Display: disp.Name(), Desktop: true, Browser: f.Browser,
		Mode: target.ModeAuto, Opened: d.cfg.Now().UTC(),
	}
	e := newEntry(rec, f.Target, disp)
	e.info = f.Info
	d.targets[rec.ID] = e
	d.mu.Unlock()
	d.cfg.Logger.Info("a window of the user's desktop is listed", "target", rec.ID, "pid", rec.PID, "title", rec.Title)
	return true
}

// cancelFlight cancels the agent verbs in flight on e and says how many.
func (d *Daemon) cancelFlight(e *entry) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, cancel := range e.flight {
		cancel()
	}
	return len(e.flight)
}
