package sessions_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/vibespace/vibespace/cmd/internal/clitest"
	"github.com/vibespace/vibespace/daemon"
)

// An agent drives a real page end to end; every answer is checked against
// what the page itself reports to the test's server.
func TestAgentDrivesAPage(t *testing.T) {
	e := sharedEnv(t)
	site := newSite(t)

	out := e.OK("s1", "open", site.URL+"/form")
	if line := profileLine(t, out); line != "profile: own ephemeral" {
		t.Errorf("open's profile line: %q", line)
	}
	if !strings.Contains(out, `tab:`) || !strings.Contains(out, site.URL+"/form") {
		t.Fatalf("open answer:\n%s", out)
	}
	text := e.OK("s1", "snapshot", "-i")
	name := textRef(t, text, "entry", "Name")
	save := textRef(t, text, "push button", "Save")
	agree := textRef(t, text, "check box", "I agree")

	e.OK("s1", "fill", name, "Ada Lovelace")
	e.OK("s1", "click", agree)
	from := site.NReports()
	out = e.OK("s1", "click", save)
	if !strings.Contains(out, "profile: own ephemeral") || !strings.Contains(out, "lease: ") {
		t.Errorf("click answer names no profile or tab:\n%s", out)
	}
	rep := site.WaitReport(t, from, "the save", func(r report) bool { return r.Event == "save" })
	if rep.Name != "Ada Lovelace" || !rep.Agree || rep.Saves != 1 {
		t.Fatalf("the page saw %+v", rep)
	}

	// Reading back: the CLI's answers against the page's own report.
	title := strings.TrimSpace(clitest.LastLine(e.OK("s1", "get", "title")))
	if title != rep.Title || title != "Saved Ada Lovelace" {
		t.Errorf("get title %q, the page says %q", title, rep.Title)
	}
	url := strings.TrimSpace(clitest.LastLine(e.OK("s1", "get", "url")))
	if url != rep.URL {
		t.Errorf("get url %q, the page says %q", url, rep.URL)
	}
	got := e.OK("s1", "get", "text")
	if !strings.Contains(got, "Saved: Ada Lovelace") || !strings.Contains(rep.Text, "Saved: Ada Lovelace") {
		t.Errorf("get text:\n%s\nthe page's text:\n%s", got, rep.Text)
	}
	v := e.OKJSON("s1", "eval", "document.getElementById('name').value")
	var s string
	if json.Unmarshal(v.Value, &s) != nil || s != rep.Name {
		t.Errorf("eval: %s, the page says %q", v.Value, rep.Name)
	}

	// type appends keys to the field; Enter and the wait verb work too.
	e.OK("s1", "type", name, ", Countess")
	from = site.NReports()
	e.OK("s1", "click", save)
	rep = site.WaitReport(t, from, "the second save", func(r report) bool { return r.Event == "save" })
	if rep.Name != "Ada Lovelace, Countess" || rep.Saves != 2 {
		t.Fatalf("after type the page saw %+v", rep)
	}
	e.OK("s1", "wait", "--text", "Saved: Ada Lovelace, Countess")

	shot := filepath.Join(e.Dir, "page.png")
	out = e.OK("s1", "screenshot", "--out", shot)
	if b, err := os.ReadFile(shot); err != nil || len(b) < 100 || string(b[1:4]) != "PNG" {
		t.Fatalf("screenshot: %v\n%s", err, out)
	}

	// Navigation: a second page, back to the first.
	e.OK("s1", "open", site.URL+"/list")
	e.OK("s1", "back")
	if u := strings.TrimSpace(clitest.LastLine(e.OK("s1", "get", "url"))); u != site.URL+"/form" {
		t.Errorf("after back: %q", u)
	}
	// watch: the live view's address for a person, for the current tab.
	tab := string(e.OKJSON("s1", "get", "url").Target.ID)
	clitest.CheckWatch(t, clitest.LastLine(e.OK("s1", "watch")), tab)
	checkAudit(t, e, "Ada Lovelace", "Countess")
}

// checkAudit fails if a text typed or filled reached the audit log.
func checkAudit(t *testing.T, e *env, secrets ...string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.Home, "audit.jsonl"))
	if err != nil {
		t.Fatalf("audit: %v", err)
	}
	for _, s := range secrets {
		if strings.Contains(string(b), s) {
			t.Errorf("the audit log holds the text %q", s)
		}
	}
}

func TestSessionsDoNotShareTabsOrCookies(t *testing.T) {
	e := sharedEnv(t)
	site := newSite(t)

	a := e.OKJSON("s1", "open", site.URL+"/set-cookie?v=s1")
	e.OKJSON("s2", "open", site.URL+"/list")
	mine := string(a.Target.ID)

	e.OK("s1", "open", site.URL+"/whoami?tag=s1")
	e.OK("s2", "open", site.URL+"/whoami?tag=s2")
	if c := site.CookieOf(t, "s1"); !strings.Contains(c, "who=s1") {
		t.Fatalf("s1's own cookie did not come back: %q", c)
	}
	if c := site.CookieOf(t, "s2"); strings.Contains(c, "who=") {
		t.Fatalf("s2 sent s1's cookie: %q", c)
	}

	l1 := e.OKJSON("s1", "tab", "list")
	l2 := e.OKJSON("s2", "tab", "list")
	if !slices.ContainsFunc(l1.Targets, func(ti daemon.TargetInfo) bool { return string(ti.ID) == mine }) {
		t.Fatalf("s1 does not see its tab %s: %+v", mine, l1.Targets)
	}
	if len(l2.Targets) != 1 || string(l2.Targets[0].ID) == mine {
		t.Fatalf("s2 sees %+v", l2.Targets)
	}
	e.Refused("not_your_tab", "s2", "tab", mine)
	e.Refused("not_your_tab", "s2", "tab", "close", mine)
	// s1's tab is still there and still s1's.
	if u := strings.TrimSpace(clitest.LastLine(e.OK("s1", "get", "url"))); !strings.Contains(u, "/whoami?tag=s1") {
		t.Fatalf("s1's tab after s2's tries: %q", u)
	}
}

func TestRefsStableAndStale(t *testing.T) {
	e := sharedEnv(t)
	site := newSite(t)
	e.OK("s1", "open", site.URL+"/list")
	first := e.Snapshot("s1")
	second := e.Snapshot("s1")
	for _, b := range []string{"Remove 1", "Remove 2", "Remove 3"} {
		if r1, r2 := ref(t, first, "push button", b), ref(t, second, "push button", b); r1 != r2 {
			t.Errorf("%s: %s then %s on an unchanged page", b, r1, r2)
		}
	}
	r2 := ref(t, second, "push button", "Remove 2")
	r3 := ref(t, second, "push button", "Remove 3")
	from := site.NReports()
	e.OK("s1", "click", r2)
	rep := site.WaitReport(t, from, "the removal", func(r report) bool { return r.Event == "removed" })
	if rep.Items != 2 || strings.Contains(rep.Text, "Banana") {
		t.Fatalf("the page after the click: %+v", rep)
	}
	e.Refused("stale_ref", "s1", "click", r2)
	// The other refs still name their nodes.
	from = site.NReports()
	e.OK("s1", "click", r3)
	rep = site.WaitReport(t, from, "the second removal", func(r report) bool { return r.Event == "removed" })
	if rep.Items != 1 || !strings.Contains(rep.Text, "Apple") {
		t.Fatalf("the page after removing 3: %+v", rep)
	}
}

func TestProfileHandles(t *testing.T) {
	e := newEnv(t)
	e.Serve()
	site := newSite(t)

	work := e.OKJSON("s1", "new", "work").Profile
	if work == nil || !strings.HasPrefix(work.ID, "bp-") {
		t.Fatalf("new: %+v", work)
	}
	e.OKJSON("s1", "new", "personal")
	if p := e.OKJSON("s1", "profiles"); len(p.Profiles) != 2 {
		t.Fatalf("profiles: %+v", p.Profiles)
	}
	e.OK("s1", "use", "work")
	out := e.OK("s1", "open", site.URL+"/form")
	if line := profileLine(t, out); !strings.Contains(line, "work") || !strings.Contains(line, work.ID) {
		t.Fatalf("one attachment: the bare command ran in %q", line)
	}
	e.OK("s1", "use", "personal", "--alias", "p")
	att := e.OKJSON("s1", "attachments").Attachments
	if len(att) != 2 {
		t.Fatalf("attachments: %+v", att)
	}
	var def string
	for _, a := range att {
		if a.Default {
			def = a.Handle
		}
	}

	// Two attachments: a bare command is refused with every handle.
	r := e.Refused("profile_required", "s1", "snapshot")
	for _, h := range []string{"work", "p"} {
		if !strings.Contains(r.Errout, "--profile "+h) {
			t.Errorf("profile_required does not list %s:\n%s", h, r.Errout)
		}
	}
	if def == "" || !strings.Contains(r.Errout, "--profile "+def+" (default)") {
		t.Errorf("profile_required does not name the default %q:\n%s", def, r.Errout)
	}
	j := e.RefusedJSON("profile_required", "s1", "snapshot")
	if hs, _ := j.Facts["handles"].([]any); len(hs) != 2 {
		t.Errorf("facts: %v", j.Facts)
	}

	// A path is not a handle: the daemon says how to register one.
	dir := filepath.Join(e.Dir, "chrome-profile")
	p := e.RefusedJSON("path_not_handle", "s1", "--profile", dir, "snapshot")
	if !strings.Contains(p.Message, "vibespace-browser new") {
		t.Errorf("path_not_handle: %s", p.Message)
	}
	e.Refused("path_not_handle", "s1", "snapshot", "--profile", "./chrome-profile")

	// --profile and VIBESPACE_BROWSER choose; the flag wins.
	out = e.OK("s1", "--profile", "work", "snapshot", "-i")
	if line := profileLine(t, out); !strings.Contains(line, work.ID) {
		t.Errorf("--profile work acted in %q", line)
	}
	rr := e.CLIEnv("s1", []string{"VIBESPACE_BROWSER=p"}, "open", site.URL+"/list")
	if rr.Code != 0 || !strings.Contains(profileLine(t, rr.Out), "p ") {
		t.Errorf("VIBESPACE_BROWSER=p: exit %d\n%s%s", rr.Code, rr.Out, rr.Errout)
	}
	rr = e.CLIEnv("s1", []string{"VIBESPACE_BROWSER=p"}, "get", "url", "--profile", "work")
	if rr.Code != 0 || !strings.Contains(rr.Out, "/form") {
		t.Errorf("the flag did not win over VIBESPACE_BROWSER: exit %d\n%s%s", rr.Code, rr.Out, rr.Errout)
	}

	// pin, then detach one: the bare command runs in what is left.
	e.OK("s1", "pin", "p")
	for _, a := range e.OKJSON("s1", "attachments").Attachments {
		if (a.Handle == "p") != (a.Default && a.Pinned) {
			t.Errorf("after pin p: %+v", a)
		}
	}
	e.OK("s1", "pin", "--none")
	e.OK("s1", "detach", "--profile", "p")
	if att := e.OKJSON("s1", "attachments").Attachments; len(att) != 1 || att[0].Handle != "work" {
		t.Fatalf("after detach: %+v", att)
	}
	out = e.OK("s1", "get", "url")
	if line := profileLine(t, out); !strings.Contains(line, work.ID) || !strings.Contains(out, "/form") {
		t.Fatalf("after detach the bare command ran in %q:\n%s", line, out)
	}
	e.Refused("unknown_profile", "s1", "--profile", "nosuch", "get", "url")
}

func TestNewChildIsReapedWithItsParent(t *testing.T) {
	e := newEnv(t)
	e.Serve()
	site := newSite(t)

	e.OK("s1", "open", site.URL+"/set-cookie?v=parent")
	out := e.OK("s1", "new-child")
	env := clitest.LastLine(out)
	h, ok := strings.CutPrefix(env, "VIBESPACE_BROWSER=")
	if !ok || h == "" {
		t.Fatalf("new-child printed no env line:\n%s", out)
	}
	child := []string{env}
	r := e.CLIEnv("s1", child, "open", site.URL+"/whoami?tag=child")
	if r.Code != 0 {
		t.Fatalf("the child's open: exit %d\n%s%s", r.Code, r.Out, r.Errout)
	}
	if c := site.CookieOf(t, "child"); strings.Contains(c, "who=parent") {
		t.Errorf("the child's context has the parent's cookie: %q", c)
	}
	childTab := e.Answer("s1", "--profile", h, "tab", "list").Targets
	if len(childTab) != 1 {
		t.Fatalf("child's tabs: %+v", childTab)
	}

	// The parent ends its own attachment: the child goes with it.
	e.OK("s1", "detach", "--profile", "own")
	r = e.CLIEnv("s1", child, "get", "url")
	if r.Code != 1 || strings.Contains(r.Out, "/whoami") {
		t.Fatalf("the child still acts after its parent left: exit %d\n%s%s", r.Code, r.Out, r.Errout)
	}
	// Its tab is gone for everyone: the operator's list does not show it.
	for _, ti := range e.OKJSON("s1", "status").Targets {
		if ti.ID == childTab[0].ID {
			t.Fatalf("the child's tab %s outlived its parent", ti.ID)
		}
	}
}

func TestTakeoverCutsALongType(t *testing.T) {
	e := sharedEnv(t)
	site := newSite(t)
	open := e.OKJSON("s1", "open", site.URL+"/long")
	tab := string(open.Target.ID)
	snap := e.Snapshot("s1", "-i")
	notes := ref(t, snap, "entry", "Notes")
	send := ref(t, snap, "push button", "Send")

	long := strings.Repeat("takeover-secret ", 90) // 1440 characters
	from := site.NReports()
	var wg sync.WaitGroup
	var typed daemon.Response
	var typedCode int
	wg.Go(func() {
		r := e.CLI("s1", "--json", "type", notes, long)
		typedCode = r.Code
		json.Unmarshal([]byte(r.Out), &typed)
	})
	site.WaitReport(t, from, "the first typed key", func(r report) bool { return r.Event == "typing" })
	// A session takes over only what it sees: a tab is its opener's
	// alone (the live view's page takes over any). A person at the agent's
	// own session takes over, and hands back, its tab.
	e.Refused("not_exposed", "operator", "takeover", tab, "--as", "mallory")
	out := e.OK("s1", "takeover", tab, "--as", "alice")
	if !strings.Contains(out, "alice") {
		t.Errorf("takeover answer:\n%s", out)
	}
	wg.Wait()
	if typedCode != 1 || typed.Code != "browser_paused" {
		t.Fatalf("the type in flight: exit %d %+v", typedCode, typed)
	}
	e.Refused("browser_paused", "s1", "snapshot")
	e.Refused("taken_over", "s1", "takeover", "--as", "bob")
	e.Refused("browser_paused", "s1", "handback", "--as", "bob") // only the user who took over
	e.OK("s1", "handback", tab, "--as", "alice")

	from = site.NReports()
	first := e.OK("s1", "click", send)
	if !strings.Contains(first, "note: ") {
		t.Errorf("the first answer after the handback has no note:\n%s", first)
	}
	rep := site.WaitReport(t, from, "the value", func(r report) bool { return r.Event == "send" })
	if len(rep.Value) == 0 || len(rep.Value) >= len(long) || !strings.HasPrefix(long, rep.Value) {
		t.Fatalf("the page holds %d of %d characters: the takeover did not cut the type", len(rep.Value), len(long))
	}
	if again := e.OK("s1", "get", "title"); strings.Contains(again, "note: ") {
		t.Errorf("the note came twice:\n%s", again)
	}
	checkAudit(t, e, "takeover-secret")
}

func TestProfileSurvivesADaemonKill(t *testing.T) {
	e := newEnv(t)
	// No serve: the CLI starts the daemon itself, and again after the kill.
	site := newSite(t)

	e.OK("s1", "new", "keep")
	e.OK("s1", "use", "keep")
	e.OK("s1", "open", site.URL+"/set-cookie?v=kept")
	e.OK("s1", "open", site.URL+"/whoami?tag=before")
	if c := site.CookieOf(t, "before"); !strings.Contains(c, "who=kept") {
		t.Fatalf("the cookie was not set: %q", c)
	}
	st := e.OKJSON("s1", "status")
	if st.Status == nil || st.Status.PID <= 0 {
		t.Fatalf("status --json has no daemon pid: %+v", st)
	}
	pid := st.Status.PID
	if pid != e.DaemonPID() {
		t.Fatalf("status pid %d, lock file pid %d", pid, e.DaemonPID())
	}
	if err := killPID(pid); err != nil {
		t.Fatal(err)
	}
	if !e.WaitGone(pid, 30e9) {
		t.Fatalf("daemon %d did not die", pid)
	}

	// The operator edits the set while no daemon runs: s1's attachment is
	// taken away. s1's next command is told once, and did not run.
	dropAttachments(t, e, "s1")
	r := e.RefusedJSON("profile_changed", "s1", "--profile", "keep", "open", site.URL+"/whoami?tag=after")
	if r.Facts["was"] == nil || r.Facts["now"] == nil {
		t.Errorf("profile_changed facts: %v", r.Facts)
	}
	if newPID := e.DaemonPID(); newPID == 0 || newPID == pid {
		t.Fatalf("the CLI did not start a new daemon (pid %d)", newPID)
	}
	e.Refused("profile_not_attached", "s1", "--profile", "keep", "open", site.URL+"/whoami?tag=after")
	e.OK("s1", "use", "keep")
	e.OK("s1", "open", site.URL+"/whoami?tag=after")
	if c := site.CookieOf(t, "after"); !strings.Contains(c, "who=kept") {
		t.Fatalf("the profile's cookie did not survive the daemon's death: %q", c)
	}
}

func killPID(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }

// dropAttachments empties session's attachment set in profiles.json, as an
// operator's edit while the daemon is down would; what the session was
// last told stays, so the change is news to it.
func dropAttachments(t *testing.T, e *env, session string) {
	t.Helper()
	path := filepath.Join(e.Home, "profiles.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var reg map[string]any
	if err := json.Unmarshal(b, &reg); err != nil {
		t.Fatal(err)
	}
	sessions, _ := reg["sessions"].(map[string]any)
	ss, _ := sessions[session].(map[string]any)
	if ss == nil {
		t.Fatalf("no session %s in %s", session, b)
	}
	ss["attachments"] = []any{}
	b, _ = json.MarshalIndent(reg, "", "  ")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// The operator changes an agent's attachment set with --for: the agent's
// next command is refused once with profile_changed (it did not run), the
// same command then runs in the new profile, and the audit names both the
// operator and the session it acted for.
func TestOperatorChangesAnotherSessionsSet(t *testing.T) {
	e := newEnv(t)
	e.Serve()
	site := newSite(t)

	e.OK("agent", "open", site.URL+"/whoami?tag=own")
	work := e.OKJSON("operator", "new", "work").Profile
	if work == nil {
		t.Fatal("new work: no profile in the answer")
	}
	out := e.OK("operator", "use", "work", "--for", "agent")
	if !strings.Contains(out, "session agent") {
		t.Errorf("use --for does not say whose set it changed:\n%s", out)
	}
	if att := e.OKJSON("operator", "attachments").Attachments; len(att) != 0 {
		t.Fatalf("use --for agent attached the operator itself: %+v", att)
	}
	if att := e.OKJSON("operator", "attachments", "--for", "agent").Attachments; len(att) != 1 || att[0].ID != work.ID {
		t.Fatalf("attachments --for agent: %+v", att)
	}

	r := e.RefusedJSON("profile_changed", "agent", "open", site.URL+"/whoami?tag=moved")
	if r.Facts["was"] == nil || r.Facts["now"] == nil {
		t.Errorf("profile_changed facts: %v", r.Facts)
	}
	if n := site.VisitsTagged("moved"); n != 0 {
		t.Fatalf("the refused command reached the page %d time(s)", n)
	}
	out = e.OK("agent", "open", site.URL+"/whoami?tag=moved")
	if line := profileLine(t, out); !strings.Contains(line, work.ID) {
		t.Fatalf("after profile_changed the command ran in %q, not in %s", line, work.ID)
	}
	site.CookieOf(t, "moved") // the page itself saw the command

	// Detach --for: told once again, then back to the agent's own context.
	e.OK("operator", "detach", "--for", "agent", "--profile", "work")
	e.Refused("profile_changed", "agent", "get", "url")
	if line := profileLine(t, e.OK("agent", "get", "url")); !strings.Contains(line, "own") {
		t.Errorf("after detach --for the agent acted in %q", line)
	}

	b, err := os.ReadFile(filepath.Join(e.Home, "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var found int
	for line := range strings.Lines(string(b)) {
		var ent struct{ Session, For, Verb string }
		if json.Unmarshal([]byte(line), &ent) == nil && ent.Session == "operator" && ent.For == "agent" {
			found++
		}
	}
	if found < 3 { // use, attachments, detach
		t.Errorf("the audit names the operator acting for the agent %d time(s), want 3:\n%s", found, b)
	}
}
