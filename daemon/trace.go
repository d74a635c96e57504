package daemon

// The trace: every verb a session runs on a target is a step of its trace
// (package daemon/tracelog keeps them on disk, per session, bounded by a
// count and by age): the verb, the target, the node acted on (ref, role,
// name), the road, the effect, the duration, digests of what it observed,
// and — only while the operator keeps pictures on — the target's picture
// after an acting step. Never the text typed or filled: a type or fill step
// carries its length. The trace verb reads the caller's own; --for
// <session> is the operator's word for another's. The live view shows a
// target's recent steps, of every session, beside its pane.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/vibespace/vibespace/daemon/notice"
	"github.com/vibespace/vibespace/daemon/tracelog"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// Defaults of the trace's bounds (Config.TraceSteps, TraceRetention,
// TracePictureMax), and how many steps trace answers without --last.
const (
	DefaultTraceSteps      = 500
	DefaultTraceRetention  = 7 * 24 * time.Hour
	DefaultTracePictureMax = 4 << 20
	defaultTraceLast       = 20
	// pictureTimeout bounds the screenshot an acting step keeps.
	pictureTimeout = 5 * time.Second
)

// Actions of the trace verb besides reading: the operator's pictures
// setting.
const (
	tracePicturesOn  = "pictures-on"
	tracePicturesOff = "pictures-off"
)

// TraceStep is one step of a trace (wire.TraceStep).
type TraceStep = wire.TraceStep

// traceState is the daemon's trace store, opened on first use.
type traceState struct {
	once  sync.Once
	store *tracelog.Store
	err   error
}

// traces answers the store, opening it (and reading back an earlier
// daemon's trace) on first use.
func (d *Daemon) traces() (*tracelog.Store, error) {
	d.tr.once.Do(func() {
		ret := d.cfg.TraceRetention
		if ret < 0 {
			ret = 0
		}
		d.tr.store, d.tr.err = tracelog.Open(d.cfg.StateDir, tracelog.Limits{Steps: d.cfg.TraceSteps, Retention: ret}, d.cfg.Now)
		if d.tr.err != nil {
			d.cfg.Logger.Error("trace", "err", d.tr.err)
			return
		}
		for _, f := range d.tr.store.Found() {
			d.owe(notice.Notice{Text: f})
		}
	})
	return d.tr.store, d.tr.err
}

// trace records the step c answered with resp (err its refusal) in its
// session's trace. finish calls it once per verb; a verb that names no
// target, or one the verb table marks untraced, is no step. After a verb
// the table marks acting, a picture is kept while pictures are on. A
// failure to trace is logged, not fatal.
func (d *Daemon) trace(c *call, resp Response, err error) {
	req := c.Req
	if c.Facts.Untraced {
		return
	}
	var id target.ID
	switch {
	case c.e != nil:
		id = c.e.id
	case resp.Target != nil:
		id = resp.Target.ID
	default:
		if pid, perr := target.ParseID(req.Target); perr == nil {
			id = pid
		}
	}
	if id == "" {
		return
	}
	st, serr := d.traces()
	if serr != nil {
		return
	}
	s := TraceStep{Time: c.Started.UTC(), Session: req.Session, Target: id, Verb: req.Verb, Ref: req.Ref,
		By: resp.By, OK: err == nil && resp.OK, Code: resp.Code, Before: asDigest(c.Before), After: asDigest(c.After)}
	if !c.Started.IsZero() {
		s.MS = d.cfg.Now().Sub(c.Started).Milliseconds()
	}
	if c.Acted != nil {
		s.Role, s.Name = c.Acted.Role, traceName(*c.Acted)
	}
	if resp.Effect != nil {
		s.Effect = resp.Effect.Word // its Seen may quote the text typed: not kept
	}
	word := strings.TrimPrefix(req.Verb, "browser.")
	switch word {
	case "type", "fill":
		s.Chars = utf8.RuneCountInString(req.Text)
	case "key":
		if typesText(req.Chord) {
			s.Chars = 1 // a key that types a character is typing
		} else {
			s.Key = req.Chord
		}
	case "scroll":
		s.Dir, s.Steps = req.Dir, req.By
		if s.Dir == "" {
			s.Dir = "down"
		}
		if s.Steps == 0 {
			s.Steps = 3
		}
	}
	if req.At != nil {
		p := *req.At
		s.At = &p
	}
	if s.After == "" && s.OK {
		switch {
		case resp.Text != "":
			s.After = digest(resp.Text)
		case resp.Snapshot != nil:
			s.After = digest(resp.Snapshot.Text())
		}
	}
	if s.OK && c.Facts.Acts && !c.Facts.Types && c.e != nil && st.Setting().Pictures {
		s.Picture = d.tracePicture(st, c)
	}
	aerr := st.Append(s)
	d.wrote(tracelog.Dir+"/", aerr)
	if aerr != nil {
		d.cfg.Logger.Error("trace", "err", aerr)
	}
}

// traceCut records, in its session's trace, a verb an earlier daemon was
// killed in: a step of its own (the step its answer would have written
// never was), refused outcome_unknown, at the time it began.
func (d *Daemon) traceCut(f flight) {
	st, err := d.traces()
	if err != nil {
		return
	}
	if err := st.Append(TraceStep{Time: f.Started.UTC(), Session: f.Session, Target: f.Target, Verb: f.Verb, Code: target.CodeOutcomeUnknown}); err != nil {
		d.cfg.Logger.Error("trace", "err", err)
	}
}

// editableRoles are the roles of nodes whose name can be their value (a
// combo box's entry names itself by what it holds, a page's text field
// by its placeholder or what was typed): the trace keeps their role only,
// whatever step acts on them, so text typed earlier does not reach the
// trace with a later click.
var editableRoles = map[string]bool{"entry": true, "text": true, "password text": true,
	"combo box": true, "spin button": true, "terminal": true, "document text": true}

// traceName is the name a trace keeps of the node a step acted on: none
// for a node whose name can carry typed text (editableRoles, or one
// that says it is editable).
func traceName(n target.NodeTraits) string {
	if n.Editable || editableRoles[n.Role] {
		return ""
	}
	return n.Name
}

// typesText reports whether a key step's chord types a character —
// shifted or not ("a", "shift+a", "space", "€") — rather than commands
// (ctrl, alt or super held, or a key that is no character: Tab, Return,
// the arrows, F5). A chord that does not parse is counted as text: its
// spelling is not kept.
func typesText(chord string) bool {
	c, err := target.ParseChord(chord)
	if err != nil {
		return true
	}
	if c.Mods&^target.ModShift != 0 {
		return false
	}
	if _, ok := c.Rune(); ok {
		return true
	}
	switch k := c.Keysym; {
	case k >= 0xffaa && k <= 0xffb9, k == 0xff80: // the keypad's digits, operators, space
		return true
	case k > 0xff && k < 0xff00: // the legacy keysyms of other scripts' characters
		return true
	}
	return false
}

// digest is a short digest of what a verb observed (the lines of a tree).
func digest(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}

// asDigest keeps a digest a verb made of what it observed as it is, and
// digests anything else: what reaches the trace is never the text itself.
func asDigest(s string) string {
	if s == "" || (len(s) <= 64 && strings.Trim(s, "0123456789abcdef") == "") {
		return s
	}
	return digest(s)
}

// tracePicture keeps the target's picture after an acting step, and
// answers its path (relative to the state directory), or "" when there is
// none: never of a window of the user's desktop without the operator's
// pixels grant for it, nor one larger than Config.TracePictureMax. The
// verb still holds its target (finish runs inside it), so the picture is
// of what its act left.
func (d *Daemon) tracePicture(st *tracelog.Store, c *call) string {
	e := c.e
	d.mu.Lock()
	mine, granted := e.rec.Desktop, e.rec.Pixels
	d.mu.Unlock()
	if mine && !granted {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), pictureTimeout)
	defer cancel()
	b, err := e.t.Screenshot(ctx)
	if err != nil || len(b) == 0 || int64(len(b)) > d.cfg.TracePictureMax {
		return ""
	}
	rel, err := st.SavePicture(c.Req.Session, d.cfg.Now(), b)
	if err != nil {
		d.cfg.Logger.Error("trace picture", "err", err)
		return ""
	}
	return rel
}

func checkTrace(d *Daemon, req Request) error {
	switch req.Action {
	case "", tracePicturesOn, tracePicturesOff:
	default:
		return target.Refuse(target.CodeBadRequest, "trace takes --pictures on or off, not %s", target.Echo(req.Action))
	}
	if req.Action != "" && (req.Target != "" || req.For != "" || req.Last != 0) {
		return target.Refuse(target.CodeBadRequest, "trace --pictures is a setting of the daemon: it takes no --target, --for or --last")
	}
	if req.Last < 0 || req.Last > d.cfg.TraceSteps {
		return target.Refuse(target.CodeBadRequest, "--last %d: use 1 to %d (the steps a session's trace keeps)", req.Last, d.cfg.TraceSteps).
			With("limit", d.cfg.TraceSteps)
	}
	return nil
}

// traceVerb answers the caller's trace (--for: another session's, the
// operator's word), or sets the operator's pictures setting.
func (d *Daemon) traceVerb(ctx context.Context, c *call) Response {
	st, err := d.traces()
	if err != nil {
		return d.fail(c, target.Refuse(codeInternal, "the trace cannot be read: %v", err))
	}
	req := c.Req
	if req.Action != "" {
		return d.tracePictures(c, st)
	}
	who := subject(req)
	var id target.ID
	if req.Target != "" {
		if id, err = target.ParseID(req.Target); err != nil {
			return d.fail(c, err)
		}
		if err := d.traceSees(req, who, id, st); err != nil {
			return d.fail(c, err)
		}
	}
	last := req.Last
	if last == 0 {
		last = defaultTraceLast
	}
	steps := st.Steps(tracelog.Filter{Session: who, Target: id, Last: last})
	kept := len(st.Steps(tracelog.Filter{Session: who, Target: id}))
	of := "session " + who
	if id != "" {
		of += " on " + string(id)
	}
	did := fmt.Sprintf("%d of %d step(s) kept of %s (times UTC)", len(steps), kept, of)
	if kept == 0 {
		did = "no steps yet of " + of
	}
	return d.finish(c, Response{Trace: steps, Did: did}, nil)
}

// traceSees refuses a trace of a target the caller does not see and
// never acted on: its steps are another session's, which only the
// operator reads (--for).
func (d *Daemon) traceSees(req Request, who string, id target.ID, st *tracelog.Store) error {
	if forOther(req) != "" || st.Has(who, id) {
		return nil
	}
	e := d.entryOf(id)
	if e == nil {
		return nil // gone: the caller's own steps on it, if any, are all there is
	}
	d.mu.Lock()
	seen := e.rec.ExposedTo(req.Session)
	d.mu.Unlock()
	if seen {
		return nil
	}
	return target.Refuse(target.CodeNotExposed, "%s is not shared with session %q: its steps are another session's trace, which is the operator's to read (trace --for <session>)", id, req.Session).
		With("target", string(id)).With("session", req.Session)
}

// tracePictures is trace --pictures on|off: the operator's setting, kept
// across restarts and audited like desktop's.
func (d *Daemon) tracePictures(c *call, st *tracelog.Store) Response {
	on := c.Req.Action == tracePicturesOn
	c.Fact.Setting = "trace pictures " + map[bool]string{true: "on", false: "off"}[on]
	changed, err := st.SetPictures(on, c.Req.Session)
	if err != nil {
		return d.fail(c, target.Refuse(codeInternal, "the pictures setting was not kept: %v", err))
	}
	keep := "kept as long as their steps"
	if r := d.cfg.TraceRetention; r > 0 {
		keep = "kept " + r.String()
	}
	did := "pictures on: every acting step keeps its target's picture after the act (never of a window of your desktop without its pixels grant), " + keep + "; trace --pictures off stops it"
	if !on {
		did = "pictures off: steps keep no picture from now on; the ones kept go with their steps"
	}
	if !changed {
		did = "already " + did
	}
	return d.finish(c, Response{Did: did}, nil)
}

// LiveTrace answers the last n steps on id, of every session, for the
// live view's panel beside its pane. Pictures are not shown there.
func (d *Daemon) LiveTrace(id target.ID, n int) []TraceStep {
	st, err := d.traces()
	if err != nil {
		return nil
	}
	steps := st.Steps(tracelog.Filter{Target: id, Last: n})
	for i := range steps {
		steps[i].Picture = ""
	}
	return steps
}
