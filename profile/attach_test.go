package profile

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/vibespace/vibespace/target"
)

func handlesOf(atts []Attachment) []string { return handles(atts) }

func defaultHandle(t *testing.T, r *Registry, s string) string {
	t.Helper()
	d, ok := defaultOf(r.Attachments(s))
	if !ok {
		return ""
	}
	return d.Handle
}

func TestUseHandlesAndAliases(t *testing.T) {
	r := open(t, t.TempDir())
	work := mustNew(t, r, "Work Stuff!")
	other := mustNew(t, r, "work-stuff") // slugs to the same handle
	own := mustNew(t, r, "Own")          // slugs to a reserved handle
	mustNew(t, r, "ünïcödé")

	a, err := r.Use("s", work.ID, "")
	if err != nil || a.Handle != "work-stuff" || !a.Default || a.ProfileID != work.ID || a.Label != "Work Stuff!" {
		t.Fatalf("Use = %+v, %v", a, err)
	}
	b, err := r.Use("s", "work-stuff", "")
	if err != nil || b.Handle != other.ID || b.Default {
		t.Fatalf("slug collision: %+v, %v (want the id as handle, not default)", b, err)
	}
	c, err := r.Use("s", "Own", "")
	if err != nil || c.Handle != own.ID {
		t.Fatalf("reserved slug: %+v, %v", c, err)
	}
	d, err := r.Use("s", "ünïcödé", "")
	if err != nil || d.Handle != "n-c-d" {
		t.Fatalf("non-ASCII slug: %+v, %v", d, err)
	}
	// Using an attached profile again returns it unchanged (the alias is ignored).
	again, err := r.Use("s", work.ID, "other")
	if err != nil || !reflect.DeepEqual(again, a) {
		t.Fatalf("re-use = %+v, %v, want %+v", again, err, a)
	}
	if n := len(r.Attachments("s")); n != 4 {
		t.Fatalf("%d attachments, want 4", n)
	}

	r2 := open(t, t.TempDir())
	mustNew(t, r2, "a")
	mustNew(t, r2, "b")
	if _, err := r2.Use("s", "a", "x"); err != nil {
		t.Fatal(err)
	}
	_, err = r2.Use("s", "b", "x")
	rf := wantCode(t, err, target.CodeAliasTaken)
	if !reflect.DeepEqual(rf.Facts["handles"], []string{"x"}) {
		t.Fatalf("alias_taken facts %v", rf.Facts)
	}
	// The same alias in another session is fine: handles are per set.
	if _, err := r2.Use("t", "b", "x"); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"Work", "a b", "bp-1", "bk-1", "own", strings.Repeat("a", MaxAlias+1), "é", "a/b", "..", "--all"} {
		if _, err := r2.Use("s", "b", bad); target.CodeOf(err) != target.CodeBadRequest {
			t.Errorf("alias %q: %v, want bad_request", bad, err)
		}
	}
	if _, err := r2.Use("s", "b", strings.Repeat("a", MaxAlias)); err != nil {
		t.Fatalf("a %d-byte alias: %v", MaxAlias, err)
	}
	if _, err := r2.Use("s", "/srv/u/p", ""); target.CodeOf(err) != target.CodePathNotHandle {
		t.Fatalf("use of a path: %v", err)
	}
	if _, err := r2.Use("s", "zzz", ""); target.CodeOf(err) != target.CodeUnknownProfile {
		t.Fatalf("use of an unknown: %v", err)
	}
	if _, err := r2.Use("", "a", ""); target.CodeOf(err) != target.CodeBadRequest {
		t.Fatalf("use without a session: %v", err)
	}
}

func TestNewChild(t *testing.T) {
	r := open(t, t.TempDir())
	mustNew(t, r, "work")
	key := SessionKey("parent")
	if !strings.HasPrefix(key, "bk-") || len(key) != len("bk-")+8 || key != SessionKey("parent") || key == SessionKey("parent2") {
		t.Fatalf("SessionKey = %q: want bk-<8 hex>, stable, distinct per session", key)
	}
	// On an empty set: own becomes explicit and the default, so the set has 2.
	c1, err := r.NewChild("parent")
	if err != nil || c1.Handle != key+".1" || !c1.Child || c1.Default || c1.ProfileID != "" {
		t.Fatalf("NewChild = %+v, %v", c1, err)
	}
	atts := r.Attachments("parent")
	if !reflect.DeepEqual(handlesOf(atts), []string{"own", key + ".1"}) || !atts[0].Own || !atts[0].Default {
		t.Fatalf("set = %+v", atts)
	}
	_, err = r.Resolve("parent", "")
	rf := wantCode(t, err, target.CodeProfileRequired)
	if rf.Facts["default"] != "own" {
		t.Fatalf("facts %v", rf.Facts)
	}
	if ch, err := r.Resolve("parent", key+".1"); err != nil || !ch.Attachment.Child {
		t.Fatalf("child by handle = %+v, %v", ch, err)
	}
	if ch, err := r.Resolve("parent", "own"); err != nil || !ch.OwnContext() || ch.Attachment == nil || !ch.Attachment.Own {
		t.Fatalf("own by handle = %+v, %v", ch, err)
	}
	c2, _ := r.NewChild("parent")
	if c2.Handle != key+".2" {
		t.Fatalf("second child %s", c2.Handle)
	}
	// On a non-empty set no own is added.
	if _, err := r.Use("p2", "work", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := r.NewChild("p2"); err != nil {
		t.Fatal(err)
	}
	if got := handlesOf(r.Attachments("p2")); !reflect.DeepEqual(got, []string{"work", SessionKey("p2") + ".1"}) {
		t.Fatalf("p2 set = %v", got)
	}
	// Numbers are never reused, even after the children are reaped.
	if _, err := r.Detach("parent", DetachAll); err != nil {
		t.Fatal(err)
	}
	c3, _ := r.NewChild("parent")
	if c3.Handle != key+".3" {
		t.Fatalf("after reaping, child %s, want .3", c3.Handle)
	}
}

func TestChildrenAreReapedByPrefix(t *testing.T) {
	r := open(t, t.TempDir())
	mustNew(t, r, "work")
	mustNew(t, r, "home")
	key := SessionKey("s")

	// A profile parent: detaching the last non-child reaps the children.
	if _, err := r.Use("s", "work", ""); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := r.NewChild("s"); err != nil {
			t.Fatal(err)
		}
	}
	// Another session's children are not touched (negative control).
	if _, err := r.NewChild("other"); err != nil {
		t.Fatal(err)
	}
	removed, err := r.Detach("s", "work")
	if err != nil {
		t.Fatal(err)
	}
	if got := handlesOf(removed); !reflect.DeepEqual(got, []string{"work", key + ".1", key + ".2", key + ".3"}) {
		t.Fatalf("removed %v", got)
	}
	for _, a := range removed[1:] {
		if !strings.HasPrefix(a.Handle, key+".") {
			t.Fatalf("reaped %s, which is not under %s", a.Handle, key)
		}
	}
	if n := len(r.Attachments("s")); n != 0 {
		t.Fatalf("%d attachments left", n)
	}
	if n := len(r.Attachments("other")); n != 2 {
		t.Fatalf("other session lost attachments: %v", r.Attachments("other"))
	}

	// With two parents, detaching one keeps the children.
	_, _ = r.Use("s", "work", "")
	_, _ = r.Use("s", "home", "")
	c, _ := r.NewChild("s")
	removed, err = r.Detach("s", "work")
	if err != nil || len(removed) != 1 {
		t.Fatalf("removed %v, %v", removed, err)
	}
	if got := handlesOf(r.Attachments("s")); !reflect.DeepEqual(got, []string{"home", c.Handle}) || defaultHandle(t, r, "s") != "home" {
		t.Fatalf("set %v default %s", got, defaultHandle(t, r, "s"))
	}
	// Detaching a child alone removes only it.
	if removed, _ := r.Detach("s", c.Handle); !reflect.DeepEqual(handlesOf(removed), []string{c.Handle}) {
		t.Fatalf("removed %v", removed)
	}

	// The own parent: detaching own reaps; detaching the last child drops the lone own.
	_, _ = r.Detach("s", DetachAll)
	c1, _ := r.NewChild("s")
	removed, _ = r.Detach("s", c1.Handle)
	if got := handlesOf(removed); !reflect.DeepEqual(got, []string{c1.Handle, "own"}) || len(r.Attachments("s")) != 0 {
		t.Fatalf("removed %v, left %v", got, r.Attachments("s"))
	}
	c2, _ := r.NewChild("s")
	c3, _ := r.NewChild("s")
	removed, _ = r.Detach("s", "own")
	if got := handlesOf(removed); !reflect.DeepEqual(got, []string{"own", c2.Handle, c3.Handle}) {
		t.Fatalf("removed %v", got)
	}
	// --all takes everything.
	_, _ = r.Use("s", "work", "")
	_, _ = r.Use("s", "home", "")
	_, _ = r.NewChild("s")
	removed, _ = r.Detach("s", DetachAll)
	if len(removed) != 3 || len(r.Attachments("s")) != 0 {
		t.Fatalf("--all removed %v, left %v", removed, r.Attachments("s"))
	}
}

func TestDetach(t *testing.T) {
	r := open(t, t.TempDir())
	for _, l := range []string{"a", "b", "c", "d"} {
		mustNew(t, r, l)
	}
	// Nothing attached: nothing removed, no error.
	if removed, err := r.Detach("s", ""); err != nil || len(removed) != 0 {
		t.Fatalf("empty detach = %v, %v", removed, err)
	}
	for _, h := range []string{OwnHandle, DetachAll} {
		if removed, err := r.Detach("s", h); err != nil || len(removed) != 0 {
			t.Fatalf("empty detach %q = %v, %v", h, removed, err)
		}
	}
	// A registered profile not attached is refused as it is with a set.
	_, err0 := r.Detach("s", "d")
	wantCode(t, err0, target.CodeProfileNotAttached)
	// ... but a name of nothing is refused as it is with a set.
	_, err := r.Detach("s", "zz")
	if rf := wantCode(t, err, target.CodeUnknownProfile); len(rf.Facts["profiles"].([]string)) != 4 {
		t.Fatalf("unknown_profile on an empty set: facts %v", rf.Facts)
	}
	_, err = r.Detach("s", "~/x")
	wantCode(t, err, target.CodePathNotHandle)
	for _, l := range []string{"a", "b", "c"} {
		if _, err := r.Use("s", l, ""); err != nil {
			t.Fatal(err)
		}
	}
	_, err = r.Detach("s", "")
	rf := wantCode(t, err, target.CodeProfileRequired)
	if !reflect.DeepEqual(rf.Facts["handles"], []string{"a", "b", "c"}) || rf.Facts["default"] != "a" {
		t.Fatalf("facts %v", rf.Facts)
	}
	_, err = r.Detach("s", "d")
	wantCode(t, err, target.CodeProfileNotAttached)
	_, err = r.Detach("s", "~/x")
	wantCode(t, err, target.CodePathNotHandle)
	_, err = r.Detach("s", "zz")
	wantCode(t, err, target.CodeUnknownProfile)
	_, err = r.Detach("s", "own")
	wantCode(t, err, target.CodeUnknownProfile)

	// The default moves to the first remaining in attach order, unpinned.
	if err := r.Pin("s", "c"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Detach("s", "c"); err != nil {
		t.Fatal(err)
	}
	atts := r.Attachments("s")
	if defaultHandle(t, r, "s") != "a" || atts[0].Pinned {
		t.Fatalf("after detaching the pinned default: %+v", atts)
	}
	// Detaching a non-default leaves the default alone.
	if _, err := r.Detach("s", "a"); err != nil {
		t.Fatal(err)
	}
	if defaultHandle(t, r, "s") != "b" {
		t.Fatalf("default %s, want b", defaultHandle(t, r, "s"))
	}
	// One left: a bare detach takes it.
	removed, err := r.Detach("s", "")
	if err != nil || !reflect.DeepEqual(handlesOf(removed), []string{"b"}) || len(r.Attachments("s")) != 0 {
		t.Fatalf("bare detach of one = %v, %v", removed, err)
	}
}

func TestPin(t *testing.T) {
	r := open(t, t.TempDir())
	for _, l := range []string{"a", "b", "c"} {
		mustNew(t, r, l)
		if _, err := r.Use("s", l, ""); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Pin("s", "b"); err != nil {
		t.Fatal(err)
	}
	for _, a := range r.Attachments("s") {
		if a.Default != (a.Handle == "b") || a.Pinned != (a.Handle == "b") {
			t.Fatalf("after pin b: %+v", r.Attachments("s"))
		}
	}
	if err := r.Pin("s", ""); err != nil {
		t.Fatal(err)
	}
	for _, a := range r.Attachments("s") {
		if a.Pinned || a.Default != (a.Handle == "b") {
			t.Fatalf("after unpin: %+v", r.Attachments("s"))
		}
	}
	mustNew(t, r, "d")
	wantCode(t, r.Pin("s", "d"), target.CodeProfileNotAttached)
	wantCode(t, r.Pin("s", "/x"), target.CodePathNotHandle)
	wantCode(t, r.Pin("nobody", "a"), target.CodeProfileNotAttached)
	if err := r.Pin("nobody", ""); err != nil {
		t.Fatalf("unpin of an empty set: %v", err)
	}
}

func TestSessionsOf(t *testing.T) {
	r := open(t, t.TempDir())
	w := mustNew(t, r, "work")
	h := mustNew(t, r, "home")
	for _, s := range []string{"zeta", "alpha", "mid"} {
		if _, err := r.Use(s, "work", ""); err != nil {
			t.Fatal(err)
		}
	}
	_, _ = r.NewChild("mid")
	if got := r.SessionsOf(w.ID); !reflect.DeepEqual(got, []string{"alpha", "mid", "zeta"}) {
		t.Fatalf("SessionsOf(work) = %v", got)
	}
	if got := r.SessionsOf(h.ID); len(got) != 0 {
		t.Fatalf("SessionsOf(home) = %v", got)
	}
	if got := r.SessionsOf(""); len(got) != 0 {
		t.Fatalf("SessionsOf(\"\") = %v: ephemeral kinds are not a profile", got)
	}
	_, _ = r.Detach("mid", "work")
	if got := r.SessionsOf(w.ID); !reflect.DeepEqual(got, []string{"alpha", "zeta"}) {
		t.Fatalf("after detach: %v", got)
	}
}

func TestConcurrentUseResolve(t *testing.T) {
	dir := t.TempDir()
	r := open(t, dir)
	const sessions, rounds = 6, 15
	for i := range 4 {
		mustNew(t, r, fmt.Sprintf("p%d", i))
	}
	var wg sync.WaitGroup
	errs := make(chan error, sessions*rounds*8)
	for s := range sessions {
		wg.Go(func() {
			sess := fmt.Sprintf("s%d", s)
			for i := range rounds {
				if _, err := r.Use(sess, fmt.Sprintf("p%d", i%4), ""); err != nil {
					errs <- err
				}
				if _, err := r.Resolve(sess, fmt.Sprintf("p%d", i%4)); err != nil && target.CodeOf(err) != target.CodeProfileChanged {
					errs <- err
				}
				if _, err := r.Resolve(sess, ""); err != nil && target.CodeOf(err) != target.CodeProfileRequired && target.CodeOf(err) != target.CodeProfileChanged {
					errs <- err
				}
				if i%5 == 0 {
					if _, err := r.NewChild(sess); err != nil {
						errs <- err
					}
				}
				if i%3 == 0 {
					if _, err := r.Detach(sess, fmt.Sprintf("p%d", (i+1)%4)); err != nil && target.CodeOf(err) != target.CodeProfileNotAttached {
						errs <- err
					}
				}
				// Another session's operator acting on this one.
				if _, err := r.UseFor(fmt.Sprintf("s%d", (s+1)%sessions), "p0", ""); err != nil {
					errs <- err
				}
				_ = r.Attachments(sess)
				_ = r.SessionsOf("bp-00000000")
				_ = r.List()
			}
		})
	}
	wg.Go(func() {
		for i := range rounds {
			if _, err := r.New(fmt.Sprintf("late %d", i)); err != nil {
				errs <- err
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// Every invariant holds, in memory and in the file a reopen reads.
	r.mu.Lock()
	err := r.st.validate()
	r.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	r2 := open(t, dir)
	if !reflect.DeepEqual(r.List(), r2.List()) {
		t.Fatal("profiles differ after reopen")
	}
	for s := range sessions {
		sess := fmt.Sprintf("s%d", s)
		if !reflect.DeepEqual(r.Attachments(sess), r2.Attachments(sess)) {
			t.Fatalf("%s differs after reopen", sess)
		}
	}
}

// TestNewChildTask: a child remembers the task it was minted for (kept
// across a reopen of the registry, trimmed), an empty task is allowed, and
// a task too long or with control characters is refused bad_request.
func TestNewChildTask(t *testing.T) {
	dir := t.TempDir()
	r := open(t, dir)
	c1, err := r.NewChildTask("parent", "  check the prices ")
	if err != nil || c1.Task != "check the prices" {
		t.Fatalf("NewChildTask = %+v, %v", c1, err)
	}
	c2, err := r.NewChildTask("parent", "")
	if err != nil || c2.Task != "" {
		t.Fatalf("NewChildTask without a task = %+v, %v", c2, err)
	}
	for _, bad := range []string{strings.Repeat("x", MaxTask+1), "two\nlines", "bell\a"} {
		_, err := r.NewChildTask("parent", bad)
		wantCode(t, err, target.CodeBadRequest)
	}
	var tasks []string
	for _, a := range open(t, dir).Attachments("parent") {
		if a.Child {
			tasks = append(tasks, a.Task)
		}
	}
	if !reflect.DeepEqual(tasks, []string{"check the prices", ""}) {
		t.Fatalf("tasks after a reopen = %q", tasks)
	}
}
