// Package trace is the stage that keeps every session's trace: every verb
// a session runs on a target is a step of its trace (package
// daemon/tracelog keeps them on disk, per session, bounded by a count and
// by age): the verb, the target, the node acted on (ref, role, name), the
// road, the effect, the duration, digests of what it observed, and — only
// while the operator keeps pictures on — the target's picture after an
// acting step (none of a target a secret was typed into, --secret NAME).
// Never the text typed or filled: a type or fill step carries its length
// (and the secret's name, never its value); a step of a batch carries the
// batch's id. The trace verb reads the caller's own; --for
// <session> is the operator's word for another's. The live view shows a
// target's recent steps, of every session, beside its pane (Steps).
package trace

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/notice"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/daemon/tracelog"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

const (
	// defaultLast is how many steps trace answers without --last.
	defaultLast = 20
	// pictureTimeout bounds the screenshot an acting step keeps.
	pictureTimeout = 5 * time.Second
)

// Actions of the trace verb besides reading: the operator's pictures
// setting.
const (
	PicturesOn  = "pictures-on"
	PicturesOff = "pictures-off"
)

// Stage is the trace: it records every step (Finish), answers the trace
// verbs (Answer), reads an earlier daemon's trace back as the daemon
// starts (Start) and records the verbs an earlier daemon was killed in
// (Cut).
type Stage struct {
	env stage.Env

	once  sync.Once
	store *tracelog.Store
	err   error

	// secretMu guards secrets: the targets a secret was typed into (type,
	// fill --secret NAME). No picture of one is kept from then on, for the
	// daemon's life: a field that is no password field shows its text.
	secretMu sync.Mutex
	secrets  map[target.ID]bool
}

// holdsSecret notes that a secret was typed into id.
func (s *Stage) holdsSecret(id target.ID) {
	s.secretMu.Lock()
	defer s.secretMu.Unlock()
	if s.secrets == nil {
		s.secrets = map[target.ID]bool{}
	}
	s.secrets[id] = true
}

// heldSecret reports whether a secret was typed into id.
func (s *Stage) heldSecret(id target.ID) bool {
	s.secretMu.Lock()
	defer s.secretMu.Unlock()
	return s.secrets[id]
}

// New makes the stage (stage.Registration.New); it opens nothing until
// first used.
func New(env stage.Env) (*Stage, error) { return &Stage{env: env}, nil }

// Name names the stage.
func (s *Stage) Name() string { return "trace" }

// Store answers the store, opening it (and reading back an earlier
// daemon's trace, what could not be owed to everyone) on first use.
func (s *Stage) Store() (*tracelog.Store, error) {
	s.once.Do(func() {
		ret := s.env.TraceRetention
		if ret < 0 {
			ret = 0
		}
		s.store, s.err = tracelog.Open(s.env.StateDir, tracelog.Limits{Steps: s.env.TraceSteps, Retention: ret}, s.env.Now)
		if s.err != nil {
			s.env.Logger.Error("trace", "err", s.err)
			return
		}
		for _, f := range s.store.Found() {
			s.env.Owe(notice.Notice{Text: f})
		}
	})
	return s.store, s.err
}

// Start reads the trace back now: what could not be is told on the first
// answer.
func (s *Stage) Start(ctx context.Context) { s.Store() }

// Finish records the step c answered with a in its session's trace. A
// verb that names no target, or one the verb table marks untraced, is no
// step. After a verb the table marks acting, a picture is kept while
// pictures are on. A failure to trace is logged, not fatal.
func (s *Stage) Finish(c *stage.Call, a *stage.Answer) {
	req, resp := c.Req, a.Resp
	if c.Facts.Untraced {
		return
	}
	var id target.ID
	switch {
	case c.Target != nil:
		id = c.Target.ID()
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
	st, serr := s.Store()
	if serr != nil {
		return
	}
	step := wire.TraceStep{Time: c.Started.UTC(), Session: req.Session, Target: id, Verb: req.Verb, Batch: c.Batch, Ref: args.Ref(c.Args),
		By: resp.By, OK: a.Err == nil && resp.OK, Code: resp.Code, Before: asDigest(c.Before), After: asDigest(c.After)}
	if !c.Started.IsZero() {
		step.MS = s.env.Now().Sub(c.Started).Milliseconds()
	}
	if c.Acted != nil {
		step.Role, step.Name = c.Acted.Role, nodeName(*c.Acted)
	}
	if resp.Effect != nil {
		step.Effect = resp.Effect.Word // its Seen may quote the text typed: not kept
	}
	switch a := c.Args.(type) {
	case args.Type, args.Fill:
		step.Chars = utf8.RuneCountInString(args.Text(a))
		step.Secret = strings.TrimPrefix(args.Secret(a), args.SecretPrefix)
		if step.Secret != "" {
			s.holdsSecret(id)
		}
	case args.Key:
		if typesText(a.Chord) {
			step.Chars = 1 // a key that types a character is typing
		} else {
			step.Key = a.Chord
		}
	case args.Scroll:
		step.Dir, step.Steps = a.Direction, a.By
		if step.Dir == "" {
			step.Dir = "down"
		}
		if step.Steps == 0 {
			step.Steps = 3
		}
	}
	step.At = args.Point(c.Args)
	if step.After == "" && step.OK {
		switch {
		case resp.Text != "":
			step.After = digest(resp.Text)
		case resp.Snapshot != nil:
			step.After = digest(resp.Snapshot.Text())
		}
	}
	if step.OK && c.Facts.Acts && !c.Facts.Types && c.Target != nil && st.Setting().Pictures && !s.heldSecret(id) {
		step.Picture = s.picture(st, c)
	}
	aerr := st.Append(step)
	s.env.Wrote(tracelog.Dir+"/", aerr)
	if aerr != nil {
		s.env.Logger.Error("trace", "err", aerr)
	}
}

// Cut records, in its session's trace, a verb an earlier daemon was
// killed in: a step of its own (the step its answer would have written
// never was), refused outcome_unknown, at the time it began.
func (s *Stage) Cut(session string, id target.ID, verb string, started time.Time) {
	st, err := s.Store()
	if err != nil {
		return
	}
	if err := st.Append(wire.TraceStep{Time: started.UTC(), Session: session, Target: id, Verb: verb, Code: target.CodeOutcomeUnknown}); err != nil {
		s.env.Logger.Error("trace", "err", err)
	}
}

// Steps answers the last n steps on id, of every session, for the live
// view's panel beside its pane. Pictures are not shown there.
func (s *Stage) Steps(id target.ID, n int) []wire.TraceStep {
	st, err := s.Store()
	if err != nil {
		return nil
	}
	steps := st.Steps(tracelog.Filter{Target: id, Last: n})
	for i := range steps {
		steps[i].Picture = ""
	}
	return steps
}

// editableRoles are the roles of nodes whose name can be their value (a
// combo box's entry names itself by what it holds, a page's text field
// by its placeholder or what was typed): the trace keeps their role only,
// whatever step acts on them, so text typed earlier does not reach the
// trace with a later click.
var editableRoles = map[string]bool{"entry": true, "text": true, "password text": true,
	"combo box": true, "spin button": true, "terminal": true, "document text": true}

// nodeName is the name a trace keeps of the node a step acted on: none
// for a node whose name can carry typed text (editableRoles, or one
// that says it is editable).
func nodeName(n target.NodeTraits) string {
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

// picture keeps the target's picture after an acting step, and answers
// its path (relative to the state directory), or "" when there is none:
// never of a window of the user's desktop without the operator's pixels
// grant for it, nor one larger than Env.TracePictureMax. The verb still
// holds its target (the stages finish inside it), so the picture is of
// what its act left.
func (s *Stage) picture(st *tracelog.Store, c *stage.Call) string {
	if mine, granted := c.Target.Desktop(); mine && !granted {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), pictureTimeout)
	defer cancel()
	b, err := c.Target.Screenshot(ctx)
	if err != nil || len(b) == 0 || int64(len(b)) > s.env.TracePictureMax {
		return ""
	}
	rel, err := st.SavePicture(c.Req.Session, s.env.Now(), b)
	if err != nil {
		s.env.Logger.Error("trace picture", "err", err)
		return ""
	}
	return rel
}

// Verbs are the trace's own verbs.
func (s *Stage) Verbs() []string { return []string{"trace", "browser.trace"} }

// Answer answers the caller's trace (--for: another session's, the
// operator's word), or sets the operator's pictures setting.
func (s *Stage) Answer(ctx context.Context, c *stage.Call) (wire.Response, error) {
	a := c.Args.(args.Trace)
	if err := s.check(c.Req, a); err != nil {
		return wire.Response{}, err
	}
	st, err := s.Store()
	if err != nil {
		return wire.Response{}, target.Refuse(target.CodeInternal, "the trace cannot be read: %v", err)
	}
	req := c.Req
	if a.Action != "" {
		return s.pictures(c, st)
	}
	who := req.Subject()
	var id target.ID
	if req.Target != "" {
		if id, err = target.ParseID(req.Target); err != nil {
			return wire.Response{}, err
		}
		if err := s.sees(req, who, id, st); err != nil {
			return wire.Response{}, err
		}
	}
	last := a.Last
	if last == 0 {
		last = defaultLast
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
	return wire.Response{Trace: steps, Did: did}, nil
}

// check refuses a malformed trace request before it reads anything.
func (s *Stage) check(req wire.Request, a args.Trace) error {
	switch a.Action {
	case "", PicturesOn, PicturesOff:
	default:
		return target.Refuse(target.CodeBadRequest, "trace takes --pictures on or off, not %s", target.Echo(a.Action))
	}
	if a.Action != "" && (req.Target != "" || req.For != "" || a.Last != 0) {
		return target.Refuse(target.CodeBadRequest, "trace --pictures is a setting of the daemon: it takes no --target, --for or --last")
	}
	if a.Last < 0 || a.Last > s.env.TraceSteps {
		return target.Refuse(target.CodeBadRequest, "--last %d: use 1 to %d (the steps a session's trace keeps)", a.Last, s.env.TraceSteps).
			With("limit", s.env.TraceSteps)
	}
	return nil
}

// sees refuses a trace of a target the caller does not see and never
// acted on: its steps are another session's, which only the operator
// reads (--for).
func (s *Stage) sees(req wire.Request, who string, id target.ID, st *tracelog.Store) error {
	if req.ForOther() != "" || st.Has(who, id) {
		return nil
	}
	seen, known := s.env.Sees(req.Session, id)
	if !known || seen {
		return nil // gone: the caller's own steps on it, if any, are all there is
	}
	return target.Refuse(target.CodeNotExposed, "%s is not shared with session %q: its steps are another session's trace, which is the operator's to read (trace --for <session>)", id, req.Session).
		With("target", string(id)).With("session", req.Session)
}

// pictures is trace --pictures on|off: the operator's setting, kept
// across restarts and audited like desktop's.
func (s *Stage) pictures(c *stage.Call, st *tracelog.Store) (wire.Response, error) {
	on := c.Args.(args.Trace).Action == PicturesOn
	c.Fact.Setting = "trace pictures " + map[bool]string{true: "on", false: "off"}[on]
	changed, err := st.SetPictures(on, c.Req.Session)
	if err != nil {
		return wire.Response{}, target.Refuse(target.CodeInternal, "the pictures setting was not kept: %v", err)
	}
	keep := "kept as long as their steps"
	if r := s.env.TraceRetention; r > 0 {
		keep = "kept " + r.String()
	}
	did := "pictures on: every acting step keeps its target's picture after the act (never of a window of your desktop without its pixels grant), " + keep + "; trace --pictures off stops it"
	if !on {
		did = "pictures off: steps keep no picture from now on; the ones kept go with their steps"
	}
	if !changed {
		did = "already " + did
	}
	return wire.Response{Did: did}, nil
}
