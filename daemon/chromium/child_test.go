package chromium

import (
	"testing"

	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/target"
)

// TestBrowserChildAndProfileWords: new-child mints a handle with its own
// context (its own cookies, its own tabs); the set's words (profiles,
// attachments, pin, status) answer it; detaching everything reaps the
// child and closes its tabs.
func TestBrowserChildAndProfileWords(t *testing.T) {
	s := newSite(t)
	h := startHarness(t, "", Options{}, nil)
	req := func(verb string) daemon.Request { return daemon.Request{Verb: verb, Session: "jo"} }

	child := h.ok(t, req("browser.new-child")).Profile
	if child == nil || child.Handle == "" || !child.Ephemeral {
		t.Fatalf("new-child answered %+v", child)
	}
	// The set is now own + child: a bare command must name one.
	open := req("browser.open").With(args.OpenURL{URL: s.URL + "/page"})
	wantCode(t, h.call(t, open), target.CodeProfileRequired)
	open.Profile = "own"
	ownTab := h.ok(t, open).Target.ID
	ev := req("browser.eval").With(args.Eval{Expr: "document.cookie = 'who=parent; path=/', document.cookie"})
	ev.Profile = "own"
	h.ok(t, ev)

	open.Profile = child.Handle
	r := h.ok(t, open)
	if r.Profile == nil || r.Profile.Handle != child.Handle || !r.Profile.Ephemeral {
		t.Fatalf("open in the child answered %+v", r.Profile)
	}
	childTab := r.Target.ID
	ev.Profile = child.Handle
	ev = ev.With(args.Eval{Expr: "document.cookie"})
	if got := string(h.ok(t, ev).Value); got != `""` {
		t.Fatalf("the child sees the parent's cookies: %s", got)
	}
	// Each context lists only its own tabs.
	tl := req("browser.tab").With(args.Tab{Action: "list"})
	tl.Profile = child.Handle
	if r := h.ok(t, tl); len(r.Targets) != 1 || r.Targets[0].ID != childTab {
		t.Fatalf("the child's tab list: %+v", r.Targets)
	}
	// A tab of the other context is not reached through this one.
	sel := req("browser.tab").With(args.Tab{Action: "select"})
	sel.Profile, sel.Target = child.Handle, string(ownTab)
	wantCode(t, h.call(t, sel), target.CodeNotYourTab)

	if r := h.ok(t, req("browser.attachments")); len(r.Attachments) != 2 {
		t.Fatalf("attachments: %+v", r.Attachments)
	}
	pin := req("browser.pin")
	pin.Profile = child.Handle
	if r := h.ok(t, pin); !pinnedDefault(r.Attachments, child.Handle) {
		t.Fatalf("pin answered %+v", r.Attachments)
	}
	// Pinned as the default, but with two attachments a bare command still
	// names one.
	ev.Profile = ""
	wantCode(t, h.call(t, ev), target.CodeProfileRequired)
	pin.Profile = ""
	pin = pin.With(args.Pin{None: true})
	h.ok(t, pin)

	nw := req("browser.new").With(args.New{Label: "Listed"})
	id := h.ok(t, nw).Profile.ID
	var listed bool
	for _, p := range h.ok(t, req("browser.profiles")).Profiles {
		listed = listed || p.ID == id && p.Label == "Listed"
	}
	if !listed {
		t.Fatal("profiles does not list the new profile")
	}
	if st := h.ok(t, req("browser.status")); len(st.Targets) != 2 || len(st.Attachments) != 2 {
		t.Fatalf("status: %d tabs, %d attachments", len(st.Targets), len(st.Attachments))
	}

	det := req("browser.detach")
	det.Profile = "--all"
	if r := h.ok(t, det); len(r.Attachments) != 0 {
		t.Fatalf("detach --all left %+v", r.Attachments)
	}
	// The child's tab closed with it; the own context's tab is the
	// session's still, and bare commands act there again.
	if l := h.ok(t, req("list")); len(l.Targets) != 1 || l.Targets[0].ID != ownTab {
		t.Fatalf("list after detach --all: %+v", l.Targets)
	}
	h.pool.mu.Lock()
	_, kept := h.pool.contexts["jo/"+child.Handle]
	h.pool.mu.Unlock()
	if kept {
		t.Fatal("the child's browser context was not disposed")
	}
	ev = ev.With(args.Eval{Expr: "document.cookie"})
	if got := string(h.ok(t, ev).Value); got != `"who=parent"` {
		t.Fatalf("the own context after detach reads %s", got)
	}
}

func pinnedDefault(atts []daemon.ProfileInfo, handle string) bool {
	for _, a := range atts {
		if a.Handle == handle {
			return a.Default && a.Pinned
		}
	}
	return false
}
