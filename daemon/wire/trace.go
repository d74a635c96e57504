package wire

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/vibespace/vibespace/target"
)

// TraceStep is one step of a session's trace: a verb it ran, on which
// target and node, by which road, what it saw happen, and how long it
// took. It has no field for what was typed or filled, on purpose: a type
// or fill step carries the text's length only.
type TraceStep struct {
	Time    time.Time `json:"time"` // when the verb began (UTC)
	Session string    `json:"session"`
	Target  target.ID `json:"target,omitempty"`
	Verb    string    `json:"verb"` // as the daemon names it: click, browser.click
	// Batch is the batch the step ran in (its id), "" for a verb of its own.
	Batch string `json:"batch,omitempty"`
	// The node acted on: its ref, and its role and name when the verb
	// learned them; At is the pixel of click --at / scroll --at.
	Ref  string `json:"ref,omitempty"`
	Role string `json:"role,omitempty"`
	Name string `json:"name,omitempty"`
	At   *Point `json:"at,omitempty"`
	// Key is key's chord (a single printable character is not kept: it
	// is typing); Dir and Steps a scroll's; Chars how many characters a
	// type or fill sent.
	Key   string `json:"key,omitempty"`
	Dir   string `json:"dir,omitempty"`
	Steps int    `json:"steps,omitempty"`
	Chars int    `json:"chars,omitempty"`
	// Secret names the secret the text was (type or fill --secret NAME):
	// its name, never its value.
	Secret string `json:"secret,omitempty"`

	By     target.Road       `json:"by,omitempty"`
	OK     bool              `json:"ok"`
	Code   target.Code       `json:"code,omitempty"`   // the refusal, when not OK
	Effect target.EffectWord `json:"effect,omitempty"` // what an acting verb saw happen
	MS     int64             `json:"ms"`               // how long the verb took
	// Before and After are digests of what the verb observed of the
	// target (a snapshot: the tree it read, After only).
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	// Picture is the target's PNG after the act, relative to the state
	// directory: only while the operator keeps pictures on, and removed
	// with the step or after the retention period.
	Picture string `json:"picture,omitempty"`
}

// Line is the step as one line of trace's text answer:
//
//	12:03:04.120 click win:2 @e9 check box "Dark mode" by:tree → confirmed 42ms
func (s TraceStep) Line() string {
	var b strings.Builder
	b.WriteString(s.Time.UTC().Format("15:04:05.000"))
	b.WriteByte(' ')
	b.WriteString(strings.TrimPrefix(s.Verb, "browser."))
	if s.Target != "" {
		b.WriteString(" " + string(s.Target))
	}
	if s.Ref != "" {
		b.WriteString(" " + s.Ref)
	}
	if s.Role != "" {
		b.WriteString(" " + s.Role)
	}
	if s.Name != "" {
		b.WriteString(" " + strconv.Quote(target.ClipTo(s.Name, 60)))
	}
	if s.At != nil {
		fmt.Fprintf(&b, " at %d,%d", s.At.X, s.At.Y)
	}
	if s.Key != "" {
		b.WriteString(" " + s.Key)
	}
	if s.Dir != "" {
		fmt.Fprintf(&b, " %s %d", s.Dir, s.Steps)
	}
	switch {
	case s.Secret != "":
		fmt.Fprintf(&b, " (secret %s, %d chars)", s.Secret, s.Chars)
	case s.Chars > 0:
		fmt.Fprintf(&b, " (%d chars)", s.Chars)
	}
	if s.By != "" {
		b.WriteString(" by:" + string(s.By))
	}
	b.WriteString(" → ")
	switch {
	case !s.OK && s.Code == target.CodeOutcomeUnknown:
		b.WriteString("cut by a daemon restart: its effect is unknown [" + string(s.Code) + "]")
	case !s.OK:
		b.WriteString("refused " + string(s.Code))
	case s.Effect != "":
		b.WriteString(string(s.Effect))
	default:
		b.WriteString("-")
	}
	fmt.Fprintf(&b, " %dms", s.MS)
	if s.Before != "" || s.After != "" {
		b.WriteString(" tree:")
		if s.Before != "" {
			b.WriteString(short(s.Before) + "→")
		}
		b.WriteString(short(s.After))
	}
	if s.Picture != "" {
		b.WriteString(" picture:" + s.Picture)
	}
	if s.Batch != "" {
		b.WriteString(" batch:" + s.Batch)
	}
	return b.String()
}

// short is a digest's first 8 characters, as the text answer shows it.
func short(d string) string {
	if len(d) > 8 {
		return d[:8]
	}
	return d
}
