package daemon

import (
	"context"
	"fmt"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/stage"
	"sort"
	"time"

	"github.com/vibespace/vibespace/daemon/displays"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/lastsnaps"
	"github.com/vibespace/vibespace/daemon/modes"
	"github.com/vibespace/vibespace/target"
)

// entry is one target and what the daemon keeps beside it. Its immutable
// fields are set when it is made; the others are guarded by Daemon.mu.
type entry struct {
	id   target.ID
	t    kind.Target      // the backend's
	disp *display         // the display a window lives on; nil for a tab
	refs *target.RefTable // the target's refs: the only place they live
	gate chan struct{}    // one slot: backend calls on this target
	tab  *tabState        // the browser words' facts of a tab; nil for a window

	// Guarded by Daemon.mu.
	rec    target.Target               // what is persisted and named in answers
	info   kind.Info                   // as last read
	flight map[*int]context.CancelFunc // agent verbs in flight; a takeover cancels them
	bounds map[string]target.Rect      // the screen bounds of refs, from the last snapshot
	last   lastsnaps.Book              // each session's last snapshot of it, for snapshot --diff
}

func newEntry(rec target.Target, t kind.Target, disp *display) *entry {
	return &entry{
		id: rec.ID, t: t, disp: disp, refs: target.NewRefTable(), gate: make(chan struct{}, 1),
		rec: rec, flight: make(map[*int]context.CancelFunc),
	}
}

// words are how answers name e's kind.
func (e *entry) words() target.KindWords { return e.id.Kind().Words() }

// add makes rec a target of the session that opened it, leased to it. A
// tab comes with its browser words' facts.
func (d *Daemon) add(rec target.Target, t kind.Target, disp *display, tab *tabState, info kind.Info) *entry {
	e := newEntry(rec, t, disp)
	e.tab = tab
	e.info = info
	d.mu.Lock()
	d.targets[rec.ID] = e
	d.mu.Unlock()
	d.leases.Acquire(rec.ID, rec.Origin)
	d.persist()
	return e
}

// drop forgets a target and its lease.
func (d *Daemon) drop(id target.ID) {
	d.mu.Lock()
	_, ok := d.targets[id]
	delete(d.targets, id)
	d.mu.Unlock()
	d.tabs.Forget(id) // no session's current tab any more
	if ok {
		d.leases.Drop(id)
		d.persist()
	}
}

// entryOf is the target of id, or nil.
func (d *Daemon) entryOf(id target.ID) *entry {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.targets[id]
}

// entries lists the targets, windows first and in number order, then tabs
// in number order.
func (d *Daemon) entries(keep func(*entry) bool) []*entry {
	d.mu.Lock()
	var es []*entry
	for _, e := range d.targets {
		if keep == nil || keep(e) {
			es = append(es, e)
		}
	}
	d.mu.Unlock()
	sort.Slice(es, func(i, j int) bool {
		a, b := es[i].id, es[j].id
		if a.Number() != b.Number() {
			if a.Number() == 0 || b.Number() == 0 {
				return b.Number() == 0
			}
			return a.Number() < b.Number()
		}
		if a.TabNumber() != b.TabNumber() {
			return a.TabNumber() < b.TabNumber()
		}
		return a < b
	})
	return es
}

// find looks a target up by handle, without the exposure check (operator
// words) or a refresh.
func (d *Daemon) find(handle string) (*entry, error) {
	id, err := target.ParseID(handle)
	if err != nil {
		return nil, err
	}
	e := d.entryOf(id)
	if e == nil {
		if err := d.tabs.CDPHandle(id); err != nil {
			return nil, err
		}
		return nil, d.reg.LostOr(false, id, target.Refuse(target.CodeUnknownTarget, "there is no target %s", id).With("target", string(id)))
	}
	return e, nil
}

// lookup finds the target named by c's handle for c's session,
// refreshed from its backend. A target that is gone is dropped and refused
// by its kind's gone code.
func (d *Daemon) lookup(ctx context.Context, c *stage.Call) (*entry, error) {
	req := c.Req
	if req.Target == "" {
		return nil, target.Refuse(target.CodeBadRequest, "%s needs a target handle (win:N)", req.Verb)
	}
	id, err := target.ParseID(req.Target)
	if err != nil {
		return nil, err
	}
	e := d.entryOf(id)
	if e == nil {
		if err := d.tabs.CDPHandle(id); err != nil {
			return nil, err
		}
		if gone := d.cfg.Desktop.Forgotten(req.Target); gone != nil { // desktop off forgot it
			return nil, d.reg.LostOr(xpraWatch(c), id, gone)
		}
		return nil, d.reg.LostOr(xpraWatch(c), id, target.Refuse(target.CodeUnknownTarget, "there is no target %s (list shows yours)", id).With("target", string(id)))
	}
	d.mu.Lock()
	err = e.rec.CheckExposed(req.Session)
	d.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if _, err := d.refresh(ctx, e); err != nil {
		return nil, d.reg.LostOr(xpraWatch(c), id, err) // lost with its display just now
	}
	return e, nil
}

// refresh re-reads e's facts from its backend, cheaply (a window's title
// and bounds; a tab's title and URL as of its last navigation), for a verb.
// A target that is gone, or whose display is, is dropped and refused by its
// kind's gone code, naming it.
func (d *Daemon) refresh(ctx context.Context, e *entry) (kind.Info, error) {
	return d.reread(ctx, e, e.t.Info)
}

// relist re-reads e's facts afresh (a tab's title as the page has it now),
// for the listings.
func (d *Daemon) relist(ctx context.Context, e *entry) (kind.Info, error) {
	return d.relistWithin(ctx, e, displays.ReadBudget)
}

func (d *Daemon) relistWithin(ctx context.Context, e *entry, budget time.Duration) (kind.Info, error) {
	if r, ok := e.t.(kind.Refresher); ok {
		return d.rereadWithin(ctx, e, budget, r.Refresh)
	}
	return d.rereadWithin(ctx, e, budget, e.t.Info)
}

func (d *Daemon) reread(ctx context.Context, e *entry, read func(context.Context) (kind.Info, error)) (kind.Info, error) {
	return d.rereadWithin(ctx, e, displays.ReadBudget, read)
}

// rereadWithin is reread with a window's read bounded by budget (a
// display that does not answer: package daemon/displays).
func (d *Daemon) rereadWithin(ctx context.Context, e *entry, budget time.Duration, read func(context.Context) (kind.Info, error)) (kind.Info, error) {
	w := e.words()
	var info kind.Info
	var err error
	if err := d.reg.LostRead(e.disp, e.id, w.Gone, nil); err != nil {
		return info, err // its display died: the window was lost (package daemon/displays)
	}
	if d.reg.Gone(e.disp) {
		err = target.Refuse(w.Gone, "its display is gone")
	} else {
		err = d.reg.Budgeted(ctx, e.disp, e.id, budget, func(ctx context.Context) error {
			var err error
			info, err = read(ctx)
			return err
		})
		if err != nil {
			if lerr := d.reg.LostRead(e.disp, e.id, w.Gone, err); lerr != nil {
				return info, lerr
			}
		}
	}
	if target.CodeOf(err) == w.Gone {
		d.mu.Lock()
		title := e.rec.Title
		d.mu.Unlock()
		d.drop(e.id)
		r, _ := target.AsRefusal(err)
		return info, target.Refuse(w.Gone, "%s %q is gone: %s", e.id, title, r.Message).With("target", string(e.id)).Wrap(err)
	}
	if err != nil {
		return info, err
	}
	d.mu.Lock()
	e.info = info
	e.rec.Title = info.Title
	if info.App != "" { // a tab's URL; a window keeps the program it was opened with
		e.rec.App = info.App
	}
	d.mu.Unlock()
	return info, nil
}

// seen is e's facts as last read.
func (d *Daemon) seen(e *entry) kind.Info {
	d.mu.Lock()
	defer d.mu.Unlock()
	return e.info
}

// info names a target in an answer, with its lease state.
func (d *Daemon) info(e *entry) *TargetInfo {
	d.mu.Lock()
	t := e.rec
	d.mu.Unlock()
	l := d.leases.Get(t.ID)
	ti := &TargetInfo{
		ID: t.ID, Title: t.Title, App: t.App, PID: t.PID, Origin: t.Origin, Exposure: t.Exposure,
		Lease: l.State(), Input: string(l.Input), Holder: l.Holder, User: l.User,
	}
	if t.ID.Kind() == target.KindWindow {
		ti.Mode, ti.Resolved, ti.ModeWhy = modes.Of(t), t.Resolved, t.ModeWhy
	}
	if e.tab != nil {
		ti.CDPID = t.Key
	}
	ti.Desktop, ti.Pixels, ti.Browser = t.Desktop, t.Pixels, t.Browser
	if !l.Since.IsZero() {
		ti.Since = l.Since.UTC().Format(time.RFC3339)
	}
	if !l.UserSince.IsZero() {
		ti.UserSince = l.UserSince.UTC().Format(time.RFC3339)
	}
	d.reg.Watched(e.disp, ti)
	return ti
}

// gone names a target that just went, for the answer of the verb that
// ended it.
func (d *Daemon) gone(ti *TargetInfo) *TargetInfo {
	ti.Lease, ti.Holder = "gone", ""
	return ti
}

// node resolves a ref of e to the node it names: a malformed ref, or one
// never minted for e, is bad_ref.
func (e *entry) node(ref string) (kind.Node, error) {
	key, err := e.refs.Key(ref)
	if err != nil {
		return kind.Node{}, err
	}
	return kind.Node{Ref: ref, Key: key}, nil
}

// notVisible refuses a verb on a window that is unmapped or iconified.
func notVisible(e *entry) error { return displays.NotVisible(e.id) }

// describe names a node in an answer: its role and name.
func describe(n target.NodeTraits) string {
	switch {
	case n.Role != "" && n.Name != "":
		return fmt.Sprintf("(%s %q)", n.Role, n.Name)
	case n.Role != "":
		return "(" + n.Role + ")"
	}
	return ""
}

// xpraWatch reports whether c is watch --xpra: a handle lost with its
// display is refused no_attach for it (there is nothing to attach to),
// window_gone for any other verb.
func xpraWatch(c *stage.Call) bool {
	w, ok := c.Args.(args.Watch)
	return ok && w.Xpra
}
