package testenv

import (
	"context"
	"fmt"
	"github.com/vibespace/vibespace/xvfb"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// IntegrationEnv is the variable that makes a missing binary a failure
// rather than a skip. make test and CI set it.
const IntegrationEnv = "VIBESPACE_INTEGRATION"

// Missing lists what this machine lacks to run a Desktop and the fixture,
// with a reason each.
func Missing() []string {
	out := xvfb.Missing()
	if _, err := exec.LookPath(FixturePython); err != nil {
		out = append(out, fmt.Sprintf("%s not found", FixturePython))
	}
	if _, err := os.Stat(FixturePython); err == nil {
		cmd := exec.Command(FixturePython, "-c", "import gi; gi.require_version('Gtk', '3.0'); from gi.repository import Gtk")
		cmd.Env = []string{"PATH=/usr/bin:/bin"}
		if out2, err := cmd.CombinedOutput(); err != nil {
			out = append(out, fmt.Sprintf("%s cannot import Gtk 3 (python3-gi, gir1.2-gtk-3.0): %s", FixturePython, strings.TrimSpace(string(out2))))
		}
	}
	return out
}

var missingOnce = sync.OnceValue(Missing)

// NeedIntegration skips t, loudly and with the reason, when this machine
// cannot run a Desktop — or fails it when VIBESPACE_INTEGRATION=1, because
// there nothing may skip. Extra names programs the test also needs.
func NeedIntegration(t testing.TB, extra ...string) {
	t.Helper()
	miss := missingOnce()
	for _, b := range extra {
		if _, err := exec.LookPath(b); err != nil {
			miss = append(miss, fmt.Sprintf("%s not found", b))
		}
	}
	if len(miss) == 0 {
		return
	}
	msg := "integration test needs a desktop: " + strings.Join(miss, "; ") + " (run `make deps`)"
	if os.Getenv(IntegrationEnv) == "1" {
		t.Fatalf("%s — %s=1, so this is a failure, not a skip", msg, IntegrationEnv)
	}
	t.Skipf("SKIP: %s", msg)
}

// NewDesktop starts a desktop for t alone and closes it when t ends.
func NewDesktop(t testing.TB) *Desktop {
	t.Helper()
	NeedIntegration(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	d, err := Start(ctx, Options{Logf: t.Logf})
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	track(d)
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Errorf("testenv: close: %v", err)
		}
	})
	return d
}

var shared struct {
	mu  sync.Mutex
	d   *Desktop
	err error
	all []*Desktop // every desktop this binary started, for the leak check
}

func track(d *Desktop) {
	shared.mu.Lock()
	shared.all = append(shared.all, d)
	shared.mu.Unlock()
}

// SharedDesktop returns the test binary's one shared desktop, starting it on
// first use. Main closes it. Tests that share it must not disturb each
// other's windows.
func SharedDesktop(t testing.TB) *Desktop {
	t.Helper()
	NeedIntegration(t)
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.d == nil && shared.err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		shared.d, shared.err = Start(ctx, Options{})
		cancel()
		if shared.d != nil {
			shared.all = append(shared.all, shared.d)
		}
	}
	if shared.err != nil {
		t.Fatalf("testenv: shared desktop: %v", shared.err)
	}
	return shared.d
}

// Main is a TestMain: it runs the tests, closes the shared desktop, and
// fails the binary if any desktop left a process or its temp dir behind.
func Main(m *testing.M) {
	code := m.Run()
	shared.mu.Lock()
	d, all := shared.d, shared.all
	shared.mu.Unlock()
	if d != nil {
		if err := d.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "testenv: closing the shared desktop: %v\n", err)
			code = 1
		}
	}
	if leaks := Leaks(all); len(leaks) > 0 {
		fmt.Fprintf(os.Stderr, "testenv: left behind:\n  %s\n", strings.Join(leaks, "\n  "))
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

// Leaks lists what the given desktops left behind: live processes carrying
// their marker, and temp dirs that still exist.
func Leaks(ds []*Desktop) []string {
	var out []string
	for _, d := range ds {
		for _, p := range xvfb.MarkedPIDs(d.ID) {
			out = append(out, fmt.Sprintf("process %d (%s) of desktop %s", p, xvfb.ProcName(p), d.ID))
		}
		if _, err := os.Stat(d.Dir); err == nil {
			out = append(out, fmt.Sprintf("directory %s of desktop %s", d.Dir, d.ID))
		}
	}
	sort.Strings(out)
	return out
}
