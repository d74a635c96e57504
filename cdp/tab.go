package cdp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	cdptarget "github.com/chromedp/cdproto/target"

	"github.com/vibespace/vibespace/target"
)

// Tab is one page target of a Context, attached over a flat session. Its
// verbs are the window verbs where they mean the same thing. Nodes are
// named by the keys Snapshot gives them (NodeRef): whoever reads the
// snapshot keeps the refs. Safe for concurrent use.
type Tab struct {
	c    *Context
	sess *Session
	gen  atomic.Int64 // main-frame navigations seen (document.go)

	frames frameSet  // the frames its snapshots read (frames.go)
	held   heldNodes // the objects of the nodes its verbs last resolved (node.go)
	worlds worldSet  // its frames' isolated worlds (pagewalk.go)

	infoStale atomic.Bool // the tab navigated since info was read
	infoMu    sync.Mutex
	info      TabInfo // as Info last read it
}

func newTab(c *Context, sess *Session) *Tab {
	t := &Tab{c: c, sess: sess}
	t.infoStale.Store(true)
	return t
}

// ID is the tab's CDP target id.
func (t *Tab) ID() string { return t.sess.targetID }

// Session is the tab's CDP session for commands this package has no verb
// for — proto.Call(ctx, tab.Session(), page.BringToFront, proto.Empty{}) —
// fenced to the tab: browser-wide domains are refused outside_context.
func (t *Tab) Session() FencedSession { return FencedSession{t.sess} }

// Gone is closed when the tab closed or its session ended.
func (t *Tab) Gone() <-chan struct{} { return t.sess.Gone() }

func (t *Tab) closed() bool {
	select {
	case <-t.sess.gone:
		return true
	default:
		return false
	}
}

// setup enables what the verbs rely on: page lifecycle events, and the
// document generation of refs.
func (t *Tab) setup(ctx context.Context) error {
	t.watchDocument()
	if err := t.sess.Call(ctx, page.CommandEnable, nil, nil); err != nil {
		return err
	}
	return t.sess.Call(ctx, page.CommandSetLifecycleEventsEnabled, &page.SetLifecycleEventsEnabledParams{Enabled: true}, nil)
}

// fail maps an error of a call on this tab to a refusal where one applies:
// a session that ended is tab_gone, a deadline is timeout. Other errors (and
// context cancellation, which means a takeover or a caller that left) pass
// through.
func (t *Tab) fail(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := target.AsRefusal(err); ok {
		return err
	}
	if t.closed() {
		return target.Refuse(target.CodeTabGone, "tab %s has closed", t.ID()).With("tab", t.ID()).Wrap(err)
	}
	if e, ok := asError(err); ok && e.Code == codeNoSession {
		t.sess.markGone()
		return target.Refuse(target.CodeTabGone, "tab %s has closed", t.ID()).With("tab", t.ID()).Wrap(err)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return target.Refuse(target.CodeTimeout, "tab %s did not answer in time", t.ID()).With("tab", t.ID()).Wrap(err)
	}
	return err
}

// Eval evaluates a JavaScript expression in the page (promises are awaited)
// and returns its value as JSON. An exception is a script_error refusal
// carrying the exception's text.
func (t *Tab) Eval(ctx context.Context, expr string) (jsonv2.Value, error) {
	var res runtime.EvaluateResult
	err := t.sess.Call(ctx, runtime.CommandEvaluate, &runtime.EvaluateParams{
		Expression:    expr,
		ReturnByValue: new(true),
		AwaitPromise:  new(true),
		UserGesture:   new(true),
	}, &res)
	if err != nil {
		return nil, t.fail(err)
	}
	if ex := res.ExceptionDetails; ex != nil {
		return nil, scriptError(ex)
	}
	if res.Result == nil || len(res.Result.Value) == 0 {
		if res.Result != nil && res.Result.UnserializableValue != "" {
			return jsonv2.Value(fmt.Sprintf("%q", string(res.Result.UnserializableValue))), nil
		}
		return jsonv2.Value("null"), nil
	}
	return res.Result.Value, nil
}

// EvalInto is Eval decoding the value into out.
func (t *Tab) EvalInto(ctx context.Context, expr string, out any) error {
	v, err := t.Eval(ctx, expr)
	if err != nil {
		return err
	}
	if err := jsonv2.Unmarshal(v, out); err != nil {
		return fmt.Errorf("cdp: eval: decoding %s: %w", v, err)
	}
	return nil
}

func scriptError(ex *runtime.ExceptionDetails) error {
	msg := ex.Text
	if ex.Exception != nil && ex.Exception.Description != "" {
		msg = ex.Exception.Description
	}
	return target.Refuse(target.CodeScriptError, "the page's script threw: %s", firstLine(msg)).With("line", ex.LineNumber+1)
}

func firstLine(s string) string {
	for i := range len(s) {
		if s[i] == '\n' {
			return s[:i]
		}
	}
	return s
}

// Info is the tab's title and URL as the browser showed them when last
// asked (ReadInfo), or asks again when the tab navigated since (its main
// frame committed another document, or a navigation of ours ran): the
// cheap read of a verb. A title the page changes by script shows in the
// next ReadInfo (the browser reports no event for it). A tab that closed is
// tab_gone.
func (t *Tab) Info(ctx context.Context) (TabInfo, error) {
	if t.closed() {
		return TabInfo{}, t.fail(errors.New("cdp: the tab's session ended"))
	}
	t.infoMu.Lock()
	ti, ok := t.info, !t.infoStale.Load() && t.info.ID != ""
	t.infoMu.Unlock()
	if ok {
		return ti, nil
	}
	return t.ReadInfo(ctx)
}

// ReadInfo asks the browser for the tab's title and URL
// (Target.getTargetInfo, answered by the browser process, not the page: a
// busy page does not delay it). A tab that closed is tab_gone.
func (t *Tab) ReadInfo(ctx context.Context) (TabInfo, error) {
	if t.closed() {
		return TabInfo{}, t.fail(errors.New("cdp: the tab's session ended"))
	}
	// Cleared before asking: a navigation seen while the answer is on its
	// way marks it stale again.
	t.infoStale.Store(false)
	var res cdptarget.GetTargetInfoResult
	err := t.c.b.conn.Call(ctx, cdptarget.CommandGetTargetInfo, &cdptarget.GetTargetInfoParams{TargetID: cdptarget.ID(t.ID())}, &res)
	if err == nil && res.TargetInfo == nil {
		err = target.Refuse(target.CodeTabGone, "tab %s has closed", t.ID()).With("tab", t.ID())
	}
	if err != nil {
		t.infoStale.Store(true)
		if _, ok := target.AsRefusal(err); ok {
			return TabInfo{}, err
		}
		if gone := t.c.tabErr(t.ID(), err); target.CodeOf(gone) != "" {
			return TabInfo{}, gone
		}
		return TabInfo{}, t.fail(err)
	}
	ti := res.TargetInfo
	info := TabInfo{ID: t.ID(), Title: pageTitle(ti.Title, ti.URL), URL: ti.URL, Opener: string(ti.OpenerID)}
	t.infoMu.Lock()
	t.info = info
	t.infoMu.Unlock()
	return info, nil
}

// pageTitle is the page's own title from the one the browser shows: for a
// page with no title of its own the browser shows its address (without the
// scheme, its query and all), which is no title — and may carry a secret
// where a title is shown to people.
func pageTitle(title, url string) string {
	bare := func(s string) string {
		for _, p := range []string{"https://", "http://", "file://"} {
			s = strings.TrimPrefix(s, p)
		}
		return strings.TrimSuffix(strings.TrimPrefix(s, "www."), "/")
	}
	if title == url || bare(title) == bare(url) {
		return ""
	}
	return title
}

// Title is document.title.
func (t *Tab) Title(ctx context.Context) (string, error) {
	var s string
	err := t.EvalInto(ctx, "document.title", &s)
	return s, err
}

// URL is the page's location.
func (t *Tab) URL(ctx context.Context) (string, error) {
	var s string
	err := t.EvalInto(ctx, "location.href", &s)
	return s, err
}

// Text is the page's visible text (document.body.innerText).
func (t *Tab) Text(ctx context.Context) (string, error) {
	var s string
	err := t.EvalInto(ctx, "document.body ? document.body.innerText : ''", &s)
	return s, err
}

// Screenshot captures the tab's viewport as PNG bytes.
func (t *Tab) Screenshot(ctx context.Context) ([]byte, error) {
	var res page.CaptureScreenshotResult
	err := t.sess.Call(ctx, page.CommandCaptureScreenshot, &page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng}, &res)
	if err != nil {
		return nil, t.fail(err)
	}
	return res.Data, nil
}
