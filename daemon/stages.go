package daemon

import (
	"context"

	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/target"
)

// stageEnv is what the core gives every registered stage as it makes it.
func (d *Daemon) stageEnv() stage.Env {
	return stage.Env{
		StateDir:        d.cfg.StateDir,
		Now:             d.cfg.Now,
		Logger:          d.cfg.Logger,
		Owe:             d.owe,
		Wrote:           d.wrote,
		Record:          d.record,
		Persist:         func() { d.persist() },
		Alive:           func(id target.ID) bool { return d.entryOf(id) != nil },
		VerifyWait:      d.cfg.VerifyWait,
		VerifyPoll:      d.cfg.VerifyPoll,
		NoProgressAfter: d.cfg.NoProgressAfter,
		TracePictureMax: d.cfg.TracePictureMax,
		TraceSteps:      d.cfg.TraceSteps,
		TraceRetention:  d.cfg.TraceRetention,
		Keys:            d.keys,
		Sees: func(session string, id target.ID) (seen, known bool) {
			e := d.entryOf(id)
			if e == nil {
				return false, false
			}
			d.mu.Lock()
			defer d.mu.Unlock()
			return e.rec.ExposedTo(session), true
		},
		Hands: browserHands{d}, // the browser's stages' (browser.go)
	}
}

// stageTarget is the target a verb reached, as the stages see it.
type stageTarget struct {
	d *Daemon
	e *entry
}

func (t stageTarget) ID() target.ID { return t.e.id }

func (t stageTarget) NodeKey(ref string) string {
	if n, err := t.e.node(ref); ref != "" && err == nil {
		return n.Key
	}
	return ""
}

func (t stageTarget) Bounds(ref string) (win, node target.Rect, ok bool) {
	t.d.mu.Lock()
	defer t.d.mu.Unlock()
	win = t.e.info.Bounds
	if ref != "" {
		node, ok = t.e.bounds[ref]
	}
	return win, node, ok
}

func (t stageTarget) Desktop() (mine, pixels bool) {
	t.d.mu.Lock()
	defer t.d.mu.Unlock()
	return t.e.rec.Desktop, t.e.rec.Pixels
}

func (t stageTarget) Screenshot(ctx context.Context) ([]byte, error) { return t.e.t.Screenshot(ctx) }
