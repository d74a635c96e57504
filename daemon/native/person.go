package native

import (
	"context"
	"fmt"
	"time"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/x11"
)

// personWatchBudget bounds starting to watch the person's input.
const personWatchBudget = 5 * time.Second

var _ kind.PersonWatcher = (*desktop)(nil)

// WatchPerson watches the person's own keyboards and pointers on their X
// server (XInput 2 raw events from every device but the XTEST ones our
// injection goes through) until the display closes.
func (d *desktop) WatchPerson(touched func(kind.Touch), lost func(error)) error {
	ctx, cancel := context.WithTimeout(context.Background(), personWatchBudget)
	defer cancel()
	h := d.host.(*theirs)
	w, err := x11.WatchInput(ctx, h.env.Display, h.xopts(), func(t x11.Touch) {
		touched(kind.Touch{What: t.What, Device: t.Device, At: t.At})
	})
	if err != nil {
		return fmt.Errorf("the person's keyboard and pointer cannot be watched on %s: %w", h.env.Display, err)
	}
	d.mu.Lock()
	d.person = w
	d.mu.Unlock()
	go func() {
		<-w.Done()
		d.mu.Lock()
		ours := d.person == w // not closed by Close
		d.mu.Unlock()
		if ours {
			err := w.Err()
			if err == nil {
				err = fmt.Errorf("the watch of %s stopped", h.env.Display)
			}
			lost(err)
		}
	}()
	return nil
}

// Close stops watching the person and closes our connections; nothing of
// the person's desktop stops.
func (d *desktop) Close() error {
	d.mu.Lock()
	w := d.person
	d.person = nil
	d.mu.Unlock()
	if w != nil {
		w.Close()
	}
	return d.display.Close()
}
