package profile

import (
	"reflect"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/target"
)

// world is a registry with three profiles and three sessions:
//
//	empty: no attachments
//	one:   work
//	two:   work (default), personal as "p"
type world struct {
	r                      *Registry
	work, personal, vendor Profile
	odd                    Profile // label "../../etc", attached to "one" by id
}

func newWorld(t *testing.T) *world {
	t.Helper()
	r := open(t, t.TempDir())
	w := &world{r: r, work: mustNew(t, r, "work"), personal: mustNew(t, r, "personal"), vendor: mustNew(t, r, "Vendor portal"), odd: mustNew(t, r, "../../etc")}
	for _, u := range []struct{ s, ref, alias string }{
		{"one", "work", ""},
		{"two", "work", ""},
		{"two", w.personal.ID, "p"},
		{"odd", w.odd.ID, ""},
	} {
		if _, err := r.Use(u.s, u.ref, u.alias); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func TestResolveTable(t *testing.T) {
	w := newWorld(t)
	const own = "<own>" // want: the session's own ephemeral context
	rows := []struct {
		name     string
		session  string
		explicit string
		want     string      // handle acted on, or own
		code     target.Code // or a refusal
		facts    map[string]any
	}{
		{"empty set, bare: own context", "empty", "", own, "", nil},
		{"empty set, explicit own", "empty", "own", own, "", nil},
		{"empty set, a profile it has not attached", "empty", "work", "", target.CodeProfileNotAttached, map[string]any{"profile": w.work.ID}},
		{"one attachment, bare: it (never needs a handle)", "one", "", "work", "", nil},
		{"one attachment, by handle", "one", "work", "work", "", nil},
		{"one attachment, by id", "one", w.work.ID, "work", "", nil},
		{"one attachment, explicit own", "one", "own", own, "", nil},
		{"one attachment, label of an unattached profile", "one", "personal", "", target.CodeProfileNotAttached, map[string]any{"profile": w.personal.ID, "handles": []string{"work"}}},
		{"one attachment, id of an unattached profile", "one", w.personal.ID, "", target.CodeProfileNotAttached, map[string]any{"profile": w.personal.ID}},
		{"two, bare: profile_required with every handle and the default", "two", "", "", target.CodeProfileRequired, map[string]any{"handles": []string{"work", "p"}, "default": "work", "attachments": 2}},
		{"two, by alias", "two", "p", "p", "", nil},
		{"two, by label", "two", "personal", "p", "", nil},
		{"two, by id", "two", w.personal.ID, "p", "", nil},
		{"two, the default by handle", "two", "work", "work", "", nil},
		{"two, unattached by label", "two", "Vendor portal", "", target.CodeProfileNotAttached, map[string]any{"profile": w.vendor.ID, "handles": []string{"work", "p"}}},
		{"two, an absolute path", "two", "/srv/u/.config/chromium", "", target.CodePathNotHandle, map[string]any{"register": "vibespace-browser new <label>"}},
		{"two, a relative path", "two", "./prof", "", target.CodePathNotHandle, nil},
		{"two, a home path", "two", "~/prof", "", target.CodePathNotHandle, nil},
		{"two, a dot name", "two", ".prof", "", target.CodePathNotHandle, nil},
		{"two, a backslash path", "two", `a\b`, "", target.CodePathNotHandle, nil},
		{"two, unknown", "two", "nope", "", target.CodeUnknownProfile, map[string]any{"handles": []string{"work", "p"}}},
		{"two, another session's child", "two", SessionKey("one") + ".1", "", target.CodeUnknownProfile, nil},
		{"two, the label's case differs", "two", "WORK", "", target.CodeUnknownProfile, nil},
		{"a label shaped like a path, attached: the label wins", "odd", "../../etc", "etc", "", nil},
		{"a path-shaped label, not attached", "one", "../../etc", "", target.CodeProfileNotAttached, map[string]any{"profile": w.odd.ID}},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			before := w.r.Attachments(row.session)
			c, err := w.r.Resolve(row.session, row.explicit)
			if !reflect.DeepEqual(before, w.r.Attachments(row.session)) {
				t.Fatalf("Resolve changed the set: %v → %v", before, w.r.Attachments(row.session))
			}
			if row.code != "" {
				rf := wantCode(t, err, row.code)
				for k, v := range row.facts {
					if !reflect.DeepEqual(rf.Facts[k], v) {
						t.Fatalf("fact %s = %#v, want %#v (all: %v)", k, rf.Facts[k], v, rf.Facts)
					}
				}
				if row.code == target.CodeProfileRequired {
					// The sentence carries the list too, for a person.
					if !strings.Contains(rf.Message, "work (default)") || !strings.Contains(rf.Message, "p") {
						t.Fatalf("profile_required message without the handles: %q", rf.Message)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve = %v", err)
			}
			if c.Explicit != (row.explicit != "") {
				t.Fatalf("Explicit = %v for %q", c.Explicit, row.explicit)
			}
			if c.Count != len(before) {
				t.Fatalf("Count = %d, want %d", c.Count, len(before))
			}
			if row.want == own {
				if !c.OwnContext() || c.Attachment != nil {
					t.Fatalf("got %+v, want the own context", c.Attachment)
				}
				return
			}
			if c.Attachment == nil || c.Attachment.Handle != row.want {
				t.Fatalf("got %+v, want handle %s", c.Attachment, row.want)
			}
		})
	}
}

func TestProfileChangedIsToldOnceThenRuns(t *testing.T) {
	w := newWorld(t)
	r := w.r
	// The session's own verbs never trigger it.
	if _, err := r.Resolve("one", ""); err != nil {
		t.Fatalf("after its own use: %v", err)
	}
	// The operator attaches a second profile to "one".
	if _, err := r.UseFor("one", "personal", ""); err != nil {
		t.Fatal(err)
	}
	_, err := r.Resolve("one", "")
	rf := wantCode(t, err, target.CodeProfileChanged)
	want := map[string]any{
		"was":     "work (default)",
		"now":     "personal, work (default)",
		"handles": []string{"work", "personal"},
		"default": "work",
	}
	if !reflect.DeepEqual(rf.Facts, want) {
		t.Fatalf("profile_changed facts = %#v, want %#v", rf.Facts, want)
	}
	// Told once: the repeat is the ordinary decision (two attachments).
	_, err = r.Resolve("one", "")
	wantCode(t, err, target.CodeProfileRequired)
	if c, err := r.Resolve("one", "personal"); err != nil || c.Attachment.Handle != "personal" {
		t.Fatalf("explicit after the notice = %+v, %v", c, err)
	}
	// A pin by the user moves the default: an explicit command is told too.
	if err := r.PinFor("one", "personal"); err != nil {
		t.Fatal(err)
	}
	_, err = r.Resolve("one", "work")
	rf = wantCode(t, err, target.CodeProfileChanged)
	if rf.Facts["now"] != "personal (default), work" || rf.Facts["default"] != "personal" {
		t.Fatalf("facts after PinFor: %v", rf.Facts)
	}
	if c, err := r.Resolve("one", "work"); err != nil || c.Attachment.Handle != "work" {
		t.Fatalf("repeat = %+v, %v", c, err)
	}
	// Unpinning does not move the default: no notice (negative control).
	if err := r.PinFor("one", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Resolve("one", "work"); err != nil {
		t.Fatalf("unpin by the user triggered a notice: %v", err)
	}
	// The session's own pin, detach, new-child: no notice.
	if err := r.Pin("one", "work"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Resolve("one", "work"); err != nil {
		t.Fatalf("own pin triggered: %v", err)
	}
	if _, err := r.Detach("one", "personal"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.NewChild("one"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Resolve("one", "work"); err != nil {
		t.Fatalf("own detach/new-child triggered: %v", err)
	}
	// A change by someone else is not swallowed by the session's own later change.
	if _, err := r.DetachFor("one", SessionKey("one")+".1"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Use("one", "Vendor portal", "v"); err != nil {
		t.Fatal(err)
	}
	_, err = r.Resolve("one", "v")
	rf = wantCode(t, err, target.CodeProfileChanged)
	if rf.Facts["was"] != SessionKey("one")+".1, work (default)" || rf.Facts["now"] != "v, work (default)" {
		t.Fatalf("facts = %v, want was = before the operator's detach", rf.Facts)
	}
	if _, err := r.Resolve("one", "v"); err != nil {
		t.Fatal(err)
	}
}

func TestProfileChangedFromTheEphemeralStart(t *testing.T) {
	// The seed's story: an agent works in its own ephemeral context, the user
	// attaches and pins a real profile mid-task; the agent's next command is
	// refused once, then lands on the profile.
	w := newWorld(t)
	r := w.r
	if c, err := r.Resolve("agent", ""); err != nil || !c.OwnContext() {
		t.Fatalf("start = %+v, %v", c, err)
	}
	if _, err := r.UseFor("agent", "work", ""); err != nil {
		t.Fatal(err)
	}
	if err := r.PinFor("agent", "work"); err != nil {
		t.Fatal(err)
	}
	_, err := r.Resolve("agent", "")
	rf := wantCode(t, err, target.CodeProfileChanged)
	if rf.Facts["was"] != "no attachments (own ephemeral context)" || rf.Facts["now"] != "work (default)" {
		t.Fatalf("facts = %v", rf.Facts)
	}
	c, err := r.Resolve("agent", "")
	if err != nil || c.Attachment == nil || c.Attachment.ProfileID != w.work.ID || !c.Attachment.Pinned {
		t.Fatalf("after the notice = %+v, %v", c, err)
	}
	// The operator takes everything away: told once, then back to own.
	if _, err := r.DetachFor("agent", DetachAll); err != nil {
		t.Fatal(err)
	}
	_, err = r.Resolve("agent", "")
	rf = wantCode(t, err, target.CodeProfileChanged)
	if rf.Facts["now"] != "no attachments (own ephemeral context)" {
		t.Fatalf("facts = %v", rf.Facts)
	}
	if c, err := r.Resolve("agent", ""); err != nil || !c.OwnContext() {
		t.Fatalf("after = %+v, %v", c, err)
	}
	// Other sessions are untouched by all of this (negative control).
	for _, s := range []string{"one", "two", "empty"} {
		if _, err := r.Resolve(s, "own"); err != nil {
			t.Fatalf("%s was told about another session's change: %v", s, err)
		}
	}
}
