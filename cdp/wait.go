package cdp

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/vibespace/vibespace/target"
)

// DefaultWait bounds Wait when its context has no deadline.
const DefaultWait = 10 * time.Second

// waitPoll is how often Wait asks the page.
const waitPoll = 50 * time.Millisecond

// WaitFor is what Wait waits for; set exactly one field.
type WaitFor struct {
	Selector string // a CSS selector that matches a visible element
	Text     string // text that appears in the page's visible text
	URL      string // a substring of the page's URL
}

func (w WaitFor) expr() (string, string, error) {
	n := 0
	var js, what string
	if w.Selector != "" {
		n++
		what = "selector " + strconv.Quote(w.Selector)
		js = `(() => { const e = document.querySelector(` + strconv.Quote(w.Selector) + `); return !!e && (!e.checkVisibility || e.checkVisibility()); })()`
	}
	if w.Text != "" {
		n++
		what = "text " + strconv.Quote(w.Text)
		js = `!!document.body && document.body.innerText.includes(` + strconv.Quote(w.Text) + `)`
	}
	if w.URL != "" {
		n++
		what = "URL containing " + strconv.Quote(w.URL)
		js = `location.href.includes(` + strconv.Quote(w.URL) + `)`
	}
	if n != 1 {
		return "", "", target.Refuse(target.CodeBadRequest, "wait needs exactly one of a selector, a text or a URL")
	}
	return js, what, nil
}

// Wait polls the page until the condition holds, bounded by ctx (or
// DefaultWait when ctx has no deadline); running out of time is a timeout
// refusal naming what was awaited. A page navigating meanwhile is fine: the
// condition is asked again in the new document.
func (t *Tab) Wait(ctx context.Context, w WaitFor) error {
	return WaitUntil(ctx, w, t.sess.gone, func() error { return t.fail(ErrClosed) }, func(ctx context.Context, js string) (bool, error) {
		var ok bool
		err := t.EvalInto(ctx, js, &ok)
		return ok, err
	})
}

// WaitUntil is Wait's loop for any driver of a page (daemon/firefox's
// too): holds evaluates the condition's expression (a boolean) in the
// page; an answer refused script_error (a bad selector) or tab_gone ends
// the wait, any other failure (a document being replaced) is asked again
// at the next poll. gone closes when the page's connection ends, which is
// then gone().
func WaitUntil(ctx context.Context, w WaitFor, gone <-chan struct{}, goneErr func() error, holds func(ctx context.Context, js string) (bool, error)) error {
	js, what, err := w.expr()
	if err != nil {
		return err
	}
	ctx, cancel := orTimeout(ctx, DefaultWait)
	defer cancel()
	tick := time.NewTicker(waitPoll)
	defer tick.Stop()
	for {
		ok, err := holds(ctx, js)
		switch c := target.CodeOf(err); {
		case err == nil && ok:
			return nil
		case c == target.CodeScriptError || c == target.CodeTabGone: // a bad selector; a closed tab
			return err
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.Canceled) {
				return ctx.Err()
			}
			return target.Refuse(target.CodeTimeout, "waited in vain for %s", what).With("for", what).Wrap(ctx.Err())
		case <-gone:
			return goneErr()
		case <-tick.C:
		}
	}
}
