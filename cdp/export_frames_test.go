package cdp

import (
	"context"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

// RawCall runs a command on the tab's own session, unfenced (tests only).
func (t *Tab) RawCall(ctx context.Context, method string, params, result any) error {
	return t.sess.Call(ctx, method, params, result)
}

// BrowserCall runs a command on the browser-level session (tests only).
func (t *Tab) BrowserCall(ctx context.Context, method string, params, result any) error {
	return t.c.b.conn.Call(ctx, method, params, result)
}

// RawSubscribe subscribes to the tab session's events, unfenced (tests only).
func (t *Tab) RawSubscribe(method string) (<-chan jsonv2.Value, func()) {
	return t.sess.Subscribe(method)
}

// FrameCounts is how many frames the tab holds, how many sessions with
// out-of-process frames, and how many sessions the browser connection
// holds (tests only).
func (t *Tab) FrameCounts() (frames, sessions, conn int) {
	t.frames.mu.Lock()
	frames, sessions = len(t.frames.byID), len(t.frames.sessions)
	t.frames.mu.Unlock()
	t.c.b.conn.mu.Lock()
	conn = len(t.c.b.conn.sessions)
	t.c.b.conn.mu.Unlock()
	return frames, sessions, conn
}
