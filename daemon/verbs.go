package daemon

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/notice"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/daemon/verb"
	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/target"
)

// codeInternal marks an answer that is not a refusal but a failure of ours.
const codeInternal = target.CodeInternal

// verbDef is what runs a verb the core answers, and what it checks of the
// request, beyond its arguments' own rules (their type's Validate, which
// every verb's arguments pass first), before it reaches anything (so a
// malformed request takes no lease). Everything else known of a verb is
// its row of the verb table (package daemon/verb).
type verbDef struct {
	run   func(d *Daemon, ctx context.Context, c *call) Response
	check func(d *Daemon, c *call) error
}

// call is one verb being answered: what the stages see of it (the request,
// its facts, the target reached, what it learned), and the entry, lease
// and profile it reached.
type call struct {
	stage.Call
	e    *entry       // nil for a verb on no target
	g    lease.Grant  // the lease grant, with the handback note owed
	prof *ProfileInfo // the profile chosen (vibespace-browser's words), named by the answer
	done func()       // releases what reaching took (the browser's hold)
	def  verbDef
	// finishing: the stages' Finish began (a panic after it is not
	// finished twice).
	finishing bool
}

// reached shows the stages the entry c reached (c.e), or none.
func (c *call) reached(d *Daemon) {
	c.Target = nil
	if c.e != nil {
		c.Target = stageTarget{d: d, e: c.e}
	}
}

// checker is a stage that answers verbs and checks their requests, as
// the core's check does, before they reach anything (so a malformed
// request takes no lease).
type checker interface {
	Check(c *stage.Call) error
}

// runs is what runs every verb the core answers itself; a registered
// stage answers the others (stage.Answerer), and an entry with no run
// holds only the argument check of a verb a stage answers, which runs
// before the stage is asked. Which verbs exist and what is
// true of each is the verb table's alone: New refuses a table and a set of
// runners that disagree.
var runs = map[string]verbDef{
	// vibespace-window
	"status":     {run: (*Daemon).status},
	"doctor":     {run: (*Daemon).doctor},
	"list":       {run: (*Daemon).list},
	"open":       {run: (*Daemon).open},
	"close":      {run: (*Daemon).closeTarget},
	"attach":     {run: (*Daemon).attach},
	"detach":     {run: (*Daemon).detach},
	"share":      {run: (*Daemon).share},
	"takeover":   {run: (*Daemon).takeover},
	"handback":   {run: (*Daemon).handback},
	"snapshot":   {run: (*Daemon).snapshot},
	"screenshot": {run: (*Daemon).screenshot},
	"click":      {run: (*Daemon).click},
	"type":       {run: (*Daemon).typeText, check: checkType},
	"fill":       {run: (*Daemon).fill, check: checkFill},
	"key":        {run: (*Daemon).key},
	"scroll":     {run: (*Daemon).scroll},
	"select":     {run: (*Daemon).selectOptions},
	"mode":       {run: (*Daemon).setMode},
	"desktop":    {run: (*Daemon).desktop, check: checkDesktop},
	"find":       {run: (*Daemon).findText},
	"get":        {run: (*Daemon).getNode},
	// (the key words are the stage daemon/keys'; their provider is checked here)
	"key.set":   {check: checkKeyNamed},
	"key.clear": {check: checkKeyNamed},
	"key.list":  {check: checkKeyList},

	// vibespace-browser: the same verbs on the current tab…
	"browser.snapshot":   {run: (*Daemon).snapshot},
	"browser.screenshot": {run: (*Daemon).screenshot},
	"browser.click":      {run: (*Daemon).click},
	"browser.type":       {run: (*Daemon).typeText, check: checkTypeKeys},
	"browser.key":        {run: (*Daemon).key},
	"browser.scroll":     {run: (*Daemon).scroll},
	"browser.find":       {run: (*Daemon).findText},
	"browser.select":     {run: (*Daemon).selectOptions},
	"browser.fill":       {run: (*Daemon).fill, check: checkFill},
	// …and the browser's own words.
	// (the words on a session's tabs and desktop apps — open, tab, get,
	// eval, back, forward, reload, wait, new, close — are the stage
	// daemon/tabs's; the profile words that reach no tab are the stage
	// daemon/browsing's; vibespace-window's watch is the stage
	// daemon/watching's)
}

// Verbs lists the verbs the daemon answers, sorted.
func Verbs() []string { return verb.Names() }

// BrowserVerbs lists the browser.* verbs the daemon answers, sorted.
func BrowserVerbs() []string { return verb.Where(verb.Facts.Browser) }

// runners checks that every verb of the table has exactly one runner —
// the core's or one stage's — and that nothing runs a verb the table does
// not list.
func runners(ch *stage.Chain) error {
	var errs []error
	for _, v := range verb.Names() {
		core := runs[v].run != nil
		if by := ch.Answerer(v); by != nil && core {
			errs = append(errs, fmt.Errorf("verb %s is answered by the core and by stage %s", v, by.(stage.Stage).Name()))
		} else if by == nil && !core {
			errs = append(errs, fmt.Errorf("verb %s of the verb table has nothing to run it", v))
		}
	}
	for v := range runs {
		if _, ok := verb.Of(v); !ok {
			errs = append(errs, fmt.Errorf("the core runs %s, which the verb table does not list", v))
		}
	}
	return errors.Join(errs...)
}

// Handle answers one request. It never panics on bad input and always
// answers within the verb timeout.
func (d *Daemon) Handle(ctx context.Context, req Request) Response {
	facts, ok := verb.Of(req.Verb)
	if !ok {
		return refusal(target.Refuse(target.CodeBadRequest, "unknown verb %s", target.Echo(req.Verb)).With("verbs", Verbs()))
	}
	if req.Session == "" {
		return refusal(target.Refuse(target.CodeBadRequest, "no session: set VIBESPACE_SESSION"))
	}
	a, _, err := args.Decode(req.Verb, req.Args)
	switch f := args.Unknown(err); {
	case f == "mode" && !facts.Mode:
		return refusal(target.Refuse(target.CodeBadRequest, "a mode is a window's: only %s take one, not %s (a tab has no mode)", words(verb.Where(func(f verb.Facts) bool { return f.Mode })), req.Verb))
	case f == "secret" && !facts.Secret:
		return refusal(target.Refuse(target.CodeBadRequest, "a key is key set's alone, not %s's: it is never sent with another verb", req.Verb))
	case err != nil:
		return refusal(err)
	}
	if req.For != "" && !facts.For {
		return refusal(target.Refuse(target.CodeBadRequest, "--for is the operator's word for another session's browser attachments, trace or budget: only %s take it, not %s", words(verb.Where(func(f verb.Facts) bool { return f.For })), req.Verb))
	}
	ctx, cancel := context.WithTimeout(ctx, args.Bound(a, d.cfg.VerbTimeout))
	defer cancel()
	ctx = kind.WithCaller(ctx, kind.Caller{Session: req.Session, Verb: req.Verb, Target: req.Target})
	resp := d.guarded(ctx, facts, req, a)
	resp.Note = notice.Join(resp.Note, d.tell(req))
	resp.V = ProtocolVersion
	return resp
}

// words lists verbs as a person types them, each once: "open, mode and new".
func words(names []string) string {
	var ws []string
	for _, n := range names {
		if w := strings.TrimPrefix(n, verb.BrowserPrefix); !slices.Contains(ws, w) {
			ws = append(ws, w)
		}
	}
	if len(ws) < 2 {
		return strings.Join(ws, "")
	}
	return strings.Join(ws[:len(ws)-1], ", ") + " and " + ws[len(ws)-1]
}

// guarded reaches the verb's target and runs it, with the registered
// stages around it; a panic in it (a bug of ours or of a backend) becomes
// an internal answer to this caller only, and the daemon keeps serving
// everyone else.
func (d *Daemon) guarded(ctx context.Context, facts verb.Facts, req Request, a args.Args) (resp Response) {
	def, ok := runs[req.Verb]
	if by := d.stages.Answerer(req.Verb); by != nil {
		ok = true
		def.run = func(d *Daemon, ctx context.Context, c *call) Response {
			resp, err := by.Answer(ctx, &c.Call)
			if c.finishing && err == nil {
				// The stage had the core finish it already (the tabs'
				// new and close of a desktop app, through open and close:
				// their own audit row): not twice.
				return resp
			}
			return d.finish(c, resp, err)
		}
		if ch, ok := by.(checker); ok {
			def.check = func(_ *Daemon, c *call) error { return ch.Check(&c.Call) }
		}
	}
	if !ok || def.run == nil {
		return refusal(target.Refuse(codeInternal, "nothing in this daemon answers %s", req.Verb))
	}
	c := &call{Call: stage.Call{Req: req, Args: a, Facts: facts, Started: d.cfg.Now()}, def: def}
	c.Put(callKey{}, c) // the core's call behind the stages' view of it (browserHands)
	defer func() {
		if c.done != nil {
			c.done()
		}
		if p := recover(); p != nil {
			d.cfg.Logger.Error("a verb panicked", "verb", req.Verb, "panic", p, "stack", string(debug.Stack()))
			resp = refusal(target.Refuse(codeInternal, "the daemon failed on %s (a bug; see its log): %v", req.Verb, p).With("verb", req.Verb))
			if !c.finishing { // its audit row and its step are still owed
				resp = d.finish(c, Response{}, target.Refuse(codeInternal, "the daemon failed on %s (a bug; see its log): %v", req.Verb, p).With("verb", req.Verb))
			}
		}
	}()
	if err := d.stages.Admit(ctx, &c.Call); err != nil {
		return d.fail(c, err)
	}
	if err := a.Validate(); err != nil {
		return d.fail(c, err)
	}
	if def.check != nil {
		if err := def.check(d, c); err != nil {
			return d.fail(c, err)
		}
	}
	switch facts.Reach {
	case verb.None: // the verb finds its own target, or names none
	case verb.Handle:
		if err := d.reachHandle(ctx, c); err != nil {
			return d.finish(c, Response{}, err)
		}
		if err := d.checkMode(ctx, c); err != nil {
			return d.finish(c, Response{}, err)
		}
	case verb.Tab:
		if err := d.tabs.Reach(ctx, &c.Call); err != nil { // the session's current tab (package daemon/tabs)
			return d.finish(c, Response{}, err)
		}
	}
	c.reached(d)
	leave, err := d.stages.Enter(ctx, &c.Call)
	if err != nil {
		return d.fail(c, err)
	}
	defer leave()
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
	if id, err := target.ParseID(c.Req.Target); err == nil && id.Kind() != target.KindWindow {
		return target.WrongKind(id, target.KindWindow.Words().CLI)
	}
	e, err := d.lookup(ctx, &c.Call)
	c.e = e
	return err
}

// take takes the lease of c's target for an agent verb, persisting a lease
// it acquired.
func (d *Daemon) take(c *call) error {
	g, err := d.leases.Use(c.e.id, c.Req.Session)
	c.g = g
	if (err == nil && g.Acquired) || g.Told != nil {
		d.persist() // a handback told is told once, across restarts too
	}
	return err
}

// finish builds the answer of a verb: the target named (and the profile,
// for the browser's words), the note told; then every registered stage
// finishes it (the audit line, the trace, the agent's mark, the step).
func (d *Daemon) finish(c *call, resp Response, err error) Response {
	c.finishing = true
	err = d.scrubErr(err) // no stored key leaves the daemon in an answer, the audit or the trace
	if err != nil {
		resp = refusal(err)
		if by, ok := resp.Facts["by"]; ok && c.Road == "" {
			c.Road = target.Road(fmt.Sprint(by))
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
	resp.By = c.Road
	if c.prof != nil && resp.Profile == nil {
		p := *c.prof
		d.browsing.Describe(&p)
		resp.Profile = &p
	}
	// The stages finish on the target the verb ended on: the one it
	// opened, none once it closed the one it reached.
	c.reached(d)
	a := &stage.Answer{Resp: resp, Err: err}
	d.stages.Finish(&c.Call, a)
	return a.Resp
}

// decide applies the capability law to verb on c's target, probed as p
// (node: the traits of the node a verb on a ref acts on): the road the
// verb takes is noted for the answer and the audit, or the refusal that
// stands for no road is returned.
func (d *Daemon) decide(c *call, verb target.Verb, p target.Probe, node *target.NodeTraits) error {
	cap := target.Decide(verb, p, node)
	if !cap.OK() {
		c.Road = ""
		return cap.Err()
	}
	c.Road = cap.Road
	return nil
}

// fail is finish for a verb refused before it reached anything.
func (d *Daemon) fail(c *call, err error) Response { return d.finish(c, Response{}, err) }

// begin registers a verb in flight on e (a takeover cancels it) and takes
// e's lock. end undoes both.
func (d *Daemon) begin(ctx context.Context, e *entry) (context.Context, func(), error) {
	if d.reg.Gone(e.disp) {
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

// facts answers the facts of a verb the daemon calls itself.
func facts(name string) verb.Facts {
	f, ok := verb.Of(name)
	if !ok {
		panic("verb table: no verb " + name)
	}
	return f
}
