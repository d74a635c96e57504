package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"strings"
	"unicode/utf8"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/target"
)

// browserSnapshot answers the page's accessibility tree in the snapshot
// shape windows use, with the tab's @eN refs; the header names the profile.
func (d *Daemon) browserSnapshot(ctx context.Context, req Request) Response {
	c := target.Decide(target.VerbSnapshot, tabProbe, nil)
	return d.onTab(ctx, req, c.Road, func(ctx context.Context, tc *tabCall) (Response, error) {
		snap, err := tc.tab.Snapshot(ctx, false)
		if err != nil {
			return Response{}, err
		}
		// The tree's root (the RootWebArea) is named by the document's
		// title: no second round trip to the page to ask for it.
		title := snap.Title
		if title == "" {
			title, _ = tc.tab.Title(ctx)
		}
		d.mu.Lock()
		tc.e.t.Title = title
		d.mu.Unlock()
		snap.Target, snap.Title = string(tc.e.t.ID), title
		view := snap
		if req.Interactive {
			view = snap.InteractiveView()
		}
		if req.JSON {
			return Response{Snapshot: view, Did: fmt.Sprintf("%d nodes, %d actionable, %d unreadable", snap.Census.Nodes, snap.Census.Action, snap.Census.Unreadable)}, nil
		}
		// The text carries its own census header, and every answer names
		// the profile already (Response.Profile, printed first by the CLI):
		// an agent reads each fact once.
		return Response{Text: view.Text()}, nil
	})
}

// browserClick clicks a node (@ref: scrolled into view, checked visible,
// enabled and uncovered, then a CDP Input click at its centre) or a pixel of
// the tab's screenshot (--at).
func (d *Daemon) browserClick(ctx context.Context, req Request) Response {
	if (req.Ref == "") == (req.At == nil) {
		return d.bfinish(req, nil, nil, lease.Grant{}, "", Response{}, target.Refuse(target.CodeBadRequest, "click needs exactly one of @ref or --at x,y"))
	}
	c := target.Decide(target.VerbClickAt, tabProbe, nil)
	return d.onTab(ctx, req, c.Road, func(ctx context.Context, tc *tabCall) (Response, error) {
		if req.At != nil {
			if err := tc.tab.ClickAt(ctx, cdp.Point{X: float64(req.At.X), Y: float64(req.At.Y)}); err != nil {
				return Response{}, err
			}
			return Response{Did: fmt.Sprintf("clicked at %d,%d of the page", req.At.X, req.At.Y)}, nil
		}
		if err := tc.tab.Click(ctx, req.Ref); err != nil {
			return Response{}, err
		}
		return Response{Did: "clicked " + req.Ref}, nil
	})
}

// browserFill replaces a text field's content, as a paste would. The text
// is never audited.
func (d *Daemon) browserFill(ctx context.Context, req Request) Response {
	if req.Ref == "" {
		return d.bfinish(req, nil, nil, lease.Grant{}, "", Response{}, target.Refuse(target.CodeBadRequest, "fill needs @ref and a text"))
	}
	if err := d.checkText(req.Text, d.cfg.MaxText, "filled at once"); err != nil {
		return d.bfinish(req, nil, nil, lease.Grant{}, "", Response{}, err)
	}
	c := target.Decide(target.VerbTypeFocus, tabProbe, nil)
	return d.onTab(ctx, req, c.Road, func(ctx context.Context, tc *tabCall) (Response, error) {
		if err := d.leases.Check(tc.e.t.ID, req.Session); err != nil {
			return Response{}, err
		}
		if err := tc.tab.Fill(ctx, req.Ref, req.Text); err != nil {
			return Response{}, err
		}
		return Response{Did: fmt.Sprintf("filled %s with %d characters", req.Ref, utf8.RuneCountInString(req.Text))}, nil
	})
}

func (d *Daemon) checkText(text string, limit int, how string) error {
	if !utf8.ValidString(text) {
		return target.Refuse(target.CodeBadRequest, "the text is not valid UTF-8")
	}
	if n := utf8.RuneCountInString(text); n > limit {
		return tooLong(n, limit, how)
	}
	return nil
}

// browserType types text key by key into a field (@ref) or the focused
// element, re-checking the lease every few characters so a takeover cuts
// it. The text is never audited.
func (d *Daemon) browserType(ctx context.Context, req Request) Response {
	if err := d.checkText(req.Text, d.cfg.MaxKeysText, "typed as keys"); err != nil {
		return d.bfinish(req, nil, nil, lease.Grant{}, "", Response{}, err)
	}
	n := utf8.RuneCountInString(req.Text)
	c := target.Decide(target.VerbTypeFocus, tabProbe, nil)
	return d.onTab(ctx, req, c.Road, func(ctx context.Context, tc *tabCall) (Response, error) {
		typed := 0
		ref := req.Ref
		rest := req.Text
		for first := true; first || rest != ""; first = false {
			chunk := rest
			if i := byteIndexOfRune(rest, typeChunk); i > 0 {
				chunk = rest[:i]
			}
			if err := d.leases.Check(tc.e.t.ID, req.Session); err != nil {
				return Response{}, partial(err, typed, n)
			}
			if err := tc.tab.Type(ctx, ref, chunk); err != nil {
				if lerr := d.leases.Check(tc.e.t.ID, req.Session); lerr != nil {
					err = lerr
				}
				return Response{}, partial(err, typed, n)
			}
			ref = "" // focused now, caret at the end
			typed += utf8.RuneCountInString(chunk)
			rest = rest[len(chunk):]
		}
		where := "the focused element"
		if req.Ref != "" {
			where = req.Ref
		}
		return Response{Did: fmt.Sprintf("typed %d characters as keys into %s", n, where)}, nil
	})
}

// partial marks a refusal that cut a type short with how far it got.
func partial(err error, typed, of int) error {
	if r, ok := target.AsRefusal(err); ok && typed < of {
		return r.With("typed", typed).With("of", of).With("partial", true)
	}
	return err
}

// browserKey presses a chord in the focused element (CDP Input).
func (d *Daemon) browserKey(ctx context.Context, req Request) Response {
	chord, err := target.ParseChord(req.Chord)
	if err != nil {
		return d.bfinish(req, nil, nil, lease.Grant{}, "", Response{}, err)
	}
	c := target.Decide(target.VerbKey, tabProbe, nil)
	return d.onTab(ctx, req, c.Road, func(ctx context.Context, tc *tabCall) (Response, error) {
		if err := tc.tab.Key(ctx, chord); err != nil {
			return Response{}, err
		}
		return Response{Did: "pressed " + chord.String()}, nil
	})
}

// scrollStep is how many CSS pixels one scroll step turns the wheel.
const scrollStep = 100

// browserScroll turns the wheel at a pixel of the page (its centre by
// default).
func (d *Daemon) browserScroll(ctx context.Context, req Request) Response {
	steps := req.By
	if steps == 0 {
		steps = 3
	}
	if steps < 1 || steps > 100 {
		return d.bfinish(req, nil, nil, lease.Grant{}, "", Response{}, target.Refuse(target.CodeBadRequest, "--by %d: use 1 to 100 steps", req.By))
	}
	var dx, dy float64
	switch req.Dir {
	case "up":
		dy = -scrollStep * float64(steps)
	case "down", "":
		dy = scrollStep * float64(steps)
	case "left":
		dx = -scrollStep * float64(steps)
	case "right":
		dx = scrollStep * float64(steps)
	default:
		return d.bfinish(req, nil, nil, lease.Grant{}, "", Response{}, target.Refuse(target.CodeBadRequest, "scroll direction %q: use up, down, left or right", req.Dir))
	}
	dir := req.Dir
	if dir == "" {
		dir = "down"
	}
	c := target.Decide(target.VerbScroll, tabProbe, nil)
	return d.onTab(ctx, req, c.Road, func(ctx context.Context, tc *tabCall) (Response, error) {
		var at *cdp.Point
		if req.At != nil {
			at = &cdp.Point{X: float64(req.At.X), Y: float64(req.At.Y)}
		}
		if err := tc.tab.Scroll(ctx, dx, dy, at); err != nil {
			return Response{}, err
		}
		return Response{Did: fmt.Sprintf("scrolled %s by %d", dir, steps)}, nil
	})
}

// browserScreenshot answers the tab's viewport as PNG; its pixels are what
// --at takes.
func (d *Daemon) browserScreenshot(ctx context.Context, req Request) Response {
	c := target.Decide(target.VerbScreenshot, tabProbe, nil)
	return d.onTab(ctx, req, c.Road, func(ctx context.Context, tc *tabCall) (Response, error) {
		b, err := tc.tab.Screenshot(ctx)
		if err != nil {
			return Response{}, err
		}
		resp := Response{PNG: b, Did: "the page's viewport; --at x,y takes a pixel of this image"}
		if cfg, err := png.DecodeConfig(bytes.NewReader(b)); err == nil {
			resp.Bounds = &target.Rect{W: cfg.Width, H: cfg.Height}
			resp.Did = fmt.Sprintf("%dx%d pixels of the page's viewport; --at x,y takes a pixel of this image", cfg.Width, cfg.Height)
		}
		return resp, nil
	})
}

// browserGet answers the page's text, URL or title.
func (d *Daemon) browserGet(ctx context.Context, req Request) Response {
	switch req.Action {
	case "text", "url", "title":
	default:
		return d.bfinish(req, nil, nil, lease.Grant{}, "", Response{}, target.Refuse(target.CodeBadRequest, "get %q: use text, url or title", req.Action))
	}
	return d.onTab(ctx, req, "", func(ctx context.Context, tc *tabCall) (Response, error) {
		switch req.Action {
		case "url":
			u, err := tc.tab.URL(ctx)
			return Response{URL: u, Text: u}, err
		case "title":
			s, err := tc.tab.Title(ctx)
			return Response{Text: s}, err
		}
		s, err := tc.tab.Text(ctx)
		return Response{Text: s}, err
	})
}

// browserEval evaluates an expression in the page and answers its value as
// JSON; a thrown error is script_error.
func (d *Daemon) browserEval(ctx context.Context, req Request) Response {
	if strings.TrimSpace(req.Expr) == "" {
		return d.bfinish(req, nil, nil, lease.Grant{}, "", Response{}, target.Refuse(target.CodeBadRequest, "eval needs an expression"))
	}
	return d.onTab(ctx, req, "", func(ctx context.Context, tc *tabCall) (Response, error) {
		v, err := tc.tab.Eval(ctx, req.Expr)
		if err != nil {
			return Response{}, err
		}
		return Response{Value: json.RawMessage(v)}, nil
	})
}

func (d *Daemon) browserBack(ctx context.Context, req Request) Response {
	return d.navVerb(ctx, req, "went back", (*cdp.Tab).Back)
}

func (d *Daemon) browserForward(ctx context.Context, req Request) Response {
	return d.navVerb(ctx, req, "went forward", (*cdp.Tab).Forward)
}

func (d *Daemon) browserReload(ctx context.Context, req Request) Response {
	return d.navVerb(ctx, req, "reloaded", (*cdp.Tab).Reload)
}

// navVerb runs a navigation and answers where the tab is now.
func (d *Daemon) navVerb(ctx context.Context, req Request, did string, nav func(*cdp.Tab, context.Context) error) Response {
	return d.onTab(ctx, req, "", func(ctx context.Context, tc *tabCall) (Response, error) {
		if err := nav(tc.tab, ctx); err != nil {
			return Response{}, err
		}
		title, u := d.noteTab(ctx, tc.e, tc.tab)
		return Response{URL: u, Did: fmt.Sprintf("%s: %s (%q)", did, u, title)}, nil
	})
}

// browserWait waits for a selector, a text or a URL, within the verb's time.
func (d *Daemon) browserWait(ctx context.Context, req Request) Response {
	w := cdp.WaitFor{Selector: req.Selector, Text: req.Text, URL: req.URL}
	return d.onTab(ctx, req, "", func(ctx context.Context, tc *tabCall) (Response, error) {
		if err := tc.tab.Wait(ctx, w); err != nil {
			return Response{}, err
		}
		return Response{Did: "the page shows what was awaited"}, nil
	})
}
