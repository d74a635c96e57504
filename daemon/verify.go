package daemon

// Verifying an action: every acting verb (click, type, fill, select, key,
// scroll) looks, before it acts, at what is cheap and relevant to see of
// its target through the kind seam — the acted node's own facts
// (kind.NodeReader), the target's title and URL, the targets the session
// sees (a new window, dialog or tab), and the target's content
// (kind.ContentDigester) or else, on a road with no node to read (a
// point, keys to the focused node), its pixels (its screenshot, as a digest:
// no picture is kept) — then acts, then looks again every VerifyPoll until
// something changed or VerifyWait passed, and says what it saw as a word
// of target.Effect.

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image"
	"image/png"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/target"
)

// pixelHold is how long a change seen only in a window's pixels must last
// before it ends the wait: a toolkit may show a button pressed, or animate
// a transition, for a moment after input and then draw it as before.
const pixelHold = 300 * time.Millisecond

// transientStates are states a node shows for a moment while it is acted
// on, never an effect of the action.
var transientStates = []string{"armed"}

// nodeUnanswered is observation.nodeErr for a node read that failed
// otherwise than stale_ref (the application did not answer in time).
const nodeUnanswered = "unanswered"

// observation is what a watch saw of its target at one moment.
type observation struct {
	node     *target.Node // the acted node's facts; nil when not read
	nodeErr  string       // why the node could not be read (gone: its code)
	gone     bool         // the target itself is gone (the action closed it)
	hasInfo  bool
	title    string
	url      string
	targets  map[target.ID]string // the targets the session sees: id → title
	content  string               // a digest of the content or pixels; "" when not read
	pixels   bool                 // content is of the pixels
	contentT time.Time            // when content was first seen as it is now
}

// watch observes one acting verb's target, before and after it acts.
type watch struct {
	d    *Daemon
	c    *call
	node *kind.Node  // the node acted on; nil for the focused node or a point
	at   *kind.Point // the pixel acted at: only the region around it is compared
	off  string      // why it does not look ("": it looks)
	// read is the node's facts as the verb read them once for its road
	// (kind.NodeRead.Facts): the look before takes them instead of
	// asking again. nil: the look reads the node itself.
	read *target.Node
	// before is what was seen before the verb acted.
	before observation
}

// watchBefore looks at c's target before the verb acts on node n (nil: the
// focused node, or a point): the first half of verifying. Call it after the
// verb's checks and before it acts; then act, then w.verify.
func (d *Daemon) watchBefore(ctx context.Context, c *call, n *kind.Node) *watch {
	return d.watchAt(ctx, c, n, nil, nil)
}

// watchAt is watchBefore for input at pixel at of the target's picture:
// of its pixels only the region around at is compared (a scroll bar fading
// or a list still scrolling elsewhere is not this action's effect); read
// (nil: none) is the node n as the verb read it already, which the look
// before takes as it is.
func (d *Daemon) watchAt(ctx context.Context, c *call, n *kind.Node, at *kind.Point, read *target.Node) *watch {
	w := &watch{d: d, c: c, node: n, at: at, read: read}
	if c.Req.NoVerify {
		w.off = "verification off"
		return w
	}
	octx, cancel := context.WithTimeout(ctx, d.cfg.VerifyWait)
	w.before = w.observe(octx)
	cancel()
	c.Before = w.before.digest()
	switch {
	case w.before.node == nil && w.before.content == "" && !w.before.hasInfo:
		w.off = "no tree and no pixels of " + string(c.e.id) + " to look at"
	case n == nil && w.before.content == "":
		w.off = "no node to read and no pixels of " + string(c.e.id) + " to look at"
	}
	return w
}

// verify watches, after the verb acted, until something changed or the
// wait ended, and puts what it saw on resp: its Effect, and the effect's
// words after resp.Did. The wait ends early at a change, at VerifyWait, at
// the verb's deadline, or at a takeover (ctx is cancelled).
func (w *watch) verify(ctx context.Context, resp *Response) {
	d, c := w.d, w.c
	start := d.cfg.Now()
	eff := &target.Effect{}
	defer func() {
		eff.WaitedMS = int(d.cfg.Now().Sub(start) / time.Millisecond)
		resp.Effect = eff
		resp.Did += effectWords(eff)
	}()
	if w.off != "" {
		eff.Word, eff.Why = target.EffectUnverifiable, w.off
		return
	}
	// Injected input is read by the application later than it is sent
	// (an X client reads its events from the server's queue): the wait
	// for its effect starts once the application has read it, so a
	// starved application is not taken for one that did nothing.
	if s, ok := c.e.t.(kind.Settler); ok && (c.Road == target.RoadPoint || c.Road == target.RoadKeys) {
		sctx, cancel := context.WithTimeout(ctx, d.cfg.VerifyWait)
		_, _ = s.Settle(sctx) // a failure only means the wait starts now
		cancel()
	}
	deadline := d.cfg.Now().Add(d.cfg.VerifyWait)
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	// Each look is bounded too: an application that stopped answering
	// leaves the node unread, not the verb waiting.
	octx, cancel := context.WithDeadline(ctx, deadline.Add(2*d.cfg.VerifyPoll))
	defer cancel()
	t := time.NewTimer(0)
	defer t.Stop()
	last := w.before
	for {
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		if ctx.Err() != nil {
			break
		}
		now := w.observe(octx)
		if now.content != "" && now.content == last.content {
			now.contentT = last.contentT
		}
		last = now
		at, elsewhere := w.compare(now)
		if len(at) > 0 || w.lasting(now, elsewhere) {
			break
		}
		left := deadline.Sub(d.cfg.Now())
		if left <= 0 {
			break
		}
		t.Reset(min(d.cfg.VerifyPoll, left))
	}
	c.After = last.digest()
	at, elsewhere := w.compare(last)
	switch {
	case len(at) > 0:
		eff.Word, eff.Seen = target.EffectConfirmed, append(at, elsewhere...)
	case len(elsewhere) > 0:
		eff.Word, eff.Seen = target.EffectChangedElsewhere, elsewhere
	case ctx.Err() != nil && d.cfg.Now().Before(deadline):
		eff.Word, eff.Why = target.EffectUnverifiable, "the wait was cut short: "+ctx.Err().Error()
	case w.before.node != nil && last.nodeErr == nodeUnanswered:
		eff.Word, eff.Why = target.EffectUnverifiable, "the application did not answer for "+w.node.Ref+" within the wait"
	default:
		eff.Word = target.EffectNoVisibleChange
	}
}

// lasting reports whether the changes seen elsewhere end the wait: any but
// a change of pixels alone, which must last pixelHold.
func (w *watch) lasting(now observation, elsewhere []string) bool {
	if len(elsewhere) == 0 {
		return false
	}
	if now.pixels && now.content != w.before.content && len(elsewhere) == 1 {
		return w.d.cfg.Now().Sub(now.contentT) >= pixelHold
	}
	return true
}

// observe reads what is cheap to see of the target now; what cannot be
// read is left empty and not compared.
func (w *watch) observe(ctx context.Context) observation {
	d, c, e := w.d, w.c, w.c.e
	o := observation{contentT: d.cfg.Now()}
	if w.node != nil && w.read != nil {
		o.node, w.read = w.read, nil // the verb's own read, once: the look before
	} else if w.node != nil {
		if r, ok := e.t.(kind.NodeReader); ok {
			n, err := r.ReadNode(ctx, *w.node)
			switch {
			case err == nil:
				o.node = n
			case target.CodeOf(err) == target.CodeStaleRef:
				o.nodeErr = string(target.CodeStaleRef)
			default:
				o.nodeErr = nodeUnanswered
			}
		}
	}
	// Read as relist reads, but a target that went is left in the table:
	// the next verb on it answers its gone code, as for any target.
	read := e.t.Info
	if r, ok := e.t.(kind.Refresher); ok {
		read = r.Refresh
	}
	var info kind.Info
	err := d.budgeted(ctx, e, readBudget, func(ctx context.Context) (err error) {
		info, err = read(ctx)
		return err
	})
	switch {
	case err == nil:
		o.hasInfo, o.title = true, info.Title
		if _, ok := e.t.(kind.Navigator); ok {
			o.url = info.App // a target that loads addresses: App is its address (else its program)
		}
	case target.CodeOf(err) == e.words().Gone:
		o.gone = true
	}
	if e.disp != nil {
		d.rescan(ctx, e.disp)
	}
	o.targets = map[target.ID]string{}
	for _, x := range d.entries(func(x *entry) bool { return x.rec.ExposedTo(c.Req.Session) }) {
		d.mu.Lock()
		o.targets[x.id] = x.rec.Title
		d.mu.Unlock()
	}
	if cd, ok := e.t.(kind.ContentDigester); ok {
		if s, err := cd.ContentDigest(ctx); err == nil {
			o.content = s
		}
	} else if (w.node == nil || c.Road == target.RoadPoint) && w.mayReadPixels() {
		// Pixels only where no node is read (a point, keys to the focused
		// node): a toolkit animates the node it acts on (a button's press,
		// a check's tick), which would read as a change elsewhere.
		if pic, err := e.t.Screenshot(ctx); err == nil && len(pic) > 0 {
			o.content, o.pixels = pixelDigest(pic, w.at), true
		}
	}
	return o
}

// mayReadPixels reports whether the watch may read the target's pixels: a
// window of the person's own desktop only with the operator's pixels grant
// (a screenshot there may ask the person).
func (w *watch) mayReadPixels() bool {
	w.d.mu.Lock()
	defer w.d.mu.Unlock()
	return !w.c.e.rec.Desktop || w.c.e.rec.Pixels
}

// rescan scans disp for new windows now (a dialog the action opened), as
// the discovery loop would, unless a scan is running already. A display
// that lists a whole desktop (kind.Lister) is left to the loop: listing it
// is no cheap look.
func (d *Daemon) rescan(ctx context.Context, disp *display) {
	if _, ok := disp.d.(kind.Lister); ok {
		return
	}
	select {
	case d.scanSlot <- struct{}{}:
	default:
		return // the running scan finds what this one would
	}
	defer func() { <-d.scanSlot }()
	d.discoverOn(ctx, disp)
}

// compare says what changed between w.before and now: at the acted node
// (or the tab's address), and elsewhere.
func (w *watch) compare(now observation) (at, elsewhere []string) {
	b := w.before
	if now.gone && !b.gone {
		return []string{string(w.c.e.id) + " closed"}, nil
	}
	if w.node != nil {
		switch {
		case b.node != nil && now.nodeErr == string(target.CodeStaleRef):
			at = append(at, w.node.Ref+" is gone")
		case b.node != nil && now.node != nil:
			at = append(at, nodeChanges(b.node, now.node, w.c.Facts.Focuses)...)
		}
	}
	if b.hasInfo && now.hasInfo {
		if b.url != now.url && b.url != "" && now.url != "" {
			at = append(at, "url: "+shortURL(b.url, now.url)+" → "+shortURL(now.url, b.url))
		}
		if b.title != now.title {
			elsewhere = append(elsewhere, fmt.Sprintf("title: %q → %q", b.title, now.title))
		}
	}
	if b.targets != nil && now.targets != nil {
		noun := func(id target.ID) string { return id.Kind().Words().Noun }
		for _, id := range sortedIDs(now.targets) {
			if _, ok := b.targets[id]; !ok {
				elsewhere = append(elsewhere, fmt.Sprintf("new %s %s %q", noun(id), id, now.targets[id]))
			}
		}
		for _, id := range sortedIDs(b.targets) {
			if _, ok := now.targets[id]; !ok && id != w.c.e.id {
				elsewhere = append(elsewhere, fmt.Sprintf("%s %s %q closed", noun(id), id, b.targets[id]))
			}
		}
	}
	if b.content != "" && now.content != "" && b.content != now.content {
		what := "the page's content changed"
		if now.pixels {
			what = "the " + w.c.e.words().Noun + "'s pixels changed"
		}
		elsewhere = append(elsewhere, what)
	}
	return at, elsewhere
}

func sortedIDs(m map[target.ID]string) []target.ID {
	ids := make([]target.ID, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// nodeChanges says, in words, how node a became b: its states, its text
// (by its length: never the text itself), its name, its value (a range
// control's). Focus moving to the node a verb that focuses acted on (a
// click) is not a change the verb meant.
func nodeChanges(a, b *target.Node, focuses bool) []string {
	ignore := func(s string) bool {
		return slices.Contains(transientStates, s) || (s == "focused" && focuses)
	}
	var out []string
	for _, s := range b.States {
		if !ignore(s) && !slices.Contains(a.States, s) {
			out = append(out, stateChange(s, true))
		}
	}
	for _, s := range a.States {
		if !ignore(s) && !slices.Contains(b.States, s) {
			out = append(out, stateChange(s, false))
		}
	}
	switch {
	case a.TextLen != b.TextLen:
		out = append(out, fmt.Sprintf("text: %d → %d characters", a.TextLen, b.TextLen))
	case a.Text != b.Text:
		out = append(out, fmt.Sprintf("text changed (%d characters)", b.TextLen))
	}
	if a.Name != b.Name {
		out = append(out, "name changed")
	}
	switch va, vb := a.Value, b.Value; {
	case va != nil && vb != nil && va.Current != vb.Current:
		out = append(out, fmt.Sprintf("value: %g → %g", va.Current, vb.Current))
	case va != nil && vb != nil && (va.Min != vb.Min || va.Max != vb.Max):
		out = append(out, fmt.Sprintf("range: %g–%g → %g–%g", va.Min, va.Max, vb.Min, vb.Max))
	case (va == nil) != (vb == nil):
		out = append(out, "value changed")
	}
	return out
}

func stateChange(s string, on bool) string {
	if s == "checked" {
		if on {
			return "unchecked → checked"
		}
		return "checked → unchecked"
	}
	if on {
		return "now " + s
	}
	return "no longer " + s
}

// shortURL is u as a reader needs it beside other: its path, query and
// fragment when both are of one origin, else the whole address.
func shortURL(u, other string) string {
	a, err1 := url.Parse(u)
	b, err2 := url.Parse(other)
	if err1 != nil || err2 != nil || a.Scheme != b.Scheme || a.Host != b.Host || a.Host == "" {
		return u
	}
	s := a.EscapedPath()
	if s == "" {
		s = "/"
	}
	if a.RawQuery != "" {
		s += "?" + a.RawQuery
	}
	if a.Fragment != "" {
		s += "#" + a.Fragment
	}
	return s
}

// digestKey keys every digest of what a watch saw: random, made once per
// daemon process and kept in memory only.
var digestKey = sync.OnceValue(func() []byte {
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		panic("verify: no randomness for the digest key: " + err.Error())
	}
	return k
})

// digest is a short digest of what o saw, for the trace (never a picture,
// never the text itself). It is an HMAC under digestKey: a node's text is
// often what was just typed (a PIN, a password), and a plain hash of a
// short text is undone by trying every text of that length; without the
// key, which never leaves the process, no digest can be tried against.
// It still tells every change of the node apart (a text of the same
// length, a name that holds the value), which a hash of the lengths alone
// would not. A before and an after are compared within one step, so a
// key that a restart changes costs nothing.
func (o observation) digest() string {
	h := hmac.New(sha256.New, digestKey())
	if o.node != nil {
		fmt.Fprintf(h, "node %q %d %q %q\n", o.node.States, o.node.TextLen, o.node.Text, o.node.Name)
		if v := o.node.Value; v != nil {
			fmt.Fprintf(h, "value %g %g %g\n", v.Current, v.Min, v.Max)
		}
	}
	fmt.Fprintf(h, "gone %s\ninfo %q %q\ncontent %s\n", o.nodeErr, o.title, o.url, o.content)
	for _, id := range sortedIDs(o.targets) {
		fmt.Fprintf(h, "target %s\n", id)
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// effectWords is the effect as the end of an answer's line:
// " → confirmed: unchecked → checked".
func effectWords(e *target.Effect) string {
	s := " → " + string(e.Word)
	switch {
	case len(e.Seen) > 0:
		seen := e.Seen
		if len(seen) > 3 {
			seen = append(seen[:3:3], fmt.Sprintf("%d more", len(e.Seen)-3))
		}
		s += ": " + strings.Join(seen, "; ")
	case e.Why != "":
		s += " (" + e.Why + ")"
	}
	return s
}

// regionRadius is half the side of the square of pixels around a point
// that a point verb compares.
const regionRadius = 48

// pixelDigest digests a PNG's pixels: the square around at (nil: all of
// them). A picture that does not decode is digested as its bytes.
func pixelDigest(pic []byte, at *kind.Point) string {
	h := sha256.New()
	img, err := pngDecode(pic)
	if err != nil || at == nil {
		h.Write(pic)
		return hex.EncodeToString(h.Sum(nil)[:6])
	}
	r := image.Rect(at.X-regionRadius, at.Y-regionRadius, at.X+regionRadius, at.Y+regionRadius).Intersect(img.Bounds())
	var px [4]byte
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, ca := img.At(x, y).RGBA()
			px[0], px[1], px[2], px[3] = byte(cr>>8), byte(cg>>8), byte(cb>>8), byte(ca>>8)
			h.Write(px[:])
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:6])
}

func pngDecode(b []byte) (image.Image, error) { return png.Decode(bytes.NewReader(b)) }
