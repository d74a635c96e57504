package app

import (
	"context"
	"github.com/vibespace/vibespace/cmd/vibespace-daemon/stages"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/kind/kindtest"
	"github.com/vibespace/vibespace/daemon/wire"
)

// TestListSaysAPersonMayDrive: list's row and a verb's target line of a
// window whose display someone is attached to (a fake per-session display
// in a daemon of this process) say a person may be driving it, and how to
// make it a takeover; rows of nobody's watched display do not. (Before,
// neither said it.)
func TestListSaysAPersonMayDrive(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"VIBESPACE_HOME": dir, "VIBESPACE_SESSION": "a"}
	_, sock, err := wire.Paths(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	xp := &kindtest.Provider{NameIs: "xp", PerSessionIs: true}
	d, err := daemon.New(t.Context(), daemon.Config{StateDir: dir, SocketPath: sock, Displays: []kind.DisplayProvider{xp}, Stages: stages.All()})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Listen(); err != nil {
		t.Fatal(err)
	}
	served := make(chan struct{})
	go func() { defer close(served); d.Serve(context.WithoutCancel(t.Context())) }()
	t.Cleanup(func() { d.Close(); <-served })

	if code, out, errs := run(t, env, "open", "fake-app"); code != 0 || !strings.Contains(out, "win:1") {
		t.Fatalf("open: %d\n%s%s", code, out, errs)
	}
	if code, out, _ := run(t, env, "list"); code != 0 || strings.Contains(out, "a person") {
		t.Fatalf("list with nobody attached: %d\n%s", code, out)
	}
	since := time.Now().Truncate(time.Minute)
	xp.Displays()[0].SetWatchers(kind.Watchers{Count: 1, Since: since, How: "an xpra client"})
	want := " · a person may be driving (an xpra client attached since " + since.Format("15:04") + "; to pause agents: vibespace-window takeover win:1)"
	code, out, errs := run(t, env, "list")
	if code != 0 || !strings.Contains(out, `win:1 "Fake fake-app"  app=fake-app`) || !strings.HasSuffix(strings.TrimSpace(out), want) {
		t.Fatalf("list: %d\n%s%s\nwant a row ending %q", code, out, errs, want)
	}
	code, out, errs = run(t, env, "key", "win:1", "Return")
	if code != 0 || !strings.Contains(out, `win:1 "Fake fake-app" · lease: `) || !strings.Contains(out, want+"\n") {
		t.Fatalf("key: %d\n%s%s", code, out, errs)
	}
}
