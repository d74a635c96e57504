package profile

import (
	"github.com/vibespace/vibespace/target"
)

// Choice is what one browser command acts on.
type Choice struct {
	// Attachment is the attachment acted on; nil is the session's own
	// ephemeral context (an empty set, or an explicit "own" while own is not
	// an attachment).
	Attachment *Attachment
	Count      int  // how many attachments the session holds
	Explicit   bool // named by --profile / VIBESPACE_BROWSER rather than by default
}

// OwnContext reports whether the command acts in the session's own
// ephemeral browser context (no attachment, or the explicit "own" one).
func (c Choice) OwnContext() bool { return c.Attachment == nil || c.Attachment.Own }

// Handle is the handle acted on; "own" for the session's own context.
func (c Choice) Handle() string {
	if c.Attachment == nil {
		return OwnHandle
	}
	return c.Attachment.Handle
}

// Resolve decides what one browser command of session acts on. explicit is
// the --profile value (or VIBESPACE_BROWSER), "" for a bare command.
//
//	set      explicit                          →
//	empty    ""                                 own ephemeral context (nil)
//	one      ""                                 that attachment
//	≥2       ""                                 profile_required {handles, default}
//	any      a handle, id or label in the set   that attachment
//	any      "own"                              the own attachment, or nil if not explicit
//	any      a profile not in the set           profile_not_attached (never attached silently)
//	any      a path ("/", "\", leading . or ~)  path_not_handle, with the register command
//	any      anything else                      unknown_profile, with the handles and profiles
//
// profile_changed comes before all of these: when the set's fingerprint
// (its handles and its default) differs from the one the session last
// learned, the command is refused once with {was, now, handles, default}
// and the session is then considered told; the same command repeated runs.
// The session learns its set by resolving and by changing it itself: Use,
// Detach, Pin and NewChild by the session do not trigger the refusal (it
// just made that change and was answered with the result), while UseFor,
// DetachFor and PinFor (the operator, another session, the daemon) do. A
// change by someone else that is still untold survives the session's own
// later changes, so it is never swallowed.
//
// Resolve persists what the session has been told; if that write fails
// the decision stands and the worst case is one repeated notice after a
// restart.
func (r *Registry) Resolve(session, explicit string) (Choice, error) {
	if err := checkSession(session); err != nil {
		return Choice{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	ss := r.st.Sessions[session]
	if ss == nil {
		ss = &sessionState{}
	}
	now := fingerprint(ss.Attachments)
	if ss.Seen != now {
		was := ss.Seen
		ss.Seen = now
		r.st.prune(session)
		_ = r.saveLocked()
		d, _ := defaultOf(ss.Attachments)
		return Choice{}, target.Refuse(target.CodeProfileChanged,
			"this session's browser attachments changed since its last command: was %s, now %s; the command did not run, re-issue it (with --profile <handle> to be explicit)",
			describe(was), describe(now)).
			With("was", describe(was)).
			With("now", describe(now)).
			With("handles", handles(ss.Attachments)).
			With("default", d.Handle)
	}
	n := len(ss.Attachments)
	if explicit == "" {
		switch n {
		case 0:
			return Choice{Count: 0}, nil
		case 1:
			a := ss.Attachments[0]
			return Choice{Attachment: &a, Count: 1}, nil
		default:
			return Choice{}, requiredRefusal(ss.Attachments)
		}
	}
	i, err := r.st.match(ss, explicit)
	if err != nil {
		return Choice{}, err
	}
	if i < 0 {
		return Choice{Count: n, Explicit: true}, nil
	}
	a := ss.Attachments[i]
	return Choice{Attachment: &a, Count: n, Explicit: true}, nil
}
