package lease

import (
	"fmt"
	"slices"
	"time"

	"github.com/vibespace/vibespace/target"
)

// Input is who drives a target's input: an agent session or the user.
type Input string

// The two holders of input.
const (
	InputAgent Input = "agent"
	InputUser  Input = "user"
)

// Lease is (target) → holder session, with who drives input. It is the same
// object for tabs and windows. The zero Holder means nobody holds it.
type Lease struct {
	Target target.ID `json:"target"`
	Holder string    `json:"holder,omitempty"` // the session holding it, "" if free
	Since  time.Time `json:"since,omitzero"`   // when Holder took it
	Input  Input     `json:"input"`            // agent or user
	// User and UserSince say who took over and when, while Input is user;
	// UserSession is the session they took over from ("live view" for the
	// viewer page).
	User        string    `json:"user,omitempty"`
	UserSince   time.Time `json:"user_since,omitzero"`
	UserSession string    `json:"user_session,omitempty"`
	// UserActive is the user's last input during a takeover; idle handback
	// counts from it.
	UserActive time.Time `json:"user_active,omitzero"`
	// Direct is set while the person drives a window of their own desktop
	// directly, with their own keyboard or pointer, noticed by us (not a
	// takeover they asked for): how they were noticed ("a key on 'AT
	// Translated Set 2 keyboard'"). It is never handed back as idle: only
	// an explicit handback resumes the agent.
	Direct  string   `json:"direct,omitempty"`
	Viewers []string `json:"viewers,omitempty"`
	// Owed are the handbacks not yet told, per session: each is told once,
	// on that session's next verb on the target.
	Owed map[string]Handback `json:"owed,omitempty"`
	// Replaced are the notes owed to users whose takeover a forced one
	// replaced, per user: each is told once, on that user's next takeover
	// or handback of the target.
	Replaced map[string]Replacement `json:"replaced,omitempty"`
}

// Replacement is the note a user gets once after another user's forced
// takeover replaced theirs.
type Replacement struct {
	Target    target.ID `json:"target"`
	By        string    `json:"by"`         // who took over in their place
	UserSince time.Time `json:"user_since"` // since when they had driven it
	At        time.Time `json:"at"`         // when they were replaced
}

// Message is the one sentence the replaced user reads.
func (r Replacement) Message() string {
	return fmt.Sprintf("your takeover of %s (since %s) was replaced at %s by %s, who took it over with --force",
		r.Target, r.UserSince.UTC().Format(time.RFC3339), r.At.UTC().Format(time.RFC3339), r.By)
}

// Handback is the note an agent gets once after the user hands a target back.
type Handback struct {
	User      string    `json:"user"`       // who had taken over
	UserSince time.Time `json:"user_since"` // since when
	At        time.Time `json:"at"`         // when control came back
	Idle      bool      `json:"idle,omitempty"`
}

// Message is the one sentence the agent reads.
func (h Handback) Message() string {
	how := "handed it back"
	if h.Idle {
		how = "stopped (idle) and it was handed back automatically"
	}
	return fmt.Sprintf("control came back at %s: %s had taken over at %s and %s; the window or page may have changed — take a new snapshot before acting on old refs",
		h.At.UTC().Format(time.RFC3339), h.User, h.UserSince.UTC().Format(time.RFC3339), how)
}

// State is the lease in words: "free", "held by s (agent input)", "held by
// s — paused: user u took over at T".
func (l Lease) State() string {
	holder := "free"
	if l.Holder != "" {
		holder = "held by " + l.Holder + " since " + l.Since.UTC().Format(time.RFC3339)
	}
	switch {
	case l.Input == InputUser && l.Direct != "":
		return fmt.Sprintf("%s — paused: %s used their own keyboard or pointer at %s (%s); until they hand it back", holder, l.User, l.UserSince.UTC().Format(time.RFC3339), l.Direct)
	case l.Input == InputUser:
		return fmt.Sprintf("%s — paused: %s took over at %s", holder, l.User, l.UserSince.UTC().Format(time.RFC3339))
	}
	return holder
}

func (l Lease) clone() Lease {
	l.Viewers = slices.Clone(l.Viewers)
	if l.Owed != nil {
		m := make(map[string]Handback, len(l.Owed))
		for k, v := range l.Owed {
			m[k] = v
		}
		l.Owed = m
	}
	if l.Replaced != nil {
		m := make(map[string]Replacement, len(l.Replaced))
		for k, v := range l.Replaced {
			m[k] = v
		}
		l.Replaced = m
	}
	return l
}
