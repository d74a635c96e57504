package live

import (
	"context"
	"slices"
	"strings"

	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/profile"
	"github.com/vibespace/vibespace/target"
)

// row is one target as the live view shows it: the core's snapshot of it,
// and where the strip (the viewer's row of a session's targets) puts it.
// Like the snapshot, it never carries text an agent typed or filled, nor a
// tab's address (which may hold secrets).
type row struct {
	daemon.LiveTarget

	Session string // the session whose strip shows it: its lease's holder, else who opened it
	// Context is what it lives in: "own" (a tab of the session's own
	// context), "profile" (a tab of a named profile), "helper" (a tab of a
	// child handle a helper drives), "app" (a profile's desktop-app
	// window) or "window" (any other window).
	Context string
	// Name names the context: the profile's label, the helper's task (else
	// "Helper <n>"), a window's program; "" for the own context.
	Name    string
	Profile string // the profile's id, for "profile" and "app"
}

// rows lists every target of core for the live view, freshly read;
// targets that are gone are dropped.
func rows(ctx context.Context, core Core) []row {
	names := contextNamer(core)
	var out []row
	for _, lt := range core.Targets(ctx) {
		r := row{LiveTarget: lt, Session: lt.Lease.Holder}
		if r.Session == "" {
			r.Session = lt.Origin
		}
		r.Context, r.Name, r.Profile = names(lt)
		out = append(out, r)
	}
	return out
}

// contextNamer answers, for the strip, what a target lives in and its
// name (row.Context, Name, Profile). It reads the profile registry once
// per listing.
func contextNamer(core Core) func(daemon.LiveTarget) (ctxKind, name, profileID string) {
	reg, _ := core.Profiles() // nil: profiles and helpers go unnamed
	label := func(id string) string {
		if reg != nil {
			if p, err := reg.Find(id); err == nil {
				return p.Label
			}
		}
		return id
	}
	atts := map[string][]profile.Attachment{}
	return func(lt daemon.LiveTarget) (string, string, string) {
		k := lt.Tab
		if k == nil {
			if lt.AppProfile != "" {
				return "app", label(lt.AppProfile), lt.AppProfile
			}
			return "window", lt.App, ""
		}
		if k.Profile != "" {
			l := k.Label
			if l == "" {
				l = label(k.Profile)
			}
			return "profile", l, k.Profile
		}
		handle, ok := strings.CutPrefix(k.Owner, k.Session+"/")
		if !ok || handle == profile.OwnHandle {
			return "own", "", ""
		}
		if reg != nil {
			if _, seen := atts[k.Session]; !seen {
				atts[k.Session] = reg.Attachments(k.Session)
			}
			for _, a := range atts[k.Session] {
				if a.Handle == handle && a.Task != "" {
					return "helper", a.Task, ""
				}
			}
		}
		return "helper", helperName(handle), ""
	}
}

// helperName is a child handle's name without a task: "Helper <n>" for
// "bk-<key>.<n>".
func helperName(handle string) string {
	if i := strings.LastIndexByte(handle, '.'); i >= 0 && i+1 < len(handle) {
		return "Helper " + handle[i+1:]
	}
	return "Helper"
}

// sessionRow is one session's strip header: the browsers it uses, the
// ceiling on all of them, and which of its browsers are idle.
type sessionRow struct {
	Name    string
	Yours   int // running browsers this session used
	Running int // running browsers of every session (what the ceiling counts)
	Max     int // the ceiling; 0 when there is no browser backend
	// Idle are this session's profile browsers with no tab open and no verb
	// using them: the ones a person may stop (stop) to make room.
	Idle []Idle
}

// sessions is the strip header of every session that has a target or
// has used a running browser, sorted by name.
func sessions(core Core, targets []row) []sessionRow {
	by := map[string]*sessionRow{}
	sess := func(name string) *sessionRow {
		if s := by[name]; s != nil {
			return s
		}
		s := &sessionRow{Name: name, Idle: []Idle{}}
		by[name] = s
		return s
	}
	for _, t := range targets {
		if t.Session != "" {
			sess(t.Session)
		}
	}
	if bu, ok := core.Browsers(); ok {
		u := bu.Usage()
		open := core.ProfilesWithTabs()
		for _, b := range u.Browsers {
			for _, user := range b.Users {
				s := sess(user)
				s.Yours++
				if b.Profile != "" && !b.Busy && !open[b.Profile] {
					s.Idle = append(s.Idle, Idle{Profile: b.Profile, Label: b.Label})
				}
			}
		}
		for _, s := range by {
			s.Running, s.Max = len(u.Browsers), u.Max
		}
	}
	out := make([]sessionRow, 0, len(by))
	for _, s := range by {
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b sessionRow) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// stop is the strip's Stop: a person stops an idle browser of session's
// (one sessions lists in its Idle), to make room under the ceiling. A
// browser with a tab open, or a verb using it, is refused browser_in_use;
// one that is not this session's, or not running, is bad_request. The
// audit records it, as the live view's, for session.
func stop(ctx context.Context, core Core, session, profileID, user string) error {
	err := stopIdle(ctx, core, session, profileID)
	ent := lease.Entry{For: session, Verb: "stop", User: user,
		Setting: "the browser of profile " + profileID, OK: err == nil}
	if err != nil {
		ent.Code = target.CodeInternal
		if r, ok := target.AsRefusal(err); ok {
			ent.Code = r.Code
		}
	}
	core.Audit(ent)
	return err
}

func stopIdle(ctx context.Context, core Core, session, profileID string) error {
	bu, ok := core.Browsers()
	if !ok {
		return kind.NoBrowser()
	}
	if core.ProfilesWithTabs()[profileID] {
		return target.Refuse(target.CodeBrowserInUse, "the browser of profile %s has a tab open: close its tabs first", profileID).With("profile", profileID)
	}
	mine := false
	for _, b := range bu.Usage().Browsers {
		if b.Profile == profileID && slices.Contains(b.Users, session) {
			mine = true
		}
	}
	if !mine {
		return target.Refuse(target.CodeBadRequest, "no running browser of profile %s is session %s's", profileID, session).
			With("profile", profileID).With("session", session)
	}
	return bu.Stop(ctx, profileID)
}
