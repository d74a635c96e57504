// Package inflight is the stage that keeps a record of every verb acting
// now, so that the daemon that starts after a kill can say which were cut.
//
// A daemon killed while a verb acted leaves its effect unknown: the keys of
// a type may all have arrived, or some, or none (issue 11: a retry typed
// 1500 characters twice). The command line says outcome_unknown to the
// caller it could not answer; the daemon that starts next says, once, on
// the next answer on that target, which verb was cut and when. To know it,
// a verb that acts (or may: verb.Facts.Cut) is recorded in a small file
// under the state directory before it acts and the file removed when it
// answers. No fsync: a process killed keeps its writes in the page cache;
// only a crash of the machine loses them, and with them the applications
// the verb acted on.
package inflight

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vibespace/vibespace/daemon/notice"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/internal/statefile"
	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/target"
)

// Dir holds the records of the verbs acting now, one file each (relative
// to the state directory).
const Dir = "inflight"

// Flight is the record of one verb acting.
type Flight struct {
	Target  target.ID `json:"target"`
	Verb    string    `json:"verb"`
	Session string    `json:"session"`
	Started time.Time `json:"started"`
	gone    bool      // its target did not survive the restart (a tab): told to its session instead
}

// Stage is the in-flight record: it writes a verb's record as the verb
// enters (Enter), removes it once it answered, reads an earlier daemon's
// back as the daemon starts (Start) and tells them (Finish).
type Stage struct {
	env   stage.Env
	onCut func(Flight)
	seq   atomic.Uint64

	mu   sync.Mutex
	left []Flight // the verbs an earlier daemon was killed in, not told yet
}

// New makes the stage; onCut (nil: none) is handed every verb an earlier
// daemon was killed in as Start reads it back (the trace records it).
func New(onCut func(Flight)) func(stage.Env) (stage.Stage, error) {
	return func(env stage.Env) (stage.Stage, error) {
		return &Stage{env: env, onCut: onCut}, nil
	}
}

// Name names the stage.
func (s *Stage) Name() string { return "inflight" }

// Enter records c's verb, if it acts (or may) on a target it reached;
// leave removes the record once it answered.
func (s *Stage) Enter(ctx context.Context, c *stage.Call) (func(), error) {
	if c.Target == nil || !c.Facts.Cut() {
		return nil, nil
	}
	b, _ := json.Marshal(Flight{Target: c.Target.ID(), Verb: c.Req.Verb, Session: c.Req.Session, Started: s.env.Now().UTC()})
	name := filepath.Join(s.env.StateDir, Dir, fmt.Sprintf("%d.json", s.seq.Add(1)))
	err := os.WriteFile(name, b, 0o600)
	s.env.Wrote(Dir+"/", err) // status says so while verbs in flight are not recorded
	if err != nil {
		s.env.Logger.Warn("could not record a verb in flight; a restart during it will not be told", "err", err)
		return nil, nil
	}
	return func() { os.Remove(name) }, nil
}

// cutUnread is what every session is told of a record of a verb in flight
// that could not be read back.
const cutUnread = "a verb in flight when the daemon was killed left a record that could not be read (%s: %s%s); some verb's effect is unknown"

// Start takes the records an earlier daemon left (it was killed while
// they acted): each is audited as cut, handed to onCut, and told on the
// next answer on its target (or, when the target did not survive, to its
// session).
func (s *Stage) Start(ctx context.Context) {
	env := s.env
	dir := filepath.Join(env.StateDir, Dir)
	ents, _ := os.ReadDir(dir)
	var left []Flight
	for _, en := range ents {
		if !strings.HasSuffix(en.Name(), ".json") {
			continue // a record set aside (n.json.damaged-<time>), kept as it was
		}
		p := filepath.Join(dir, en.Name())
		var f Flight
		check := func(b []byte) error {
			if err := statefile.JSON(&f)(b); err != nil {
				return err
			}
			if f.Verb == "" {
				return errors.New("it names no verb")
			}
			return nil
		}
		_, dmg := statefile.Read(p, check, env.Now())
		if dmg != nil {
			// Set aside as it was, audited, and told to every session:
			// whose verb it was is not known.
			moved := ""
			if dmg.MovedTo != "" {
				moved = "; kept aside as " + Dir + "/" + filepath.Base(dmg.MovedTo)
			}
			env.Logger.Warn("an unreadable record of a verb in flight", "file", en.Name(), "why", dmg.Why)
			env.Record(lease.Entry{Verb: "inflight", OK: false, Code: target.CodeOutcomeUnknown, Setting: "unreadable record " + Dir + "/" + en.Name() + ": " + dmg.Why})
			env.Owe(notice.Notice{Text: fmt.Sprintf(cutUnread, Dir+"/"+en.Name(), dmg.Why, moved)})
			continue
		}
		if err := os.Remove(p); err != nil {
			// Told now, and again by the next daemon: the record stays.
			env.Wrote(Dir+"/", err)
		}
		f.gone = !env.Alive(f.Target)
		env.Logger.Warn("a verb was cut by a daemon restart; its effect is unknown", "verb", f.Verb, "session", f.Session, "target", f.Target, "started", f.Started)
		env.Record(lease.Entry{Session: f.Session, Target: f.Target, Verb: f.Verb, OK: false, Code: target.CodeOutcomeUnknown})
		if s.onCut != nil {
			s.onCut(f)
		}
		left = append(left, f)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		env.Logger.Warn("no directory for the records of verbs in flight", "err", err)
	}
	s.mu.Lock()
	s.left = left
	s.mu.Unlock()
}

// Finish adds to a's note the words owed about verbs an earlier daemon
// was killed in: those on c's target, and those of c's session whose
// target is gone (a tab dies with the daemon). Each is told once.
func (s *Stage) Finish(c *stage.Call, a *stage.Answer) {
	a.Resp.Note = s.note(c, a.Resp.Note)
}

// note is note with, after it, the words owed on c's answer.
func (s *Stage) note(c *stage.Call, note string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.left) == 0 {
		return note
	}
	var told []string
	keep := s.left[:0]
	for _, f := range s.left {
		mine := c.Target != nil && f.Target == c.Target.ID()
		if f.gone && f.Session == c.Req.Session && strings.HasPrefix(f.Verb, "browser.") == strings.HasPrefix(c.Req.Verb, "browser.") {
			mine = true
		}
		if !mine {
			keep = append(keep, f)
			continue
		}
		w := fmt.Sprintf("%s by %s at %s was cut by a daemon restart; its effect is unknown", strings.TrimPrefix(f.Verb, "browser."), f.Session, f.Started.Format(time.RFC3339))
		if f.gone {
			w = fmt.Sprintf("%s on %s (gone since) by %s at %s was cut by a daemon restart; its effect is unknown", strings.TrimPrefix(f.Verb, "browser."), f.Target, f.Session, f.Started.Format(time.RFC3339))
		}
		told = append(told, w)
	}
	s.left = keep
	if note != "" {
		told = append([]string{note}, told...)
	}
	return strings.Join(told, "; ")
}
