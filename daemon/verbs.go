package daemon

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/notice"
	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/target"
)

// codeInternal marks an answer that is not a refusal but a failure of ours.
const codeInternal = target.CodeInternal

// reach is how a verb reaches its target.
type reach int

const (
	// reachNone: the verb names no target (or finds its own).
	reachNone reach = iota
	// reachHandle: Request.Target names a window (vibespace-window's
	// words); a tab's handle is refused wrong_kind. The caller must be
	// exposed to it, and gets its lease.
	reachHandle
	// reachTab: the session's current tab in the chosen profile
	// (vibespace-browser's words), under its lease.
	reachTab
)

// verbDef is one verb: what it runs, how it reaches its target, and what it
// checks of the request before it reaches anything (so a malformed request
// takes no lease).
type verbDef struct {
	run   func(d *Daemon, ctx context.Context, c *call) Response
	reach reach
	check func(d *Daemon, req Request) error
	// acts: the verb changes its target. It is a step of its session's
	// budget, watched for loops (no_progress), and its trace keeps a
	// picture after it while pictures are on.
	acts bool
	// focuses: acting on a node moves the focus to it, so the node's
	// "focused" is no effect the verb meant (a click).
	focuses bool
	// untraced: the verb is no step of any trace (reading the trace
	// itself, watching).
	untraced bool
	// unsure: the verb is no step, yet what it does to its target is
	// unknown when the daemon is killed during it (close, eval). It is
	// recorded in flight as every acting verb is (cut.go), so the next
	// daemon says it was cut.
	unsure bool
}

// call is one verb being answered: the request, and the target, lease and
// profile it reached.
type call struct {
	req  Request
	e    *entry      // nil for a verb on no target
	g    lease.Grant // the lease grant, with the handback note owed
	sel  *selection  // the profile chosen (vibespace-browser's words)
	road target.Road // the road taken, for the answer and the audit
	done func()      // releases what reaching took (the browser's hold)
	fact lease.Entry // what the verb adds to its audit row: user, force, replaced, with (verb_operator.go), mode

	// What an acting verb learned, for its answer and its trace: when it
	// began, the node it acted on (its role and name), and digests of what
	// it observed of the target before and after it acted.
	started       time.Time
	acted         *target.NodeTraits
	before, after string
	// def is the verb's entry of verbs; reserved, that admitStep took one
	// step of the session's budget for it (given back unless it ran).
	def      verbDef
	reserved *Budget
}

// verbs is every verb the daemon answers. The shared verbs of both command
// lines (snapshot, screenshot, click, type, key, scroll) are one function
// each, reached as vibespace-window reaches (a window's handle) or as
// vibespace-browser does ("browser.<word>": the current tab).
var verbs = map[string]verbDef{
	// vibespace-window
	"status":     {run: (*Daemon).status},
	"doctor":     {run: (*Daemon).doctor},
	"list":       {run: (*Daemon).list},
	"open":       {run: (*Daemon).open, check: checkOpenMode},
	"close":      {run: (*Daemon).closeTarget, reach: reachHandle, unsure: true},
	"attach":     {run: (*Daemon).attach},
	"detach":     {run: (*Daemon).detach},
	"share":      {run: (*Daemon).share},
	"takeover":   {run: (*Daemon).takeover},
	"handback":   {run: (*Daemon).handback},
	"watch":      {run: (*Daemon).watch, untraced: true},
	"snapshot":   {run: (*Daemon).snapshot, reach: reachHandle},
	"screenshot": {run: (*Daemon).screenshot, reach: reachHandle},
	"click":      {run: (*Daemon).click, reach: reachHandle, check: checkClick, acts: true, focuses: true},
	"type":       {run: (*Daemon).typeText, reach: reachHandle, check: checkType, acts: true},
	"key":        {run: (*Daemon).key, reach: reachHandle, check: checkKey, acts: true},
	"scroll":     {run: (*Daemon).scroll, reach: reachHandle, check: checkScroll, acts: true},
	"select":     {run: (*Daemon).selectOptions, reach: reachHandle, check: checkSelect, acts: true},
	"mode":       {run: (*Daemon).setMode, reach: reachHandle, check: checkModeWord},
	"desktop":    {run: (*Daemon).desktop, check: checkDesktop},
	"find":       {run: (*Daemon).findText, reach: reachHandle, check: checkFind},
	"get":        {run: (*Daemon).getNode, reach: reachHandle, check: checkGetNode},
	"trace":      {run: (*Daemon).traceVerb, check: checkTrace, untraced: true},
	"budget":     {run: (*Daemon).budget},
	"key.set":    {run: (*Daemon).keySet, check: checkKeyNamed, untraced: true},
	"key.clear":  {run: (*Daemon).keyClear, check: checkKeyNamed, untraced: true},
	"key.list":   {run: (*Daemon).keyList, check: checkKeyList, untraced: true},

	// vibespace-browser: the same verbs on the current tab…
	"browser.snapshot":   {run: (*Daemon).snapshot, reach: reachTab},
	"browser.screenshot": {run: (*Daemon).screenshot, reach: reachTab},
	"browser.click":      {run: (*Daemon).click, reach: reachTab, check: checkClick, acts: true, focuses: true},
	"browser.type":       {run: (*Daemon).typeText, reach: reachTab, check: checkTypeKeys, acts: true},
	"browser.key":        {run: (*Daemon).key, reach: reachTab, check: checkKey, acts: true},
	"browser.scroll":     {run: (*Daemon).scroll, reach: reachTab, check: checkScroll, acts: true},
	"browser.find":       {run: (*Daemon).findText, reach: reachTab, check: checkFind},
	"browser.select":     {run: (*Daemon).selectOptions, reach: reachTab, check: checkSelect, acts: true},
	// …and the browser's own words.
	"browser.fill":        {run: (*Daemon).fill, reach: reachTab, check: checkFill, acts: true},
	"browser.get":         {run: (*Daemon).browserGet, reach: reachTab, check: checkGet},
	"browser.eval":        {run: (*Daemon).browserEval, reach: reachTab, check: checkEval, unsure: true},
	"browser.back":        {run: (*Daemon).browserBack, reach: reachTab, acts: true},
	"browser.forward":     {run: (*Daemon).browserForward, reach: reachTab, acts: true},
	"browser.reload":      {run: (*Daemon).browserReload, reach: reachTab, acts: true},
	"browser.wait":        {run: (*Daemon).browserWait, reach: reachTab},
	"browser.open":        {run: (*Daemon).browserOpen},
	"browser.tab":         {run: (*Daemon).browserTab},
	"browser.profiles":    {run: (*Daemon).browserProfiles},
	"browser.new":         {run: (*Daemon).browserNew, check: checkNew},
	"browser.close":       {run: (*Daemon).browserClose, check: checkClose},
	"browser.use":         {run: (*Daemon).browserUse},
	"browser.attachments": {run: (*Daemon).browserAttachments},
	"browser.detach":      {run: (*Daemon).browserDetach},
	"browser.pin":         {run: (*Daemon).browserPin},
	"browser.new-child":   {run: (*Daemon).browserNewChild},
	"browser.status":      {run: (*Daemon).browserStatus},
	"browser.trace":       {run: (*Daemon).traceVerb, check: checkTrace, untraced: true},
	"browser.budget":      {run: (*Daemon).budget},
}

// Verbs lists the verbs the daemon answers, sorted.
func Verbs() []string {
	out := make([]string, 0, len(verbs))
	for v := range verbs {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

// BrowserVerbs lists the browser.* verbs the daemon answers, sorted.
func BrowserVerbs() []string {
	var out []string
	for _, v := range Verbs() {
		if strings.HasPrefix(v, "browser.") {
			out = append(out, v)
		}
	}
	return out
}

// forVerbs take Request.For: they act on another session's attachment set.
var forVerbs = map[string]bool{"browser.use": true, "browser.detach": true, "browser.pin": true, "browser.attachments": true,
	"trace": true, "browser.trace": true, "budget": true, "browser.budget": true}

// Handle answers one request. It never panics on bad input and always
// answers within the verb timeout.
func (d *Daemon) Handle(ctx context.Context, req Request) Response {
	def, ok := verbs[req.Verb]
	if !ok {
		return refusal(target.Refuse(target.CodeBadRequest, "unknown verb %s", target.Echo(req.Verb)).With("verbs", Verbs()))
	}
	if req.Session == "" {
		return refusal(target.Refuse(target.CodeBadRequest, "no session: set VIBESPACE_SESSION"))
	}
	if req.Mode != "" && req.Verb != "open" && req.Verb != "mode" && req.Verb != "browser.new" {
		return refusal(target.Refuse(target.CodeBadRequest, "a mode is a window's: only open, mode and new --backend desktop-app take one, not %s (a tab has no mode)", req.Verb))
	}
	if req.Secret != "" && req.Verb != "key.set" {
		return refusal(target.Refuse(target.CodeBadRequest, "a key is key set's alone, not %s's: it is never sent with another verb", req.Verb))
	}
	if req.For != "" && !forVerbs[req.Verb] {
		return refusal(target.Refuse(target.CodeBadRequest, "--for is the operator's word for another session's browser attachments or trace: only use, detach, pin, attachments and trace take it, not %s", req.Verb))
	}
	ctx, cancel := context.WithTimeout(ctx, d.cfg.VerbTimeout)
	defer cancel()
	ctx = kind.WithCaller(ctx, kind.Caller{Session: req.Session, Verb: req.Verb, Target: req.Target})
	resp := d.guarded(ctx, def, req)
	resp.Note = notice.Join(resp.Note, d.tell(req))
	resp.V = ProtocolVersion
	return resp
}

// guarded reaches the verb's target and runs it; a panic in it (a bug of
// ours or of a backend) becomes an internal answer to this caller only,
// and the daemon keeps serving everyone else.
func (d *Daemon) guarded(ctx context.Context, def verbDef, req Request) (resp Response) {
	c := &call{req: req, started: d.cfg.Now(), def: def}
	defer func() {
		if c.done != nil {
			c.done()
		}
		if p := recover(); p != nil {
			d.cfg.Logger.Error("a verb panicked", "verb", req.Verb, "panic", p, "stack", string(debug.Stack()))
			resp = refusal(target.Refuse(codeInternal, "the daemon failed on %s (a bug; see its log): %v", req.Verb, p).With("verb", req.Verb))
			ent := lease.Entry{Session: req.Session, Verb: req.Verb, OK: false, Code: codeInternal}
			if id, err := target.ParseID(req.Target); err == nil {
				ent.Target = id
			}
			d.record(ent)
			d.stepped(c, resp) // the step admitStep took is given back
		}
	}()
	if err := d.admitStep(c); err != nil {
		return d.fail(c, err)
	}
	if def.check != nil {
		if err := def.check(d, req); err != nil {
			return d.fail(c, err)
		}
	}
	switch def.reach {
	case reachNone: // the verb finds its own target, or names none
	case reachHandle:
		if err := d.reachHandle(ctx, c); err != nil {
			return d.finish(c, Response{}, err)
		}
		if err := d.checkMode(ctx, c); err != nil {
			return d.finish(c, Response{}, err)
		}
	case reachTab:
		if err := d.reachTab(ctx, c); err != nil {
			return d.finish(c, Response{}, err)
		}
	}
	if err := d.admitLoop(c); err != nil {
		return d.fail(c, err)
	}
	defer d.inFlight(c)()
	return def.run(d, ctx, c)
}

// reachHandle reaches the window of the request's handle for an agent verb:
// its kind, the caller's exposure, a fresh read of it (handleOf), then its
// lease (window_paused while the user drives, held while another session
// does). Its mode is checked next (checkMode, verb_mode.go).
func (d *Daemon) reachHandle(ctx context.Context, c *call) error {
	if err := d.handleOf(ctx, c); err != nil {
		return err
	}
	if err := d.checkDesktopWindow(c); err != nil {
		return err
	}
	return d.take(c)
}

// handleOf looks up the window of the request's handle, as vibespace-window
// names it: a tab's handle is refused wrong_kind, naming vibespace-browser.
func (d *Daemon) handleOf(ctx context.Context, c *call) error {
	if id, err := target.ParseID(c.req.Target); err == nil && id.Kind() != target.KindWindow {
		return target.WrongKind(id, target.KindWindow.Words().CLI)
	}
	e, err := d.lookup(ctx, c.req)
	c.e = e
	return err
}

// take takes the lease of c's target for an agent verb, persisting a lease
// it acquired.
func (d *Daemon) take(c *call) error {
	g, err := d.leases.Use(c.e.id, c.req.Session)
	c.g = g
	if (err == nil && g.Acquired) || g.Told != nil {
		d.persist() // a handback told is told once, across restarts too
	}
	return err
}

// finish builds the answer of a verb: the target named (and the profile,
// for the browser's words), the note told, the audit line written, the
// agent's mark left for the live view.
func (d *Daemon) finish(c *call, resp Response, err error) Response {
	road := c.road
	err = d.scrubErr(err) // no stored key leaves the daemon in an answer, the audit or the trace
	if err != nil {
		resp = refusal(err)
		if by, ok := resp.Facts["by"]; ok && road == "" {
			road = target.Road(fmt.Sprint(by))
		}
	} else {
		resp.OK = true
	}
	if c.e != nil && resp.Target == nil {
		resp.Target = d.info(c.e)
	}
	if c.g.Told != nil {
		resp.Note = c.g.Told.Message()
	}
	resp.Note = d.cutNote(c, resp.Note)
	resp.By = road
	if c.sel != nil && resp.Profile == nil {
		p := c.sel.prof
		d.profileRun(&p)
		resp.Profile = &p
	}
	if err == nil && c.e != nil {
		d.markAgent(c)
	}
	ent := lease.Entry{Session: c.req.Session, For: forOther(c.req), Verb: c.req.Verb, By: road, OK: err == nil, Code: resp.Code}
	ent.User, ent.Force, ent.Replaced, ent.With, ent.Mode, ent.Setting = c.fact.User, c.fact.Force, c.fact.Replaced, c.fact.With, c.fact.Mode, c.fact.Setting
	if c.e != nil {
		ent.Target = c.e.id
		ent.Desktop = resp.Target != nil && resp.Target.Desktop
	} else if id, perr := target.ParseID(c.req.Target); perr == nil {
		ent.Target = id
	}
	d.record(ent)
	d.trace(c, resp, err)
	d.stepped(c, resp)
	return resp
}

// decide applies the capability law to verb on c's target, probed as p
// (node: the traits of the node a verb on a ref acts on): the road the
// verb takes is noted for the answer and the audit, or the refusal that
// stands for no road is returned.
func (d *Daemon) decide(c *call, verb target.Verb, p target.Probe, node *target.NodeTraits) error {
	cap := target.Decide(verb, p, node)
	if !cap.OK() {
		c.road = ""
		return cap.Err()
	}
	c.road = cap.Road
	return nil
}

// fail is finish for a verb refused before it reached anything.
func (d *Daemon) fail(c *call, err error) Response { return d.finish(c, Response{}, err) }

// begin registers a verb in flight on e (a takeover cancels it) and takes
// e's lock. end undoes both.
func (d *Daemon) begin(ctx context.Context, e *entry) (context.Context, func(), error) {
	if d.displayGone(e) {
		d.drop(e.id)
		return nil, nil, target.Refuse(e.words().Gone, "the display of %s is gone", e.id).With("target", string(e.id))
	}
	ctx, cancel := context.WithCancel(ctx)
	key := new(int)
	d.mu.Lock()
	e.flight[key] = cancel
	d.mu.Unlock()
	unregister := func() {
		d.mu.Lock()
		delete(e.flight, key)
		d.mu.Unlock()
		cancel()
	}
	select {
	case e.gate <- struct{}{}:
	case <-ctx.Done():
		unregister()
		return nil, nil, target.Refuse(target.CodeTimeout, "%s is busy with an earlier verb that has not finished", e.id).Wrap(ctx.Err())
	}
	return ctx, func() { <-e.gate; unregister() }, nil
}

// injecting takes the injection slot of e's display: one keyboard and one
// pointer, so injected sequences never interleave. A tab has no display:
// its input goes to it alone.
func (d *Daemon) injecting(ctx context.Context, e *entry) (func(), error) {
	disp := e.disp
	if disp == nil {
		return func() {}, nil
	}
	select {
	case disp.inject <- struct{}{}:
		d.mu.Lock()
		disp.injectOwner = e
		d.mu.Unlock()
		return func() {
			d.mu.Lock()
			disp.injectOwner = nil
			d.mu.Unlock()
			<-disp.inject
		}, nil
	case <-ctx.Done():
		return nil, target.Refuse(target.CodeTimeout, "another window's input was still being injected").Wrap(ctx.Err())
	}
}

// cut turns an error of a verb that was acting into what the agent should
// read: when the lease changed under it (a takeover, a release), that is
// the answer, with partial=true. A target that went meanwhile is dropped.
func (d *Daemon) cut(ctx context.Context, e *entry, session string, err error) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		if lerr := d.still(e, session); lerr != nil {
			if r, ok := target.AsRefusal(lerr); ok {
				return r.With("partial", true)
			}
		}
	}
	if target.CodeOf(err) == e.words().Gone {
		d.drop(e.id)
	}
	if _, refused := target.AsRefusal(err); !refused && errors.Is(err, context.DeadlineExceeded) {
		return target.Refuse(target.CodeTimeout, "%s did not finish in time", e.id).With("target", string(e.id)).Wrap(err)
	}
	return err
}

// still checks, between the steps of a verb, that e is still there and
// still the session's to drive: a target dropped meanwhile (it closed, its
// application exited) is refused by its kind's gone code; a lease that
// changed (a takeover, a release) by the lease's refusal.
func (d *Daemon) still(e *entry, session string) error {
	if d.entryOf(e.id) != e {
		return target.Refuse(e.words().Gone, "%s went away while this verb ran", e.id).With("target", string(e.id))
	}
	return d.leases.Check(e.id, session)
}

// refusal turns err into a failed answer.
func refusal(err error) Response {
	r, ok := target.AsRefusal(err)
	if !ok {
		r = target.Refuse(codeInternal, "%v", err)
	}
	return Response{V: ProtocolVersion, Code: r.Code, Message: r.Message, Facts: r.Facts}
}
