package daemon

import (
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
	"github.com/vibespace/vibespace/internal/statefile"
	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/target"
)

// A daemon killed while a verb acted leaves its effect unknown: the keys of
// a type may all have arrived, or some, or none (issue 11: a retry typed
// 1500 characters twice). The command line says outcome_unknown to the
// caller it could not answer; the daemon that starts next says, once, on
// the next answer on that target, which verb was cut and when. To know it,
// a verb that acts is recorded in a small file under the state directory
// before it acts and the file removed when it answers. No fsync: a process
// killed keeps its writes in the page cache; only a crash of the machine
// loses them, and with them the applications the verb acted on.

// flightDir holds the records of the verbs acting now, one file each.
const flightDir = "inflight"

// flight is the record of one verb acting.
type flight struct {
	Target  target.ID `json:"target"`
	Verb    string    `json:"verb"`
	Session string    `json:"session"`
	Started time.Time `json:"started"`
	gone    bool      // its target did not survive the restart (a tab): told to its session instead
}

// cuts are the verbs an earlier daemon was killed in, not told yet.
type cuts struct {
	seq  atomic.Uint64
	mu   sync.Mutex
	left []flight
}

// inFlight records c's verb, if it acts on a target, and returns what
// removes the record once it answered.
func (d *Daemon) inFlight(c *call) func() {
	if c.e == nil || !c.Facts.Cut() {
		return func() {}
	}
	b, _ := json.Marshal(flight{Target: c.e.id, Verb: c.Req.Verb, Session: c.Req.Session, Started: d.cfg.Now().UTC()})
	name := filepath.Join(d.cfg.StateDir, flightDir, fmt.Sprintf("%d.json", d.cuts.seq.Add(1)))
	err := os.WriteFile(name, b, 0o600)
	d.wrote(flightDir+"/", err) // status says so while verbs in flight are not recorded
	if err != nil {
		d.cfg.Logger.Warn("could not record a verb in flight; a restart during it will not be told", "err", err)
		return func() {}
	}
	return func() { os.Remove(name) }
}

// cutUnread is what every session is told of a record of a verb in flight
// that could not be read back.
const cutUnread = "a verb in flight when the daemon was killed left a record that could not be read (%s: %s%s); some verb's effect is unknown"

// readCuts takes the records an earlier daemon left (it was killed while
// they acted): each is audited as cut, and told on the next answer on its
// target (or, when the target did not survive, to its session).
func (d *Daemon) readCuts() {
	dir := filepath.Join(d.cfg.StateDir, flightDir)
	ents, _ := os.ReadDir(dir)
	var left []flight
	for _, en := range ents {
		if !strings.HasSuffix(en.Name(), ".json") {
			continue // a record set aside (n.json.damaged-<time>), kept as it was
		}
		p := filepath.Join(dir, en.Name())
		var f flight
		check := func(b []byte) error {
			if err := statefile.JSON(&f)(b); err != nil {
				return err
			}
			if f.Verb == "" {
				return errors.New("it names no verb")
			}
			return nil
		}
		_, dmg := statefile.Read(p, check, d.cfg.Now())
		if dmg != nil {
			// Set aside as it was, audited, and told to every session:
			// whose verb it was is not known.
			moved := ""
			if dmg.MovedTo != "" {
				moved = "; kept aside as " + flightDir + "/" + filepath.Base(dmg.MovedTo)
			}
			d.cfg.Logger.Warn("an unreadable record of a verb in flight", "file", en.Name(), "why", dmg.Why)
			d.record(lease.Entry{Verb: "inflight", OK: false, Code: target.CodeOutcomeUnknown, Setting: "unreadable record " + flightDir + "/" + en.Name() + ": " + dmg.Why})
			d.owe(notice.Notice{Text: fmt.Sprintf(cutUnread, flightDir+"/"+en.Name(), dmg.Why, moved)})
			continue
		}
		if err := os.Remove(p); err != nil {
			// Told now, and again by the next daemon: the record stays.
			d.wrote(flightDir+"/", err)
		}
		f.gone = d.entryOf(f.Target) == nil
		d.cfg.Logger.Warn("a verb was cut by a daemon restart; its effect is unknown", "verb", f.Verb, "session", f.Session, "target", f.Target, "started", f.Started)
		d.record(lease.Entry{Session: f.Session, Target: f.Target, Verb: f.Verb, OK: false, Code: target.CodeOutcomeUnknown})
		d.traceCut(f)
		left = append(left, f)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		d.cfg.Logger.Warn("no directory for the records of verbs in flight", "err", err)
	}
	d.cuts.mu.Lock()
	d.cuts.left = left
	d.cuts.mu.Unlock()
}

// cutNote is note with, after it, the words owed on c's answer about verbs
// an earlier daemon was killed in: those on c's target, and those of c's
// session whose target is gone (a tab dies with the daemon). Each is told
// once.
func (d *Daemon) cutNote(c *call, note string) string {
	d.cuts.mu.Lock()
	defer d.cuts.mu.Unlock()
	if len(d.cuts.left) == 0 {
		return note
	}
	var told []string
	keep := d.cuts.left[:0]
	for _, f := range d.cuts.left {
		mine := c.e != nil && f.Target == c.e.id
		if f.gone && f.Session == c.Req.Session && strings.HasPrefix(f.Verb, "browser.") == strings.HasPrefix(c.Req.Verb, "browser.") {
			mine = true
		}
		if !mine {
			keep = append(keep, f)
			continue
		}
		s := fmt.Sprintf("%s by %s at %s was cut by a daemon restart; its effect is unknown", strings.TrimPrefix(f.Verb, "browser."), f.Session, f.Started.Format(time.RFC3339))
		if f.gone {
			s = fmt.Sprintf("%s on %s (gone since) by %s at %s was cut by a daemon restart; its effect is unknown", strings.TrimPrefix(f.Verb, "browser."), f.Target, f.Session, f.Started.Format(time.RFC3339))
		}
		told = append(told, s)
	}
	d.cuts.left = keep
	if note != "" {
		told = append([]string{note}, told...)
	}
	return strings.Join(told, "; ")
}
