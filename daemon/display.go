package daemon

import (
	"context"
	"time"

	"github.com/vibespace/vibespace/target"
)

// currentDisplay is the display if it is up, else nil.
func (d *Daemon) currentDisplay() Display {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.display
}

// ensureDisplay returns our display, bringing it up on first use. Only one
// caller brings it up; the others wait for it under their own context.
func (d *Daemon) ensureDisplay(ctx context.Context) (Display, error) {
	if disp := d.currentDisplay(); disp != nil {
		return disp, nil
	}
	select {
	case d.dispGate <- struct{}{}:
	case <-ctx.Done():
		return nil, target.Refuse(target.CodeTimeout, "the display was still starting").Wrap(ctx.Err())
	}
	defer func() { <-d.dispGate }()
	if disp := d.currentDisplay(); disp != nil {
		return disp, nil
	}
	t0 := time.Now()
	disp, err := d.cfg.Backend.Start(ctx)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		disp.Close()
		return nil, target.Refuse(codeInternal, "the daemon is shutting down")
	}
	d.display = disp
	d.mu.Unlock()
	d.cfg.Logger.Info("display up", "display", disp.Name(), "took", time.Since(t0))
	d.persist()
	return disp, nil
}

// resetIfDead checks a display whose launch failed: if it no longer
// answers (its X server or bus died under us), it is closed, its targets
// are dropped, and the next ensureDisplay starts a new one. It reports
// whether it reset.
func (d *Daemon) resetIfDead(ctx context.Context, disp Display) bool {
	err := disp.Healthy(ctx)
	if err == nil {
		return false
	}
	d.cfg.Logger.Warn("our display died; starting a new one", "display", disp.Name(), "err", err)
	d.mu.Lock()
	if d.display != disp {
		d.mu.Unlock()
		return true
	}
	d.display = nil
	var gone []target.ID
	for id := range d.targets {
		gone = append(gone, id)
	}
	d.targets = make(map[target.ID]*entry)
	d.mu.Unlock()
	for _, id := range gone {
		d.leases.Drop(id)
	}
	disp.Close()
	d.persist()
	return true
}
