// Package stage is the shape of the work that runs around every verb the
// daemon answers — a session's budget and loop guard, the record of verbs
// in flight, the agent's marks for the live view, the audit, the trace —
// so that the core runs what it was given and names none of it. A stage
// is registered, in order, in one place (cmd/vibespace-daemon/stages);
// the core makes each with an Env and calls, for every verb, the phases
// the stage implements (Admitter, Enterer, Finisher), each phase in the
// order of registration. A stage may also answer verbs of its own
// (Answerer), list what it has lost (Faulter), keep a record in the
// daemon's state (Keeper) and watch what an acting verb does (Watcher). It is modelled on pion's interceptors and
// containerd's plugins: explicit, ordered, registered outside the core.
//
// Stage packages import this package, daemon/verb and daemon/wire, never
// the core (layout_test.go).
package stage

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/vibespace/vibespace/daemon/args"
	"log/slog"
	"time"

	"github.com/vibespace/vibespace/daemon/effect"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/notice"
	"github.com/vibespace/vibespace/daemon/secret"
	"github.com/vibespace/vibespace/daemon/verb"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/target"
)

// Stage is one registered piece of the verb path. It implements any of
// Admitter, Enterer, Finisher, Answerer, Faulter, Keeper, Starter and
// Watcher.
type Stage interface {
	// Name names it in logs, status and errors.
	Name() string
}

// Admitter is asked before the verb reaches anything (so a refusal takes
// no lease): an acting verb's budget.
type Admitter interface {
	Admit(ctx context.Context, c *Call) error
}

// Enterer is asked once the verb reached its target (c.Target is set for
// a verb on a target) and before it runs: a refusal stops it; leave, when
// not nil, runs when the verb returned, after Finish.
type Enterer interface {
	Enter(ctx context.Context, c *Call) (leave func(), err error)
}

// Finisher sees every answer, whether the verb ran, was refused by an
// earlier phase or panicked, once it is built and before it is sent. It
// may add to it (a note), never turn a refusal into success.
type Finisher interface {
	Finish(c *Call, a *Answer)
}

// Answerer answers verbs of its own (the budget's, the trace's): each of
// Verbs is in the verb table and answered by no other stage nor the core.
// Its verbs pass through every phase as the core's do.
type Answerer interface {
	Verbs() []string
	Answer(ctx context.Context, c *Call) (wire.Response, error)
}

// Faulter lists, for status, what it has lost or cannot write now, one
// line each (a "fault:" line of status).
type Faulter interface {
	Faults() []string
}

// Keeper keeps a small record in the daemon's state file under Key: Keep
// is asked at every save (nil: nothing to keep), Restore once, right
// after the stage is made, with what the earlier daemon saved (nil when
// nothing).
type Keeper interface {
	Key() string
	Keep() json.RawMessage
	Restore(json.RawMessage)
}

// Starter is started once the daemon has restored its state and its
// targets (after Restore), before it answers any verb: it reads back what
// an earlier daemon left.
type Starter interface {
	Start(ctx context.Context)
}

// Watcher watches what an acting verb (click, type, fill, select, key,
// scroll) does to its target: verification. The verb asks it to look
// (Watch) once its road is decided and its node read, and before it acts;
// acts; then asks the watch to look again (Watch.After) before its answer
// is final, so the effect is on the answer every Finisher sees (the
// budget's no_progress, the audit, the trace). One stage at most watches;
// with none registered an acting verb's effect is unverifiable.
type Watcher interface {
	Watch(ctx context.Context, c *Call, a Acting) Watch
}

// Acting is what an acting verb is about to act on, and what its watch
// may see of the target.
type Acting struct {
	// Sight is the target as the watch may look at it (the core lends it).
	Sight Sight
	// Node is the node acted on; nil for the focused node or a point.
	Node *kind.Node
	// At is the pixel acted at (nil: none): of the target's pixels only
	// the region around it is compared.
	At *kind.Point
	// Read is Node's facts as the verb read them once for its road
	// (kind.NodeRead.Facts): the look before takes them instead of asking
	// again (act once). nil: the look reads the node itself.
	Read *target.Node
}

// Watch is one acting verb's watch, made by the look before it acted.
type Watch interface {
	// Node is the acted node's facts as the look before saw them (nil:
	// none read).
	Node() *target.Node
	// After watches, after the verb acted, until something changed or the
	// wait ended, and puts what it saw on resp: its Effect, and the
	// effect's words after resp.Did. The wait ends early at a change, at
	// the watcher's wait, at ctx's deadline, or when ctx is cancelled (a
	// takeover).
	After(ctx context.Context, resp *wire.Response)
	// Unverified puts on resp, without looking, that the effect is
	// unverifiable for why (the target was busy).
	Unverified(resp *wire.Response, why string)
}

// Sight is what a watch may see of the target a verb reached; the core
// lends it with every watch (Acting.Sight). Each look is bounded by its
// ctx, and none holds a lock of the daemon's across a backend call.
type Sight interface {
	// Target: its handle, whether it is a window of the user's desktop
	// and its pixels grant, and its picture.
	Target
	// Noun is its kind's noun in answers ("window", "page").
	Noun() string
	// Observe reads, in one look, what f asks of it (kind.LookAt): its
	// node's facts (kind.NodeReader), its content's digest
	// (kind.ContentDigester), its own word marked (kind.ChangeTeller),
	// each ok false where it offers none, through one call where it reads
	// them together (kind.Looker).
	Observe(ctx context.Context, f kind.LookFor) kind.Look
	// Info reads its title, and its address when it loads addresses
	// (kind.Navigator; else ""), as relist reads them, within the
	// target's read budget. err is why it was not read; gone is true when
	// that is the target's gone code (it stays in the table: the next
	// verb on it answers that code, as for any target).
	Info(ctx context.Context) (title, url string, gone bool, err error)
	// Rescan scans its display for new windows now (a dialog the action
	// opened), as discovery would, unless a scan is running already or
	// the display lists a whole desktop (no cheap look).
	Rescan(ctx context.Context)
	// Seen is the targets session sees, each with its title.
	Seen(session string) map[target.ID]string
	// WaitChange waits until its content shows a sign of change or d
	// passed (kind.ChangeWaiter): changed whether it saw one; ok false
	// when it cannot tell (it is looked at every VerifyPoll instead).
	WaitChange(ctx context.Context, d time.Duration) (changed, ok bool, err error)
	// Changes tells what changed anywhere in it after mark since (0:
	// marks now), waiting up to d for the first change
	// (kind.ChangeTeller): ok false when it tells none; err that it
	// cannot tell now (it is looked at instead).
	Changes(ctx context.Context, since uint64, d time.Duration) (ch kind.Changes, ok bool, err error)
	// Settle waits until its application read the input sent to it
	// (kind.Settler); at once when it cannot tell, or when the wait failed.
	Settle(ctx context.Context)
}

// Registration is one stage as registered: its name and what makes it.
type Registration struct {
	Name string
	New  func(Env) (Stage, error)
}

// Env is what the core gives a stage as it makes it.
type Env struct {
	StateDir string
	Now      func() time.Time
	Logger   *slog.Logger
	// Owe tells n on the next answer of those it names (everyone by
	// default), once, and keeps it in the state until told.
	Owe func(n notice.Notice)
	// Wrote says whether a write of the file or directory named (relative
	// to StateDir) failed (err) or succeeded: status lists a failed write
	// until one succeeds.
	Wrote func(name string, err error)
	// Record appends one line to the audit log; a lapse of the audit is
	// the core's to tell.
	Record func(lease.Entry)
	// Persist saves the daemon's state now (a Keeper's record changed).
	Persist func()
	// Alive reports whether the target is still in the daemon's table.
	Alive func(target.ID) bool
	// VerifyWait, VerifyPoll: how long an acting verb watches for its
	// effect at most, and how often it looks (zero: the watcher's own
	// defaults).
	VerifyWait, VerifyPoll time.Duration
	// NoProgressAfter, TracePictureMax: the daemon's configured bounds.
	NoProgressAfter int
	TracePictureMax int64
	// TraceSteps, TraceRetention: the trace's configured bounds (the steps
	// kept per session; the age past which a step goes, negative: never).
	TraceSteps     int
	TraceRetention time.Duration
	// Keys is the daemon's key store (package daemon/secret): the provider
	// keys, which no stage may answer, log, audit or trace (the core blanks
	// every stored key out of what leaves the daemon). Only the key words'
	// stage (daemon/keys) writes it; the secrets stage (daemon/secrets)
	// reads the secrets an agent types by name (secret:NAME), never a
	// provider's key.
	Keys *secret.Store
	// Sees reports whether the target id is shared with session (seen),
	// and whether the daemon knows it at all (known: false once it is
	// gone).
	Sees func(session string, id target.ID) (seen, known bool)
	// Hands is the core's hands for a stage that needs more of the daemon
	// than the rest of Env: the stage declares what it needs, once, as an
	// interface of its own (daemon/browsing's Host, daemon/tabs's Host),
	// and asserts Hands to it as it is made. nil lends nothing (a stage's
	// own tests, unless they lend a double).
	Hands any
}

// Call is one verb being answered, as the stages see it.
type Call struct {
	// Req is the request's envelope (its Args as they came); Args are its
	// verb's arguments, decoded once into the verb's type of package
	// daemon/args (a stage reads its own verb's by type assertion, any
	// verb's through args.Ref, args.Point, args.Text, args.NoVerify).
	Req   wire.Request
	Args  args.Args
	Facts verb.Facts
	// Started is when the daemon began answering it.
	Started time.Time
	// Target is the target the verb reached; nil before it did, and for a
	// verb on no target. At Finish it is the target the verb ended on: the
	// one it opened, nil once it closed the one it reached.
	Target Target
	// Road is the road the verb took (the capability law's word).
	Road target.Road
	// What an acting verb learned, for its answer and its trace: the node
	// it acted on (its role and name), and digests of what it observed of
	// the target before and after it acted.
	Acted         *target.NodeTraits
	Before, After string
	// Fact is what the verb adds to its audit row: user, force, replaced,
	// with, mode, setting.
	Fact lease.Entry
	// Batch is the id of the batch the verb runs as a step of, "" for a
	// verb of its own: the batch stage (daemon/batch) sets it as it admits
	// the verb, the trace keeps it.
	Batch string

	kept map[any]any
}

// Put keeps v for the stage under key k (a value of a type of the
// stage's own) until the call ends.
func (c *Call) Put(k, v any) {
	if c.kept == nil {
		c.kept = map[any]any{}
	}
	c.kept[k] = v
}

// Get answers what Put kept under k, or nil.
func (c *Call) Get(k any) any { return c.kept[k] }

// ID is the reached target's handle, else the request's when it parses,
// else "".
func (c *Call) ID() target.ID {
	if c.Target != nil {
		return c.Target.ID()
	}
	if id, err := target.ParseID(c.Req.Target); err == nil {
		return id
	}
	return ""
}

// Target is what a stage may know of the target a verb reached, and the
// one thing it may do to it (a picture, for the trace).
type Target interface {
	ID() target.ID
	// NodeKey is the backend's key of the node of ref as the target's last
	// snapshot placed it ("" when none): one node is one key across
	// snapshots.
	NodeKey(ref string) string
	// Bounds answers the target's box and, for ref (when not ""), the
	// node's box as its last snapshot placed it (ok false when unknown).
	Bounds(ref string) (win, node target.Rect, ok bool)
	// Desktop reports whether it is a window of the user's own desktop and
	// whether the operator granted its pixels.
	Desktop() (mine, pixels bool)
	// Screenshot is its picture now (PNG).
	Screenshot(ctx context.Context) ([]byte, error)
}

// Answer is a verb's answer while the stages finish it: the response, and
// the refusal or failure when it did not run (nil when it did).
type Answer struct {
	Resp wire.Response
	Err  error
}

// OK reports whether the verb ran.
func (a *Answer) OK() bool { return a.Err == nil && a.Resp.OK }

// Chain is the stages a daemon was given, made, in order.
type Chain struct {
	all     []Stage
	answers map[string]Answerer
	watcher Watcher // nil: none registered
}

// Make makes every registered stage with env, in order. Two registrations
// of one name, or two stages answering one verb, or a stage answering a
// verb the table does not list, or two watchers, are errors.
func Make(regs []Registration, env Env) (*Chain, error) {
	ch := &Chain{answers: map[string]Answerer{}}
	names := map[string]bool{}
	for _, r := range regs {
		if names[r.Name] {
			return nil, fmt.Errorf("stage %s is registered twice", r.Name)
		}
		names[r.Name] = true
		s, err := r.New(env)
		if err != nil {
			return nil, fmt.Errorf("stage %s: %w", r.Name, err)
		}
		ch.all = append(ch.all, s)
		if w, ok := s.(Watcher); ok {
			if ch.watcher != nil {
				return nil, fmt.Errorf("stage %s watches acting verbs, which another stage watches", r.Name)
			}
			ch.watcher = w
		}
		if a, ok := s.(Answerer); ok {
			for _, v := range a.Verbs() {
				if _, ok := verb.Of(v); !ok {
					return nil, fmt.Errorf("stage %s answers %s, which the verb table does not list", r.Name, v)
				}
				if _, dup := ch.answers[v]; dup {
					return nil, fmt.Errorf("stage %s answers %s, which another stage answers", r.Name, v)
				}
				ch.answers[v] = a
			}
		}
	}
	return ch, nil
}

// Stages lists the stages, in order.
func (ch *Chain) Stages() []Stage { return ch.all }

// Answerer answers the stage that answers verb, or nil.
func (ch *Chain) Answerer(verb string) Answerer { return ch.answers[verb] }

// Admit asks every Admitter in order; the first refusal stands.
func (ch *Chain) Admit(ctx context.Context, c *Call) error {
	for _, s := range ch.all {
		if a, ok := s.(Admitter); ok {
			if err := a.Admit(ctx, c); err != nil {
				return err
			}
		}
	}
	return nil
}

// Enter asks every Enterer in order. leave undoes, in reverse order,
// those that entered; on a refusal, those that entered before it are left
// at once.
func (ch *Chain) Enter(ctx context.Context, c *Call) (leave func(), err error) {
	var leaves []func()
	leave = func() {
		for i := len(leaves) - 1; i >= 0; i-- {
			leaves[i]()
		}
	}
	for _, s := range ch.all {
		en, ok := s.(Enterer)
		if !ok {
			continue
		}
		l, err := en.Enter(ctx, c)
		if err != nil {
			leave()
			return func() {}, err
		}
		if l != nil {
			leaves = append(leaves, l)
		}
	}
	return leave, nil
}

// Finish hands a to every Finisher in order.
func (ch *Chain) Finish(c *Call, a *Answer) {
	for _, s := range ch.all {
		if f, ok := s.(Finisher); ok {
			f.Finish(c, a)
		}
	}
}

// Watch asks the registered Watcher to look at c's target before the verb
// acts on a's node or point. With no watcher registered it looks at
// nothing, and After says the effect is unverifiable.
func (ch *Chain) Watch(ctx context.Context, c *Call, a Acting) Watch {
	if ch.watcher == nil {
		return unwatched{}
	}
	return ch.watcher.Watch(ctx, c, a)
}

// unwatched is the watch of a daemon with no Watcher registered.
type unwatched struct{}

func (unwatched) Node() *target.Node { return nil }

func (u unwatched) After(_ context.Context, resp *wire.Response) {
	u.Unverified(resp, "no stage watches effects")
}

func (unwatched) Unverified(resp *wire.Response, why string) {
	resp.Effect = &target.Effect{Word: target.EffectUnverifiable, Why: why}
	resp.Did += effect.Words(resp.Effect)
}

// Faults lists every Faulter's faults, in order.
func (ch *Chain) Faults() []string {
	var out []string
	for _, s := range ch.all {
		if f, ok := s.(Faulter); ok {
			out = append(out, f.Faults()...)
		}
	}
	return out
}

// Restore hands every Keeper its record of records (by key).
func (ch *Chain) Restore(records map[string]json.RawMessage) {
	for _, s := range ch.all {
		if k, ok := s.(Keeper); ok {
			k.Restore(records[k.Key()])
		}
	}
}

// Keep adds every Keeper's record to records (by key).
func (ch *Chain) Keep(records map[string]json.RawMessage) {
	for _, s := range ch.all {
		if k, ok := s.(Keeper); ok {
			if r := k.Keep(); r != nil {
				records[k.Key()] = r
			}
		}
	}
}

// Start starts every Starter, in order.
func (ch *Chain) Start(ctx context.Context) {
	for _, s := range ch.all {
		if st, ok := s.(Starter); ok {
			st.Start(ctx)
		}
	}
}
