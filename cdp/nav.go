package cdp

import (
	"context"
	"fmt"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"

	"github.com/vibespace/vibespace/target"
)

// Navigate loads url in the tab and waits for the new document's load
// event (a same-document navigation returns at once). A URL that does not
// load (network error, refused connection) is navigation_failed.
func (t *Tab) Navigate(ctx context.Context, url string) error {
	defer t.infoStale.Store(true) // its title and URL are the new page's
	events, cancel := t.sess.Subscribe("Page.lifecycleEvent")
	defer cancel()
	var res page.NavigateResult
	if err := t.sess.Call(ctx, page.CommandNavigate, &page.NavigateParams{URL: url}, &res); err != nil {
		return t.fail(err)
	}
	if res.ErrorText != "" {
		return target.Refuse(target.CodeNavigationFailed, "%s did not load: %s", url, res.ErrorText).With("url", url).With("error", res.ErrorText)
	}
	if res.LoaderID == "" {
		return nil
	}
	return t.waitFor(ctx, events, func(v jsonv2.Value) bool {
		var e page.EventLifecycleEvent
		return jsonv2.Unmarshal(v, &e) == nil && e.Name == "load" && e.FrameID == res.FrameID && e.LoaderID == res.LoaderID
	})
}

// Reload reloads the page and waits for its load event.
func (t *Tab) Reload(ctx context.Context) error {
	defer t.infoStale.Store(true)
	events, cancel := t.sess.Subscribe("Page.loadEventFired")
	defer cancel()
	if err := t.sess.Call(ctx, page.CommandReload, &page.ReloadParams{}, nil); err != nil {
		return t.fail(err)
	}
	return t.waitFor(ctx, events, func(jsonv2.Value) bool { return true })
}

// Back goes one entry back in the tab's history and waits until the page is
// there. With no entry to go back to it is refused bad_request.
func (t *Tab) Back(ctx context.Context) error { return t.history(ctx, -1) }

// Forward goes one entry forward in the tab's history, like Back.
func (t *Tab) Forward(ctx context.Context) error { return t.history(ctx, +1) }

func (t *Tab) history(ctx context.Context, delta int) error {
	defer t.infoStale.Store(true)
	var h page.GetNavigationHistoryResult
	if err := t.sess.Call(ctx, page.CommandGetNavigationHistory, nil, &h); err != nil {
		return t.fail(err)
	}
	i := int(h.CurrentIndex) + delta
	if i < 0 || i >= len(h.Entries) {
		word := "back"
		if delta > 0 {
			word = "forward"
		}
		return target.Refuse(target.CodeBadRequest, "there is no page to go %s to", word)
	}
	// A history step ends in a load, a same-document step, or a restore
	// from the back/forward cache (which fires no load event).
	done := make(chan struct{}, 1)
	signal := func() {
		select {
		case done <- struct{}{}:
		default:
		}
	}
	stop := t.watch(signal, "Page.loadEventFired", "Page.navigatedWithinDocument")
	defer stop()
	stopBF := t.watchMatch(signal, "Page.frameNavigated", func(v jsonv2.Value) bool {
		var e page.EventFrameNavigated
		return jsonv2.Unmarshal(v, &e) == nil && e.Frame != nil && e.Frame.ParentID == "" && e.Type == page.NavigationTypeBackForwardCacheRestore
	})
	defer stopBF()
	if err := t.sess.Call(ctx, page.CommandNavigateToHistoryEntry, &page.NavigateToHistoryEntryParams{EntryID: h.Entries[i].ID}, nil); err != nil {
		return t.fail(err)
	}
	select {
	case <-done:
		return nil
	case <-t.sess.gone:
		return t.fail(ErrClosed)
	case <-ctx.Done():
		return t.fail(fmt.Errorf("cdp: waiting for history navigation: %w", ctx.Err()))
	}
}

// waitFor reads events until one matches, the tab goes, or ctx ends.
func (t *Tab) waitFor(ctx context.Context, events <-chan jsonv2.Value, match func(jsonv2.Value) bool) error {
	for {
		select {
		case v, ok := <-events:
			if !ok {
				return t.fail(ErrClosed)
			}
			if match(v) {
				return nil
			}
		case <-t.sess.gone:
			return t.fail(ErrClosed)
		case <-ctx.Done():
			return t.fail(fmt.Errorf("cdp: waiting for the page to load: %w", ctx.Err()))
		}
	}
}

// watch calls f for every event of the methods until stop is called.
func (t *Tab) watch(f func(), methods ...string) (stop func()) {
	var stops []func()
	for _, m := range methods {
		stops = append(stops, t.watchMatch(f, m, func(jsonv2.Value) bool { return true }))
	}
	return func() {
		for _, s := range stops {
			s()
		}
	}
}

func (t *Tab) watchMatch(f func(), method string, match func(jsonv2.Value) bool) (stop func()) {
	events, cancel := t.sess.Subscribe(method)
	go func() {
		for v := range events {
			if match(v) {
				f()
			}
		}
	}()
	return cancel
}
