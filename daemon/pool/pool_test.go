package pool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/native"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// realPool is a pool of n Xvfb desktops, each display started as the
// daemon's registry starts one (the desktop's provider), stopped when the
// test ends.
func realPool(t testing.TB, n int, cfg Config) (*Pool, []kind.Display) {
	t.Helper()
	testenv.NeedIntegration(t)
	cfg.Desks, cfg.Kind, cfg.Inner = n, native.ProviderName, native.Xvfb(native.Options{Logf: t.Logf})
	cfg.MemFree = func() (int64, error) { return int64(n) * (1 << 40), nil } // the cap is not this test's
	p := New(cfg)
	var disps []kind.Display
	for _, pr := range p.Desks() {
		ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
		disp, err := pr.Start(ctx)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = disp.Close() })
		disps = append(disps, disp)
	}
	return p, disps
}

// leftBehind launches, on disp, what an agent leaves on a desktop: a file
// in HOME, one in its downloads, an application's config, and a process
// running apart from the window (a child the window's program started).
// It answers that process's PID and the files' paths, as the test itself
// reads them (the script writes the PID outside the desktop).
func leftBehind(t testing.TB, disp kind.Display) (pid int, files []string) {
	t.Helper()
	bin, err := testenv.XClientBinary()
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	pidFile := filepath.Join(out, "sleep.pid")
	script := fmt.Sprintf(`echo secret > "$HOME/left.txt"; echo data > "$HOME/Downloads/got.bin"; mkdir -p "$XDG_CONFIG_HOME/app" "$HOME/../profile/Default"; echo rc > "$XDG_CONFIG_HOME/app/rc"; echo c > "$HOME/../profile/Default/Cookies"; sleep 100000 & echo $! > %s; exec %s --log %s`,
		pidFile, bin, filepath.Join(out, "xclient.jsonl"))
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	if _, err := disp.Launch(ctx, []string{"/bin/sh", "-c", script}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	var st struct{ Dir string }
	if err := json.Unmarshal(disp.Record(), &st); err != nil {
		t.Fatal(err)
	}
	files = []string{
		filepath.Join(st.Dir, "home", "left.txt"),
		filepath.Join(st.Dir, "home", "Downloads", "got.bin"),
		filepath.Join(st.Dir, "config", "app", "rc"),
		filepath.Join(st.Dir, "profile", "Default", "Cookies"),
	}
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("the agent's file was not written: %v", err)
		}
	}
	if !procRunning(pid) {
		t.Fatalf("the agent's process %d does not run before the wipe", pid)
	}
	return pid, files
}

// procRunning is the test's own reading of /proc: pid is there and not a
// zombie.
func procRunning(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] != 'Z' && s[i+2] != 'X'
}

// wipedAway checks, on disk and in /proc, that what leftBehind left is gone.
func wipedAway(t testing.TB, pid int, files []string) {
	t.Helper()
	if procRunning(pid) {
		t.Errorf("the agent's process %d still runs after the return", pid)
	}
	for _, f := range files {
		if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is still there after the return (%v)", f, err)
		}
	}
}

// usable launches the xclient fixture on disp and waits for its own log to
// say ready: the desktop works after its wipe.
func usable(t *testing.T, disp kind.Display) {
	t.Helper()
	bin, err := testenv.XClientBinary()
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(t.TempDir(), "again.jsonl")
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	if _, err := disp.Launch(ctx, []string{bin, "--log", log}); err != nil {
		t.Fatalf("the wiped desktop opens nothing: %v", err)
	}
	if _, err := testenv.OpenFixtureLog(log).WaitFrom(ctx, 0, func(e testenv.Event) bool { return e.Type == "ready" }); err != nil {
		t.Fatalf("the fixture on the wiped desktop never logged ready: %v", err)
	}
}

type got struct {
	session string
	lent    Lent
	err     error
}

func borrowAsync(p *Pool, session string, person bool, wait time.Duration, out chan<- got) {
	go func() {
		l, err := p.Borrow(context.Background(), session, person, "", wait)
		out <- got{session, l, err}
	}()
}

// waitQueued waits (bounded by the test's context, never a timed
// assertion) until n borrows are queued.
func waitQueued(t *testing.T, p *Pool, n int) {
	t.Helper()
	for p.Queued() != n {
		select {
		case <-t.Context().Done():
			t.Fatalf("never %d queued (%d)", n, p.Queued())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// TestPoolOfTwoXvfb: two real Xvfb desktops, three sessions borrowing at
// once: two get one each, the third waits, and a fourth queues behind it.
// The first desktop returned goes to the third (FIFO), wiped: the files
// and the process its borrower left are gone (the disk and /proc say), and
// it opens an application again. A person's request then overtakes the
// fourth, still waiting; a borrow that waits past its wait is pool_busy
// with its place.
func TestPoolOfTwoXvfb(t *testing.T) {
	p, disps := realPool(t, 2, Config{})
	dispOf := map[string]kind.Display{"desk1": disps[0], "desk2": disps[1]}
	ch := make(chan got, 8)
	for _, s := range []string{"s1", "s2", "s3"} {
		borrowAsync(p, s, false, time.Minute, ch)
	}
	holders := map[string]string{} // desk → session
	for range 2 {
		g := <-ch
		if g.err != nil {
			t.Fatalf("%s: %v", g.session, g.err)
		}
		holders[g.lent.Desk] = g.session
	}
	if len(holders) != 2 {
		t.Fatalf("two sessions got %v", holders)
	}
	waitQueued(t, p, 1)
	third := ""
	for _, s := range []string{"s1", "s2", "s3"} {
		if p.Held(s) == "" {
			third = s
		}
	}
	borrowAsync(p, "s4", false, time.Minute, ch)
	waitQueued(t, p, 2)

	// The one who holds desk1 leaves a file and a process there, and
	// returns it: the third gets desk1, wiped.
	pid, files := leftBehind(t, dispOf["desk1"])
	w, err := p.Return(t.Context(), holders["desk1"], ReturnAsked)
	if err != nil {
		t.Fatal(err)
	}
	g := <-ch
	if g.err != nil || g.session != third || g.lent.Desk != "desk1" {
		t.Fatalf("the first returned desktop went to %s (%s, %v); the third in line was %s", g.session, g.lent.Desk, g.err, third)
	}
	wipedAway(t, pid, files)
	if len(w.Ended) < 2 || w.Removed < len(files) {
		t.Errorf("the wipe says %s; it ended the window's program and its child and removed %d files", w, len(files))
	}
	usable(t, dispOf["desk1"])
	if p.Held("s4") != "" || p.Queued() != 1 {
		t.Fatalf("s4 holds %q, %d queued", p.Held("s4"), p.Queued())
	}

	// Past its wait, a fifth is pool_busy, second in line behind s4.
	_, err = p.Borrow(t.Context(), "s5", false, "", 10*time.Millisecond)
	if r, ok := target.AsRefusal(err); !ok || r.Code != target.CodePoolBusy || r.Facts["position"] != 2 || r.Facts["queued"] != 2 {
		t.Fatalf("a borrow past its wait: %v (%+v)", err, r)
	}

	// A person asks (after s4): the next desktop returned is theirs.
	borrowAsync(p, Person, true, time.Minute, ch)
	waitQueued(t, p, 2)
	if _, err := p.Return(t.Context(), holders["desk2"], ReturnAsked); err != nil {
		t.Fatal(err)
	}
	g = <-ch
	if g.err != nil || g.session != Person || g.lent.Desk != "desk2" {
		t.Fatalf("desk2 went to %s (%v); the person asked for one", g.session, g.err)
	}
	if p.Held("s4") != "" {
		t.Fatal("s4 overtook the person")
	}
	if _, err := p.Return(t.Context(), Person, ReturnAsked); err != nil {
		t.Fatal(err)
	}
	g = <-ch
	if g.err != nil || g.session != "s4" || g.lent.Desk != "desk2" {
		t.Fatalf("after the person, desk2 went to %s (%v), not s4", g.session, g.err)
	}
}

// TestBorrowedAgain borrows, uses and returns one real Xvfb desktop
// twice — each use an X client that writes a file in HOME and leaves a
// child running —, each round's wipe proven as in TestPoolOfTwoXvfb: a
// desktop once wiped is lent and wiped again. Its latencies are
// BenchmarkBorrowReturn's.
func TestBorrowedAgain(t *testing.T) {
	p, disps := realPool(t, 1, Config{})
	for i := range 2 {
		borrowUseReturn(t, p, disps[0], i)
	}
}

// BenchmarkBorrowReturn borrows, uses and returns one real Xvfb desktop
// b.N times as TestBorrowedAgain does, each wipe proven, and reports the
// median borrow and return (with its wipe and verification) and the
// slowest return; the README's figures are of -benchtime 20x.
func BenchmarkBorrowReturn(b *testing.B) {
	p, disps := realPool(b, 1, Config{})
	var borrows, returns []time.Duration
	for i := 0; b.Loop(); i++ {
		borrow, ret := borrowUseReturn(b, p, disps[0], i)
		borrows, returns = append(borrows, borrow), append(returns, ret)
	}
	median := func(ds []time.Duration) time.Duration {
		s := slices.Clone(ds)
		slices.Sort(s)
		if len(s)%2 == 1 {
			return s[len(s)/2]
		}
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	b.ReportMetric(float64(median(borrows).Microseconds()), "borrow-µs")
	b.ReportMetric(float64(median(returns).Milliseconds()), "return-ms")
	b.ReportMetric(float64(slices.Max(returns).Milliseconds()), "return-max-ms")
}

// borrowUseReturn is one round on disp, the pool's one desktop: a borrow,
// what an agent leaves there (leftBehind), the return, and the proof of
// its wipe. It answers how long the borrow and the return took.
func borrowUseReturn(t testing.TB, p *Pool, disp kind.Display, round int) (borrow, ret time.Duration) {
	t.Helper()
	t0 := time.Now()
	if _, err := p.Borrow(t.Context(), "m", false, "", 0); err != nil {
		t.Fatal(err)
	}
	borrow = time.Since(t0)
	pid, files := leftBehind(t, disp)
	t1 := time.Now()
	w, err := p.Return(t.Context(), "m", ReturnAsked)
	if err != nil {
		t.Fatalf("round %d: %v", round, err)
	}
	ret = time.Since(t1)
	wipedAway(t, pid, files)
	if round == 0 {
		t.Logf("round 0's return: %s", w)
	}
	return borrow, ret
}
