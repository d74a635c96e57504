package profile

import (
	"sort"
	"strings"

	"github.com/vibespace/vibespace/target"
)

// Attachment is one member of a session's attachment set: a registered
// profile, the session's own ephemeral context made explicit, or a child
// context minted by new-child.
type Attachment struct {
	// Handle is what the session types after --profile: the alias given to
	// use, else a slug of the label, else the id; "own" for the session's
	// own context; "bk-<parentkey>.<n>" for a child.
	Handle    string `json:"handle"`
	ProfileID string `json:"profile_id,omitempty"` // "" for the ephemeral kinds (Own, Child)
	Label     string `json:"label,omitempty"`
	Child     bool   `json:"child,omitempty"` // minted by new-child: an ephemeral browser context of its own
	Own       bool   `json:"own,omitempty"`   // the session's own ephemeral context, made explicit by new-child
	Default   bool   `json:"default"`
	Pinned    bool   `json:"pinned,omitempty"`
	// Task is what a child's helper was minted for (new-child --task), as
	// the live view names its tabs; "" names it "Helper <n>".
	Task string `json:"task,omitempty"`
}

// Ephemeral reports whether the attachment is a browser context that lives
// only as long as the daemon (Own or Child) rather than a profile's
// user-data-dir.
func (a Attachment) Ephemeral() bool { return a.Own || a.Child }

// Who made a change to a session's attachment set. The session's own verbs
// (Use, Detach, Pin, NewChild) are by the session; the *For variants are by
// someone else (the operator, another session, the daemon forcing a
// detach), and the session is told once (profile_changed).
type actor bool

const (
	bySelf  actor = true
	byOther actor = false
)

// Use attaches session to the profile named by ref (an id or label) under
// the handle alias (validated: [a-z0-9-_], at most 32, not bp-/bk-
// prefixed, not "own", unique in the set: alias_taken), or, when alias is
// "", a slug of the label, or the id when the slug is empty or taken.
// Attaching a profile that is already attached returns its attachment
// unchanged (alias is then ignored: detach and use again to rename). The
// first attachment of a set becomes its default.
func (r *Registry) Use(session, ref, alias string) (Attachment, error) {
	return r.use(session, ref, alias, bySelf)
}

// UseFor is Use done to session by someone else (the operator); the
// session's next Resolve is refused once with profile_changed.
func (r *Registry) UseFor(session, ref, alias string) (Attachment, error) {
	return r.use(session, ref, alias, byOther)
}

func (r *Registry) use(session, ref, alias string, by actor) (Attachment, error) {
	if err := checkSession(session); err != nil {
		return Attachment{}, err
	}
	if alias != "" {
		if err := validAlias(alias); err != nil {
			return Attachment{}, err
		}
	}
	var out Attachment
	err := r.mutate(func(st *file) (bool, error) {
		p, ok := st.find(ref)
		if !ok {
			if LooksLikePath(ref) {
				return false, pathRefusal(ref)
			}
			return false, st.unknown(ref, nil)
		}
		ss := st.session(session)
		for _, a := range ss.Attachments {
			if a.ProfileID == p.ID {
				out = a
				return false, nil
			}
		}
		before := fingerprint(ss.Attachments)
		h := alias
		if h != "" {
			if ss.has(h) {
				return false, target.Refuse(target.CodeAliasTaken, "this session already has a browser attachment with the handle %q", h).
					With("alias", h).With("handles", handles(ss.Attachments))
			}
		} else if h = slug(p.Label); h == "" || ss.has(h) {
			h = p.ID
		}
		out = Attachment{Handle: h, ProfileID: p.ID, Label: p.Label, Default: len(ss.Attachments) == 0}
		ss.Attachments = append(ss.Attachments, out)
		ss.changed(before, by)
		return true, nil
	})
	return out, err
}

// NewChild mints a child handle "bk-<parentkey>.<n>" for a sub-agent: an
// ephemeral browser context of its own, recorded in the session's set under
// the session's key (SessionKey: "bk-" + the first 8 hex digits of a SHA-256
// of the session name, so the key is stable across restarts) and reaped
// with the parent by that prefix. n counts from 1 and is never reused
// within the session.
//
// On an empty set NewChild first makes the session's own ephemeral context
// an explicit attachment (Own, handle "own", the default), so that the set
// then has two members and a bare command needs a handle: otherwise the
// child would be the set's only member and the parent's own bare commands
// would silently land in the child's context.
func (r *Registry) NewChild(session string) (Attachment, error) { return r.NewChildTask(session, "") }

// NewChildTask is NewChild recording what the child's helper is for: task
// is shown to people only (the live view's tab of the helper), 0..MaxTask
// runes of valid UTF-8 and no control characters.
func (r *Registry) NewChildTask(session, task string) (Attachment, error) {
	if err := checkSession(session); err != nil {
		return Attachment{}, err
	}
	task, err := cleanTask(task)
	if err != nil {
		return Attachment{}, err
	}
	var out Attachment
	err = r.mutate(func(st *file) (bool, error) {
		ss := st.session(session)
		before := fingerprint(ss.Attachments)
		if len(ss.Attachments) == 0 {
			ss.Attachments = append(ss.Attachments, Attachment{Handle: OwnHandle, Own: true, Default: true})
		}
		n := max(ss.NextChild, 1)
		for ss.has(childHandle(session, n)) { // only after a hand-edited file
			n++
		}
		ss.NextChild = n + 1
		out = Attachment{Handle: childHandle(session, n), Child: true, Task: task}
		ss.Attachments = append(ss.Attachments, out)
		ss.changed(before, bySelf)
		return true, nil
	})
	return out, err
}

// Detach removes one attachment from the session's set and returns what it
// removed (the caller closes their contexts and tabs).
//
//   - handle "" removes the set's only attachment; with two or more it is
//     profile_required (the same refusal, with every handle, as a bare
//     command gets). An empty set removes nothing and is not an error.
//   - handle DetachAll ("--all") removes everything, children included.
//   - any other handle is matched as Resolve matches an explicit one. With
//     an empty set, a registered profile (or "own") removes nothing and is
//     not an error, but a name of nothing is unknown_profile (or
//     path_not_handle) as with a set.
//
// Children are reaped by their prefix (SessionKey) when no non-child
// attachment is left: the parent's teardown takes its children with it. An
// "own" attachment left alone is dropped too, since it is the empty set's
// meaning anyway. When the default goes, the default moves to the first
// remaining non-child attachment in the order they were attached (else the
// first remaining), unpinned.
func (r *Registry) Detach(session, handle string) (removed []Attachment, err error) {
	return r.detach(session, handle, bySelf)
}

// DetachFor is Detach done to session by someone else (the operator, or
// the daemon when it must drop an attachment); the session's next Resolve
// is refused once with profile_changed.
func (r *Registry) DetachFor(session, handle string) ([]Attachment, error) {
	return r.detach(session, handle, byOther)
}

func (r *Registry) detach(session, handle string, by actor) (removed []Attachment, err error) {
	if err := checkSession(session); err != nil {
		return nil, err
	}
	err = r.mutate(func(st *file) (bool, error) {
		ss := st.Sessions[session]
		if ss == nil || len(ss.Attachments) == 0 {
			// Nothing to remove. A name is still refused as it is when
			// something is attached — unknown_profile listing the
			// profiles, path_not_handle for a path, profile_not_attached
			// for a registered profile this session has not attached —
			// never "nothing changed" as if it were fine. "own" or --all
			// is nothing to do.
			if handle != "" && handle != DetachAll && handle != OwnHandle {
				_, err := st.match(&sessionState{}, handle)
				return false, err
			}
			return false, nil
		}
		before := fingerprint(ss.Attachments)
		switch handle {
		case DetachAll:
			removed = ss.Attachments
			ss.Attachments = nil
		case "":
			if len(ss.Attachments) > 1 {
				return false, requiredRefusal(ss.Attachments)
			}
			removed = ss.Attachments
			ss.Attachments = nil
		default:
			i, err := st.match(ss, handle)
			if err != nil {
				return false, err
			}
			if i < 0 { // "own" while own is not explicit: nothing to remove
				return false, st.unknown(handle, handles(ss.Attachments))
			}
			removed = []Attachment{ss.Attachments[i]}
			ss.Attachments = append(ss.Attachments[:i:i], ss.Attachments[i+1:]...)
		}
		removed = append(removed, ss.normalize()...)
		ss.changed(before, by)
		st.prune(session)
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	return removed, nil
}

// Pin makes handle the session's default and marks it pinned; handle ""
// unpins (the default stays where it is).
func (r *Registry) Pin(session, handle string) error { return r.pin(session, handle, bySelf) }

// PinFor is Pin done to session by someone else (the user pinning from the
// live view); the session's next Resolve is refused once with
// profile_changed if the default moved.
func (r *Registry) PinFor(session, handle string) error { return r.pin(session, handle, byOther) }

func (r *Registry) pin(session, handle string, by actor) error {
	if err := checkSession(session); err != nil {
		return err
	}
	return r.mutate(func(st *file) (bool, error) {
		ss := st.Sessions[session]
		var atts []Attachment
		if ss != nil {
			atts = ss.Attachments
		}
		if handle == "" {
			changed := false
			for i := range atts {
				changed = changed || atts[i].Pinned
				atts[i].Pinned = false
			}
			return changed, nil
		}
		if ss == nil {
			ss = &sessionState{}
		}
		i, err := st.match(ss, handle)
		if err != nil {
			return false, err
		}
		if i < 0 {
			return false, st.unknown(handle, handles(atts))
		}
		if atts[i].Default && atts[i].Pinned {
			return false, nil
		}
		before := fingerprint(atts)
		for j := range atts {
			atts[j].Default = j == i
			atts[j].Pinned = j == i
		}
		ss.changed(before, by)
		return true, nil
	})
}

// Attachments returns the session's set in the order it was attached.
func (r *Registry) Attachments(session string) []Attachment {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ss := r.st.Sessions[session]; ss != nil {
		return append([]Attachment(nil), ss.Attachments...)
	}
	return nil
}

func checkSession(session string) error {
	if session == "" {
		return target.Refuse(target.CodeBadRequest, "no session: attachments belong to a session")
	}
	return nil
}

// session returns the session's state, creating it.
func (st *file) session(s string) *sessionState {
	ss := st.Sessions[s]
	if ss == nil {
		ss = &sessionState{}
		st.Sessions[s] = ss
	}
	return ss
}

// prune drops a session entry that holds nothing worth keeping.
func (st *file) prune(s string) {
	if ss := st.Sessions[s]; ss != nil && len(ss.Attachments) == 0 && ss.Seen == "" && ss.NextChild == 0 {
		delete(st.Sessions, s)
	}
}

func (ss *sessionState) has(h string) bool {
	for _, a := range ss.Attachments {
		if a.Handle == h {
			return true
		}
	}
	return false
}

// changed records a change of the set whose fingerprint was before. A
// change the session made itself is one it knows about, so its Seen
// follows, unless a change by someone else was already waiting to be told
// (Seen != before): then Seen stays, and the next Resolve reports from what
// the session last knew. A change by anyone else leaves Seen alone.
func (ss *sessionState) changed(before string, by actor) {
	if by == bySelf && ss.Seen == before {
		ss.Seen = fingerprint(ss.Attachments)
	}
}

// normalize restores the set's invariants after a removal and returns what
// it reaped: children go when no non-child is left, a lone "own" goes, and
// a set that lost its default gets one.
func (ss *sessionState) normalize() (reaped []Attachment) {
	parents := 0
	for _, a := range ss.Attachments {
		if !a.Child {
			parents++
		}
	}
	if parents == 0 && len(ss.Attachments) > 0 {
		reaped = append(reaped, ss.Attachments...)
		ss.Attachments = nil
	}
	if len(ss.Attachments) == 1 && ss.Attachments[0].Own {
		reaped = append(reaped, ss.Attachments[0])
		ss.Attachments = nil
	}
	if len(ss.Attachments) == 0 {
		return reaped
	}
	for _, a := range ss.Attachments {
		if a.Default {
			return reaped
		}
	}
	next := 0
	for i, a := range ss.Attachments {
		if !a.Child {
			next = i
			break
		}
	}
	ss.Attachments[next].Default = true
	ss.Attachments[next].Pinned = false
	return reaped
}

// match finds the attachment an explicit ref names in the session's set:
// by handle, then profile id, then exact label. It returns -1 and no error
// for "own" when the session's own context is not an explicit attachment
// (the caller decides what that means). A ref that names nothing in the set
// is path_not_handle (a path), profile_not_attached (a registered profile
// this session has not attached: it is never attached silently), or
// unknown_profile.
func (st *file) match(ss *sessionState, ref string) (int, error) {
	for i, a := range ss.Attachments {
		if a.Handle == ref {
			return i, nil
		}
	}
	for i, a := range ss.Attachments {
		if a.ProfileID != "" && a.ProfileID == ref {
			return i, nil
		}
	}
	if l := strings.TrimSpace(ref); l != "" {
		for i, a := range ss.Attachments {
			if a.ProfileID != "" && a.Label == l {
				return i, nil
			}
		}
	}
	if ref == OwnHandle {
		return -1, nil
	}
	hs := handles(ss.Attachments)
	if p, ok := st.find(ref); ok {
		return 0, target.Refuse(target.CodeProfileNotAttached,
			"this session has not attached the profile %q (%s); attach it with `vibespace-browser use %s` first",
			p.Label, p.ID, p.ID).
			With("profile", p.ID).With("label", p.Label).With("handles", hs).
			With("use", "vibespace-browser use "+p.ID)
	}
	if LooksLikePath(ref) {
		return 0, pathRefusal(ref).With("handles", hs)
	}
	return 0, st.unknown(ref, hs)
}

// handles lists the set's handles in attach order.
func handles(atts []Attachment) []string {
	out := make([]string, 0, len(atts))
	for _, a := range atts {
		out = append(out, a.Handle)
	}
	return out
}

func defaultOf(atts []Attachment) (Attachment, bool) {
	for _, a := range atts {
		if a.Default {
			return a, true
		}
	}
	return Attachment{}, false
}

// fingerprint is the set's identity for profile_changed: its handles,
// sorted, the default marked with '*' ("personal,work*"); "" for the empty
// set. Handles never contain ',' or '*'.
func fingerprint(atts []Attachment) string {
	hs := make([]string, 0, len(atts))
	for _, a := range atts {
		h := a.Handle
		if a.Default {
			h += "*"
		}
		hs = append(hs, h)
	}
	sort.Strings(hs)
	return strings.Join(hs, ",")
}

// describe renders a fingerprint for people: "personal, work (default)".
func describe(fp string) string {
	if fp == "" {
		return "no attachments (own ephemeral context)"
	}
	hs := strings.Split(fp, ",")
	for i, h := range hs {
		if d, ok := strings.CutSuffix(h, "*"); ok {
			hs[i] = d + " (default)"
		}
	}
	return strings.Join(hs, ", ")
}

// requiredRefusal is profile_required for a set of two or more: it lists
// every handle and names the default, the only diagnostic the agent gets.
func requiredRefusal(atts []Attachment) *target.Refusal {
	d, _ := defaultOf(atts)
	hs := handles(atts)
	list := make([]string, len(atts))
	for i, a := range atts {
		list[i] = a.Handle
		if a.Default {
			list[i] += " (default)"
		}
	}
	return target.Refuse(target.CodeProfileRequired,
		"this session has %d browser attachments (%s): name one with --profile <handle> or VIBESPACE_BROWSER=<handle>",
		len(atts), strings.Join(list, ", ")).
		With("handles", hs).
		With("default", d.Handle).
		With("attachments", len(atts))
}
