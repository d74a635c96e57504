package wire

import (
	"time"

	"github.com/vibespace/vibespace/target"
)

// AgentMark is where an agent's verb last acted on a target, in the pixels
// of the target's own picture, for the live view's agent cursor: the point
// of click --at or scroll, or the box of the node of @ref. It carries no
// text the agent typed. Seq numbers the marks across targets.
type AgentMark struct {
	Verb    string       `json:"verb"`
	Session string       `json:"session"`
	Point   *Point       `json:"point,omitempty"`
	Box     *target.Rect `json:"box,omitempty"`
	Ref     string       `json:"ref,omitempty"`
	At      time.Time    `json:"at"`
	Seq     uint64       `json:"seq"`
}

// Ask is a hand-off of a target to a person (daemon/handoff), for the live
// view's "needs you": the agent's session, why it asks (its own words, a
// line for a person), since when, and the user who took the target over
// since ("" nobody yet).
type Ask struct {
	Session string    `json:"session"`
	Reason  string    `json:"reason"`
	Since   time.Time `json:"since"`
	User    string    `json:"user,omitempty"`
}
