package daemoncall

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// Printer prints answers as text or JSON.
type Printer struct {
	Out, Err io.Writer
	JSON     bool
}

// Answer prints resp and returns the error whose code the command exits
// with; body writes the verb-specific part of a successful text answer.
func (p Printer) Answer(resp wire.Response, body func(w io.Writer)) error {
	failed := Printed{ExitRefused}
	if resp.Code == "internal" || unansweredCode(resp.Code) {
		failed = Printed{ExitUsage} // not a refusal: something of ours broke, or the daemon went away
	}
	if p.JSON {
		b, _ := json.Marshal(resp)
		fmt.Fprintln(p.Out, string(b))
		if !resp.OK {
			return failed
		}
		return nil
	}
	if !resp.OK {
		what := "refused"
		if unansweredCode(resp.Code) {
			what = "unanswered" // nothing said no: the daemon went away
		}
		fmt.Fprintf(p.Err, "%s: %s [%s]\n", what, bound(resp.Message), resp.Code)
		if f := Facts(resp.Facts); f != "" {
			fmt.Fprintf(p.Err, "  facts: %s\n", bound(f))
		}
		def, _ := resp.Facts["default"].(string)
		for _, h := range Handles(resp.Facts) {
			mark := ""
			if h == def {
				mark = " (default)"
			}
			fmt.Fprintf(p.Err, "  --profile %s%s\n", h, mark)
		}
		if resp.Profile != nil {
			fmt.Fprintf(p.Err, "  %s\n", ProfileLine(resp.Profile))
		}
		if resp.Target != nil {
			fmt.Fprintf(p.Err, "  %s\n", TargetLine(resp.Target))
		}
		if resp.Note != "" {
			fmt.Fprintf(p.Err, "note: %s\n", resp.Note)
		}
		return failed
	}
	if resp.Note != "" {
		fmt.Fprintf(p.Out, "note: %s\n", resp.Note)
	}
	if resp.Profile != nil {
		fmt.Fprintln(p.Out, ProfileLine(resp.Profile))
	}
	if resp.Target != nil {
		fmt.Fprintln(p.Out, TargetLine(resp.Target))
	}
	if resp.Did != "" {
		by := ""
		if resp.By != "" {
			by = " [by " + string(resp.By) + "]"
		}
		fmt.Fprintf(p.Out, "%s%s\n", resp.Did, by)
	}
	if body != nil {
		body(p.Out)
	}
	return nil
}

// TargetLine names a target, its title and its lease state, and a
// window's mode; while someone is attached to its display from outside
// (WatchedWords), that too.
func TargetLine(t *wire.TargetInfo) string {
	line := fmt.Sprintf("%s %q%s · lease: %s", t.ID, t.Title, DesktopWords(t), t.Lease)
	if m := t.ModeWords(); m != "" {
		line += " · mode: " + m
	}
	return line + WatchedWords(t)
}

// DesktopWords says, after a window's title, that it is a window of the
// user's own desktop: " · your desktop", with " (pixels granted)" once the
// operator granted its point verbs. "" for any other target.
func DesktopWords(t *wire.TargetInfo) string {
	if !t.Desktop {
		return ""
	}
	s := " · your desktop"
	if t.Pixels {
		s += " (pixels granted)"
	}
	if t.Browser != "" {
		s += " · your own " + t.Browser + ": driven through its accessibility tree, never CDP, never an automation flag"
	}
	return s
}

// WatchedWords says, after a target's line, that a person may be driving
// it — someone is attached to its display from outside the daemon:
// " · a person may be driving (an xpra client attached since 19:12; to
// pause agents: vibespace-window takeover win:3)". The hint is left out
// while a person has taken it over. "" while nobody is attached.
func WatchedWords(t *wire.TargetInfo) string {
	if t.Watched == "" {
		return ""
	}
	what := t.Watched + " attached"
	if since, err := time.Parse(time.RFC3339, t.WatchedSince); err == nil {
		since = since.Local()
		layout := "15:04"
		if since.Format(time.DateOnly) != time.Now().Format(time.DateOnly) {
			layout = "Jan 2 15:04"
		}
		what += " since " + since.Format(layout)
	}
	if t.Input != "user" {
		what += fmt.Sprintf("; to pause agents: %s takeover %s", t.ID.Kind().Words().CLI, t.ID)
	}
	return " · a person may be driving (" + what + ")"
}

// ProfileLine names the browser profile an answer acted on:
// "profile: work (bp-3f9a1c02) · default · 2 attachments", or
// "profile: own ephemeral context".
func ProfileLine(p *wire.ProfileInfo) string {
	if p.Ephemeral || p.ID == "" {
		return "profile: own ephemeral context"
	}
	return "profile: " + ProfileWords(p)
}

// ProfileWords names a profile without the "profile:" prefix.
func ProfileWords(p *wire.ProfileInfo) string {
	name := p.Handle
	if name == "" {
		name = p.Label
	}
	var b strings.Builder
	if name != "" && name != p.ID {
		fmt.Fprintf(&b, "%s (%s)", name, p.ID)
	} else {
		b.WriteString(p.ID)
	}
	if p.Label != "" && p.Label != name {
		fmt.Fprintf(&b, " %q", p.Label)
	}
	if p.Parent != "" {
		fmt.Fprintf(&b, " · child of %s", p.Parent)
	}
	if p.Default {
		b.WriteString(" · default")
	}
	if p.Pinned {
		b.WriteString(" · pinned")
	}
	if p.Backend != "" {
		b.WriteString(" · " + p.Backend)
	}
	switch {
	case p.Window != "":
		fmt.Fprintf(&b, " · running as %s", p.Window)
	case p.Running:
		b.WriteString(" · running")
	}
	switch p.Attachments {
	case 0:
	case 1:
		b.WriteString(" · 1 attachment")
	default:
		fmt.Fprintf(&b, " · %d attachments", p.Attachments)
	}
	return b.String()
}

// Facts prints a refusal's facts as sorted key=value pairs.
func Facts(m map[string]any) string {
	if len(m) == 0 {
		return ""
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%v", k, m[k]))
	}
	return strings.Join(parts, " ")
}

// Handles are the profile handles a refusal lists (profile_required,
// profile_changed): facts "handles", as strings or as profile objects.
func Handles(m map[string]any) []string {
	list, _ := m["handles"].([]any)
	var out []string
	for _, h := range list {
		switch v := h.(type) {
		case string:
			out = append(out, v)
		case map[string]any:
			for _, k := range []string{"handle", "alias", "label", "id"} {
				if s, ok := v[k].(string); ok && s != "" {
					out = append(out, s)
					break
				}
			}
		}
	}
	return out
}

// printLimit bounds a refusal's sentence and its facts as text: whatever a
// refusal repeats of an argument, a screenful of it helps nobody (the
// daemon cuts what it echoes itself; this holds for any answer).
const printLimit = 1024

// bound is s cut to printLimit bytes, with how long it was.
func bound(s string) string { return target.ClipTo(s, printLimit) }
