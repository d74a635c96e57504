package daemon

// An acting verb's effect is watched by a registered stage (a
// stage.Watcher): the verb asks it through its call (call.watchEffect) and the
// core lends it what it may see of the target, the stage's own view of it
// (stageTarget) as a stage.Sight.

import (
	"context"
	"time"

	"github.com/vibespace/vibespace/daemon/displays"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/target"
)

// watchEffect asks the registered watcher to look at c's target before the verb
// acts on a's node (nil: the focused node, or a point) or at a's pixel:
// the first half of verifying. Call it after the verb's checks, once its
// road is decided and its node read, and before it acts; then act, then
// the watch's After (before the answer is finished, so the stages see its
// effect).
func (c *call) watchEffect(ctx context.Context, d *Daemon, a stage.Acting) stage.Watch {
	a.Sight = stageTarget{d: d, e: c.e}
	return d.stages.Watch(ctx, &c.Call, a)
}

func (t stageTarget) Noun() string { return t.e.words().Noun }

func (t stageTarget) Observe(ctx context.Context, f kind.LookFor) kind.Look {
	return kind.LookAt(ctx, t.e.t, f)
}

// Info reads as relist reads (Refresh where the target has it), within the
// target's read budget, and keeps what it read as the target's facts.
func (t stageTarget) Info(ctx context.Context) (title, url string, gone bool, err error) {
	e := t.e
	read := e.t.Info
	if r, ok := e.t.(kind.Refresher); ok {
		read = r.Refresh
	}
	var info kind.Info
	err = t.d.reg.Budgeted(ctx, e.disp, e.id, displays.ReadBudget, func(ctx context.Context) (err error) {
		info, err = read(ctx)
		return err
	})
	if err != nil {
		return "", "", target.CodeOf(err) == e.words().Gone, err
	}
	t.d.mu.Lock()
	e.info, e.rec.Title = info, info.Title // the answer's header names the title as it is now (a click that navigated)
	t.d.mu.Unlock()
	if _, ok := e.t.(kind.Navigator); ok {
		url = info.App // a target that loads addresses: App is its address (else its program)
	}
	return info.Title, url, false, nil
}

// Rescan scans the target's display for new windows now (a dialog the
// action opened), as the discovery loop would, unless a scan is running
// already. A display that lists a whole desktop (kind.Lister) is left to
// the loop: listing it is no cheap look.
func (t stageTarget) Rescan(ctx context.Context) {
	if t.e.disp != nil {
		t.d.reg.Rescan(ctx, t.e.disp)
	}
}

// Seen takes d.mu for each target's title, never across a backend call.
func (t stageTarget) Seen(session string) map[target.ID]string {
	d := t.d
	out := map[target.ID]string{}
	for _, x := range d.entries(func(x *entry) bool { return x.rec.ExposedTo(session) }) {
		d.mu.Lock()
		out[x.id] = x.rec.Title
		d.mu.Unlock()
	}
	return out
}

func (t stageTarget) WaitChange(ctx context.Context, d time.Duration) (bool, bool, error) {
	cw, ok := t.e.t.(kind.ChangeWaiter)
	if !ok {
		return false, false, nil
	}
	changed, err := cw.WaitChange(ctx, d)
	return changed, true, err
}

func (t stageTarget) Changes(ctx context.Context, since uint64, d time.Duration) (kind.Changes, bool, error) {
	ct, ok := t.e.t.(kind.ChangeTeller)
	if !ok {
		return kind.Changes{}, false, nil
	}
	ch, err := ct.Changes(ctx, since, d)
	return ch, true, err
}

func (t stageTarget) Settle(ctx context.Context) {
	if s, ok := t.e.t.(kind.Settler); ok {
		_, _ = s.Settle(ctx)
	}
}
