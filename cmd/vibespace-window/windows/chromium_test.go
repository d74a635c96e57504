package windows_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// chromiumPage is the test's page: its button and its field set the
// document's title, which Chromium puts in its X window's title, where the
// test reads it (not through our tree).
const chromiumPage = `<!doctype html>
<html><head><title>vibespace page</title></head><body>
<button onclick="document.title = 'clicked'">Press me</button>
<input aria-label="Name" oninput="document.title = 'typed:' + this.value">
<script>document.addEventListener('keydown', e => { if (e.key === 'Home') document.title = 'key:' + e.key })</script>
</body></html>`

// xTitle waits (bounded) until one of pid's mapped X windows has a title
// containing want, read over the test's own X connection.
func xTitle(t *testing.T, display string, pid int, want string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	w, err := testenv.WindowTitled(ctx, display, pid, want)
	if err != nil {
		t.Fatal(err)
	}
	return w.Title
}

// TestChromiumAsAWindow: a headed Chromium opened as a native window gets
// its accessibility switched on, and its page reads as a tree with refs
// from the first snapshot; its button is clicked and its field typed into
// by ref, each checked by the title the page sets on its X window.
// Chromium is alive after, and stopped by close.
func TestChromiumAsAWindow(t *testing.T) {
	testenv.NeedIntegration(t, "chromium")
	e := newEnv(t)
	e.StartServe()
	// Our session bus asks the toolkits that wait to be asked.
	if out := e.OK("s1", "doctor"); !strings.Contains(out, "a11y switch") || !strings.Contains(out, "IsEnabled and ScreenReaderEnabled are true") {
		t.Fatalf("doctor:\n%s", out)
	}
	dir, err := os.MkdirTemp("", "vibespace-chromium-window-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	page := filepath.Join(dir, "page.html")
	if err := os.WriteFile(page, []byte(chromiumPage), 0o644); err != nil {
		t.Fatal(err)
	}
	out := e.OK("s1", "open", "chromium", "--no-sandbox", "--user-data-dir="+filepath.Join(dir, "profile"), "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "file://"+page)
	if !strings.Contains(out, "accessibility switched on: --force-renderer-accessibility") || !strings.Contains(out, "mode: auto → tree") {
		t.Fatalf("open answer:\n%s", out)
	}
	id, _, _ := strings.Cut(out, " ")
	desk := e.ReadDesk()
	list := e.Answer("s1", "list")
	if len(list.Targets) != 1 || list.Targets[0].PID == 0 {
		t.Fatalf("list: %+v", list)
	}
	pid := list.Targets[0].PID

	// The first snapshot after open has the page in it.
	snap := e.Snapshot("s1", id)
	doc := snap.Root.Find(func(n *target.Node) bool { return strings.HasPrefix(n.Role, "document") && n.Name == "vibespace page" })
	if doc == nil {
		t.Fatalf("the first snapshot has no page document:\n%s", e.OK("s1", "snapshot", id))
	}
	button := doc.Find(func(n *target.Node) bool { return n.Role == "push button" && n.Name == "Press me" })
	field := doc.Find(func(n *target.Node) bool { return n.Role == "entry" && n.Name == "Name" })
	if button == nil || field == nil || button.Ref == "" || field.Ref == "" {
		t.Fatalf("the page's button and field, with refs: %+v %+v", button, field)
	}

	out = e.OK("s1", "click", id, button.Ref)
	if !strings.Contains(out, "[by tree]") {
		t.Fatalf("click: %s", out)
	}
	xTitle(t, desk.Display, pid, "clicked")
	out = e.OK("s1", "type", id, field.Ref, "hello")
	xTitle(t, desk.Display, pid, "typed:hello")
	// Keys (XTEST) reach the page; its own picture is grabbed.
	e.OK("s1", "key", id, "Home")
	xTitle(t, desk.Display, pid, "key:Home")
	shotPath := filepath.Join(dir, "shot.png")
	shot := e.Answer("s1", "screenshot", id, "--out", shotPath)
	if !shot.OK || shot.Bounds == nil {
		t.Fatalf("screenshot: %+v", shot)
	}
	checkPicture(t, shotPath, shot.Bounds.W, shot.Bounds.H)
	if !processRuns(pid) {
		t.Fatalf("Chromium (pid %d) died: %s", pid, out)
	}
	out = e.OK("s1", "close", id)
	if !strings.Contains(out, "stopped") {
		t.Fatalf("close: %s", out)
	}
	if !e.WaitGone(pid, 10*time.Second) {
		t.Fatalf("Chromium (pid %d) still runs after close", pid)
	}
}
