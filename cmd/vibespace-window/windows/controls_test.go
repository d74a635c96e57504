package windows_test

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// The interactive view of the fixture with its controls column shows the
// entry and the slider by their labels' names, the slider and the progress
// bar with their values, the notebook's page tabs and the list box; a click on a page
// tab (it has no Action) switches the page through the notebook's
// Selection: the fixture logs it and the new page's content shows.
func TestControlsInteractiveAndPageTab(t *testing.T) {
	e := newEnv(t)
	logPath := filepath.Join(e.Dir, "controls.jsonl")
	resp := e.Answer("s1", "open", testenv.FixturePython, e.FixtureSrc, "--log", logPath, "--controls")
	if !resp.OK {
		t.Fatalf("open fixture: %+v", resp)
	}
	id, pid := string(resp.Target.ID), resp.Target.PID
	e.ReadDesk()
	log := testenv.OpenFixtureLog(logPath)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if _, err := log.WaitFrom(ctx, 0, func(ev testenv.Event) bool { return ev.Type == "ready" }); err != nil {
		t.Fatal(err)
	}

	out := e.OK("s1", "snapshot", "-i", id)
	for _, re := range []string{
		`(?m)^  text "Email" @e\d+ `,
		`(?m)^  slider "Volume" @e\d+ .*=42 \(0–100\)$`,
		`(?m)^  progress bar "Progress" @e\d+ .*=0\.3 \(0–1\)$`,
		`(?m)^  page tab "First" @e\d+ .*selected`,
		`(?m)^  page tab "Second" @e\d+ `,
		`(?m)^  list box "Rows" @e\d+ `, // the node select takes
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("snapshot -i lacks %s:\n%s", re, out)
		}
	}
	snap := e.Snapshot("s1", id)
	tab := snap.Root.Find(func(n *target.Node) bool { return n.Role == "page tab" && n.Name == "Second" })
	if tab == nil {
		t.Fatalf("no page tab Second:\n%s", snap.Text())
	}
	from := log.Len()
	if out := e.OK("s1", "click", id, tab.Ref); !strings.Contains(out, `(page tab "Second") through its parent's Selection → `) {
		t.Errorf("the click answer does not say its road: %q", out)
	}
	wait(t, log, from, "the Second page", func(ev testenv.Event) bool {
		return ev.Type == "page" && ev.Widget == "pages" && ev.Text == "Second"
	})
	// select, through the command line, on a combo box: the application
	// logs the pick, and the answer names the node and what it holds.
	combo := snap.Root.Find(func(n *target.Node) bool { return n.Role == "combo box" && n.Name == "Red" })
	if combo == nil {
		t.Fatalf("no combo box Red:\n%s", snap.Text())
	}
	from = log.Len()
	if out := e.OK("s1", "select", id, combo.Ref, "Blue"); !strings.Contains(out, `selected "Blue" in combo box "Red" `+combo.Ref) {
		t.Errorf("select's answer: %q", out)
	}
	wait(t, log, from, "the combo box's Blue", func(ev testenv.Event) bool {
		return ev.Type == "select" && ev.Widget == "colour" && ev.Text == "Blue"
	})
	if r := e.Answer("s1", "select", id, combo.Ref, "Purple"); r.OK || r.Code != target.CodeNoOption {
		t.Errorf("select of an option the combo box lacks: %+v", r)
	}
	after := e.Snapshot("s1", id)
	content := after.Root.Find(func(n *target.Node) bool { return n.Name == "Content of Second" })
	if content == nil || !content.Has("showing") {
		t.Errorf("the second page's content is not on screen after the click:\n%s", after.Text())
	}
	if !strings.Contains(e.OK("s1", "snapshot", "-i", id), `page tab "Second"`) || syscall.Kill(pid, 0) != nil {
		t.Error("the fixture is not alive after the click")
	}
}
