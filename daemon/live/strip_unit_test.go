package live

import (
	"github.com/vibespace/vibespace/daemon/args"
	"path/filepath"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/daemontest"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/kind/kindtest"
)

// TestLiveTargetsNameContexts: the live view's strip learns what each
// target lives in and whose strip shows it — a window, the session's own
// context, a named profile, a helper's child named from its task or else
// "Helper <n>" — and a session it lists.
func TestLiveTargetsNameContexts(t *testing.T) {
	dir := t.TempDir()
	br := kindtest.NewBrowser()
	s := daemontest.Start(t, daemon.Config{StateDir: dir, SocketPath: filepath.Join(dir, "run", "w.sock"),
		Displays: []kind.DisplayProvider{&kindtest.Provider{}}, Browser: br, VerbTimeout: 5 * time.Second})
	core := daemon.LiveHandsOf(s.D)
	win := s.Call(t, daemon.Request{Verb: "open", Session: "alice"}.With(args.Open{App: "fake-app"})).Target.ID
	own := s.Call(t, daemon.Request{Verb: "browser.open", Session: "alice"}.With(args.OpenURL{URL: "about:blank"})).Target.ID
	shop := s.Call(t, daemon.Request{Verb: "browser.new", Session: "alice"}.With(args.New{Label: "shop"})).Profile.ID
	s.Call(t, daemon.Request{Verb: "browser.use", Session: "alice"}.With(args.Use{Label: shop}))
	shopTab := s.Call(t, daemon.Request{Verb: "browser.open", Session: "alice", Profile: shop}.With(args.OpenURL{URL: "about:blank"})).Target.ID
	c1 := s.Call(t, daemon.Request{Verb: "browser.new-child", Session: "alice", Profile: "own"}.With(args.Child{Task: "check the prices"})).Profile.Handle
	c2 := s.Call(t, daemon.Request{Verb: "browser.new-child", Session: "alice", Profile: "own"}).Profile.Handle
	h1 := s.Call(t, daemon.Request{Verb: "browser.open", Session: "alice", Profile: c1}.With(args.OpenURL{URL: "about:blank"})).Target.ID
	h2 := s.Call(t, daemon.Request{Verb: "browser.open", Session: "alice", Profile: c2}.With(args.OpenURL{URL: "about:blank"})).Target.ID
	bob := s.Call(t, daemon.Request{Verb: "open", Session: "bob"}.With(args.Open{App: "fake-app"})).Target.ID

	want := map[string][3]string{ // session, context, name
		string(win): {"alice", "window", "fake-app"}, string(own): {"alice", "own", ""},
		string(shopTab): {"alice", "profile", "shop"}, string(h1): {"alice", "helper", "check the prices"},
		string(h2): {"alice", "helper", "Helper 2"}, string(bob): {"bob", "window", "fake-app"},
	}
	lts := rows(t.Context(), core)
	if len(lts) != len(want) {
		t.Fatalf("%d live targets, want %d: %+v", len(lts), len(want), lts)
	}
	for _, lt := range lts {
		w := want[string(lt.ID)]
		if got := [3]string{lt.Session, lt.Context, lt.Name}; got != w {
			t.Errorf("%s: session, context, name = %q, want %q", lt.ID, got, w)
		}
	}
	var names []string
	for _, s := range sessions(core, lts) {
		names = append(names, s.Name)
	}
	if len(names) != 2 || names[0] != "alice" || names[1] != "bob" {
		t.Errorf("sessions %v", names)
	}
}
