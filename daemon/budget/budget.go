// Package budget is the stage of a session's steps: loop detection (the
// same action that saw no visible change NoProgressAfter times in a row,
// the target's state the same before each as after the last, is refused
// no_progress the next time) and budgets (an optional number
// of acting verbs and an optional wall clock, refused budget_spent once
// spent). Steps are the acting verbs the verb table marks acting
// (verb.Facts.Acts: click, type, fill, select, key, scroll, and a tab's
// back, forward and reload, which change what it shows) that ran; reading
// and the operator's words are not steps. A budget is a guard rail the
// agent's own operator sets, not a security boundary: every session runs
// as one user, and any may reset its own. Budgets are kept in
// budgets.json in the state directory, so a daemon that restarts keeps
// them; the loop count is not (a restart is a look again).
//
// The stage takes a step as the verb is admitted (Admit: budget_spent,
// budget_unreadable), guards the target it reached against a loop (Enter:
// no_progress), counts what the verb did (Finish), answers the budget
// verbs (budget, browser.budget), says for status while the budgets are
// lost (Faults), keeps state.json's word that budgets.json was saved
// (Keep, under "budgets") and reads budgets.json back as the daemon
// starts (Start).
package budget

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/vibespace/vibespace/daemon/args"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vibespace/vibespace/daemon/notice"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/internal/atomicfile"
	"github.com/vibespace/vibespace/internal/statefile"
	"github.com/vibespace/vibespace/target"
)

// Name is the stage's name as registered.
const Name = "budget"

// Budget is one session's budget as budget answers it (Response.Value).
type Budget struct {
	Session string `json:"session"`
	// Steps is the acting verbs allowed in all (0: no bound); Used how
	// many ran since the budget was set or reset.
	Steps int `json:"steps,omitempty"`
	Used  int `json:"used"`
	// Minutes is the wall clock allowed from Since (0: no bound); Until is
	// when it ends.
	Minutes int       `json:"minutes,omitempty"`
	Since   time.Time `json:"since"`
	Until   time.Time `json:"until,omitzero"`
}

// Guard is the stage: the daemon's record of every session's steps.
type Guard struct {
	env stage.Env

	mu      sync.Mutex
	loaded  bool
	budgets map[string]*Budget
	// last is each session's last action on each target (loopAt).
	last map[string]loopMark
	// gen counts the budgets' changes; saved is the last one written
	// (under saveMu, so an older copy never replaces a newer one).
	gen    uint64
	saveMu sync.Mutex
	saved  uint64
	// lost is set while the saved budgets could not be read back: the
	// sessions set again since (settled) act, every other is refused.
	lost    *budgetsLost
	settled map[string]bool
	// kept: budgets.json was saved (read back, written, or state.json
	// said so as the daemon started). state.json says so (keptKey), so
	// that a budgets.json missing afterwards is a loss said and failed
	// closed, never taken for "no budget was set".
	kept atomic.Bool
}

// New makes the stage with env.
func New(env stage.Env) (stage.Stage, error) { return &Guard{env: env}, nil }

// Name names the stage.
func (g *Guard) Name() string { return Name }

// keptKey is where state.json says budgets.json was saved.
const keptKey = "budgets"

// Key is where state.json keeps the stage's record.
func (g *Guard) Key() string { return keptKey }

// Keep is state.json's word that budgets.json was saved, or nil.
func (g *Guard) Keep() json.RawMessage {
	if !g.kept.Load() {
		return nil
	}
	return json.RawMessage(`{"saved":true}`)
}

// Restore takes state.json's word: budgets.json was saved, so its absence
// is a loss.
func (g *Guard) Restore(raw json.RawMessage) { g.kept.Store(len(raw) > 0) }

// budgetsLost is what budgets.json keeps while the budgets it held are
// unknown: why, when, where the unreadable file went, and the sessions
// whose budget was set again since.
type budgetsLost struct {
	Why     string    `json:"why"`
	At      time.Time `json:"at"`
	MovedTo string    `json:"moved_to,omitempty"`
}

// budgetsFile is budgets.json while budgets were lost. Otherwise the file
// is the plain list of budgets.
type budgetsFile struct {
	Lost    *budgetsLost `json:"lost"`
	Settled []string     `json:"settled,omitempty"`
	Budgets []*Budget    `json:"budgets"`
}

// loopMark is a session's last action and how many times in a row it saw
// no visible change.
type loopMark struct {
	key   string
	times int
	// after is the digest of what the verifier saw of the target after
	// the last of them (stage.Call.After): a repeat that finds the target
	// otherwise (its Before) is no repeat of a step that changed nothing.
	after string
}

// loopAt is where a session's loop count is kept: one per session and
// target, so an action on another target leaves it be.
func loopAt(session string, id target.ID) string { return session + "\x00" + string(id) }

// ActionKey names an action for loop detection (and for the reach
// ladder's next-rung hint, daemon/reach): the verb, the target it
// reached, the node (by the backend's key, as a new snapshot's ref to it
// is the same node) and a digest of the rest of its arguments (its point,
// text, options, chord, direction…; never the text itself), whether it
// watches its effect aside.
func ActionKey(c *stage.Call) string {
	node := args.Ref(c.Args)
	if k := c.Target.NodeKey(node); k != "" {
		node = k
	}
	var rest map[string]any
	b, _ := json.Marshal(c.Args)
	_ = json.Unmarshal(b, &rest)
	delete(rest, "ref")
	delete(rest, "no_verify")
	if args.Secret(c.Args) != "" {
		delete(rest, "text") // a secret typed by name is named by its name, not digested (daemon/secrets)
	}
	b, _ = json.Marshal(rest) // its keys sorted
	sum := sha256.Sum256(b)
	return strings.Join([]string{c.Req.Verb, string(c.Target.ID()), node, hex.EncodeToString(sum[:8])}, "|")
}

// book reads the budgets back the first time they are asked for; g.mu is
// held.
func (g *Guard) book() {
	if g.loaded {
		return
	}
	g.loaded = true
	g.budgets = map[string]*Budget{}
	g.last = map[string]loopMark{}
	g.settled = map[string]bool{}
	var f budgetsFile
	check := func(raw []byte) error {
		if len(raw) > 0 && raw[0] == '[' {
			return statefile.JSON(&f.Budgets)(raw)
		}
		if err := statefile.JSON(&f)(raw); err != nil {
			return err
		}
		if f.Lost == nil {
			return errors.New("it is neither a list of budgets nor a record of lost ones")
		}
		return nil
	}
	raw, dmg := statefile.Read(g.path(), check, g.env.Now())
	if dmg == nil && raw == nil && g.kept.Load() {
		dmg = &statefile.Damage{File: "budgets.json", Path: g.path(), Missing: true, At: g.env.Now().UTC(),
			Why: "state.json says budgets were saved"}
	}
	if raw != nil {
		g.kept.Store(true)
	}
	if dmg != nil {
		f = budgetsFile{Lost: &budgetsLost{Why: dmg.Why, At: dmg.At, MovedTo: filepath.Base(dmg.MovedTo)}}
		g.gen++ // saved by Start, so a restart before anyone sets a budget still fails closed
		g.env.Owe(notice.Notice{Text: dmg.Error() + "; every session's budget is unknown, so acting verbs are refused " + string(target.CodeBudgetUnreadable) + " until its operator sets it again (budget --steps N / --minutes N; --steps 0 --minutes 0 for none)"})
	}
	for _, x := range f.Budgets {
		if x != nil && x.Session != "" {
			g.budgets[x.Session] = x
		}
	}
	g.lost = f.Lost
	for _, s := range f.Settled {
		g.settled[s] = true
	}
}

// Start reads the budgets as the daemon starts, and saves at once what a
// damaged file left: the record that they were lost.
func (g *Guard) Start(context.Context) {
	g.mu.Lock()
	g.book()
	var (
		gen  uint64
		save []Budget
	)
	if g.gen > g.saved {
		gen, save = g.changed()
	}
	g.mu.Unlock()
	if save != nil {
		g.save(gen, save)
	}
}

// unknown is the refusal of an acting verb of a session whose budget was
// lost and not set again; g.mu is held.
func (g *Guard) unknown(session string) error {
	if g.lost == nil || g.settled[session] {
		return nil
	}
	return target.Refuse(target.CodeBudgetUnreadable, "the saved budgets could not be read back at %s (budgets.json: %s), so this session's budget is unknown: its operator sets it again (budget --steps N / --minutes N; --steps 0 --minutes 0 for none) before it acts",
		g.lost.At.UTC().Format(time.RFC3339), g.lost.Why).With("since", g.lost.At.UTC().Format(time.RFC3339)).With("moved_to", g.lost.MovedTo)
}

// Faults is status's line while budgets are lost (none otherwise).
func (g *Guard) Faults() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.book()
	if g.lost == nil {
		return nil
	}
	return []string{fmt.Sprintf("%s: the saved budgets could not be read back (budgets.json: %s; kept aside as %s): acting verbs are refused %s for every session whose budget was not set again since (%d set again)",
		g.lost.At.UTC().Format(time.RFC3339), g.lost.Why, g.lost.MovedTo, target.CodeBudgetUnreadable, len(g.settled))}
}

func (g *Guard) path() string { return filepath.Join(g.env.StateDir, "budgets.json") }

// changed notes a change of the budgets and answers a copy of them to
// save (save) once g.mu is let go; g.mu is held.
func (g *Guard) changed() (uint64, []Budget) {
	g.gen++
	bs := make([]Budget, 0, len(g.budgets))
	for _, x := range g.budgets {
		bs = append(bs, *x)
	}
	return g.gen, bs
}

// save writes the budgets of change gen atomically (temp, fsync, rename,
// fsync of the directory), outside the daemon's locks; a copy older than
// one already written is dropped. A failure is logged: the budgets hold
// in memory until the daemon restarts.
func (g *Guard) save(gen uint64, bs []Budget) {
	g.saveMu.Lock()
	defer g.saveMu.Unlock()
	if gen <= g.saved {
		return
	}
	g.mu.Lock()
	var payload any = bs
	if g.lost != nil {
		f := budgetsFile{Lost: g.lost, Budgets: make([]*Budget, len(bs))}
		for i := range bs {
			f.Budgets[i] = &bs[i]
		}
		for s := range g.settled {
			f.Settled = append(f.Settled, s)
		}
		sort.Strings(f.Settled)
		payload = f
	}
	g.mu.Unlock()
	raw, err := json.Marshal(payload)
	if err == nil {
		err = atomicfile.Write(g.path(), raw)
	}
	g.env.Wrote("budgets.json", err)
	if err == nil && !g.kept.Swap(true) {
		g.env.Persist() // state.json says so from now on
	}
	if err != nil {
		g.env.Logger.Warn("budgets.json could not be written; the budgets hold until the daemon restarts", "err", err)
		return
	}
	g.saved = gen
}

// reservedKey keeps, in a call, the budget Admit took one step of.
type reservedKey struct{}

// Admit refuses an acting verb before it reaches anything when its
// session's budget is spent, and otherwise takes one step of the budget
// for it (reservedKey), under the lock, so verbs of one session run at
// once never pass one budget together; Finish gives the step back when
// the verb did not run.
func (g *Guard) Admit(_ context.Context, c *stage.Call) error {
	if !c.Facts.Acts {
		return nil
	}
	req := c.Req
	g.mu.Lock()
	defer g.mu.Unlock()
	g.book()
	if err := g.unknown(req.Session); err != nil {
		return err
	}
	bu := g.budgets[req.Session]
	if bu == nil {
		return nil
	}
	if bu.Steps > 0 && bu.Used >= bu.Steps {
		return target.Refuse(target.CodeBudgetSpent, "this session's budget of %d steps is spent: its operator sets a new one (budget --steps N) or starts it over (budget --reset)", bu.Steps).
			With("steps", bu.Steps).With("used", bu.Used)
	}
	if !bu.Until.IsZero() && !g.env.Now().Before(bu.Until) {
		return target.Refuse(target.CodeBudgetSpent, "this session's budget of %d minutes is spent: its operator sets a new one (budget --minutes N) or starts it over (budget --reset)", bu.Minutes).
			With("minutes", bu.Minutes).With("until", bu.Until.UTC().Format(time.RFC3339))
	}
	bu.Used++
	c.Put(reservedKey{}, bu)
	return nil
}

// Enter refuses an acting verb on the target it reached when it is the
// action that saw no visible change NoProgressAfter times in a row on
// that target (so with the default 3, the fourth attempt is refused, and
// every one after it until another action on that target, or a change).
func (g *Guard) Enter(_ context.Context, c *stage.Call) (func(), error) {
	if !c.Facts.Acts || c.Target == nil {
		return nil, nil
	}
	n := g.env.NoProgressAfter
	g.mu.Lock()
	defer g.mu.Unlock()
	g.book()
	id := c.Target.ID()
	if m, ok := g.last[loopAt(c.Req.Session, id)]; ok && n > 0 && m.key == ActionKey(c) && m.times >= n {
		return nil, target.Refuse(target.CodeNoProgress, "this same %s saw no visible change %d times in a row: do something else on %s (another action, or wait for a change) before trying it again", strings.TrimPrefix(c.Req.Verb, "browser."), m.times, id).
			With("times", m.times)
	}
	return nil, nil
}

// Finish records a verb's answer in its session's steps. An acting verb
// that ran keeps the step Admit took of its budget; one that did not
// gives it back. Its no_visible_change counts towards no_progress on its
// target while the target's state is as the last such repeat left it (the
// verifier's digest before it acted is the last one's after); another
// result of an acting verb on that target, or a state that changed in
// between, starts the count over. Reading verbs, and acting verbs on other targets, leave the
// count be; a refusal of Admit's or Enter's changes nothing.
func (g *Guard) Finish(c *stage.Call, a *stage.Answer) {
	if !c.Facts.Acts {
		return
	}
	resp := a.Resp
	g.mu.Lock()
	var (
		gen  uint64
		save []Budget
	)
	if bu, _ := c.Get(reservedKey{}).(*Budget); bu != nil {
		c.Put(reservedKey{}, nil)
		if !resp.OK {
			bu.Used = max(0, bu.Used-1)
		} else if g.budgets[bu.Session] == bu {
			gen, save = g.changed()
		}
	}
	if c.Target != nil && resp.Code != target.CodeNoProgress && resp.Code != target.CodeBudgetSpent {
		at := loopAt(c.Req.Session, c.Target.ID())
		if !resp.OK || resp.Effect == nil || resp.Effect.Word != target.EffectNoVisibleChange {
			delete(g.last, at)
		} else {
			key := ActionKey(c)
			m := g.last[at]
			if m.key != key || (m.after != "" && c.Before != "" && c.Before != m.after) {
				// Another action, or the target's state changed since the
				// last one (something else, or a late effect, changed it):
				// the count starts over.
				m = loopMark{key: key}
			}
			m.times++
			m.after = c.After
			g.last[at] = m
		}
	}
	g.mu.Unlock()
	if save != nil {
		g.save(gen, save)
	}
}

// Verbs are the verbs the stage answers.
func (g *Guard) Verbs() []string { return []string{"budget", "browser.budget"} }

// Answer shows, sets or starts over a session's budget (--for: the
// operator's word for another session's): --steps N bounds its acting
// verbs (0 lifts the bound), --minutes N its wall clock from now (0
// lifts it), --reset starts the count and the clock over.
func (g *Guard) Answer(_ context.Context, c *stage.Call) (wire.Response, error) {
	req, a := c.Req, c.Args.(args.Budget)
	if a.Steps < -1 || a.Minutes < -1 {
		return wire.Response{}, target.Refuse(target.CodeBadRequest, "--steps and --minutes take a number of at least 0")
	}
	who := req.Subject()
	g.mu.Lock()
	g.book()
	bu := g.budgets[who]
	now := g.env.Now().UTC()
	changed := a.Steps != 0 || a.Minutes != 0 || a.Reset
	if bu == nil && changed {
		bu = &Budget{Session: who, Since: now}
		g.budgets[who] = bu
	}
	if changed && g.lost != nil {
		g.settled[who] = true // its operator has said what its budget is
	}
	if bu != nil {
		if a.Reset {
			bu.Used, bu.Since = 0, now
			if bu.Minutes > 0 {
				bu.Until = now.Add(time.Duration(bu.Minutes) * time.Minute)
			}
			for k := range g.last {
				if strings.HasPrefix(k, who+"\x00") {
					delete(g.last, k)
				}
			}
		}
		switch {
		case a.Steps > 0:
			bu.Steps = a.Steps
		case a.Steps == -1:
			bu.Steps = 0
		}
		switch {
		case a.Minutes > 0:
			bu.Minutes, bu.Until = a.Minutes, now.Add(time.Duration(a.Minutes)*time.Minute)
		case a.Minutes == -1:
			bu.Minutes, bu.Until = 0, time.Time{}
		}
		if bu.Steps == 0 && bu.Minutes == 0 {
			delete(g.budgets, who)
		}
	}
	var (
		gen  uint64
		save []Budget
	)
	if changed {
		gen, save = g.changed()
	}
	var out Budget
	if bu != nil && g.budgets[who] != nil {
		out = *bu
	} else {
		out = Budget{Session: who}
	}
	unknown := g.unknown(who)
	g.mu.Unlock()
	if changed {
		g.save(gen, save)
		c.Fact.Setting = words(out, now)
	}
	raw, _ := json.Marshal(out)
	did := words(out, now)
	if r, ok := target.AsRefusal(unknown); ok {
		did = "budget of " + who + ": unknown — " + r.Message
	}
	return wire.Response{Did: did, Value: raw}, nil
}

// words says what is left of a budget: "budget of s1: 1 of 2 steps left
// · 29 of 30 minutes left".
func words(b Budget, now time.Time) string {
	var parts []string
	if b.Steps > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d steps left", max(0, b.Steps-b.Used), b.Steps))
	}
	if b.Minutes > 0 {
		left := max(0, b.Until.Sub(now))
		parts = append(parts, fmt.Sprintf("%d of %d minutes left", int((left+time.Minute-1)/time.Minute), b.Minutes))
	}
	if len(parts) == 0 {
		return "budget of " + b.Session + ": none (no bound on steps or time)"
	}
	return "budget of " + b.Session + ": " + strings.Join(parts, " · ")
}

var (
	_ stage.Admitter = (*Guard)(nil)
	_ stage.Enterer  = (*Guard)(nil)
	_ stage.Finisher = (*Guard)(nil)
	_ stage.Answerer = (*Guard)(nil)
	_ stage.Faulter  = (*Guard)(nil)
	_ stage.Keeper   = (*Guard)(nil)
	_ stage.Starter  = (*Guard)(nil)
)
