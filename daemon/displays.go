package daemon

import (
	"context"
	"strings"
	"time"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/target"
)

// display is one running display and what the daemon keeps beside it: the
// gates its windows share.
type display struct {
	name string // its provider's name: how targets and records name it
	d    kind.Display
	// inject is one slot: one injected input sequence at a time, since the
	// display has one keyboard and one pointer. injectOwner (guarded by
	// Daemon.mu) is the target whose input holds it.
	inject      chan struct{}
	injectOwner *entry
	// stack is one slot: between raising a window and acting on what is on
	// screen, no verb of ours raises another window of this display.
	stack chan struct{}
	// stalled (guarded by Daemon.mu) is when the display was found not
	// answering; zero while it answers (stall.go).
	stalled time.Time
}

func newDisplay(p kind.DisplayProvider, d kind.Display) *display {
	return &display{name: p.Name(), d: d, inject: make(chan struct{}, 1), stack: make(chan struct{}, 1)}
}

// provider is the registered display provider of name, or nil.
func (d *Daemon) provider(name string) kind.DisplayProvider {
	for _, p := range d.cfg.Displays {
		if p.Name() == name {
			return p
		}
	}
	return nil
}

// providerFor resolves open's --display: "" is the first registered one.
func (d *Daemon) providerFor(name string) (kind.DisplayProvider, error) {
	if len(d.cfg.Displays) == 0 {
		return nil, target.Refuse(target.CodeNoDisplay, "this daemon has no display for windows (it was started without one; see doctor)")
	}
	if name == "" {
		return d.cfg.Displays[0], nil
	}
	if p := d.provider(name); p != nil {
		return p, nil
	}
	return nil, target.Refuse(target.CodeNoDisplay, "there is no display %s here; the displays are: %s", target.Echo(name), strings.Join(d.displayNames(), ", ")).
		With("display", target.Clip(name)).With("displays", d.displayNames())
}

func (d *Daemon) displayNames() []string {
	var out []string
	for _, p := range d.cfg.Displays {
		out = append(out, p.Name())
	}
	return out
}

// runningDisplay is the display of name if it is up, else nil.
func (d *Daemon) runningDisplay(name string) *display {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.displays[name]
}

// ensureDisplay returns p's display, bringing it up on first use. Only one
// caller brings it up; the others wait for it under their own context.
func (d *Daemon) ensureDisplay(ctx context.Context, p kind.DisplayProvider) (*display, error) {
	if disp := d.runningDisplay(p.Name()); disp != nil {
		return disp, nil
	}
	slot := d.displaySlots[p.Name()]
	select {
	case slot <- struct{}{}:
	case <-ctx.Done():
		return nil, target.Refuse(target.CodeTimeout, "the display %s was still starting", p.Name()).Wrap(ctx.Err())
	}
	defer func() { <-slot }()
	if disp := d.runningDisplay(p.Name()); disp != nil {
		return disp, nil
	}
	t0 := time.Now()
	kd, err := p.Start(ctx)
	if err != nil {
		return nil, err
	}
	disp := newDisplay(p, kd)
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		kd.Close()
		return nil, target.Refuse(codeInternal, "the daemon is shutting down")
	}
	d.displays[p.Name()] = disp
	d.mu.Unlock()
	d.cfg.Logger.Info("display up", "display", p.Name(), "name", kd.Name(), "took", time.Since(t0))
	d.persist()
	return disp, nil
}

// resetIfDead checks a display whose launch failed: if it no longer answers
// (its X server or bus died under us), it is closed, its targets are
// dropped, and the next ensureDisplay starts a new one. It reports whether
// it reset.
func (d *Daemon) resetIfDead(ctx context.Context, disp *display) bool {
	err := disp.d.Healthy(ctx)
	if err == nil {
		return false
	}
	d.cfg.Logger.Warn("a display died; starting a new one", "display", disp.name, "err", err)
	d.mu.Lock()
	if d.displays[disp.name] != disp {
		d.mu.Unlock()
		return true
	}
	delete(d.displays, disp.name)
	var gone []target.ID
	for id, e := range d.targets {
		if e.disp == disp {
			gone = append(gone, id)
			delete(d.targets, id)
		}
	}
	d.mu.Unlock()
	for _, id := range gone {
		d.leases.Drop(id)
	}
	disp.d.Close()
	d.persist()
	return true
}

// displayGone reports whether e lives on a display that is no longer the
// running one of its name (it died and was reset, or the daemon closed).
func (d *Daemon) displayGone(e *entry) bool {
	if e.disp == nil {
		return false
	}
	return d.runningDisplay(e.disp.name) != e.disp
}
