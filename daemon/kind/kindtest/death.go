package kindtest

import (
	"sync"
	"time"

	"github.com/vibespace/vibespace/daemon/kind"
)

var _ kind.Mortal = (*Display)(nil)

// deathState is a fake display's death, once Die played it.
type deathState struct {
	once sync.Once
	gone chan struct{}
	how  kind.Death
}

// gone is the channel Die closes, made on first use. The caller holds d.mu.
func (d *Display) goneLocked() chan struct{} {
	if d.death.gone == nil {
		d.death.gone = make(chan struct{})
	}
	return d.death.gone
}

// Gone is closed by Die (never by Close: a display stopped on purpose is
// not a death).
func (d *Display) Gone() <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.goneLocked()
}

// Death is how Die said the display died.
func (d *Display) Death() kind.Death {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.death.how
}

// Die plays the display's server killed: its windows and applications go
// (as Close), and Gone is closed, with how it ended.
func (d *Display) Die(how string) {
	d.Close()
	d.mu.Lock()
	d.death.how = kind.Death{At: time.Now(), Display: "display " + d.name + " (fake server pid 4242)", How: how}
	gone := d.goneLocked()
	d.mu.Unlock()
	d.death.once.Do(func() { close(gone) })
}
