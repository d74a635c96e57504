package native

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/target"
)

// The AT-SPI registry of our desktop (at-spi2-registryd) can die under us
// (killed, crashed): the desktop then lists no application and no new
// window's tree can be found. The display watches it from the start, and
// when its name loses its owner starts it again at once, the way the
// desktop started it (xvfb.Desktop.StartRegistry); the next use that finds
// it gone (doctor) does the same. Doctor says what happened in words:
// never a refusal code. Applications register again with the new registry
// by themselves. On the person's own desktop the registry is theirs: it is
// watched by nobody here and never started.

// registryBudget bounds starting the registry again.
const registryBudget = 5 * time.Second

// registryWatch is what the display knows of its registry.
type registryWatch struct {
	mu   sync.Mutex // one check at a time
	pid  int        // the registry's process as last seen (0: unknown)
	stop func()     // stops the watch
	// The last loss: when it was seen, the process that ended, and what
	// was done: started again (at, pid) or why not.
	lostAt      time.Time
	lostPID     int
	againAt     time.Time
	againPID    int
	byUs        bool // we started it (not the bus, on a call that needed it)
	againFailed error
}

// watchRegistry starts watching our desktop's registry. A display whose
// registry cannot be watched is still usable: doctor then finds a dead
// registry when it asks.
func (d *display) watchRegistry(ctx context.Context) {
	if _, ok := d.host.(ours); !ok || d.bus == nil {
		return
	}
	pid, _ := d.bus.RegistryPID(ctx)
	d.reg.mu.Lock()
	d.reg.pid = pid
	d.reg.mu.Unlock()
	stop, err := d.bus.WatchRegistry(func() {
		ctx, cancel := context.WithTimeout(context.Background(), registryBudget)
		defer cancel()
		d.reviveRegistry(ctx)
	})
	if err == nil {
		d.reg.mu.Lock()
		d.reg.stop = stop
		d.reg.mu.Unlock()
	}
}

// unwatchRegistry stops the watch (Close).
func (d *display) unwatchRegistry() {
	d.reg.mu.Lock()
	stop := d.reg.stop
	d.reg.stop = nil
	d.reg.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// reviveRegistry looks at who owns the registry now: if nobody does, it
// starts it again; if another process does than the one last seen, the
// one last seen ended (and something started a new one). Either is
// remembered, for doctor, and logged.
func (d *display) reviveRegistry(ctx context.Context) {
	h, ok := d.host.(ours)
	if !ok || d.bus == nil {
		return
	}
	if gone := d.Gone(); gone != nil {
		select {
		case <-gone:
			return // the display died: its registry went with it, and so does the rest
		default:
		}
	}
	d.reg.mu.Lock()
	defer d.reg.mu.Unlock()
	now, err := d.bus.RegistryPID(ctx)
	if err != nil || (now != 0 && now == d.reg.pid) {
		return // the bus did not answer (doctor's own row says so), or nothing changed
	}
	d.reg.lostAt, d.reg.lostPID = time.Now(), d.reg.pid
	d.reg.againFailed, d.reg.byUs = nil, false
	if now == 0 {
		if err := h.alive(ctx); err != nil {
			// The registry ended because its display did (it reads the X
			// server): nothing is started on a dead display.
			d.reg.againFailed, d.reg.pid = fmt.Errorf("its display does not answer: %w", err), 0
			return
		}
		d.reg.byUs = true
		if err := h.StartRegistry(ctx); err != nil {
			d.reg.againFailed, d.reg.pid = err, 0
			d.note("the accessibility registry of %s (pid %d) died and could not be started again: %v", d.Name(), d.reg.lostPID, err)
			return
		}
		now, _ = d.bus.RegistryPID(ctx)
	}
	d.reg.againAt, d.reg.againPID, d.reg.pid = time.Now(), now, now
	// A new registry knows no listener: the object events are asked for
	// again (changes.go).
	if err := d.bus.WatchChanges(ctx); err != nil {
		d.logf("the accessibility bus's object events are not watched: effects are looked for instead: %v", err)
	}
	d.note("the accessibility registry of %s (pid %d) died; started again (pid %d)", d.Name(), d.reg.lostPID, now)
}

// registryWords say the registry's last loss for doctor, "" when it never
// died under us; failed is set when it could not be started again.
func (d *display) registryWords() (words string, failed bool) {
	d.reg.mu.Lock()
	defer d.reg.mu.Unlock()
	if d.reg.lostAt.IsZero() {
		return "", false
	}
	was := "the accessibility registry (at-spi2-registryd"
	if d.reg.lostPID > 0 {
		was += fmt.Sprintf(", pid %d", d.reg.lostPID)
	}
	was += fmt.Sprintf(") was not answering at %s: its process had ended", d.reg.lostAt.UTC().Format(time.RFC3339))
	switch {
	case d.reg.againFailed != nil:
		return was + "; the daemon could not start it again (" + d.reg.againFailed.Error() + "): no tree can be read until it runs", true
	case d.reg.byUs:
		return was + fmt.Sprintf("; the daemon started it again at %s (pid %d); applications register with it again by themselves", d.reg.againAt.UTC().Format(time.RFC3339), d.reg.againPID), false
	}
	return was + fmt.Sprintf("; it was started again at %s (pid %d) by the bus, on a call that needed it; applications register with it again by themselves", d.reg.againAt.UTC().Format(time.RFC3339), d.reg.againPID), false
}

// a11yCheck is doctor's row of the display's accessibility bus: a
// registry found dead is started again first, and said in words.
func (d *display) a11yCheck(ctx context.Context) kind.Check {
	if d.bus == nil {
		return kind.Check{Name: "AT-SPI", Detail: fmt.Sprintf("the accessibility bus did not answer: %v", d.busErr)}
	}
	d.reviveRegistry(ctx)
	lost, failed := d.registryWords()
	apps, err := d.bus.Applications(ctx)
	if err != nil {
		detail := "the accessibility registry is not answering (" + plainErr(err) + "); no tree can be read"
		if lost != "" {
			detail = lost + "; and now " + detail
		}
		return kind.Check{Name: "AT-SPI", Detail: detail}
	}
	detail := fmt.Sprintf("bus %s, %d applications registered", d.bus.Address(), len(apps))
	if lost != "" {
		detail += "; " + lost
	}
	return kind.Check{Name: "AT-SPI", OK: !failed, Detail: detail}
}

// plainErr is err in words, for doctor: a refusal's cause or sentence,
// never its code.
func plainErr(err error) string {
	if r, ok := target.AsRefusal(err); ok {
		if r.Err != nil {
			return r.Err.Error()
		}
		return r.Message
	}
	return err.Error()
}

// note is a progress line (Options.Logf), if the display has a logger.
func (d *display) note(format string, args ...any) {
	if d.logf != nil {
		d.logf(format, args...)
	}
}
