// Package tracelog keeps the daemon's trace on disk: every session's recent
// steps (wire.TraceStep), one JSONL file per session, bounded by a count of
// steps per session and by age, and the pictures some steps keep. It
// survives a daemon restart. Lines are appended as the audit's are
// (lease.RotatingFile: one write(2) of one whole line, files 0600 in a 0700
// directory); a session's file is rewritten whole (a temporary file renamed
// over it) when it holds twice its bound or a step grew too old.
//
// It is not the audit log: the audit answers who did what, for as long as
// its byte bound keeps it, and must not be trimmed by a trace's bounds; a
// trace answers what a session's steps did and saw, and holds more (the
// node acted on, digests, durations, pictures) for less time.
package tracelog

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/internal/statefile"
	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/target"
)

// Dir is the store's directory under the state directory; pictures are in
// Dir/pictures.
const (
	Dir         = "trace"
	PicturesDir = "pictures"
	settingFile = "settings.json"
	// sweepEvery is how often a sweep for steps and pictures past the
	// retention period runs, at most (on the next append or read).
	sweepEvery = time.Minute
	// maxLine bounds one line read back: a longer one is not ours.
	maxLine = 1 << 20
)

// Limits bound the store.
type Limits struct {
	Steps     int           // per session; the oldest go first
	Retention time.Duration // a step (and its picture) older than this is removed; <= 0 keeps them
}

// Setting is the operator's pictures setting: whether acting steps keep a
// picture, who set it and when.
type Setting struct {
	Pictures bool      `json:"pictures"`
	Session  string    `json:"session,omitempty"`
	Since    time.Time `json:"since,omitzero"`
}

// Store is the trace. Safe for concurrent use.
type Store struct {
	dir string // state dir/trace
	lim Limits
	now func() time.Time

	found []string // what Open could not read back (Found)

	mu        sync.Mutex
	sessions  map[string]*session
	lastSweep time.Time
	setting   Setting
}

type session struct {
	steps []wire.TraceStep // oldest first, at most lim.Steps
	lines int              // lines in its file now (compacted at 2×Steps)
}

// Open opens (creating) the store under stateDir and reads back what an
// earlier daemon left, dropping what is past the limits.
//
// What it cannot read back it says (Found), never drops in silence: a
// pictures setting that cannot be read (then pictures are off: the setting
// is the operator's to give again, never guessed), a session's file whose
// lines do not all decode (the good steps are kept, the file as it was is
// set aside as name.damaged-<time>), a file that is empty, or that another
// user owns or could have written (set aside whole). A trace directory it
// cannot make or read is said there too; the store opens all the same.
func Open(stateDir string, lim Limits, now func() time.Time) (*Store, error) {
	if lim.Steps <= 0 {
		return nil, errors.New("tracelog: Limits.Steps must be positive")
	}
	if now == nil {
		now = time.Now
	}
	s := &Store{dir: filepath.Join(stateDir, Dir), lim: lim, now: now, sessions: map[string]*session{}}
	if err := os.MkdirAll(filepath.Join(s.dir, PicturesDir), 0o700); err != nil {
		s.found = append(s.found, fmt.Sprintf("the trace's directory could not be made (%s): steps are not kept", plain(err)))
	}
	setting := filepath.Join(s.dir, settingFile)
	var set Setting
	if b, dmg := statefile.Read(setting, statefile.JSON(&set), now()); dmg != nil {
		s.found = append(s.found, fmt.Sprintf("the trace's pictures setting could not be read back (%s%s): pictures are off until the operator sets them again (trace pictures-on)", Dir+"/"+dmg.File+": "+dmg.Why, aside(dmg.MovedTo)))
	} else if b != nil {
		s.setting = set
	}
	files, err := filepath.Glob(filepath.Join(s.dir, "*.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("tracelog: %w", err)
	}
	for _, f := range files {
		rel := Dir + "/" + filepath.Base(f)
		fi, dmg := statefile.Judge(f, now())
		if dmg != nil {
			s.found = append(s.found, fmt.Sprintf("a session's trace could not be read back (%s: %s%s): its steps are lost", rel, dmg.Why, aside(dmg.MovedTo)))
			continue
		}
		if fi == nil {
			continue
		}
		if fi.Size() == 0 {
			os.Remove(f)
			s.found = append(s.found, fmt.Sprintf("a session's trace file was empty (%s): whatever steps it kept are lost", rel))
			continue
		}
		steps, lines, bad, why := readSteps(f)
		if bad > 0 {
			moved, _ := statefile.SetAside(f, now())
			who := "a session's trace"
			if len(steps) > 0 {
				who = fmt.Sprintf("the trace of session %q", steps[len(steps)-1].Session)
			}
			s.found = append(s.found, fmt.Sprintf("%s: %d of its %d lines could not be read back (%s: %s) and were dropped%s", who, bad, lines, rel, why, aside(moved)))
		}
		if len(steps) == 0 {
			os.Remove(f)
			continue
		}
		name := steps[len(steps)-1].Session
		if filepath.Base(f) != fileName(name) {
			continue // not a file of ours
		}
		ss := &session{steps: steps, lines: lines}
		if len(ss.steps) > lim.Steps {
			ss.steps = slices.Clone(ss.steps[len(ss.steps)-lim.Steps:])
		}
		s.sessions[name] = ss
		if bad > 0 {
			// The good steps, whole, in a file of their own: the torn
			// line is not glued to the next step appended.
			s.rewrite(name, ss)
		}
	}
	s.mu.Lock()
	s.sweepLocked(s.now())
	s.mu.Unlock()
	return s, nil
}

// Found says, in words, what Open could not read back and what it did
// about it. Empty when all was whole.
func (s *Store) Found() []string { return slices.Clone(s.found) }

func aside(moved string) string {
	if moved == "" {
		return ""
	}
	return "; kept aside as " + filepath.Base(moved)
}

// plain is an error's last words, without the path.
func plain(err error) string {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err.Error()
		}
		err = u
	}
}

// readSteps reads a session's file: the steps, how many lines there are,
// how many of them are no step (cut short, not JSON, no session), and
// what was wrong with the first such, in words.
func readSteps(path string) (steps []wire.TraceStep, lines, bad int, why string) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, 1, plain(err)
	}
	defer f.Close()
	ended := true // the file ends in a newline: its last line is whole
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, fi.Size()-1); err == nil {
			ended = last[0] == '\n'
		}
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	var (
		first    string // what is wrong with the first line that is no step
		firstAt  int
		lastGood bool
	)
	for sc.Scan() {
		lines++
		var st wire.TraceStep
		err := json.Unmarshal(sc.Bytes(), &st)
		lastGood = err == nil && st.Session != ""
		if lastGood {
			steps = append(steps, st)
			continue
		}
		bad++
		if first == "" {
			firstAt = lines
			switch {
			case err == nil:
				first = fmt.Sprintf("line %d names no session", lines)
			case err.Error() == "unexpected end of JSON input":
				first = fmt.Sprintf("line %d is cut short", lines)
			default:
				first = fmt.Sprintf("line %d is not a step (%s)", lines, err)
			}
		}
	}
	// A last line that is no step, with no newline after it, is what a
	// write that never finished (or a file cut) leaves.
	torn := !ended && !lastGood && lines > 0
	switch {
	case torn && firstAt == lines:
		why = fmt.Sprintf("line %d, the last, is cut short", lines)
	case torn:
		why = fmt.Sprintf("%s; line %d, the last, is cut short", first, lines)
	default:
		why = first
	}
	if err := sc.Err(); err != nil {
		bad++
		if why == "" {
			why = fmt.Sprintf("after line %d: %s", lines, err)
		}
	}
	return steps, lines, bad, why
}

// fileName is a session's file: a digest of its name, since a session is
// any string its caller chose.
func fileName(session string) string {
	h := sha256.Sum256([]byte(session))
	return hex.EncodeToString(h[:8]) + ".jsonl"
}

func (s *Store) path(session string) string { return filepath.Join(s.dir, fileName(session)) }

// Append adds a step to its session's trace.
func (s *Store) Append(st wire.TraceStep) error {
	st.Time = st.Time.UTC()
	b, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("tracelog: %w", err)
	}
	b = append(b, '\n')
	s.mu.Lock()
	defer s.mu.Unlock()
	ss := s.sessions[st.Session]
	if ss == nil {
		ss = &session{}
		s.sessions[st.Session] = ss
	}
	ss.steps = append(ss.steps, st)
	if len(ss.steps) > s.lim.Steps {
		for _, old := range ss.steps[:len(ss.steps)-s.lim.Steps] {
			s.removePicture(old.Picture)
		}
		// Not copied: the next append that outgrows the array copies
		// only the steps kept.
		ss.steps = ss.steps[len(ss.steps)-s.lim.Steps:]
	}
	var werr error
	if ss.lines+1 >= 2*s.lim.Steps {
		werr = s.rewrite(st.Session, ss)
	} else {
		werr = appendLine(s.path(st.Session), b)
		if werr == nil {
			ss.lines++
		}
	}
	s.maybeSweep()
	return werr
}

// appendLine appends one line as the audit does.
func appendLine(path string, b []byte) error {
	f, err := lease.OpenRotating(path, lease.Rotation{})
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	return errors.Join(err, f.Close())
}

// rewrite writes a session's steps as its whole file. Caller holds mu.
func (s *Store) rewrite(name string, ss *session) error {
	p := s.path(name)
	if len(ss.steps) == 0 {
		ss.lines = 0
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("tracelog: %w", err)
		}
		return nil
	}
	var buf bytes.Buffer
	for _, st := range ss.steps {
		b, err := json.Marshal(st)
		if err != nil {
			return fmt.Errorf("tracelog: %w", err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	if err := writeFile(p, buf.Bytes()); err != nil {
		return err
	}
	ss.lines = len(ss.steps)
	return nil
}

// writeFile replaces path with b: a 0600 temporary file renamed over it.
func writeFile(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return fmt.Errorf("tracelog: %w", err)
	}
	_, err = f.Write(b)
	err = errors.Join(err, f.Chmod(0o600), f.Close())
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("tracelog: %w", err)
	}
	return nil
}

// Filter chooses steps: of one session ("" every session), of one target
// ("" every target), the last Last of them (0 every one kept).
type Filter struct {
	Session string
	Target  target.ID
	Last    int
}

// Steps answers the steps f chooses, oldest first; across sessions they
// are merged by time.
func (s *Store) Steps(f Filter) []wire.TraceStep {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.maybeSweep()
	var out []wire.TraceStep
	for name, ss := range s.sessions {
		if f.Session != "" && name != f.Session {
			continue
		}
		for _, st := range ss.steps {
			if f.Target == "" || st.Target == f.Target {
				out = append(out, st)
			}
		}
	}
	if f.Session == "" {
		slices.SortStableFunc(out, func(a, b wire.TraceStep) int { return a.Time.Compare(b.Time) })
	}
	if f.Last > 0 && len(out) > f.Last {
		out = out[len(out)-f.Last:]
	}
	return slices.Clone(out)
}

// Has reports whether session has steps on id.
func (s *Store) Has(session string, id target.ID) bool {
	return len(s.Steps(Filter{Session: session, Target: id, Last: 1})) > 0
}

// maybeSweep sweeps when the last sweep is sweepEvery old. Caller holds mu.
func (s *Store) maybeSweep() {
	now := s.now()
	if now.Sub(s.lastSweep) >= sweepEvery || now.Before(s.lastSweep) {
		s.sweepLocked(now)
	}
}

// Sweep removes the steps and pictures past the retention period now.
func (s *Store) Sweep() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweepLocked(s.now())
}

func (s *Store) sweepLocked(now time.Time) {
	s.lastSweep = now
	keep := map[string]bool{}
	for name, ss := range s.sessions {
		if s.lim.Retention > 0 {
			cut := now.Add(-s.lim.Retention)
			i := 0
			for i < len(ss.steps) && ss.steps[i].Time.Before(cut) {
				i++
			}
			if i > 0 {
				ss.steps = slices.Clone(ss.steps[i:])
				if err := s.rewrite(name, ss); err != nil {
					continue
				}
			}
			if len(ss.steps) == 0 {
				delete(s.sessions, name)
				continue
			}
		}
		for _, st := range ss.steps {
			if st.Picture != "" {
				keep[filepath.Base(st.Picture)] = true
			}
		}
	}
	// Pictures no kept step names (its step went, or it was never
	// written: a crash between the two) are removed once they are older
	// than a sweep's interval (a picture is saved just before its step),
	// as are leftovers of a rewrite.
	ents, _ := os.ReadDir(filepath.Join(s.dir, PicturesDir))
	for _, e := range ents {
		if keep[e.Name()] {
			continue
		}
		if at, ok := pictureTime(e.Name()); ok && now.Sub(at) < sweepEvery && now.Sub(at) >= 0 {
			continue
		}
		os.Remove(filepath.Join(s.dir, PicturesDir, e.Name()))
	}
	tmps, _ := filepath.Glob(filepath.Join(s.dir, ".tmp-*"))
	for _, t := range tmps {
		os.Remove(t)
	}
}

// SavePicture writes a step's picture (0600) and answers its path relative
// to the state directory, for TraceStep.Picture. Save it before the step
// is appended: a sweep removes a picture no step names.
func (s *Store) SavePicture(session string, at time.Time, png []byte) (string, error) {
	name := strings.TrimSuffix(fileName(session), ".jsonl") + "-" + strconv.FormatInt(at.UnixNano(), 10) + ".png"
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := writeFile(filepath.Join(s.dir, PicturesDir, name), png); err != nil {
		return "", err
	}
	return filepath.Join(Dir, PicturesDir, name), nil
}

// pictureTime is when a picture was saved, from its name.
func pictureTime(name string) (time.Time, bool) {
	_, ns, ok := strings.Cut(strings.TrimSuffix(name, ".png"), "-")
	n, err := strconv.ParseInt(ns, 10, 64)
	if !ok || err != nil {
		return time.Time{}, false
	}
	return time.Unix(0, n), true
}

// removePicture removes a step's picture. Caller holds mu.
func (s *Store) removePicture(rel string) {
	if rel != "" {
		os.Remove(filepath.Join(s.dir, PicturesDir, filepath.Base(rel)))
	}
}

// Setting answers the pictures setting.
func (s *Store) Setting() Setting {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.setting
}

// SetPictures sets the pictures setting, kept across restarts; it reports
// whether it changed.
func (s *Store) SetPictures(on bool, session string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.setting.Pictures == on {
		return false, nil
	}
	st := Setting{Pictures: on, Session: session, Since: s.now().UTC()}
	b, err := json.Marshal(st)
	if err != nil {
		return false, err
	}
	if err := writeFile(filepath.Join(s.dir, settingFile), b); err != nil {
		return false, err
	}
	s.setting = st
	return true, nil
}
