// Package verifying is the registered stage that verifies what every
// acting verb (click, type, fill, select, key, scroll) does (a
// stage.Watcher). Before the verb acts it looks at what is cheap and
// relevant to see of its target through what the core lends it
// (stage.Sight) — the acted node's own facts (kind.NodeReader), the
// target's title and URL, the targets the session sees (a new window,
// dialog or tab), and the target's content (kind.ContentDigester) or else,
// on a road with no node to read (a point, keys to the focused node), its
// pixels (its screenshot, as a digest: no picture is kept) — and marks
// where the target's own account of its changes stands (kind.ChangeTeller:
// a window's AT-SPI object events, a page's watcher armed for the act); a
// target that reads the node, the content and its account together
// (kind.Looker: a page, in one call) is asked them in one. Then the verb
// acts, then it looks again — at once, then when the target tells a
// change, or that it is quiet (nothing the act started still pending: the
// wait ends early), or at VerifyWait (going on up to LateWait while the
// target says something the act started is still pending); a target that
// tells no changes is waited on by its sign of change (kind.ChangeWaiter)
// or, where it tells none, looked at every VerifyPoll — and says what it
// saw as a word of target.Effect: a change the target told of any of its
// nodes is confirmed, naming the node. What a look saw, and what the
// effect is, are package daemon/effect's to decide. It imports neither the
// core nor a backend.
package verifying

import (
	"context"
	"sync"
	"time"

	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/effect"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// Name names the stage.
const Name = "verifying"

// DefaultWait and DefaultPoll are the wait and the poll of an Env that
// says none (the daemon's Config says its own: the same values).
const (
	DefaultWait = 500 * time.Millisecond
	DefaultPoll = 50 * time.Millisecond
)

// LateWait is how long the wait may go on while the target says something
// the act started is still pending (kind.Changes.Pending: a page's
// request, or a timer or animation frame its handlers scheduled): an
// effect that comes later than the wait, up to this, is still seen.
const LateWait = 1500 * time.Millisecond

// Stage watches every acting verb.
type Stage struct {
	now        func() time.Time
	wait, poll time.Duration
}

// New makes the stage with env's clock, wait and poll.
func New(env stage.Env) (stage.Stage, error) {
	s := &Stage{now: env.Now, wait: env.VerifyWait, poll: env.VerifyPoll}
	if s.now == nil {
		s.now = time.Now
	}
	if s.wait <= 0 {
		s.wait = DefaultWait
	}
	if s.poll <= 0 {
		s.poll = DefaultPoll
	}
	return s, nil
}

func (s *Stage) Name() string { return Name }

// watch observes one acting verb's target, before and after it acts.
type watch struct {
	s     *Stage
	c     *stage.Call
	sight stage.Sight
	node  *kind.Node  // the node acted on; nil for the focused node or a point
	at    *kind.Point // the pixel acted at: only the region around it is compared
	off   string      // why it does not look ("": it looks)
	// read is the node's facts as the verb read them once for its road
	// (kind.NodeRead.Facts): the look before takes them instead of
	// asking again. nil: the look reads the node itself.
	read *target.Node
	// before is what was seen before the verb acted.
	before effect.Observation
	// mark is where the target's own account of its changes stands
	// (stage.Sight.Changes), taken before the verb acted; 0 when it
	// tells none. told is what it told since, in words (effect.Told).
	mark uint64
	told []string
	left bool // it told its document was left (effect.Observation.Left)
	free bool // asking the target's word without waiting costs nothing (kind.Changes.Free)
}

// Watch looks at c's target before the verb acts on a.Node (nil: the
// focused node, or a point), at a.At of its picture when a point: the
// first half of verifying. The verb calls it after its checks and before
// it acts; then acts, then the watch's After. Of its pixels only the
// region around a.At is compared (a scroll bar fading or a list still
// scrolling elsewhere is not this action's effect); a.Read (nil: none) is
// the node as the verb read it already, which the look before takes as it
// is.
func (s *Stage) Watch(ctx context.Context, c *stage.Call, a stage.Acting) stage.Watch {
	w := &watch{s: s, c: c, sight: a.Sight, node: a.Node, at: a.At, read: a.Read}
	if args.NoVerify(c.Args) {
		w.off = "verification off"
		return w
	}
	octx, cancel := context.WithTimeout(ctx, s.wait)
	// The target's word is armed by the look before, not after it: where
	// arming asks the target (a page's watcher) it rides on the look's
	// own call (kind.Looker), and the look changes nothing. Where arming
	// is free (a window's events, counted here) it is armed again once
	// the look is done, so nothing that came during the look is taken
	// for the act's.
	var armed kind.Look
	w.before, armed = w.observe(octx, true, 0)
	ch, ok, err := armed.Changes, armed.ChangesOK, armed.ChangesErr
	if ok && err == nil && ch.Free {
		ch, ok, err = w.sight.Changes(octx, 0, 0)
	}
	if ok && err == nil {
		w.mark, w.free = ch.Mark, ch.Free
	}
	c.Before = w.before.Digest()
	cancel()
	switch {
	case w.before.Node == nil && w.before.Content == "" && !w.before.HasInfo:
		w.off = "no tree and no pixels of " + string(w.sight.ID()) + " to look at"
	case a.Node == nil && w.before.Content == "":
		w.off = "no node to read and no pixels of " + string(w.sight.ID()) + " to look at"
	}
	return w
}

// Node is the acted node as the look before saw it.
func (w *watch) Node() *target.Node { return w.before.Node }

// Unverified says, without looking, that the effect is unverifiable.
func (w *watch) Unverified(resp *wire.Response, why string) {
	w.off = why
	w.After(context.Background(), resp)
}

// After watches, after the verb acted, until something changed or the
// wait ended, and puts what it saw on resp: its Effect, and the effect's
// words after resp.Did. The wait ends early at a change, at VerifyWait, at
// the verb's deadline, or at a takeover (ctx is cancelled).
func (w *watch) After(ctx context.Context, resp *wire.Response) {
	s, c := w.s, w.c
	start := s.now()
	eff := &target.Effect{}
	defer func() {
		eff.WaitedMS = int(s.now().Sub(start) / time.Millisecond)
		resp.Effect = eff
		resp.Did += effect.Words(eff)
	}()
	if w.off != "" {
		eff.Word, eff.Why = target.EffectUnverifiable, w.off
		return
	}
	// Injected input is read by the application later than it is sent
	// (an X client reads its events from the server's queue): the wait
	// for its effect starts once the application has read it, so a
	// starved application is not taken for one that did nothing.
	if c.Road == target.RoadPoint || c.Road == target.RoadKeys {
		sctx, cancel := context.WithTimeout(ctx, s.wait)
		w.sight.Settle(sctx) // a failure only means the wait starts now
		cancel()
	}
	deadline := s.now().Add(s.wait)
	// late is how far the wait may go on while the target says something
	// the act started is still pending (a page's request or timer).
	late := s.now().Add(max(s.wait, LateWait))
	if dl, ok := ctx.Deadline(); ok {
		if dl.Before(deadline) {
			deadline = dl
		}
		if dl.Before(late) {
			late = dl
		}
	}
	// Each look is bounded too: an application that stopped answering
	// leaves the node unread, not the verb waiting.
	octx, cancel := context.WithDeadline(ctx, late.Add(2*s.poll))
	defer cancel()
	t := time.NewTimer(0)
	defer t.Stop()
	seen := w.before
	waits := true       // the target may tell a sign of change (WaitChange)
	last := false       // the next look is the one the wait ends with
	heardAfter := false // the target's word was heard with a wait
	for {
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		if ctx.Err() != nil {
			break
		}
		looked := s.now()
		lctx := octx
		if last && !s.now().Before(deadline) {
			// The look the wait ends with has its own bound (a look's
			// margin), from when it starts: the sign's wait ran to the
			// deadline. (One that ends it earlier — at a change, or a
			// quiet page — is bounded as every look is.)
			var cancel context.CancelFunc
			lctx, cancel = context.WithTimeout(ctx, 2*s.poll)
			defer cancel()
		}
		// Where the target tells what changed but not for free, its
		// word is asked in the look (it rides on the look's call where
		// the target reads a look in one: kind.Looker), and taken only
		// where it would be asked after it (below).
		var ask uint64
		if w.mark != 0 && !w.free {
			ask = w.mark
		}
		now, look := w.observe(lctx, false, ask)
		if now.Content != "" && now.Content == seen.Content {
			now.ContentT = seen.ContentT
		}
		var free heard
		if w.free {
			free = w.hear(lctx, 0) // the target's word costs nothing to ask: at every look
		}
		now.Told, now.Left = w.told, w.left
		at, elsewhere := w.compare(now)
		if len(elsewhere) > 0 && len(at) == 0 && w.mark != 0 && !w.free {
			// Something changed: the target's own word names what (its
			// answer in the look, or one question, asked only then).
			if look.ToldOK {
				w.take(look.Told, look.ToldErr)
			} else {
				w.hear(lctx, 0)
			}
			now.Told, now.Left = w.told, w.left
			at, elsewhere = w.compare(now)
		}
		seen = now
		leaving := effect.Leaving(w.before, now) // all seen is the way to the next document
		if last || !leaving && (len(at) > 0 || effect.Lasting(w.before, now, elsewhere, s.now())) {
			break
		}
		left := deadline.Sub(s.now())
		if left < 2*s.poll && w.mark != 0 && !heardAfter && !free.pending && late.After(deadline) {
			// The looks took (nearly) the whole wait (a loaded machine)
			// before the target's word was heard with a wait: a reading
			// without one, or as short, cannot say the act's work is
			// pending (an application caught running, or not yet woken
			// by the act, has no timer to show). It is heard for two
			// polls, as below; pending then, the wait goes on up to
			// LateWait.
			left = 2 * s.poll
			deadline = s.now().Add(left)
		}
		if (left <= 0 && free.pending || leaving) && late.After(deadline) {
			// The wait ran out while looking (a look that took it all,
			// on a loaded machine), but the target says the act started
			// something still pending: it goes on, as below. A
			// navigation on its way (the document left, the address not
			// moved yet) is pending till its address moves.
			deadline = late
			left = deadline.Sub(s.now())
		}
		if left <= 0 {
			break
		}
		if leaving {
			// The old document's watcher and its signs went with it:
			// look every poll until the address moves.
			t.Reset(min(s.poll, left))
			continue
		}
		if w.mark != 0 {
			// Where the target tells what changed in it (a window's
			// object events, a page's watcher), wait for its word
			// instead of looking every poll: at a change, at quiet (a
			// page with nothing the act started still pending), or at
			// the deadline, look once more: the look the wait ends
			// with. While it says something is pending at the
			// deadline, the wait goes on, up to LateWait.
			h := w.hear(octx, left)
			heardAfter = true
			for h.ok && !h.told && !h.quiet && h.pending && late.After(deadline) {
				deadline = late
				h = w.hear(octx, deadline.Sub(s.now()))
			}
			if h.ok {
				// A change told in words, quiet, or the deadline: the
				// look the wait ends with. A change told only of the
				// acted node (its own read says it) or of the focus the
				// verb moved itself: one look, and the wait goes on if
				// it shows nothing (a button's press drawn, then its
				// timer's work).
				t.Reset(0)
				last = !h.told || h.said
				continue
			}
		}
		if waits {
			// Where the target tells a sign of change (a page's
			// mutations), wait for one instead of looking every poll:
			// at a sign, look again (at most once a poll, as polling
			// would: a page that moves all the time costs no more);
			// none till the deadline, look once more then. What a sign
			// does not cover (a new tab, an address pushed without a
			// mutation) is still seen by that last look.
			changed, ok, err := w.sight.WaitChange(octx, left)
			switch {
			case ok && err == nil && changed:
				t.Reset(max(0, min(s.poll-s.now().Sub(looked), deadline.Sub(s.now()))))
				continue
			case ok && err == nil:
				t.Reset(0) // the deadline: the last look
				last = true
				continue
			}
			waits = false // it cannot tell: look every poll
			left = deadline.Sub(s.now())
			if left <= 0 {
				t.Reset(0) // the deadline passed waiting: the last look
				last = true
				continue
			}
		}
		t.Reset(min(s.poll, left))
	}
	c.After = seen.Digest()
	at, elsewhere := w.compare(seen)
	var cut error
	if ctx.Err() != nil && s.now().Before(deadline) {
		cut = ctx.Err()
	}
	unanswered := ""
	if w.before.Node != nil && seen.NodeErr == effect.NodeUnanswered {
		unanswered = w.node.Ref
	}
	*eff = effect.Judge(at, elsewhere, cut, unanswered)
}

// heard is what one question to the target's own word answered.
type heard struct {
	ok                   bool // it answered (false: it cannot tell; not asked again)
	told, quiet, pending bool // kind.Changes's: a change, Quiet, Pending
	said                 bool // a change told that says something (effect.Told's words)
}

// hear takes what the target told changed since the watch's mark,
// waiting up to d for the first change or for quiet. A target that
// cannot tell now is not asked again (it is looked at).
func (w *watch) hear(ctx context.Context, d time.Duration) heard {
	if w.mark == 0 {
		return heard{}
	}
	ch, ok, err := w.sight.Changes(ctx, w.mark, d)
	if !ok {
		w.mark = 0
		return heard{}
	}
	return w.take(ch, err)
}

// take takes what the target told since the watch's mark (err: it could
// not tell now; it is not asked again, but looked at).
func (w *watch) take(ch kind.Changes, err error) heard {
	if err != nil {
		w.mark = 0
		return heard{}
	}
	w.mark = ch.Mark
	key := ""
	if w.node != nil {
		key = w.node.Key
	}
	said := effect.Told(ch.Seen, key, w.c.Facts.Focuses)
	w.told = append(w.told, said...)
	for _, c := range ch.Seen {
		w.left = w.left || c.What == "navigated"
	}
	return heard{ok: true, told: len(ch.Seen) > 0, said: len(said) > 0, quiet: ch.Quiet, pending: ch.Pending}
}

// observe reads what is cheap to see of the target now, arms its own word
// where arm is set (the look before: the Changes of the look it answers),
// and asks it what changed after mark told where not 0 (the look's Told,
// where the target reads a look in one); what cannot be read is left empty
// and not compared. Its reads are independent of each other (the title and
// address, the targets, the look's — the node, the content, the word,
// through one call where the target reads them together: kind.Looker — or
// else the pixels) and go at once, each on its own goroutine writing its
// own fields of the observation: a look costs the longest of them, not
// their sum.
func (w *watch) observe(ctx context.Context, arm bool, told uint64) (effect.Observation, kind.Look) {
	o := effect.Observation{ContentT: w.s.now()}
	var wg sync.WaitGroup
	f := kind.LookFor{Digest: true, Arm: arm, Told: told}
	if w.node != nil && w.read != nil {
		o.Node, w.read = w.read, nil // the verb's own read, once: the look before
	} else if w.node != nil {
		f.Node = w.node
	}
	info := func() {
		// Read as relist reads, but a target that went is left in the
		// table: the next verb on it answers its gone code, as for any
		// target.
		title, url, gone, err := w.sight.Info(ctx)
		switch {
		case err == nil:
			o.HasInfo, o.Title, o.URL = true, title, url // URL: a target that loads addresses only
		case gone:
			o.Gone = true
		}
	}
	wg.Go(info)
	wg.Go(func() {
		w.sight.Rescan(ctx)
		o.Targets = w.sight.Seen(w.c.Req.Session)
	})
	var l kind.Look
	wg.Go(func() {
		l = w.sight.Observe(ctx, f)
		switch {
		case !l.NodeOK:
		case l.NodeErr == nil:
			o.Node = l.Node
		case target.CodeOf(l.NodeErr) == target.CodeStaleRef:
			o.NodeErr = string(target.CodeStaleRef)
		default:
			o.NodeErr = effect.NodeUnanswered
		}
		if l.DigestOK {
			if l.DigestErr == nil {
				o.Content = l.Digest
			}
		} else if (w.node == nil || w.c.Road == target.RoadPoint) && w.mayReadPixels() {
			// Pixels only where no node is read (a point, keys to the
			// focused node): a toolkit animates the node it acts on (a
			// button's press, a check's tick), which would read as a
			// change elsewhere. (They are read after the look, which
			// then reads no node: a point road with a node is a tab's,
			// which digests.)
			if pic, err := w.sight.Screenshot(ctx); err == nil && len(pic) > 0 {
				o.Content, o.Pixels = effect.PixelDigest(pic, w.at), true
			}
		}
	})
	wg.Wait()
	if o.NodeErr == string(target.CodeStaleRef) {
		// The node went while the title and address were read beside
		// it: a page that navigated may have been asked its address
		// before its new document came. Read them again, after.
		info()
	}
	return o, l
}

// mayReadPixels reports whether the watch may read the target's pixels: a
// window of the person's own desktop only with the operator's pixels grant
// (a screenshot there may ask the person).
func (w *watch) mayReadPixels() bool {
	mine, pixels := w.sight.Desktop()
	return !mine || pixels
}

// compare says what changed between w.before and now: at the acted node
// (or the tab's address), and elsewhere.
func (w *watch) compare(now effect.Observation) (at, elsewhere []string) {
	s := effect.Subject{ID: w.sight.ID(), Noun: w.sight.Noun(), Focuses: w.c.Facts.Focuses}
	if w.node != nil {
		s.Ref = w.node.Ref
	}
	at, elsewhere = effect.Compare(w.before, now, s)
	return append(at, now.Told...), elsewhere
}
