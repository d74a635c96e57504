// Package cdptest is a test oracle: it reads a page's state over a DevTools
// connection of the test's own (never through the code under test) — the
// browser's pages with their browser contexts (Target.getTargets), and what
// an expression evaluates to in one of them (Runtime.evaluate on a session
// it attaches for the read and detaches after) — and a headless viewer of
// the test's own for the live view's page (LaunchViewer).
package cdptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/vibespace/vibespace/cdp"
)

// Timeout bounds a read whose context has no deadline.
const Timeout = 10 * time.Second

// ErrNoPage is Eval's answer when no page matches.
var ErrNoPage = errors.New("cdptest: no page matches")

// Page is one page target of a browser, as the browser reports it.
type Page struct {
	TargetID         string `json:"targetId"`
	Type             string `json:"type"`
	URL              string `json:"url"`
	Title            string `json:"title"`
	BrowserContextID string `json:"browserContextId"`
}

// Pages is every page target of b, of every browser context.
func Pages(ctx context.Context, b *cdp.Browser) ([]Page, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	var res struct {
		TargetInfos []Page `json:"targetInfos"`
	}
	if err := b.Conn().Call(ctx, "Target.getTargets", nil, &res); err != nil {
		return nil, fmt.Errorf("cdptest: Target.getTargets: %w", err)
	}
	var out []Page
	for _, p := range res.TargetInfos {
		if p.Type == "page" {
			out = append(out, p)
		}
	}
	return out, nil
}

// URL matches the page at exactly url.
func URL(url string) func(Page) bool { return func(p Page) bool { return p.URL == url } }

// Eval evaluates expr in the first page of b that match accepts (by value,
// awaiting a promise) and answers the value as fmt.Sprint prints it. A page
// none matches is ErrNoPage; an expression that throws is an error naming
// the exception.
func Eval(ctx context.Context, b *cdp.Browser, match func(Page) bool, expr string) (string, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	pages, err := Pages(ctx, b)
	if err != nil {
		return "", err
	}
	for _, p := range pages {
		if !match(p) {
			continue
		}
		sess, err := b.Conn().Attach(ctx, p.TargetID)
		if err != nil {
			return "", fmt.Errorf("cdptest: attach to %s: %w", p.URL, err)
		}
		defer sess.Detach(context.WithoutCancel(ctx))
		var res struct {
			Result struct {
				Value json.RawMessage `json:"value"`
			} `json:"result"`
			ExceptionDetails *struct {
				Text      string `json:"text"`
				Exception struct {
					Description string `json:"description"`
				} `json:"exception"`
			} `json:"exceptionDetails"`
		}
		err = sess.Call(ctx, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &res)
		if err != nil {
			return "", fmt.Errorf("cdptest: Runtime.evaluate in %s: %w", p.URL, err)
		}
		if ex := res.ExceptionDetails; ex != nil {
			return "", fmt.Errorf("cdptest: %q threw in %s: %s %s", expr, p.URL, ex.Text, ex.Exception.Description)
		}
		var v any
		if len(res.Result.Value) > 0 {
			if err := json.Unmarshal(res.Result.Value, &v); err != nil {
				return "", fmt.Errorf("cdptest: the value of %q: %w", expr, err)
			}
		}
		return fmt.Sprint(v), nil
	}
	return "", fmt.Errorf("%w (%d pages)", ErrNoPage, len(pages))
}

// bounded is ctx with Timeout when it has no deadline of its own.
func bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, Timeout)
}
