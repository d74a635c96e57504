package native

// Accessibility switched on where toolkits wait to be asked. Our session bus
// sets org.a11y.Status IsEnabled and ScreenReaderEnabled when the desktop
// starts (xvfb); Qt reads the first, Chromium and Electron watch the
// second. A Chromium or Electron app opened here also gets
// --force-renderer-accessibility, so its page is in the tree from the
// start, and open waits (bounded) until the page's document is there.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/vibespace/vibespace/atspi"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/target"
)

// forceA11y is Chromium's switch that turns its renderers' accessibility on
// whatever it detects.
const forceA11y = "--force-renderer-accessibility"

// chromiumNames are the base names of argv[0] that are a Chromium-family
// browser or Electron; google-chrome* (google-chrome-stable, -beta, …) too.
var chromiumNames = []string{"chromium", "chromium-browser", "chrome", "electron"}

// chromiumKind says why argv0 is a Chromium or an Electron app, or "" when
// it is not one: by its base name, or an executable whose directory (or
// its link's target's) holds resources/app.asar, as packaged Electron apps
// do. An ELF is not read: a Chromium renamed, or an Electron app without an
// app.asar, is not recognised (pass --force-renderer-accessibility
// yourself; the bus's ScreenReaderEnabled asks it too).
func chromiumKind(argv0 string) string {
	base := filepath.Base(argv0)
	if slices.Contains(chromiumNames, base) || strings.HasPrefix(base, "google-chrome") {
		return base
	}
	path, err := exec.LookPath(argv0)
	if err != nil {
		return ""
	}
	paths := []string{path}
	if real, err := filepath.EvalSymlinks(path); err == nil && real != path {
		paths = append(paths, real)
	}
	for _, p := range paths {
		if st, err := os.Stat(filepath.Join(filepath.Dir(p), "resources", "app.asar")); err == nil && !st.IsDir() {
			return "an Electron app: resources/app.asar beside " + filepath.Base(p)
		}
	}
	return ""
}

// launchPlan is what Launch runs for what was asked, and what it changed.
type launchPlan struct {
	argv    []string
	browser string // why argv[0] is a Chromium or an Electron app; "" when it is not
	note    string // what was changed of argv, for open's answer
}

// planLaunch adds --force-renderer-accessibility to a Chromium or Electron
// app's command line (right after the program, before any "--") unless it
// is there already.
func planLaunch(argv []string) launchPlan {
	p := launchPlan{argv: argv}
	if len(argv) == 0 {
		return p
	}
	if p.browser = chromiumKind(argv[0]); p.browser == "" {
		return p
	}
	for _, a := range argv[1:] {
		if a == "--" {
			break
		}
		if a == forceA11y || strings.HasPrefix(a, forceA11y+"=") {
			return p
		}
	}
	p.argv = slices.Concat(argv[:1], []string{forceA11y}, argv[1:])
	p.note = fmt.Sprintf("accessibility switched on: %s (%s)", forceA11y, p.browser)
	return p
}

// documentWait bounds how long Launch waits for a browser's page to be in
// its window's tree once its frame is: Chromium puts its page's document
// there a little after its frame, and a snapshot taken between would show
// the browser's own controls and no page.
const documentWait = 10 * time.Second

// settle ends w's launch as p planned it: the note for open's answer and,
// for a browser, the bounded wait for its page's document in the tree.
func (p launchPlan) settle(ctx context.Context, w *window) {
	w.note = p.note
	if p.browser == "" || w.d.bus == nil {
		return
	}
	if !w.waitDocument(ctx) {
		w.note = strings.TrimPrefix(w.note+"; its page's document is not in the accessibility tree yet (waited "+documentWait.String()+"): a snapshot may show the browser without its page", "; ")
	}
}

// LaunchNote is what Launch changed of the command line asked, or said of
// the launch ("" for nothing).
func (w *window) LaunchNote() string { return w.note }

// waitDocument waits (bounded) until the window's tree holds the page's
// document node (role "document web", …): named or with content, and not
// busy loading.
func (w *window) waitDocument(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, documentWait)
	defer cancel()
	for {
		if w.hasDocument(ctx) {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (w *window) hasDocument(ctx context.Context) bool {
	root, err := w.frame(ctx)
	if err != nil {
		return false
	}
	snap, err := w.walkFrame(ctx, root, atspi.WalkOptions{NoText: true, Timeout: 2 * time.Second})
	if err != nil || snap.Root == nil {
		return false
	}
	// The first document is a placeholder (no name, no children) until
	// the page is committed: the page's own has its title or its content.
	doc := snap.Root.Find(func(n *target.Node) bool {
		return strings.HasPrefix(n.Role, "document") && !n.Has("busy") && (n.Name != "" || len(n.Children) > 0)
	})
	return doc != nil
}

// walkFrame walks the tree under the window's frame root. A frame that
// went away (Chromium replaces its frame on the bus once its accessibility
// turns on) is forgotten, found again and walked once more.
func (w *window) walkFrame(ctx context.Context, root atspi.Object, o atspi.WalkOptions) (*target.Snapshot, error) {
	snap, err := w.d.bus.Walk(ctx, root, o)
	if err != nil || snap.Root == nil || snap.Root.Unreadable != atspi.ObjectGone || ctx.Err() != nil {
		return snap, err // read, or unreadable for another reason (it did not answer): said as it is
	}
	w.forgetFrame(root)
	again, ferr := w.frame(ctx)
	if ferr != nil {
		return snap, nil
	}
	return w.d.bus.Walk(ctx, again, o)
}

// forgetFrame drops the frame found for the window when it is still old.
func (w *window) forgetFrame(old atspi.Object) {
	d := w.d
	d.mu.Lock()
	if d.frames[w.id] == old {
		delete(d.frames, w.id)
	}
	d.mu.Unlock()
}

// UsableTree reports whether the window's tree has a usable node — its
// frame found on the accessibility bus with at least one child — and says
// what was found or why not (what auto resolves by).
func (w *window) UsableTree(ctx context.Context) (bool, string) {
	d := w.d
	if d.bus == nil {
		return false, fmt.Sprintf("the accessibility bus did not answer: %v", d.busErr)
	}
	root, err := w.frame(ctx)
	if err != nil {
		switch target.CodeOf(err) {
		case target.CodeAppNotFound:
			return false, fmt.Sprintf("the application (pid %d) is not on the accessibility bus", w.pid)
		case target.CodeNoFrame:
			return false, noFrameWhy(err)
		}
		if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || target.CodeOf(err) == target.CodeTimeout {
			return false, "the application did not answer on the accessibility bus in time"
		}
		return false, "its frame could not be read: " + err.Error()
	}
	snap, err := w.walkFrame(ctx, root, atspi.WalkOptions{Depth: 1, NoText: true, NoCache: true})
	switch {
	case err != nil:
		return false, "its frame could not be read: " + err.Error()
	case snap.Root.Unreadable != "":
		return false, "its frame on the accessibility bus is unreadable (" + snap.Root.Unreadable + ")"
	case len(snap.Root.Children) == 0:
		return false, "its frame on the accessibility bus has no children"
	case len(snap.Root.Children) == 1:
		return true, "its frame is on the accessibility bus with 1 child"
	}
	return true, fmt.Sprintf("its frame is on the accessibility bus with %d children", len(snap.Root.Children))
}

// notOnBus is the probe's words for an application that is not on the
// accessibility bus, saying whether the bus asked it to be.
func (d *display) notOnBus(pid int) string {
	why := fmt.Sprintf("the application (pid %d) is not on the accessibility bus: it exposes no tree", pid)
	switch sw := d.host.a11ySwitch(); {
	case strings.HasPrefix(sw, "on"):
		return why + ", though the bus asks every toolkit for one (org.a11y.Status IsEnabled and ScreenReaderEnabled are true)"
	case sw != "":
		return why + " (the bus's accessibility switch is " + sw + ")"
	}
	return why
}

// switchCheck is doctor's row of the accessibility switch, read from our
// session bus now.
func (d *display) switchCheck(ctx context.Context) kind.Check {
	const name = "a11y switch"
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	off, err := d.host.a11ySwitchesOff(ctx)
	if err != nil {
		return kind.Check{Name: name, Detail: "our session bus did not answer: " + err.Error()}
	}
	if len(off) > 0 {
		detail := "org.a11y.Status on our session bus: " + strings.Join(off, ", ") + "; Qt, Chromium and Electron apps may keep their tree off the bus"
		if d.host.a11ySwitch() != "" {
			detail += " (at start: " + d.host.a11ySwitch() + ")"
		}
		return kind.Check{Name: name, Detail: detail}
	}
	return kind.Check{Name: name, OK: true, Detail: "org.a11y.Status IsEnabled and ScreenReaderEnabled are true on our session bus: Qt, Chromium and Electron put their tree on the accessibility bus; open adds " + forceA11y + " to a Chromium or Electron app's command line"}
}
