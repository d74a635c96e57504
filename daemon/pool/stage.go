package pool

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// Name is the pool's stage's name.
const Name = "pool"

// returnTimeout bounds a return the pool makes of its own accord (a
// budget spent), which no verb's deadline bounds.
const returnTimeout = 30 * time.Second

// Stage is the pool as a stage: it answers borrow and return, admits an
// open on a desktop of the pool only to its borrower, keeps each
// borrower's idle clock, and gives back the desktop of a borrower whose
// budget is spent.
type Stage struct {
	p *Pool
}

// Registration is the pool's stage for cmd/vibespace-daemon/stages; a nil
// pool is a daemon with none (borrow is refused no_display).
func Registration(p *Pool) stage.Registration {
	return stage.Registration{Name: Name, New: func(env stage.Env) (stage.Stage, error) {
		if p == nil {
			p = New(Config{})
		}
		p.mu.Lock()
		p.record = env.Record
		p.mu.Unlock()
		if env.Now != nil {
			p.cfg.Now = env.Now
		}
		return &Stage{p: p}, nil
	}}
}

func (s *Stage) Name() string { return Name }

// Verbs are the pool's words, both command lines'.
func (s *Stage) Verbs() []string {
	return []string{"borrow", "return", "browser.borrow", "browser.return"}
}

// Answer answers borrow and return.
func (s *Stage) Answer(ctx context.Context, c *stage.Call) (wire.Response, error) {
	switch strings.TrimPrefix(c.Req.Verb, "browser.") {
	case "borrow":
		a, _ := c.Args.(args.Borrow)
		wait, err := a.WaitFor()
		if err != nil {
			return wire.Response{}, err
		}
		// The verb's own deadline bounds the wait: a borrow still queued
		// then is told its place, not cut.
		if dl, ok := ctx.Deadline(); ok {
			wait = min(wait, max(time.Until(dl)-time.Second, 0))
		}
		l, err := s.p.Borrow(ctx, c.Req.Session, false, a.Kind, wait)
		if err != nil {
			return wire.Response{}, err
		}
		return lentAnswer(l), nil
	case "return":
		name := s.p.Held(c.Req.Session)
		w, err := s.p.Return(ctx, c.Req.Session, ReturnAsked)
		if err != nil {
			return wire.Response{}, err
		}
		facts := map[string]any{"desk": name, "ended": len(w.Ended), "removed": w.Removed, "wipe_ms": w.Took.Milliseconds()}
		if w.Host != "" {
			facts["host"], facts["there"] = w.Host, w.There
		}
		return wire.Response{Did: fmt.Sprintf("returned %s: %s; it is ready for the next borrow", name, w), Facts: facts}, nil
	}
	return wire.Response{}, target.Refuse(target.CodeBadRequest, "the pool answers no verb %s", target.Echo(c.Req.Verb))
}

func lentAnswer(l Lent) wire.Response {
	did := fmt.Sprintf("borrowed %s (%s)", l.Desk, l.Kind)
	if l.Host != "" {
		did = fmt.Sprintf("borrowed %s — on %s, %s there", l.Desk, l.Host, l.There)
	}
	if l.Waited > 0 {
		did += fmt.Sprintf(" after %v in the queue", l.Waited.Round(time.Millisecond))
	}
	did += fmt.Sprintf("; open --on %s starts an app there; return gives it back, wiped", l.Desk)
	facts := map[string]any{"desk": l.Desk, "kind": l.Kind, "waited_ms": l.Waited.Milliseconds()}
	if l.Host != "" {
		facts["host"], facts["there"] = l.Host, l.There
		did += fmt.Sprintf(" (the command lines send open --on %s, and the verbs on what it opens, to that host themselves; its HOME, downloads and profile are that host's, wiped there on return: keep nothing of yours there)", l.Desk)
		return wire.Response{Did: did, Facts: facts}
	}
	if l.Home != "" {
		did += fmt.Sprintf("; HOME %s, downloads %s, browser profile %s (all wiped on return: keep nothing of yours there)", l.Home, l.Download, l.Profile)
		facts["home"], facts["downloads"], facts["profile"] = l.Home, l.Download, l.Profile
	} else {
		did += "; its HOME, downloads and browser profile directory are made as its display starts (your first open there), and wiped on return: keep nothing of yours there"
	}
	return wire.Response{Did: did, Facts: facts}
}

// Admit refuses an open on a desktop of the pool to anyone but its
// borrower, and a borrower's verb on a window it opened there while a
// person has the desktop taken over.
func (s *Stage) Admit(_ context.Context, c *stage.Call) error {
	if id, err := target.ParseID(c.Req.Target); err == nil {
		if name, paused := s.p.pausedFor(c.Req.Session, id); paused {
			return target.Refuse(target.CodeTakenOver, "a person took %s over from the live view; its windows are theirs until they hand it back", name).
				With("desk", name).With("target", string(id))
		}
	}
	if c.Req.Verb != "open" {
		return nil
	}
	a, ok := c.Args.(args.Open)
	if !ok || !strings.HasPrefix(a.Display, Prefix) {
		return nil
	}
	holder, ok := s.p.Holder(a.Display)
	if d := s.p.remoteDesk(a.Display); d != nil && holder == c.Req.Session {
		return s.p.elsewhere(d)
	}
	if name, paused := s.p.deskPaused(a.Display); paused && holder == c.Req.Session {
		return target.Refuse(target.CodeTakenOver, "a person took %s over from the live view; wait for their handback", name).With("desk", name)
	}
	switch {
	case !ok, holder == c.Req.Session:
		return nil
	case holder == "":
		return target.Refuse(target.CodeHeld, "%s is a desktop of the pool, lent to nobody: borrow it first (borrow --wait 30s)", a.Display).With("desk", a.Display)
	case holder == Person:
		return target.Refuse(target.CodeTakenOver, "%s is a person's now (they asked for it from the live view); borrow another", a.Display).With("desk", a.Display)
	}
	return target.Refuse(target.CodeHeld, "%s is lent to another session; borrow one of your own (borrow --wait 30s)", a.Display).With("desk", a.Display)
}

// Finish keeps the borrower's idle clock, and gives back the desktop of a
// borrower whose budget is spent (wiped), saying so on the answer.
func (s *Stage) Finish(c *stage.Call, a *stage.Answer) {
	session := c.Req.Session
	desk := s.p.Held(session)
	if desk == "" {
		return
	}
	s.p.Used(session)
	if o, ok := c.Args.(args.Open); ok && c.Req.Verb == "open" && o.Display == desk && a.OK() && a.Resp.Target != nil {
		s.p.opened(a.Resp.Target.ID, desk)
	}
	if r, ok := target.AsRefusal(a.Err); !ok || r.Code != target.CodeBudgetSpent {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), returnTimeout)
	defer cancel()
	name := s.p.Held(session)
	w, err := s.p.Return(ctx, session, ReturnBudget)
	note := fmt.Sprintf("your budget is spent, so %s went back to the pool: %s", name, w)
	if err != nil {
		note = fmt.Sprintf("your budget is spent, so %s went back to the pool; %v", name, err)
	}
	if a.Resp.Note != "" {
		note = a.Resp.Note + "; " + note
	}
	a.Resp.Note = note
}

// Faults lists each desktop whose last wipe failed (it is lent to nobody
// until a wipe succeeds) and each remote member whose host is not
// reached (skipped by the queue until a ping reaches it).
func (s *Stage) Faults() []string {
	s.p.mu.Lock()
	defer s.p.mu.Unlock()
	var out []string
	for _, d := range s.p.desks {
		if d.broken != "" {
			out = append(out, fmt.Sprintf("pool: %s's last wipe failed: %s", d.name, d.broken))
		}
		if d.down != "" {
			out = append(out, fmt.Sprintf("pool: %s on %s is unreachable, skipped by the queue: %s", d.name, d.remote.Host(), d.down))
		}
	}
	return out
}

// kept is the pool's record in the daemon's state: each running desktop's
// display (its marker) and the processes that are the display itself, so
// that a daemon started after a kill wipes a re-attached desktop of
// everything else.
type kept struct {
	Desks map[string]keptDesk `json:"desks,omitempty"`
}

type keptDesk struct {
	ID   string `json:"id"`
	PIDs []int  `json:"pids"`
}

// Key names the pool's record.
func (s *Stage) Key() string { return Name }

// Keep is each running desktop's display and its own processes.
func (s *Stage) Keep() json.RawMessage {
	s.p.mu.Lock()
	k := kept{Desks: map[string]keptDesk{}}
	for _, d := range s.p.desks {
		if !d.running {
			continue
		}
		kd := keptDesk{ID: d.st.ID}
		for pid := range d.baseline {
			kd.PIDs = append(kd.PIDs, pid)
		}
		slices.Sort(kd.PIDs)
		k.Desks[d.name] = kd
	}
	s.p.mu.Unlock()
	if len(k.Desks) == 0 {
		return nil
	}
	b, _ := json.Marshal(k)
	return b
}

// Restore reads back an earlier daemon's record, before its displays are
// re-attached.
func (s *Stage) Restore(raw json.RawMessage) {
	var k kept
	if len(raw) == 0 || json.Unmarshal(raw, &k) != nil {
		return
	}
	s.p.mu.Lock()
	s.p.kept = k.Desks
	s.p.mu.Unlock()
}
