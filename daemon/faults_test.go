package daemon

// Issue 35's fault-injection suite: every file the daemon persists (state
// and its copy, budgets, trace, its pictures setting, keys, records of verbs in flight,
// audit; the portal's restore token is the native kind's, tested beside
// portal.TokenStore) is set up for real by an earlier daemon, left as
// kill -9 leaves it (Detach), damaged — missing, empty, truncated,
// garbage, wrong permissions, unwritable directory — and a new daemon
// starts (New succeeds), serves (a verb answers), and says what it could
// not restore (the first answer's note, or status's faults, names the
// file). Nothing is silently reset to "no limit": budgets fail closed.
//
// "wrong permissions" is a file another user could have written (0666):
// not trusted, set aside, said. (A file only its owner cannot read, 0000,
// is set back to 0600 and read: internal/statefile.) "unwritable
// directory" is a read-only tmpfs mounted over the file's directory (for
// state.json, budgets.json and audit.jsonl, the whole state directory):
// chmod does not stop root, a read-only mount does. It needs root: the
// suite skips those rows otherwise, unless VIBESPACE_INTEGRATION=1 (make
// test), where it fails.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/vibespace/vibespace/daemon/args"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cmd/vibespace-daemon/stages"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/kind/kindtest"
	"github.com/vibespace/vibespace/daemon/tracelog"
	"github.com/vibespace/vibespace/internal/smallfs"
	"github.com/vibespace/vibespace/target"
)

// faultEnv is one row's world: the provider (its windows outlive a
// daemon, as applications outlive a killed one), the state directory, the
// socket (outside the state directory, which may be read-only), the
// earlier daemon's window.
type faultEnv struct {
	b    *kindtest.Provider
	dir  string
	sock string
	win  string
	// steps is how many steps the earlier daemon's trace of session a held.
	steps int
	// damaged is the file as the damage left it.
	damaged []byte
}

// start runs a daemon on e's state directory; New must succeed.
func (e *faultEnv) start(t *testing.T) *testDaemon {
	t.Helper()
	cfg := Config{StateDir: e.dir, SocketPath: e.sock, Displays: []kind.DisplayProvider{e.b}, VerbTimeout: 5 * time.Second, Stages: stages.All()} // what the program runs
	d, err := New(t.Context(), cfg)
	if err != nil {
		t.Fatalf("New refused to start: %v", err)
	}
	if err := d.Listen(); err != nil {
		t.Fatal(err)
	}
	td := &testDaemon{Daemon: d, sock: e.sock, done: make(chan struct{})}
	go func() {
		defer close(td.done)
		if err := d.Serve(context.WithoutCancel(t.Context())); err != nil {
			t.Errorf("Serve: %v", err)
		}
	}()
	t.Cleanup(func() { d.Close(); <-td.done })
	return td
}

// kill stops td as kill -9 would.
func kill(td *testDaemon) {
	td.Detach()
	<-td.done
}

// faultFile is a file the daemon persists: the directory it is in
// (relative to the state directory), how an earlier daemon sets it up (its
// path answered), and what the next daemon must say and do after each
// damage.
type faultFile struct {
	name  string
	dir   string
	also  string // another file in dir damaged alike
	loss  string // words the daemon's notices of a loss of this file hold
	setUp func(t *testing.T, e *faultEnv, td *testDaemon) string
	check func(t *testing.T, e *faultEnv, td *testDaemon, damage string, first Response, faults string)
}

const (
	dmgMissing   = "missing"
	dmgEmpty     = "empty"
	dmgTruncated = "truncated"
	dmgGarbage   = "garbage"
	dmgMode      = "wrong permissions"
	dmgReadOnly  = "unwritable directory"
	// dmgOwnerMode is a mode without the owner's read and write (0000):
	// nothing another user could have done, so the file is set back to
	// 0600 and read back as it was; no loss is claimed.
	dmgOwnerMode = "owner cannot read or write"
)

var garbage = []byte("{\x00garbage\n")

// damageFile does damage to the file at path (dmgReadOnly is done by the
// mount, not here).
func damageFile(t *testing.T, path, damage string) {
	t.Helper()
	var err error
	switch damage {
	case dmgMissing:
		err = os.Remove(path)
	case dmgEmpty:
		err = os.WriteFile(path, nil, 0o600)
	case dmgTruncated:
		var b []byte
		if b, err = os.ReadFile(path); err == nil {
			if len(b) < 2 {
				t.Fatalf("%s holds %d bytes: nothing to cut", path, len(b))
			}
			err = os.WriteFile(path, b[:len(b)-len(b)/3-1], 0o600)
		}
	case dmgGarbage:
		err = os.WriteFile(path, garbage, 0o600)
	case dmgMode:
		err = os.Chmod(path, 0o666)
	case dmgOwnerMode:
		err = os.Chmod(path, 0)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// readOnlyMount mounts a tmpfs over dir (made if need be) and answers what
// remounts it read-only; it is unmounted when the test ends (after the
// daemons it ran are closed: cleanups run last first). It needs root.
func readOnlyMount(t *testing.T, dir string) (remountRO func()) {
	t.Helper()
	smallfs.MountAt(t, dir, 4<<20)
	return func() {
		t.Helper()
		smallfs.ReadOnly(t, dir)
	}
}

func has(s, sub string) bool { return strings.Contains(s, sub) }

// wantSaid fails unless what the daemon said (its first answer's note and
// status's faults) holds each of words.
func wantSaid(t *testing.T, first Response, faults string, words ...string) {
	t.Helper()
	said := first.Note + "\n" + faults
	for _, w := range words {
		if !has(said, w) {
			t.Fatalf("the daemon does not say %q:\nfirst note: %s\nfaults:\n%s", w, first.Note, faults)
		}
	}
}

// wantNothingClaimed fails if the daemon claims a loss about name.
func wantNothingClaimed(t *testing.T, first Response, faults, name string) {
	t.Helper()
	if has(first.Note, name) || has(faults, name) {
		t.Fatalf("nothing was lost, yet the daemon says of %s:\nfirst note: %s\nfaults:\n%s", name, first.Note, faults)
	}
}

func faultFiles() []faultFile {
	return []faultFile{
		{
			// state.json damaged, its copy (state.json.copy, written after
			// it by every save) whole: restored from the copy, and said.
			name: stateFile,
			loss: "state.json",
			setUp: func(t *testing.T, e *faultEnv, td *testDaemon) string {
				return filepath.Join(e.dir, stateFile)
			},
			check: func(t *testing.T, e *faultEnv, td *testDaemon, damage string, first Response, faults string) {
				list := td.call(t, Request{Verb: "list", Session: "a"})
				if !has(fmt.Sprint(list.Targets), e.win) {
					t.Fatalf("the window was not restored: %+v", list)
				}
				switch damage {
				case dmgMissing:
					// Not "nothing was saved": the copy says something was.
					wantSaid(t, first, faults, "state.json was missing", "restored from its copy state.json.copy")
				case dmgOwnerMode:
				case dmgReadOnly:
					wantSaid(t, first, faults, "state.json not written since", "read-only file system", "audit not written since")
				default:
					wantSaid(t, first, faults, "state.json was damaged", "restored from its copy state.json.copy")
				}
				td.open(t, "a") // and it serves on
			},
		},
		{
			// state.json and its copy both damaged: the daemon starts
			// afresh, and says what could not be restored.
			name: "state.json+copy",
			loss: "state.json",
			also: stateFile + ".copy",
			setUp: func(t *testing.T, e *faultEnv, td *testDaemon) string {
				return filepath.Join(e.dir, stateFile)
			},
			check: func(t *testing.T, e *faultEnv, td *testDaemon, damage string, first Response, faults string) {
				list := td.call(t, Request{Verb: "list", Session: "a"})
				restored := has(fmt.Sprint(list.Targets), e.win)
				switch damage {
				case dmgMissing:
					// Nothing was saved, as far as the daemon can know: it
					// starts afresh and claims nothing.
					wantNothingClaimed(t, first, faults, stateFile)
				case dmgReadOnly, dmgOwnerMode:
					if !restored {
						t.Fatalf("the window was not restored from a readable state.json: %+v", list)
					}
					if damage == dmgReadOnly {
						wantSaid(t, first, faults, "state.json not written since", "read-only file system")
					}
				default:
					wantSaid(t, first, faults, "state.json was damaged", "could not be restored")
					if restored {
						t.Fatalf("a damaged state.json restored the window: %+v", list)
					}
				}
				td.open(t, "a") // and it serves on
			},
		},
		{
			name: "budgets.json",
			loss: "budgets.json",
			setUp: func(t *testing.T, e *faultEnv, td *testDaemon) string {
				wantCode(t, td.call(t, Request{Verb: "budget", Session: "a"}.With(args.Budget{Steps: 50})), "")
				wantCode(t, td.call(t, Request{Verb: "key", Session: "a", Target: e.win}.With(args.Key{Chord: "a", NoVerify: true})), "")
				return filepath.Join(e.dir, "budgets.json")
			},
			check: func(t *testing.T, e *faultEnv, td *testDaemon, damage string, first Response, faults string) {
				key := Request{Verb: "key", Session: "a", Target: e.win}.With(args.Key{Chord: "a", NoVerify: true})
				budget := td.call(t, Request{Verb: "budget", Session: "a"})
				switch damage {
				case dmgMissing:
					// budgets.json is written whenever a budget is set, and
					// from then on state.json says budgets were saved: a
					// missing one is then a loss, failed closed like a
					// damaged one (never "no bound"). (A daemon that never
					// had a budget leaves neither, and claims nothing: every
					// other row checks that.)
					wantSaid(t, first, faults, "budgets.json was missing (state.json says budgets were saved)", string(target.CodeBudgetUnreadable))
					wantCode(t, td.call(t, key), target.CodeBudgetUnreadable)
					if !has(budget.Did, "unknown") {
						t.Fatalf("budget says %q", budget.Did)
					}
				case dmgReadOnly, dmgOwnerMode:
					// Read back whole: the bound holds (one step used, one
					// more now), and the step not written is said.
					wantCode(t, td.call(t, key), "")
					if !has(budget.Did, "49 of 50 steps left") {
						t.Fatalf("the budget read back: %q", budget.Did)
					}
					if damage == dmgOwnerMode {
						return
					}
					st := td.call(t, Request{Verb: "status", Session: "a"})
					wantSaid(t, Response{}, strings.Join(st.Status.Faults, "\n"), "budgets.json not written since", "read-only file system")
				default:
					// Fails closed: never "no bound".
					wantSaid(t, first, faults, "budgets.json was damaged", string(target.CodeBudgetUnreadable))
					wantCode(t, td.call(t, key), target.CodeBudgetUnreadable)
					if !has(budget.Did, "unknown") {
						t.Fatalf("budget says %q", budget.Did)
					}
					wantCode(t, td.call(t, Request{Verb: "snapshot", Session: "a", Target: e.win}), "")
				}
			},
		},
		{
			name: "trace",
			loss: "a session's trace",
			dir:  tracelog.Dir,
			setUp: func(t *testing.T, e *faultEnv, td *testDaemon) string {
				for _, c := range []string{"a", "b", "c"} {
					wantCode(t, td.call(t, Request{Verb: "key", Session: "a", Target: e.win}.With(args.Key{Chord: c, NoVerify: true})), "")
				}
				e.steps = len(td.call(t, Request{Verb: "trace", Session: "a"}).Trace)
				files, _ := filepath.Glob(filepath.Join(e.dir, tracelog.Dir, "*.jsonl"))
				if len(files) != 1 {
					t.Fatalf("the session's trace: %v", files)
				}
				return files[0]
			},
			check: func(t *testing.T, e *faultEnv, td *testDaemon, damage string, first Response, faults string) {
				tr := td.call(t, Request{Verb: "trace", Session: "a"})
				wantCode(t, tr, "")
				switch damage {
				case dmgMissing:
					wantNothingClaimed(t, first, faults, "trace")
				case dmgEmpty:
					wantSaid(t, first, faults, "a session's trace file was empty", "whatever steps it kept are lost")
				case dmgTruncated:
					wantSaid(t, first, faults, `the trace of session "a"`, "lines could not be read back", "cut short", "kept aside as")
					if n := len(tr.Trace); n == 0 || n >= e.steps {
						t.Fatalf("the steps that could be read back: %d of %d", n, e.steps)
					}
				case dmgGarbage:
					wantSaid(t, first, faults, "a session's trace: 1 of its 1 lines could not be read back", "kept aside as")
				case dmgMode:
					wantSaid(t, first, faults, "a session's trace could not be read back", "another user could have written it", "its steps are lost")
				case dmgReadOnly, dmgOwnerMode:
					if len(tr.Trace) != e.steps {
						t.Fatalf("the trace read back: %d steps of %d", len(tr.Trace), e.steps)
					}
					if damage == dmgOwnerMode {
						return
					}
					wantCode(t, td.call(t, Request{Verb: "key", Session: "a", Target: e.win}.With(args.Key{Chord: "d", NoVerify: true})), "")
					st := td.call(t, Request{Verb: "status", Session: "a"})
					wantSaid(t, Response{}, strings.Join(st.Status.Faults, "\n"), "trace/ not written since", "read-only file system")
				}
			},
		},
		{
			name: "trace pictures setting",
			loss: "pictures setting",
			dir:  tracelog.Dir,
			setUp: func(t *testing.T, e *faultEnv, td *testDaemon) string {
				wantCode(t, td.call(t, Request{Verb: "trace", Session: "op"}.With(args.Trace{Action: tracePicturesOn})), "")
				return filepath.Join(e.dir, tracelog.Dir, "settings.json")
			},
			check: func(t *testing.T, e *faultEnv, td *testDaemon, damage string, first Response, faults string) {
				st, err := td.traces()
				if err != nil {
					t.Fatal(err)
				}
				on := st.Setting().Pictures
				switch damage {
				case dmgMissing:
					// Nothing saved: pictures off, the default; no loss
					// claimed.
					wantNothingClaimed(t, first, faults, "pictures setting")
				case dmgReadOnly, dmgOwnerMode:
					if !on {
						t.Fatal("pictures on, read back whole, is off")
					}
				default:
					wantSaid(t, first, faults, "the trace's pictures setting could not be read back", "pictures are off until the operator sets them again")
				}
				if damage != dmgReadOnly && damage != dmgOwnerMode && on {
					t.Fatal("a setting that could not be read back is taken as pictures on")
				}
				wantCode(t, td.call(t, Request{Verb: "trace", Session: "op"}.With(args.Trace{Action: tracePicturesOn})), "")
			},
		},
		{
			name: "keys",
			loss: "the key of provider",
			dir:  keysDir,
			setUp: func(t *testing.T, e *faultEnv, td *testDaemon) string {
				wantCode(t, td.call(t, Request{Verb: "key.set", Session: "u"}.With(args.KeySet{Provider: "cloud:browserless", Secret: faultKey})), "")
				return filepath.Join(e.dir, keysDir, "cloud~browserless.key")
			},
			check: func(t *testing.T, e *faultEnv, td *testDaemon, damage string, first Response, faults string) {
				list := td.call(t, Request{Verb: "key.list", Session: "u"}.With(args.KeyNamed{Provider: "cloud:browserless"}))
				wantCode(t, list, "")
				set := list.Keys[0].Set
				if has(first.Note+faults, faultKey[:8]) {
					t.Fatalf("the key's value is told: %q", first.Note+faults)
				}
				switch damage {
				case dmgMissing:
					wantNothingClaimed(t, first, faults, "key")
					if set {
						t.Fatal("a missing key is listed as set")
					}
				case dmgOwnerMode:
					if v, ok, err := td.keys.Get("cloud:browserless"); !set || v != faultKey || !ok || err != nil {
						t.Fatalf("the key read back: set %v, %v %v", set, ok, err)
					}
				case dmgReadOnly:
					if !set {
						t.Fatal("a key readable in a read-only directory was lost")
					}
					again := td.call(t, Request{Verb: "key.set", Session: "u"}.With(args.KeySet{Provider: "cloud:browserless", Secret: faultKey + "2"}))
					if again.OK || !has(again.Message, "read-only file system") {
						t.Fatalf("key set in a read-only directory: %+v", again)
					}
				default:
					wantSaid(t, first, faults, "the key of provider cloud:browserless could not be read back", "set it again: key set cloud:browserless")
					if set {
						t.Fatal("a damaged key is listed as set")
					}
					wantCode(t, td.call(t, Request{Verb: "key.set", Session: "u"}.With(args.KeySet{Provider: "cloud:browserless", Secret: faultKey})), "")
				}
			},
		},
		{
			name: "inflight",
			loss: "a verb in flight",
			dir:  flightDir,
			setUp: func(t *testing.T, e *faultEnv, td *testDaemon) string {
				// The record an acting verb leaves when the daemon is
				// killed during it (TestRestartTellsOfACutVerb catches one
				// for real): written after Detach, in the daemon's own
				// format.
				return filepath.Join(e.dir, flightDir, "7.json")
			},
			check: func(t *testing.T, e *faultEnv, td *testDaemon, damage string, first Response, faults string) {
				snap := td.call(t, Request{Verb: "key", Session: "a", Target: e.win}.With(args.Key{Chord: "a", NoVerify: true}))
				wantCode(t, snap, "")
				audit, _ := os.ReadFile(filepath.Join(e.dir, auditFile))
				switch damage {
				case dmgMissing:
					wantNothingClaimed(t, first, faults, "in flight")
					if has(snap.Note, "cut by a daemon restart") {
						t.Fatalf("a cut claimed with no record: %q", snap.Note)
					}
				case dmgReadOnly, dmgOwnerMode:
					// Read and told; in a read-only directory the record
					// cannot be removed, and new verbs cannot be recorded:
					// said.
					if !has(snap.Note, "type by a at ") || !has(snap.Note, "cut by a daemon restart") {
						t.Fatalf("the cut verb is not told: %q", snap.Note)
					}
					if damage == dmgOwnerMode {
						return
					}
					st := td.call(t, Request{Verb: "status", Session: "a"})
					wantSaid(t, Response{}, strings.Join(st.Status.Faults, "\n"), "inflight/ not written since", "read-only file system")
				default:
					wantSaid(t, first, faults, "a verb in flight when the daemon was killed left a record that could not be read", "inflight/7.json", "some verb's effect is unknown")
					if !has(string(audit), `"verb":"inflight","ok":false,"code":"outcome_unknown"`) {
						t.Fatalf("the unreadable record is not audited:\n%s", audit)
					}
				}
			},
		},
		{
			name: auditFile,
			loss: "audit.jsonl",
			setUp: func(t *testing.T, e *faultEnv, td *testDaemon) string {
				wantCode(t, td.call(t, Request{Verb: "key", Session: "a", Target: e.win}.With(args.Key{Chord: "a", NoVerify: true})), "")
				return filepath.Join(e.dir, auditFile)
			},
			check: func(t *testing.T, e *faultEnv, td *testDaemon, damage string, first Response, faults string) {
				wantCode(t, td.call(t, Request{Verb: "key", Session: "a", Target: e.win}.With(args.Key{Chord: "z", NoVerify: true})), "")
				switch damage {
				case dmgMissing, dmgEmpty, dmgOwnerMode:
					// Nothing to restore: the audit is appended to (anew);
					// no loss claimed.
					wantNothingClaimed(t, first, faults, auditFile)
				case dmgTruncated:
					wantSaid(t, first, faults, "audit.jsonl ended in a line cut short", "begins on a line of its own")
				case dmgGarbage:
					wantSaid(t, first, faults, "audit.jsonl's last line is not an audit row")
				case dmgMode:
					wantSaid(t, first, faults, "audit.jsonl was damaged (its mode is 0666: another user could have written it)", "a new audit.jsonl is begun")
				case dmgReadOnly:
					st := td.call(t, Request{Verb: "status", Session: "a"})
					wantSaid(t, first, strings.Join(st.Status.Faults, "\n"), "audit not written since", "read-only file system")
					return
				}
				// Appending goes on, each row on a line of its own: the one
				// line that is no row is the torn (or garbage) one as the
				// damage left it, never glued to a row after it.
				b, err := os.ReadFile(filepath.Join(e.dir, auditFile))
				if err != nil {
					t.Fatal(err)
				}
				var torn []string
				if damage == dmgTruncated || damage == dmgGarbage {
					old := strings.Split(strings.TrimSuffix(string(e.damaged), "\n"), "\n")
					torn = old[len(old)-1:]
				}
				var bad []string
				lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
				for _, l := range lines {
					if !json.Valid([]byte(l)) {
						bad = append(bad, l)
					}
				}
				if fmt.Sprintf("%q", bad) != fmt.Sprintf("%q", torn) {
					t.Fatalf("lines that are no row: %q, want only %q:\n%s", bad, torn, b)
				}
				if !has(lines[len(lines)-1], `"verb":"key"`) {
					t.Fatalf("the last row is not the key just done:\n%s", b)
				}
			},
		},
	}
}

const faultKey = "bl-fault-test-0123456789"

// TestFaults walks every persisted file through every damage.
func TestFaults(t *testing.T) {
	damages := []string{dmgMissing, dmgEmpty, dmgTruncated, dmgGarbage, dmgMode, dmgOwnerMode, dmgReadOnly}
	for _, f := range faultFiles() {
		for _, damage := range damages {
			t.Run(f.name+"/"+damage, func(t *testing.T) {
				e := &faultEnv{b: &kindtest.Provider{}, dir: t.TempDir(), sock: filepath.Join(t.TempDir(), "w.sock")}
				var remountRO func()
				if damage == dmgReadOnly {
					remountRO = readOnlyMount(t, filepath.Join(e.dir, f.dir))
				}
				td := e.start(t)
				e.win = string(td.open(t, "a"))
				path := f.setUp(t, e, td)
				kill(td)
				if f.name == "inflight" {
					rec, _ := json.Marshal(flight{Target: target.ID(e.win), Verb: "type", Session: "a", Started: time.Now().UTC()})
					if err := os.WriteFile(path, rec, 0o600); err != nil {
						t.Fatal(err)
					}
				}
				if damage == dmgReadOnly {
					remountRO()
				} else {
					damageFile(t, path, damage)
					if f.also != "" {
						damageFile(t, filepath.Join(e.dir, f.dir, f.also), damage)
					}
				}
				e.damaged, _ = os.ReadFile(path)
				td = e.start(t)
				first := td.call(t, Request{Verb: "list", Session: "a"})
				wantCode(t, first, "")
				st := td.call(t, Request{Verb: "status", Session: "a"})
				wantCode(t, st, "")
				faults := strings.Join(st.Status.Faults, "\n")
				if f.name != "budgets.json" {
					// No budget was ever set: none is claimed lost.
					wantNothingClaimed(t, first, faults, "budgets.json")
				}
				if damage == dmgOwnerMode {
					// Read back as it was, set back to 0600 (a record of a
					// verb in flight is read and removed: its cut is told).
					wantNothingClaimed(t, first, faults, f.loss)
					if fi, err := os.Stat(path); err == nil && fi.Mode().Perm() != 0o600 {
						t.Fatalf("%s is mode %04o, not set back to 0600", path, fi.Mode().Perm())
					}
				}
				f.check(t, e, td, damage, first, faults)
			})
		}
	}
}

// TestFaultReadOnlyStateDirLocks: on a read-only state directory the lock
// is taken on a read-only descriptor, and still keeps a second daemon out;
// one with no daemon.lock in it cannot be locked at all, and New refuses
// to start, naming the directory and why.
func TestFaultReadOnlyStateDirLocks(t *testing.T) {
	e := &faultEnv{b: &kindtest.Provider{}, dir: t.TempDir(), sock: filepath.Join(t.TempDir(), "w.sock")}
	remountRO := readOnlyMount(t, e.dir)
	kill(e.start(t))
	remountRO()
	td := e.start(t)
	wantCode(t, td.call(t, Request{Verb: "list", Session: "a"}), "")
	_, err := New(t.Context(), Config{StateDir: e.dir, SocketPath: filepath.Join(t.TempDir(), "x.sock"), Displays: []kind.DisplayProvider{e.b}, Stages: stages.All()})
	if !errors.Is(err, ErrRunning) {
		t.Fatalf("a second daemon on the read-only directory: %v", err)
	}

	bare := filepath.Join(t.TempDir(), "state")
	readOnlyMount(t, bare)()
	_, err = New(t.Context(), Config{StateDir: bare, SocketPath: filepath.Join(t.TempDir(), "y.sock"), Displays: []kind.DisplayProvider{e.b}, Stages: stages.All()})
	if err == nil || !has(err.Error(), bare) || !has(err.Error(), "read-only file system") || !has(err.Error(), "daemon.lock") {
		t.Fatalf("New on a read-only directory with no lock file: %v", err)
	}
}

// TestFaultReadOnlyStateDirBare: a read-only state directory that holds
// only daemon.lock (no keys, trace or inflight directories, no state):
// the daemon starts and serves, and status says what it cannot keep.
func TestFaultReadOnlyStateDirBare(t *testing.T) {
	e := &faultEnv{b: &kindtest.Provider{}, dir: t.TempDir(), sock: filepath.Join(t.TempDir(), "w.sock")}
	remountRO := readOnlyMount(t, e.dir)
	if err := os.WriteFile(filepath.Join(e.dir, lockName), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	remountRO()
	td := e.start(t)
	wantCode(t, td.call(t, Request{Verb: "list", Session: "a"}), "")
	win := string(td.open(t, "a"))
	wantCode(t, td.call(t, Request{Verb: "key", Session: "a", Target: win}.With(args.Key{Chord: "a", NoVerify: true})), "")
	st := td.call(t, Request{Verb: "status", Session: "a"})
	wantSaid(t, Response{}, strings.Join(st.Status.Faults, "\n"), "state.json not written since", "audit not written since", "the keys directory", "could not be made", "read-only file system")
}
