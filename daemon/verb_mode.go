package daemon

import (
	"cmp"
	"context"
	"fmt"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/stage"
	"time"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/target"
)

// A window's mode (target.Mode: auto | tree | pixels) is chosen at open,
// changed by the mode verb, kept in the target's record (so it outlives a
// daemon restart) and checked here, once, before every vibespace-window
// verb runs: checkMode in guarded.

// treeJudge is a target that can say whether its application's tree has a
// usable node: a native window, whose frame must be on the accessibility
// bus with at least one child. why says what was found (for tree) or why
// not (for pixels), in words. A target that is not one is judged by its
// probe.
type treeJudge interface {
	UsableTree(ctx context.Context) (ok bool, why string)
}

// launchNoter is a target whose launch changed something of what was asked
// (a Chromium or Electron app's command line got
// --force-renderer-accessibility), said in open's answer.
type launchNoter interface {
	LaunchNote() string
}

// resolveBudget bounds resolving auto: finding the frame on the
// accessibility bus and reading its children.
const resolveBudget = 3 * time.Second

// modeOf is t's mode; a window recorded before modes existed is auto.
func modeOf(t target.Target) target.Mode {
	if t.Mode == "" {
		return target.ModeAuto
	}
	return t.Mode
}

// judge resolves auto for t now: tree when its tree has a usable node, else
// pixels, and why.
func judge(ctx context.Context, t kind.Target) (target.Mode, string) {
	ctx, cancel := context.WithTimeout(ctx, resolveBudget)
	defer cancel()
	if j, ok := t.(treeJudge); ok {
		usable, why := j.UsableTree(ctx)
		if usable {
			return target.ModeTree, why
		}
		return target.ModePixels, why
	}
	p := t.Probe(ctx)
	if p.Tree {
		return target.ModeTree, "its probe finds " + cmp.Or(p.TreeVia, "an accessibility tree")
	}
	return target.ModePixels, cmp.Or(p.TreeWhy, "its probe finds none")
}

// resolve resolves e's auto mode afresh and keeps what it found, persisted
// when it changed. A window no longer in auto keeps its mode.
func (d *Daemon) resolve(ctx context.Context, e *entry) (target.Mode, string) {
	m, why := judge(ctx, e.t)
	d.mu.Lock()
	changed := false
	if modeOf(e.rec) == target.ModeAuto && (e.rec.Resolved != m || e.rec.ModeWhy != why) {
		e.rec.Resolved, e.rec.ModeWhy = m, why
		changed = true
	}
	d.mu.Unlock()
	if changed {
		d.persist()
	}
	return m, why
}

// modeVerb is how c's verb stands to the modes: the verb the capability
// law knows it by (the verb table's) and whether it was given a point
// (--at). target.CheckMode lets every mode run a verb that reads no tree
// and acts on no pixel (key, type without a ref, screenshot, select);
// ok is false for a verb the law does not decide (close, the lease verbs,
// mode itself).
func modeVerb(c *stage.Call) (v target.Verb, at, ok bool) {
	at = args.Point(c.Args) != nil
	v, ok = c.Facts.LawVerb(args.Ref(c.Args) != "", at)
	return v, at, ok
}

// checkMode refuses a verb its window's mode does not use: mode_pixels,
// mode_tree; under auto → pixels a tree verb resolves auto again first (the
// application may have put its tree on the bus since) and is refused
// no_tree, naming the mode, if it still has none.
func (d *Daemon) checkMode(ctx context.Context, c *call) error {
	verb, at, ok := modeVerb(&c.Call)
	if !ok {
		return nil
	}
	e := c.e
	d.mu.Lock()
	m, resolved := modeOf(e.rec), e.rec.Resolved
	d.mu.Unlock()
	if r := target.CheckMode(e.id, m, verb, at); r != nil {
		return r
	}
	if m != target.ModeAuto || resolved != target.ModePixels || !verb.TreeVerb() {
		return nil
	}
	if now, why := d.resolve(ctx, e); now == target.ModePixels {
		return target.AutoNoTree(e.id, verb, why)
	}
	return nil
}

// setMode is the mode verb: the holder of a window's lease sets its mode;
// auto is resolved at once.
func (d *Daemon) setMode(ctx context.Context, c *call) Response {
	e := c.e
	m := target.Mode(c.Args.(args.Mode).Mode) // its arguments' check read it (args.Mode)
	c.Fact.Mode = m
	var now target.Mode
	var why string
	if m == target.ModeAuto {
		now, why = judge(ctx, e.t)
	}
	d.mu.Lock()
	was := target.ModeWords(modeOf(e.rec), e.rec.Resolved, e.rec.ModeWhy)
	e.rec.Mode, e.rec.Resolved, e.rec.ModeWhy = m, now, why
	d.mu.Unlock()
	did := "mode: " + string(m)
	if m == target.ModeAuto {
		did = fmt.Sprintf("mode: %s", target.ModeWords(m, now, why))
		if now == target.ModeTree {
			did += " (" + why + ")"
		}
	}
	d.persist()
	switch m {
	case target.ModePixels:
		did += "; snapshot, click @ref and type @ref are refused mode_pixels"
	case target.ModeTree:
		did += "; click --at and scroll --at are refused mode_tree"
	}
	return d.finish(c, Response{Did: did + " (was " + was + ")"}, nil)
}
