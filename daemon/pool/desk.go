package pool

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/xvfb"
)

// desk is one desktop of the pool. Its fields are guarded by the pool's
// lock.
type desk struct {
	p    *Pool
	name string
	kind string

	holder string    // the borrowing session, "" free
	person bool      // the holder is a person (the live view)
	paused bool      // a person took it over from its borrower (the live view)
	since  time.Time // lent since
	used   time.Time // its borrower's last verb
	wiping bool      // being wiped: lent to nobody yet
	broken string    // the last wipe's failure, "" none

	// Its display, once one was started or re-attached: its facts (its
	// marker, its directory, its server) and the processes that are the
	// display itself (its server, buses and accessibility registry), which
	// a wipe never ends.
	running  bool
	st       xvfb.State
	baseline map[int]bool
}

// The directories of a desktop's display (under its own directory) that
// hold what its applications write: HOME (and its downloads), the XDG
// config, cache and data, its temporary files, and the browser profile
// directory a borrower's browser is started with. A wipe empties each.
const (
	homeDir     = "home"
	downloadDir = "home/Downloads"
	profileDir  = "profile"
)

var wiped = []string{"home", "config", "cache", "data", "tmp", profileDir}

func (d *desk) lent(waited time.Duration) Lent {
	d.p.mu.Lock()
	defer d.p.mu.Unlock()
	l := Lent{Desk: d.name, Kind: d.kind, Waited: waited}
	if d.running {
		l.Home = filepath.Join(d.st.Dir, homeDir)
		l.Download = filepath.Join(d.st.Dir, downloadDir)
		l.Profile = filepath.Join(d.st.Dir, profileDir)
	}
	return l
}

// provider is a desktop as a display provider: its display is the inner
// provider's, started (or re-attached) by the daemon's display registry
// on the first open there, and seen by the pool as it starts.
type provider struct{ d *desk }

func (pr provider) Name() string { return pr.d.name }

func (pr provider) Start(ctx context.Context) (kind.Display, error) {
	disp, err := pr.d.p.cfg.Inner.Start(ctx)
	if err != nil {
		return nil, err
	}
	if err := pr.d.adopt(disp, nil); err != nil {
		_ = disp.Close()
		return nil, err
	}
	return disp, nil
}

// Reattach re-attaches an earlier daemon's display of the desktop. Its
// borrow ended with that daemon, so it is wiped now, before anyone
// borrows it: what the display itself is, with no record of it kept, is
// its server and the processes named as a display's infrastructure.
func (pr provider) Reattach(ctx context.Context, rec json.RawMessage) (kind.Display, error) {
	disp, err := pr.d.p.cfg.Inner.Reattach(ctx, rec)
	if err != nil {
		return nil, err
	}
	if err := pr.d.adopt(disp, infrastructure); err != nil {
		_ = disp.Close()
		return nil, err
	}
	if w, err := pr.d.wipe(ctx); err != nil {
		pr.d.p.logf("%s re-attached; its wipe failed: %v", pr.d.name, err)
	} else {
		pr.d.p.logf("%s re-attached and wiped: %s", pr.d.name, w)
	}
	return disp, nil
}

func (pr provider) Doctor(ctx context.Context) []kind.Check {
	return pr.d.p.cfg.Inner.Doctor(ctx)
}

// infrastructure are the programs a display runs as itself (our Xvfb, or
// xpra's, its session and accessibility buses and registry): a display
// re-attached with no record of its processes keeps those of them that
// carry its marker.
var infrastructure = []string{"Xvfb", "xpra", "Xorg", "dbus-daemon", "at-spi-bus-laun", "at-spi2-registr"}

// adopt reads disp's facts and takes the processes that run on it now as
// the display itself (keep nil), or those of them whose program is in
// keep; and makes its HOME's downloads and its profile directory.
func (d *desk) adopt(disp kind.Display, keep []string) error {
	var st xvfb.State
	if err := json.Unmarshal(disp.Record(), &st); err != nil || st.ID == "" || st.Dir == "" {
		return fmt.Errorf("%s: its display's record names no desktop (%v)", d.name, err)
	}
	base := map[int]bool{}
	for _, pid := range xvfb.MarkedPIDs(st.ID) {
		if keep == nil || slices.Contains(keep, xvfb.ProcName(pid)) {
			base[pid] = true
		}
	}
	if st.ServerPID > 0 {
		base[st.ServerPID] = true
	}
	for _, sub := range []string{downloadDir, profileDir} {
		if err := os.MkdirAll(filepath.Join(st.Dir, sub), 0o700); err != nil {
			return err
		}
	}
	d.p.mu.Lock()
	d.running, d.st, d.baseline = true, st, base
	d.p.mu.Unlock()
	d.p.logf("%s runs on display %s (%d processes of its own)", d.name, st.Display, len(base))
	return nil
}

// Wiped is what a wipe did.
type Wiped struct {
	Ended   []int // the processes ended, by PID
	Reaped  int   // of them, gone from /proc
	Zombies int   // of them, ended but not reaped by their parent (not ours)
	Removed int   // files and directories removed
	Took    time.Duration
}

func (w Wiped) String() string {
	s := fmt.Sprintf("wiped in %v: %d process(es) ended", w.Took.Round(time.Millisecond), len(w.Ended))
	if w.Zombies > 0 {
		s += fmt.Sprintf(" (%d not yet reaped by a parent not ours)", w.Zombies)
	}
	return s + fmt.Sprintf(", %d file(s) removed; verified", w.Removed)
}

// wipe ends every process started on the desktop (those carrying its
// display's marker that are not the display itself) — SIGTERM, then
// SIGKILL after a grace — waits until /proc shows each ended, empties the
// directories its applications write, and verifies both: no such process
// runs, and each directory holds nothing but the empty downloads
// directory. A desktop whose display never ran has nothing to wipe.
func (d *desk) wipe(ctx context.Context) (Wiped, error) {
	t0 := time.Now()
	d.p.mu.Lock()
	running, st, base := d.running, d.st, d.baseline
	d.p.mu.Unlock()
	var w Wiped
	if !running {
		return w, nil
	}
	// Twice: a process an ending one started meanwhile is ended too.
	for range 2 {
		pids := started(st.ID, base)
		if len(pids) == 0 {
			break
		}
		left := terminate(ctx, pids)
		w.Ended = append(w.Ended, pids...)
		if len(left) > 0 {
			return w, fmt.Errorf("processes still run after SIGKILL: %s", names(left))
		}
	}
	for _, pid := range w.Ended {
		if exists(pid) {
			w.Zombies++
		} else {
			w.Reaped++
		}
	}
	for _, sub := range wiped {
		dir := filepath.Join(st.Dir, sub)
		w.Removed += count(dir)
		if err := os.RemoveAll(dir); err != nil {
			return w, err
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return w, err
		}
	}
	if err := os.MkdirAll(filepath.Join(st.Dir, downloadDir), 0o700); err != nil {
		return w, err
	}
	// Verify, by what /proc and the disk say now.
	if pids := started(st.ID, base); len(pids) > 0 {
		return w, fmt.Errorf("processes run on the desktop after its wipe: %s", names(pids))
	}
	for _, sub := range wiped {
		left := count(filepath.Join(st.Dir, sub))
		if sub == homeDir {
			left-- // its empty downloads directory
		}
		if left != 0 {
			return w, fmt.Errorf("%s still holds %d entries after the wipe", sub, left)
		}
	}
	w.Took = time.Since(t0)
	return w, nil
}

// started is the live processes carrying marker id that are not in base.
func started(id string, base map[int]bool) []int {
	var out []int
	for _, pid := range xvfb.MarkedPIDs(id) {
		if !base[pid] {
			out = append(out, pid)
		}
	}
	return out
}

// count is how many files and directories are under dir (not itself).
func count(dir string) int {
	n := 0
	_ = filepath.WalkDir(dir, func(path string, _ os.DirEntry, err error) error {
		if err == nil && path != dir {
			n++
		}
		return nil
	})
	return n
}

func names(pids []int) string {
	var s []string
	for _, p := range pids {
		s = append(s, fmt.Sprintf("%d (%s)", p, xvfb.ProcName(p)))
	}
	return strings.Join(s, ", ")
}
