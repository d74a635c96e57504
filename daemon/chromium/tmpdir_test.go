package chromium

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/daemon/kind"
)

// chromiumTemp is what a running browser of ours keeps outside its
// profile: the directory of its singleton socket (Chromium makes it in
// its TMPDIR, org.chromium.Chromium.*, and names it in the profile's
// SingletonSocket link) and the TMPDIR its environment names ("" when it
// was given none).
type chromiumTemp struct {
	singleton string
	tmpdir    string
}

// chromiumTempOf reads them from the browser pid with user-data-dir dir.
func chromiumTempOf(t *testing.T, pid int, dir string) chromiumTemp {
	t.Helper()
	var link string
	waitFor(t, "the browser's SingletonSocket link", func() bool {
		var err error
		link, err = os.Readlink(filepath.Join(dir, "SingletonSocket"))
		return err == nil
	})
	ct := chromiumTemp{singleton: filepath.Dir(link)}
	if !strings.HasPrefix(filepath.Base(ct.singleton), "org.chromium.Chromium.") {
		t.Fatalf("the SingletonSocket link points at %s", link)
	}
	// Leave no litter in /tmp even when the test fails.
	t.Cleanup(func() { os.RemoveAll(ct.singleton) })
	env, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "environ"))
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range bytes.Split(env, []byte{0}) {
		if v, ok := strings.CutPrefix(string(kv), "TMPDIR="); ok {
			ct.tmpdir = v
		}
	}
	if strings.HasPrefix(filepath.Base(ct.tmpdir), cdp.TempDirPrefix) {
		t.Cleanup(func() { os.RemoveAll(ct.tmpdir) })
	}
	return ct
}

// tmpChromiumDirs lists /tmp's org.chromium.Chromium.* entries.
func tmpChromiumDirs(t *testing.T) map[string]bool {
	t.Helper()
	m, err := filepath.Glob("/tmp/org.chromium.Chromium.*")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, p := range m {
		out[p] = true
	}
	return out
}

// checkGone fails t for each thing of ct still there: the singleton's
// directory (wherever it is, and as a new entry of /tmp since before) and
// the browser's own TMPDIR.
func checkGone(t *testing.T, what string, ct chromiumTemp, before map[string]bool) {
	t.Helper()
	if ct.tmpdir == "" || !strings.HasPrefix(filepath.Base(ct.tmpdir), cdp.TempDirPrefix) {
		t.Errorf("%s: Chromium's TMPDIR was %q, not a directory of ours (%s*)", what, ct.tmpdir, cdp.TempDirPrefix)
	} else if _, err := os.Stat(ct.tmpdir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s: its TMPDIR %s is still there (%v)", what, ct.tmpdir, err)
	}
	if _, err := os.Stat(ct.singleton); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s: its singleton directory %s is still there (%v)", what, ct.singleton, err)
	}
	for p := range tmpChromiumDirs(t) {
		if !before[p] && p == ct.singleton {
			t.Errorf("%s: /tmp gained %s, made by our browser", what, p)
		}
	}
}

// TestBrowserKilledLeavesNoChromiumTemp: a browser of ours killed with -9
// (its main process, by pid) cannot remove its own temporary files, among
// them its singleton socket's org.chromium.Chromium.* directory; they
// live in the TMPDIR we gave it, which goes with the browser when the
// pool reaps it. Nothing of it is left in /tmp: the shared browser's, nor
// a profile's.
func TestBrowserKilledLeavesNoChromiumTemp(t *testing.T) {
	needChromium(t)
	p := New(Options{IdleStop: -1, StartTimeout: 60 * time.Second})
	t.Cleanup(func() { p.Close() })
	before := tmpChromiumDirs(t)
	keys := []kind.BrowserKey{
		{Session: "kim", Owner: "kim"},
		{Session: "kim", Profile: "bp-kept", Label: "kept", Dir: t.TempDir()},
	}
	temps := map[string]chromiumTemp{}
	var killed []*browser
	for _, key := range keys {
		_, release, err := p.Context(t.Context(), key)
		if err != nil {
			t.Fatal(err)
		}
		release()
		p.mu.Lock()
		br := p.browsers[key.Profile]
		p.mu.Unlock()
		temps[key.String()] = chromiumTempOf(t, br.b.PID(), br.dir)
		killed = append(killed, br)
	}
	for _, br := range killed {
		if err := syscall.Kill(br.b.PID(), syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		select {
		case <-br.b.Exited():
		case <-time.After(20 * time.Second):
			t.Fatalf("browser %d still runs after SIGKILL", br.b.PID())
		}
	}
	// The pool reaps a crashed browser in its watch; Close waits for that.
	p.Close()
	for _, br := range killed {
		if left := cdp.GroupProcesses(br.b.PID()); len(left) > 0 {
			t.Fatalf("browser %d: processes %v left", br.b.PID(), left)
		}
	}
	for _, key := range keys {
		checkGone(t, key.String(), temps[key.String()], before)
	}
}

// earlierDaemonEnv makes TestHelperEarlierDaemon a daemon's browser pool
// in a process of its own.
const earlierDaemonEnv = "VIBESPACE_TEST_EARLIER_DAEMON"

// TestHelperEarlierDaemon is not a test: run by
// TestBrowserReapRemovesChromiumTemp as the earlier daemon, it starts the
// shared browser, prints its pool's record and waits to be killed.
func TestHelperEarlierDaemon(t *testing.T) {
	if os.Getenv(earlierDaemonEnv) != "1" {
		t.Skip("the earlier daemon of TestBrowserReapRemovesChromiumTemp; not a test by itself")
	}
	p := New(Options{IdleStop: -1, StartTimeout: 60 * time.Second})
	if _, _, err := p.Context(context.Background(), kind.BrowserKey{Session: "lee", Owner: "lee"}); err != nil {
		fmt.Printf("error %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("record %s\n", p.Record())
	<-make(chan struct{}) // until killed
}

// TestBrowserReapRemovesChromiumTemp: a daemon dies (SIGKILL) and its
// browser with it (SIGKILL, by its pid); neither removed anything. The
// next daemon's Reap removes, from the record, the browser's TMPDIR and so
// the singleton directory Chromium made there: nothing is left in /tmp.
func TestBrowserReapRemovesChromiumTemp(t *testing.T) {
	needChromium(t)
	before := tmpChromiumDirs(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHelperEarlierDaemon$")
	cmd.Env = append(os.Environ(), earlierDaemonEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	helper := cmd.Process.Pid
	t.Cleanup(func() {
		syscall.Kill(helper, syscall.SIGKILL)
		cmd.Wait()
	})
	var rec json.RawMessage
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if r, ok := strings.CutPrefix(sc.Text(), "record "); ok {
			rec = json.RawMessage(r)
			break
		}
		t.Logf("earlier daemon: %s", sc.Text())
	}
	var rs []record
	if err := json.Unmarshal(rec, &rs); err != nil || len(rs) != 1 {
		t.Fatalf("the earlier daemon's record %q (%v); its stderr: %s", rec, err, stderr.String())
	}
	r := rs[0]
	ct := chromiumTempOf(t, r.PID, r.Dir)

	// The daemon is frozen first, so that it cannot clean up after its
	// browser; then the browser is killed, then the daemon.
	if err := syscall.Kill(helper, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(r.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(helper, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if _, err := os.Stat(ct.singleton); err != nil {
		t.Fatalf("the killed browser's singleton directory is gone before any reap (%v): the test cannot tell", err)
	}

	p := New(Options{})
	p.Reap(ctx, rec)
	p.Close()
	if left := cdp.GroupProcesses(r.PID); len(left) > 0 {
		t.Fatalf("the earlier daemon's browser left processes %v", left)
	}
	checkGone(t, "the earlier daemon's browser", ct, before)
}
