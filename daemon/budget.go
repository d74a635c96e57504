package daemon

// A session's steps: loop detection (the same action that saw no visible
// change NoProgressAfter times in a row is refused no_progress the next
// time) and budgets (an optional number of acting verbs and an optional
// wall clock, refused budget_spent once spent). Steps are the acting verbs
// that ran (click, type, fill, select, key, scroll: what changes a
// target); reading, navigating and the operator's words are not steps.
// Budgets are kept in budgets.json in the state directory, so a daemon
// that restarts keeps them; the loop count is not (a restart is a look
// again).

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/vibespace/vibespace/target"
)

// actingVerbs are the verbs that change a target: they are verified,
// counted as steps, and watched for loops.
var actingVerbs = map[string]bool{
	"click": true, "type": true, "key": true, "scroll": true, "select": true,
	"browser.click": true, "browser.type": true, "browser.key": true, "browser.scroll": true,
	"browser.fill": true, "browser.select": true,
}

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

// stepBook is the daemon's record of every session's steps.
type stepBook struct {
	mu      sync.Mutex
	loaded  bool
	budgets map[string]*Budget
	last    map[string]loopMark
}

// loopMark is a session's last action and how many times in a row it saw
// no visible change.
type loopMark struct {
	key   string
	times int
}

// actionKey names an action for loop detection: the verb, the target, the
// node or point, and a digest of the text (never the text itself).
func actionKey(req Request) string {
	sum := sha256.Sum256([]byte(req.Text + "\x00" + strings.Join(req.Values, "\x00")))
	at := ""
	if req.At != nil {
		at = fmt.Sprintf("%d,%d", req.At.X, req.At.Y)
	}
	return strings.Join([]string{req.Verb, req.Target, req.Profile, req.Ref, at, req.Chord, req.Dir, fmt.Sprint(req.By), hex.EncodeToString(sum[:8])}, "|")
}

func (d *Daemon) book() *stepBook {
	b := &d.steps
	if !b.loaded {
		b.loaded = true
		b.budgets = map[string]*Budget{}
		b.last = map[string]loopMark{}
		raw, err := os.ReadFile(d.budgetPath())
		if err == nil {
			var bs []*Budget
			if err := json.Unmarshal(raw, &bs); err != nil {
				d.cfg.Logger.Warn("budgets.json is unreadable; no budgets kept", "err", err)
			}
			for _, x := range bs {
				b.budgets[x.Session] = x
			}
		} else if !errors.Is(err, fs.ErrNotExist) {
			d.cfg.Logger.Warn("budgets.json could not be read", "err", err)
		}
	}
	return b
}

func (d *Daemon) budgetPath() string { return filepath.Join(d.cfg.StateDir, "budgets.json") }

// saveBudgets writes every budget; b.mu is held.
func (d *Daemon) saveBudgets(b *stepBook) {
	bs := make([]*Budget, 0, len(b.budgets))
	for _, x := range b.budgets {
		bs = append(bs, x)
	}
	raw, _ := json.Marshal(bs)
	tmp := d.budgetPath() + ".tmp"
	if err := os.WriteFile(tmp, raw, 0o600); err == nil {
		err = os.Rename(tmp, d.budgetPath())
		if err != nil {
			d.cfg.Logger.Warn("budgets.json could not be written", "err", err)
		}
	}
}

// admitStep refuses an acting verb before it reaches anything when its
// session's budget is spent, or when it is the action that saw no visible
// change NoProgressAfter times in a row (so with the default 3, the fourth
// attempt is refused, and every one after it until something else is
// done).
func (d *Daemon) admitStep(req Request) error {
	if !actingVerbs[req.Verb] {
		return nil
	}
	b := &d.steps
	b.mu.Lock()
	defer b.mu.Unlock()
	d.book()
	if bu := b.budgets[req.Session]; bu != nil {
		if bu.Steps > 0 && bu.Used >= bu.Steps {
			return target.Refuse(target.CodeBudgetSpent, "this session's budget of %d steps is spent: the operator raises it (budget --steps N) or starts it over (budget --reset)", bu.Steps).
				With("steps", bu.Steps).With("used", bu.Used)
		}
		if !bu.Until.IsZero() && !d.cfg.Now().Before(bu.Until) {
			return target.Refuse(target.CodeBudgetSpent, "this session's budget of %d minutes is spent: the operator raises it (budget --minutes N) or starts it over (budget --reset)", bu.Minutes).
				With("minutes", bu.Minutes).With("until", bu.Until.UTC().Format(time.RFC3339))
		}
	}
	n := d.cfg.NoProgressAfter
	if m, ok := b.last[req.Session]; ok && n > 0 && m.key == actionKey(req) && m.times >= n {
		return target.Refuse(target.CodeNoProgress, "this same %s saw no visible change %d times in a row: take a snapshot to look again, or do something else", strings.TrimPrefix(req.Verb, "browser."), m.times).
			With("times", m.times)
	}
	return nil
}

// stepped records a verb's answer in its session's steps: an acting verb
// that ran is a step of its budget; its no_visible_change counts towards
// no_progress; anything else (another verb, another result) starts the
// count over. A refusal of admitStep's changes nothing.
func (d *Daemon) stepped(req Request, resp Response) {
	if resp.Code == target.CodeNoProgress || resp.Code == target.CodeBudgetSpent {
		return
	}
	b := &d.steps
	b.mu.Lock()
	defer b.mu.Unlock()
	d.book()
	if !actingVerbs[req.Verb] || !resp.OK {
		delete(b.last, req.Session)
		return
	}
	if bu := b.budgets[req.Session]; bu != nil {
		bu.Used++
		d.saveBudgets(b)
	}
	if resp.Effect == nil || resp.Effect.Word != target.EffectNoVisibleChange {
		delete(b.last, req.Session)
		return
	}
	key := actionKey(req)
	m := b.last[req.Session]
	if m.key != key {
		m = loopMark{key: key}
	}
	m.times++
	b.last[req.Session] = m
}

// budget shows, sets or starts over a session's budget (--for: the
// operator's word for another session's): --steps N bounds its acting
// verbs (0 lifts the bound), --minutes N its wall clock from now (0
// lifts it), --reset starts the count and the clock over.
func (d *Daemon) budget(ctx context.Context, c *call) Response {
	req := c.req
	if req.Steps < -1 || req.Minutes < -1 {
		return d.fail(c, target.Refuse(target.CodeBadRequest, "--steps and --minutes take a number of at least 0"))
	}
	who := subject(req)
	b := &d.steps
	b.mu.Lock()
	d.book()
	bu := b.budgets[who]
	now := d.cfg.Now().UTC()
	changed := req.Steps != 0 || req.Minutes != 0 || req.Reset
	if bu == nil && changed {
		bu = &Budget{Session: who, Since: now}
		b.budgets[who] = bu
	}
	if bu != nil {
		if req.Reset {
			bu.Used, bu.Since = 0, now
			if bu.Minutes > 0 {
				bu.Until = now.Add(time.Duration(bu.Minutes) * time.Minute)
			}
			delete(b.last, who)
		}
		switch {
		case req.Steps > 0:
			bu.Steps = req.Steps
		case req.Steps == -1:
			bu.Steps = 0
		}
		switch {
		case req.Minutes > 0:
			bu.Minutes, bu.Until = req.Minutes, now.Add(time.Duration(req.Minutes)*time.Minute)
		case req.Minutes == -1:
			bu.Minutes, bu.Until = 0, time.Time{}
		}
		if bu.Steps == 0 && bu.Minutes == 0 {
			delete(b.budgets, who)
		}
		if changed {
			d.saveBudgets(b)
		}
	}
	var out Budget
	if bu != nil && b.budgets[who] != nil {
		out = *bu
	} else {
		out = Budget{Session: who}
	}
	b.mu.Unlock()
	if changed {
		c.fact.Setting = budgetWords(out, now)
	}
	raw, _ := json.Marshal(out)
	return d.finish(c, Response{Did: budgetWords(out, now), Value: raw}, nil)
}

// budgetWords says what is left of a budget: "budget of s1: 1 of 2 steps
// left · 29 of 30 minutes left".
func budgetWords(b Budget, now time.Time) string {
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
