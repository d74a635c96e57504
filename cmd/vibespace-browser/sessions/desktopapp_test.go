package sessions_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cmd/internal/clitest"
	"github.com/vibespace/vibespace/cmd/vibespace-browser/internal/browsertest"
	chromiumkind "github.com/vibespace/vibespace/daemon/chromium"
	"github.com/vibespace/vibespace/testenv"
	"github.com/vibespace/vibespace/x11"
)

// appPage is the desktop app's page: its button sets the document's title,
// which Chromium puts in its X window's title, where the test reads it
// (not through our tree).
const appPage = `<!doctype html>
<html><head><title>shop page</title></head><body>
<button onclick="document.title = 'bought'">Buy now</button>
</body></html>`

var (
	windowOnce sync.Once
	windowBin  string
	windowErr  error
)

// windowCLI is vibespace-window, built beside the command under test (and
// its daemon) once per run, as an Env on e's daemon.
func windowCLI(t *testing.T, e *env) *clitest.Env {
	t.Helper()
	windowOnce.Do(func() {
		windowBin, windowErr = clitest.BuildInto(filepath.Dir(browsertest.Bin), "vibespace-window", "github.com/vibespace/vibespace/cmd/vibespace-window")
	})
	if windowErr != nil {
		t.Fatal(windowErr)
	}
	w := *e.Env.Env // the clitest.Env: another command on the same daemon
	w.Bin = windowBin
	return &w
}

// sessionDisplay is the record of session s's display of name (a
// per-session display: xpra's) in the daemon's state file.
func sessionDisplay(t *testing.T, e *env, name, s string) testenv.State {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.Home, "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Backends map[string]json.RawMessage `json:"backends"`
	}
	var displays []struct {
		Display string        `json:"display"`
		Session string        `json:"session"`
		Record  testenv.State `json:"record"`
	}
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(st.Backends["session_displays"], &displays)
	for _, d := range displays {
		if d.Display == name && d.Session == s && d.Record.Display != "" {
			return d.Record
		}
	}
	t.Fatalf("no record of %s's display %s in state: %s", s, name, b)
	return testenv.State{}
}

// appWindow waits (bounded) until one of pid's X windows has a title with
// want, read over the test's own X connection, and answers it.
func appWindow(t *testing.T, display string, pid int, want string) x11.Window {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	w, err := testenv.WindowTitled(ctx, display, pid, want)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// processesOf lists the processes whose command line names dir (every
// process of a Chromium run on that profile: its browser, zygotes,
// renderers).
func processesOf(dir string) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, ent := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", ent.Name(), "cmdline"))
		pid, perr := strconv.Atoi(ent.Name())
		if err == nil && perr == nil && strings.Contains(string(b), "--user-data-dir="+dir) && !clitest.Exited(pid) {
			out = append(out, ent.Name())
		}
	}
	return out
}

// waitNoProcesses waits (bounded) until no process runs on dir.
func waitNoProcesses(t *testing.T, dir string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		left := processesOf(dir)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes of the desktop app's profile still run: %v", left)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// untilRef waits (30 s at most) until the interactive snapshot of window
// win holds a node of role named name with a ref, and answers the ref.
// no_tree is waited through; any other refusal fails at once.
func untilRef(t *testing.T, w *clitest.Env, s, win, role, name string) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := w.CLI(s, "snapshot", win, "-i")
		switch {
		case r.Code == 0:
			for _, m := range refLine.FindAllStringSubmatch(r.Out, -1) {
				if m[1] == role && m[2] == name {
					return m[3]
				}
			}
		case !strings.Contains(r.Errout, "[no_tree]"):
			t.Fatalf("snapshot %s -i: exit %d: %s", win, r.Code, r.Errout)
		}
		if time.Now().After(deadline) {
			return textRef(t, r.Out, role, name) // fails, saying what the tree held
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestDesktopApp: an agent starts a desktop app through vibespace-browser
// and drives it through vibespace-window: a real headed Chromium with its
// own profile on the session's xpra display, its window exactly the size
// asked (read from the X server: a seamless display puts no frame on it);
// its page's button is in the window's tree with a ref, and clicking it
// changes the page (the X title the page sets); vibespace-browser's page
// verbs on the profile are refused no_cdp_on_this_backend, naming the
// window. close stops every process of it; new starts it again as it was
// asked, and the window's own close stops it too.
func TestDesktopApp(t *testing.T) {
	var desk testenv.State // the desktop app's display, once it is up
	t.Cleanup(func() {
		// Registered before newEnv's, so it runs after the daemon
		// stopped: nothing of its display may be left.
		if desk.ID == "" {
			return
		}
		if leaks := testenv.Leaks([]*testenv.Desktop{{ID: desk.ID, Dir: desk.Dir}}); len(leaks) > 0 {
			t.Errorf("left behind:\n  %s", strings.Join(leaks, "\n  "))
		}
	})
	e := newEnv(t)
	e.Serve()
	w := windowCLI(t, e)
	page := filepath.Join(e.Dir, "page.html")
	if err := os.WriteFile(page, []byte(appPage), 0o644); err != nil {
		t.Fatal(err)
	}

	resp := e.OKJSON("s1", "new", "shop", "--backend", "desktop-app", "--url", "file://"+page, "--size", "800x600")
	if resp.Target == nil || resp.Target.ID.Kind() != "window" || resp.Target.PID == 0 || resp.Target.Holder != "s1" || resp.Profile == nil || resp.Profile.Window != resp.Target.ID {
		t.Fatalf("new: %+v", resp)
	}
	win, pid := string(resp.Target.ID), resp.Target.PID
	dir := filepath.Join(e.Home, "profiles", resp.Profile.ID)
	if !strings.Contains(resp.Did, "its window is 800x600 pixels") {
		t.Errorf("new does not say the window's size: %s", resp.Did)
	}
	desk = sessionDisplay(t, e, chromiumkind.DefaultAppDisplay, "s1")
	xw := appWindow(t, desk.Display, pid, "shop page")
	if xw.Geometry.Width != 800 || xw.Geometry.Height != 600 {
		t.Fatalf("the X window is %dx%d, want 800x600", xw.Geometry.Width, xw.Geometry.Height)
	}
	if len(processesOf(dir)) == 0 {
		t.Fatalf("no process runs on the profile's directory %s", dir)
	}

	// Driven as a window: the button, by ref, from the snapshot. Chromium
	// reaches the accessibility bus, and puts its page in its tree, a
	// while after its window has its title on a loaded machine: the
	// snapshot is waited for until it holds the page (no_tree until the
	// browser is on the bus).
	buy := untilRef(t, w, "s1", win, "push button", "Buy now")
	if out := w.OK("s1", "click", win, buy); !strings.Contains(out, "[by tree]") {
		t.Fatalf("click: %s", out)
	}
	appWindow(t, desk.Display, pid, "bought")

	// The page verbs are refused, naming the window and its verbs.
	for _, args := range [][]string{{"snapshot"}, {"eval", "1"}, {"--profile", "shop", "open", "http://127.0.0.1:1/"}} {
		r := e.Refused("no_cdp_on_this_backend", "s1", args...)
		if !strings.Contains(r.Errout, "profile shop runs as a desktop app ("+win+")") || !strings.Contains(r.Errout, "vibespace-window snapshot "+win+" -i") {
			t.Errorf("%v refused with:\n%s", args, r.Errout)
		}
	}
	if out := e.OK("s1", "profiles"); !strings.Contains(out, "shop ("+resp.Profile.ID+") · default · desktop-app · running as "+win) {
		t.Errorf("profiles:\n%s", out)
	}

	// close stops it: the browser process and every other on its profile.
	if out := e.OK("s1", "close", "shop"); !strings.Contains(out, "stopped chromium (pid ") {
		t.Fatalf("close: %s", out)
	}
	if !e.WaitGone(pid, 20*time.Second) {
		t.Fatalf("Chromium (pid %d) still runs after close", pid)
	}
	waitNoProcesses(t, dir)
	e.Refused("no_cdp_on_this_backend", "s1", "snapshot")

	// new starts it again as asked; the window's close stops it.
	again := e.OKJSON("s1", "new", "shop", "--backend", "desktop-app")
	if again.Target == nil || string(again.Target.ID) == win || again.Target.PID == pid {
		t.Fatalf("new again: %+v", again)
	}
	xw = appWindow(t, desk.Display, again.Target.PID, "shop page")
	if xw.Geometry.Width != 800 || xw.Geometry.Height != 600 {
		t.Fatalf("started again, the X window is %dx%d, want 800x600", xw.Geometry.Width, xw.Geometry.Height)
	}
	if out := w.OK("s1", "close", string(again.Target.ID)); !strings.Contains(out, "stopped") {
		t.Fatalf("the window's close: %s", out)
	}
	if !e.WaitGone(again.Target.PID, 20*time.Second) {
		t.Fatalf("Chromium (pid %d) still runs after the window's close", again.Target.PID)
	}
	waitNoProcesses(t, dir)
}
