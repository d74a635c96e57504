package daemon

import (
	"context"
	"github.com/vibespace/vibespace/daemon/args"

	"github.com/vibespace/vibespace/daemon/modes"
	"github.com/vibespace/vibespace/target"
)

// A window's mode (target.Mode: auto | tree | pixels) is chosen at open,
// changed by the mode verb, kept in the target's record (so it outlives a
// daemon restart) and checked here, once, before every vibespace-window
// verb runs: checkMode in guarded. How auto is judged, and how a verb
// stands to the modes, is package daemon/modes's.

// launchNoter is a target whose launch changed something of what was asked
// (a Chromium or Electron app's command line got
// --force-renderer-accessibility), said in open's answer.
type launchNoter interface {
	LaunchNote() string
}

// resolve resolves e's auto mode afresh and keeps what it found, persisted
// when it changed. A window no longer in auto keeps its mode.
func (d *Daemon) resolve(ctx context.Context, e *entry) (target.Mode, string) {
	m, why := modes.Judge(ctx, e.t)
	d.mu.Lock()
	changed := false
	if modes.Of(e.rec) == target.ModeAuto && (e.rec.Resolved != m || e.rec.ModeWhy != why) {
		e.rec.Resolved, e.rec.ModeWhy = m, why
		changed = true
	}
	d.mu.Unlock()
	if changed {
		d.persist()
	}
	return m, why
}

// checkMode refuses a verb its window's mode does not use: mode_pixels,
// mode_tree; under auto → pixels a tree verb resolves auto again first (the
// application may have put its tree on the bus since) and is refused
// no_tree, naming the mode, if it still has none.
func (d *Daemon) checkMode(ctx context.Context, c *call) error {
	verb, at, ok := modes.Verb(c.Facts, c.Args)
	if !ok {
		return nil
	}
	e := c.e
	d.mu.Lock()
	m, resolved := modes.Of(e.rec), e.rec.Resolved
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
		now, why = modes.Judge(ctx, e.t)
	}
	d.mu.Lock()
	was := target.ModeWords(modes.Of(e.rec), e.rec.Resolved, e.rec.ModeWhy)
	e.rec.Mode, e.rec.Resolved, e.rec.ModeWhy = m, now, why
	d.mu.Unlock()
	d.persist()
	return d.finish(c, Response{Did: modes.Did(m, now, why, was)}, nil)
}
