package bidi

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
)

// Context is a browsing context's id (a tab's, or a frame's): the handle
// every command on a page takes.
type Context string

// UserContext is a user context's id: a set of tabs with their own
// cookies and storage, isolated from every other user context's (a
// container). DefaultUserContext is the browser's own.
type UserContext string

// DefaultUserContext is the user context every browser has.
const DefaultUserContext UserContext = "default"

// CreateUserContext makes a new user context (browser.createUserContext).
func (c *Conn) CreateUserContext(ctx context.Context) (UserContext, error) {
	var r struct {
		UserContext UserContext `json:"userContext"`
	}
	err := c.Call(ctx, "browser.createUserContext", nil, &r)
	return r.UserContext, err
}

// RemoveUserContext closes a user context and every tab of it.
func (c *Conn) RemoveUserContext(ctx context.Context, uc UserContext) error {
	return c.Call(ctx, "browser.removeUserContext", map[string]any{"userContext": uc}, nil)
}

// CreateTab opens a new tab (about:blank) in user context uc ("" for the
// default one), in a window of its own, without bringing that window to
// the front: every tab is its window's selected one, so it is visible (its
// timers and animation frames run unthrottled) and the wheel scrolls it.
// A tab behind another in one window is hidden: it takes a wheel event
// and does not scroll (measured on firefox-esr 153, headless and headed).
func (c *Conn) CreateTab(ctx context.Context, uc UserContext) (Context, error) {
	p := map[string]any{"type": "window", "background": true}
	if uc != "" {
		p["userContext"] = uc
	}
	var r struct {
		Context Context `json:"context"`
	}
	err := c.Call(ctx, "browsingContext.create", p, &r)
	return r.Context, err
}

// CloseContext closes a tab (browsingContext.close).
func (c *Conn) CloseContext(ctx context.Context, bc Context) error {
	return c.Call(ctx, "browsingContext.close", map[string]any{"context": bc}, nil)
}

// Readiness is how far a navigation is waited for.
type Readiness string

const (
	ReadyNone        Readiness = "none"
	ReadyInteractive Readiness = "interactive" // DOMContentLoaded
	ReadyComplete    Readiness = "complete"    // load
)

// NavigateResult is where a navigation went.
type NavigateResult struct {
	Navigation string `json:"navigation"`
	URL        string `json:"url"`
}

// Navigate loads url in bc and waits as wait says.
func (c *Conn) Navigate(ctx context.Context, bc Context, url string, wait Readiness) (NavigateResult, error) {
	var r NavigateResult
	err := c.Call(ctx, "browsingContext.navigate", map[string]any{"context": bc, "url": url, "wait": wait}, &r)
	return r, err
}

// ContextInfo is one browsing context of GetTree's answer.
type ContextInfo struct {
	Context     Context       `json:"context"`
	URL         string        `json:"url"`
	UserContext UserContext   `json:"userContext"`
	Parent      *Context      `json:"parent"`
	Children    []ContextInfo `json:"children"`
}

// GetTree lists the top-level browsing contexts (root "") or root and its
// descendants, frames included.
func (c *Conn) GetTree(ctx context.Context, root Context) ([]ContextInfo, error) {
	p := map[string]any{}
	if root != "" {
		p["root"] = root
	}
	var r struct {
		Contexts []ContextInfo `json:"contexts"`
	}
	err := c.Call(ctx, "browsingContext.getTree", p, &r)
	return r.Contexts, err
}

// Screenshot is a PNG of bc's viewport (browsingContext.captureScreenshot).
func (c *Conn) Screenshot(ctx context.Context, bc Context) ([]byte, error) {
	return c.Capture(ctx, bc, ImagePNG, 0)
}

// The picture formats of Capture.
const (
	ImagePNG  = "image/png"
	ImageJPEG = "image/jpeg"
)

// Capture is a picture of bc's viewport in format (ImagePNG, ImageJPEG;
// quality 0..1 for a JPEG, 0 the browser's default) through
// browsingContext.captureScreenshot.
func (c *Conn) Capture(ctx context.Context, bc Context, format string, quality float64) ([]byte, error) {
	var r struct {
		Data string `json:"data"`
	}
	f := map[string]any{"type": format}
	if quality > 0 {
		f["quality"] = quality
	}
	if err := c.Call(ctx, "browsingContext.captureScreenshot", map[string]any{"context": bc, "origin": "viewport", "format": f}, &r); err != nil {
		return nil, err
	}
	pic, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil {
		return nil, fmt.Errorf("bidi: browsingContext.captureScreenshot: its data: %w", err)
	}
	return pic, nil
}

// Subscribe asks the browser for events (session.subscribe): of every
// context when contexts is empty. Receive them with Events (made before,
// so that none is missed). It returns the subscription's id, for
// Unsubscribe.
func (c *Conn) Subscribe(ctx context.Context, events []string, contexts ...Context) (string, error) {
	p := map[string]any{"events": events}
	if len(contexts) > 0 {
		p["contexts"] = contexts
	}
	var r struct {
		Subscription string `json:"subscription"`
	}
	err := c.Call(ctx, "session.subscribe", p, &r)
	return r.Subscription, err
}

// Unsubscribe ends a subscription Subscribe made.
func (c *Conn) Unsubscribe(ctx context.Context, id string) error {
	return c.Call(ctx, "session.unsubscribe", map[string]any{"subscriptions": []string{id}}, nil)
}

// Target is where a script runs: a browsing context and, when Sandbox is
// set, a sandbox of that name in it (an isolated realm: the page's own
// scripts cannot see what runs there, and it sees the page's DOM).
type Target struct {
	Context Context `json:"context"`
	Sandbox string  `json:"sandbox,omitempty"`
}

// RemoteValue is a value a script returned, as BiDi serialises it: its
// type, its value (a JSON text, for primitive types and the serialised
// members of others), and a sharedId for a node (the handle to pass back
// as an argument in a later call).
type RemoteValue struct {
	Type     string          `json:"type"`
	Value    json.RawMessage `json:"value,omitempty"`
	SharedID string          `json:"sharedId,omitempty"`
	Handle   string          `json:"handle,omitempty"`
}

// LocalValue is an argument of CallFunction.
type LocalValue map[string]any

// Str, Num, Bool and Null are primitive arguments; Node is a node by the
// sharedId a RemoteValue carried.
func Str(s string) LocalValue         { return LocalValue{"type": "string", "value": s} }
func Num(n float64) LocalValue        { return LocalValue{"type": "number", "value": n} }
func Bool(v bool) LocalValue          { return LocalValue{"type": "boolean", "value": v} }
func Null() LocalValue                { return LocalValue{"type": "null"} }
func Node(sharedID string) LocalValue { return LocalValue{"sharedId": sharedID} }

type scriptResult struct {
	Type             string      `json:"type"` // "success" or "exception"
	Result           RemoteValue `json:"result"`
	ExceptionDetails struct {
		Text       string `json:"text"`
		LineNumber int    `json:"lineNumber"`
	} `json:"exceptionDetails"`
}

func (r *scriptResult) value() (RemoteValue, error) {
	if r.Type == "exception" {
		return RemoteValue{}, &ScriptError{Text: r.ExceptionDetails.Text, LineNumber: r.ExceptionDetails.LineNumber}
	}
	return r.Result, nil
}

// Evaluate runs expr in t (script.evaluate), awaiting a promise it gives.
// A thrown exception is a *ScriptError.
func (c *Conn) Evaluate(ctx context.Context, t Target, expr string) (RemoteValue, error) {
	var r scriptResult
	err := c.Call(ctx, "script.evaluate", map[string]any{"expression": expr, "target": t, "awaitPromise": true,
		"resultOwnership": "none", "serializationOptions": map[string]any{"maxObjectDepth": 0}}, &r)
	if err != nil {
		return RemoteValue{}, err
	}
	return r.value()
}

// CallFunction calls fn (a function's source) in t with args
// (script.callFunction), awaiting a promise it gives. A thrown exception
// is a *ScriptError.
func (c *Conn) CallFunction(ctx context.Context, t Target, fn string, args ...LocalValue) (RemoteValue, error) {
	var r scriptResult
	p := map[string]any{"functionDeclaration": fn, "target": t, "awaitPromise": true, "resultOwnership": "none",
		"serializationOptions": map[string]any{"maxObjectDepth": 0}}
	if len(args) > 0 {
		p["arguments"] = args
	}
	err := c.Call(ctx, "script.callFunction", p, &r)
	if err != nil {
		return RemoteValue{}, err
	}
	return r.value()
}

// CallJSON calls fn in t with args and decodes what it returns, passed
// through JSON.stringify in the page, into out: one string crosses the
// wire instead of BiDi's serialisation of every member.
func (c *Conn) CallJSON(ctx context.Context, t Target, fn string, out any, args ...LocalValue) error {
	wrapped := "async function(...a) { return JSON.stringify(await (" + fn + ").apply(this, a)); }"
	v, err := c.CallFunction(ctx, t, wrapped, args...)
	if err != nil {
		return err
	}
	if v.Type != "string" {
		return fmt.Errorf("bidi: the function returned %s, not a JSON text", v.Type)
	}
	var s string
	if err := json.Unmarshal(v.Value, &s); err != nil {
		return fmt.Errorf("bidi: the function's JSON text: %w", err)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal([]byte(s), out)
}

// String is v's value when it is a string.
func (v RemoteValue) String() (string, bool) {
	if v.Type != "string" {
		return "", false
	}
	var s string
	return s, json.Unmarshal(v.Value, &s) == nil
}

// Number is v's value when it is a number.
func (v RemoteValue) Number() (float64, bool) {
	if v.Type != "number" {
		return 0, false
	}
	var n float64
	return n, json.Unmarshal(v.Value, &n) == nil
}

// Action is one step of an input source (input.performActions): a map as
// the spec writes it, made by the helpers below.
type Action map[string]any

// Source is one input device's sequence of actions.
type Source struct {
	Type       string         `json:"type"` // "pointer", "key", "wheel", "none"
	ID         string         `json:"id"`
	Parameters map[string]any `json:"parameters,omitempty"`
	Actions    []Action       `json:"actions"`
}

// Mouse is a mouse's actions; Keyboard a keyboard's; Wheel a wheel's.
func Mouse(actions ...Action) Source {
	return Source{Type: "pointer", ID: "vibespace-mouse", Parameters: map[string]any{"pointerType": "mouse"}, Actions: actions}
}
func Keyboard(actions ...Action) Source {
	return Source{Type: "key", ID: "vibespace-keys", Actions: actions}
}
func Wheel(actions ...Action) Source {
	return Source{Type: "wheel", ID: "vibespace-wheel", Actions: actions}
}

// MoveTo moves the pointer to (x, y) of the viewport, in CSS pixels.
func MoveTo(x, y int) Action {
	return Action{"type": "pointerMove", "x": x, "y": y, "origin": "viewport"}
}

// Down and Up press and release a pointer button (0 the left).
func Down(button int) Action { return Action{"type": "pointerDown", "button": button} }
func Up(button int) Action   { return Action{"type": "pointerUp", "button": button} }

// KeyDown and KeyUp press and release one key: a character, or one of
// WebDriver's key codes ("\uE007" Enter, "\uE004" Tab, …).
func KeyDown(key string) Action { return Action{"type": "keyDown", "value": key} }
func KeyUp(key string) Action   { return Action{"type": "keyUp", "value": key} }

// ScrollBy turns the wheel by (dx, dy) CSS pixels with the pointer at
// (x, y) of the viewport.
func ScrollBy(x, y, dx, dy int) Action {
	return Action{"type": "scroll", "x": x, "y": y, "deltaX": dx, "deltaY": dy, "origin": "viewport"}
}

// PerformActions runs the sources' actions in bc, tick by tick
// (input.performActions), and returns when they are dispatched.
func (c *Conn) PerformActions(ctx context.Context, bc Context, sources ...Source) error {
	return c.Call(ctx, "input.performActions", map[string]any{"context": bc, "actions": sources}, nil)
}

// ReleaseActions releases every key and button still pressed in bc.
func (c *Conn) ReleaseActions(ctx context.Context, bc Context) error {
	return c.Call(ctx, "input.releaseActions", map[string]any{"context": bc}, nil)
}

// TypeText is the key actions that type s, one key down and up per
// character.
func TypeText(s string) []Action {
	var out []Action
	for _, r := range s {
		k := string(r)
		out = append(out, KeyDown(k), KeyUp(k))
	}
	return out
}
