package chromium

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/target"
)

// The cap on the shared browser's contexts (Options.MaxContexts): a new
// session's context takes a slot, or waits in a first-come queue for one
// as long as its verb may, then is refused pool_busy with its place. A
// slot is freed when a context goes: a context that holds nothing
// disposed of for the queue (reclaim), a detach, the browser's idle stop
// or its end.

// slotWaiter is one session waiting for a context slot; granted is closed
// when a freed slot is handed to it.
type slotWaiter struct {
	granted chan struct{}
}

// reclaimEvery is how often a session waiting for a slot looks again for
// a context that holds nothing.
const reclaimEvery = time.Second

// takeSlot takes a slot for a new context, waiting for one bounded by ctx.
// A full cap first disposes of the contexts that hold nothing (reclaim).
func (p *Pool) takeSlot(ctx context.Context) error {
	for try := 0; ; try++ {
		p.mu.Lock()
		if p.slotsTaken < p.o.MaxContexts && len(p.slotQueue) == 0 {
			p.slotsTaken++
			p.mu.Unlock()
			return nil
		}
		p.mu.Unlock()
		if try > 0 || p.reclaim(ctx) == 0 {
			break
		}
	}
	if p.o.ContextWait > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, p.o.ContextWait)
		defer cancel()
	} else if dl, ok := ctx.Deadline(); ok {
		// The verb's own deadline bounds the wait, less a second to say
		// the place in the queue.
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, dl.Add(-time.Second))
		defer cancel()
	}
	p.mu.Lock()
	w := &slotWaiter{granted: make(chan struct{})}
	p.slotQueue = append(p.slotQueue, w)
	p.mu.Unlock()
	start := time.Now()
	tick := time.NewTicker(reclaimEvery)
	defer tick.Stop()
wait:
	for {
		select {
		case <-w.granted:
			return nil
		case <-ctx.Done():
			break wait
		case <-tick.C:
			p.reclaim(ctx) // a slot freed goes to the first waiter
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-w.granted: // handed a slot as the wait ended: keep it
		return nil
	default:
	}
	pos := slices.Index(p.slotQueue, w) + 1
	queued := len(p.slotQueue)
	p.slotQueue = slices.Delete(p.slotQueue, pos-1, pos)
	return target.Refuse(target.CodePoolBusy,
		"the shared browser holds %d sessions' contexts, its memory cap (%s); you were %d of %d waiting after %v: wait longer (--verb-timeout), or later, when a session detaches or the browser stops idle",
		p.o.MaxContexts, p.o.ContextCapWhy, pos, queued, time.Since(start).Round(time.Millisecond)).
		With("position", pos).With("queued", queued).With("cap", p.o.MaxContexts).Wrap(ctx.Err())
}

// holdContextLocked marks owner's context in use until release: reclaim
// leaves it alone meanwhile.
func (p *Pool) holdContextLocked(owner string, release func()) func() {
	p.ctxBusy[owner]++
	var once sync.Once
	return func() {
		once.Do(func() {
			p.mu.Lock()
			if p.ctxBusy[owner]--; p.ctxBusy[owner] <= 0 {
				delete(p.ctxBusy, owner)
			}
			p.mu.Unlock()
			release()
		})
	}
}

// reclaim disposes of the shared browser's contexts that no verb uses and
// that hold nothing their disposal would lose (no tab, no cookie:
// cdp.Context.Holds), freeing their slots; their sessions get a fresh one
// at their next verb, as empty. It answers how many it freed.
func (p *Pool) reclaim(ctx context.Context) int {
	p.mu.Lock()
	idle := map[string]*cdp.Context{}
	for owner, c := range p.contexts {
		if p.ctxBusy[owner] == 0 {
			idle[owner] = c
		}
	}
	p.mu.Unlock()
	freed := 0
	for owner, c := range idle {
		hctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		tabs, cookies, err := c.Holds(hctx)
		cancel()
		if err != nil || tabs > 0 || cookies > 0 {
			continue
		}
		p.mu.Lock()
		if p.contexts[owner] != c || p.ctxBusy[owner] > 0 { // used meanwhile
			p.mu.Unlock()
			continue
		}
		delete(p.contexts, owner)
		delete(p.ctxOf, owner)
		p.freeSlotsLocked(1)
		p.mu.Unlock()
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		if err := c.Close(dctx); err != nil {
			p.o.Logger.Warn("disposing of an empty browser context", "owner", owner, "err", err)
		}
		cancel()
		p.o.Logger.Info("an empty browser context disposed of for a session waiting under the cap", "owner", owner)
		freed++
	}
	return freed
}

// freeSlotsLocked gives n slots back: each to the first waiter, else to
// the pool.
func (p *Pool) freeSlotsLocked(n int) {
	if p.o.MaxContexts <= 0 {
		return
	}
	for range n {
		if len(p.slotQueue) > 0 {
			w := p.slotQueue[0]
			p.slotQueue = p.slotQueue[1:]
			close(w.granted)
			continue
		}
		if p.slotsTaken > 0 {
			p.slotsTaken--
		}
	}
}

// contextCapCheck is doctor's row of the cap.
func (p *Pool) contextCapCheck() Check {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.o.MaxContexts <= 0 {
		return Check{Name: "browser contexts", OK: true, Detail: fmt.Sprintf("%d of the shared browser's; no cap", len(p.contexts))}
	}
	return Check{Name: "browser contexts", OK: len(p.slotQueue) == 0,
		Detail: fmt.Sprintf("%d of at most %d (%s); %d waiting", p.slotsTaken, p.o.MaxContexts, p.o.ContextCapWhy, len(p.slotQueue))}
}
