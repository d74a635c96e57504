package cdp

import (
	"context"
	"strings"

	proto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/vibespace/vibespace/target"
)

// fencedDomains are the CDP domains a tab's session must not reach: from a
// page session Chromium still lists every target of the browser, attaches
// to and closes any of them (Target), and controls the whole process
// (Browser, SystemInfo, Tracing).
var fencedDomains = []string{"Target.", "Browser.", "SystemInfo.", "Tracing."}

// FencedSession is a tab's CDP session for the commands this package has no
// verb for, with the browser-wide domains cut off: a command of Target,
// Browser, SystemInfo or Tracing is refused outside_context, and their
// events are never delivered. It implements
// github.com/chromedp/cdproto/cdp.Session.
type FencedSession struct{ s *Session }

var _ proto.Session = FencedSession{}

func fenced(method string) bool {
	for _, d := range fencedDomains {
		if strings.HasPrefix(method, d) {
			return true
		}
	}
	return false
}

// Call runs method on the tab unless it is browser-wide.
func (f FencedSession) Call(ctx context.Context, method string, params, result any) error {
	if fenced(method) {
		return target.Refuse(target.CodeOutsideContext, "%s reaches beyond this session's tabs", method).With("method", method)
	}
	return f.s.Call(ctx, method, params, result)
}

// Subscribe buffers the tab's events of method; a browser-wide method's
// channel is closed at once.
func (f FencedSession) Subscribe(method string) (<-chan jsonv2.Value, func()) {
	if fenced(method) {
		ch := make(chan jsonv2.Value)
		close(ch)
		return ch, func() {}
	}
	return f.s.Subscribe(method)
}
