package pool

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/x11"
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

	// A remote member (Config.Remotes): its host's road, its name there
	// while lent, why its host is skipped ("" reached), and the session
	// that held it last (its return there is that session's).
	remote Remote
	there  string
	down   string
	last   string

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
	l := Lent{Desk: d.name, Kind: d.kind, Waited: waited, There: d.there}
	if d.remote != nil {
		l.Host = d.remote.Host()
	}
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
// borrows it: what the display itself is, is what the earlier daemon's
// record kept (the stage's Keeper), else, with no record, its server and
// the processes named as a display's infrastructure.
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

// Doctor says the desktop's state and the pool's cap; what this machine
// offers its kind of display is that kind's own provider's doctor (it is
// registered too), not repeated per desktop.
func (pr provider) Doctor(context.Context) []kind.Check {
	d := pr.d
	d.p.mu.Lock()
	state := "free"
	switch {
	case d.broken != "":
		state = "lent to nobody: its last wipe failed: " + d.broken
	case d.wiping:
		state = "being wiped"
	case d.holder != "":
		state = "lent to " + d.holder
	}
	d.p.mu.Unlock()
	capped, why := d.p.Cap()
	return []kind.Check{{Name: "pool desktop " + d.name, OK: d.broken == "",
		Detail: fmt.Sprintf("%s (%s); the pool lends %d at once: %s", state, d.kind, capped, why)}}
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
	d.p.mu.Lock()
	rec, known := d.p.kept[d.name]
	d.p.mu.Unlock()
	for _, pid := range xvfb.MarkedPIDs(st.ID) {
		switch {
		case keep == nil:
			base[pid] = true
		case known && rec.ID == st.ID:
			// Re-attached with the earlier daemon's record: the display's
			// own processes are the ones it kept.
			base[pid] = slices.Contains(rec.PIDs, pid)
		default:
			base[pid] = slices.Contains(keep, xvfb.ProcName(pid))
		}
	}
	for pid, own := range base {
		if !own {
			delete(base, pid)
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
	Zombies int   // of them, ended but still zombies when looked at (their parent had not reaped them yet)
	Removed int   // files and directories removed
	Took    time.Duration
	// A remote member's: its host, its name there and what that host's
	// daemon said of its wipe.
	Host, There, Said string
}

func (w Wiped) String() string {
	if w.Host != "" {
		return fmt.Sprintf("returned on %s (%s there) in %v: %s", w.Host, w.There, w.Took.Round(time.Millisecond), w.Said)
	}
	s := fmt.Sprintf("wiped in %v: %d process(es) ended", w.Took.Round(time.Millisecond), len(w.Ended))
	if w.Zombies > 0 {
		s += fmt.Sprintf(" (%d of them zombies their parent had not reaped yet)", w.Zombies)
	}
	return s + fmt.Sprintf(", %d file(s) removed; verified", w.Removed)
}

// wipe ends every process started on the desktop (started: those carrying
// its display's marker, or showing a window on it, and what descends from
// them, that are not the display itself) — SIGTERM, then
// SIGKILL after a grace — waits until /proc shows each ended, empties the
// directories its applications write, and verifies both: no such process
// runs, and each directory holds nothing but the empty downloads
// directory. A desktop whose display never ran has nothing to wipe.
func (d *desk) wipe(ctx context.Context) (Wiped, error) {
	if d.remote != nil {
		return d.returnThere(ctx)
	}
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
		pids := started(ctx, st, base)
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
	if pids := started(ctx, st, base); len(pids) > 0 {
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

// started is the live processes started on the desktop st, apart from
// base (the display itself) and this process: those carrying its marker;
// the clients of its X server that show a window there (a program that
// overwrote its environment with its process title, as Chromium does, no
// longer shows the marker); and every process descending from either.
func started(ctx context.Context, st xvfb.State, base map[int]bool) []int {
	self := os.Getpid()
	roots := map[int]bool{}
	for _, pid := range xvfb.MarkedPIDs(st.ID) {
		roots[pid] = true
	}
	for _, pid := range xClients(ctx, st) {
		roots[pid] = true
	}
	var out []int
	parent := procParents()
	for pid := range parent {
		if base[pid] || pid == self || !running(pid) {
			continue
		}
		for p := pid; p > 1; p = parent[p] {
			if roots[p] && !base[p] && p != self {
				out = append(out, pid)
				break
			}
			if base[p] || p == self {
				// A descendant of the display itself, or of ours, that
				// carries no marker is not the desktop's.
				break
			}
		}
	}
	slices.Sort(out)
	return out
}

// xClientsTimeout bounds asking the desktop's X server for its clients.
const xClientsTimeout = 5 * time.Second

// xClients are the processes that show a top-level window on the
// desktop's X server (X-Resource says which process each client is); none
// when the server cannot be asked.
func xClients(ctx context.Context, st xvfb.State) []int {
	if st.Display == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, xClientsTimeout)
	defer cancel()
	x, err := x11.OpenWith(ctx, st.Display, x11.Options{Xauthority: filepath.Join(st.Dir, "Xauthority")})
	if err != nil {
		return nil
	}
	defer x.Close()
	tls, err := x.TopLevels(ctx)
	if err != nil {
		return nil
	}
	var out []int
	for _, w := range tls {
		if w.PID > 0 {
			out = append(out, w.PID)
		}
	}
	return out
}

// procParents maps each process /proc lists to its parent.
func procParents() map[int]int {
	out := map[int]int{}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return out
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(b[i+1:])
		if len(f) > 1 {
			out[pid], _ = strconv.Atoi(string(f[1]))
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

// Processes are the processes of desktop name now: the display's own and
// those started on it (none while its display does not run).
func (p *Pool) Processes(ctx context.Context, name string) []int {
	p.mu.Lock()
	var d *desk
	for _, x := range p.desks {
		if x.name == name {
			d = x
		}
	}
	if d == nil || !d.running {
		p.mu.Unlock()
		return nil
	}
	st, base := d.st, d.baseline
	p.mu.Unlock()
	out := started(ctx, st, base)
	for pid := range base {
		if running(pid) {
			out = append(out, pid)
		}
	}
	return out
}
