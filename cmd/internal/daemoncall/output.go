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
	// Session is the caller's session: a lease it holds is "yours" in
	// the header line ("" names every holder).
	Session string
}

// Answer prints resp and returns the error whose code the command exits
// with; body writes the verb-specific part of a successful text answer.
func (p Printer) Answer(resp wire.Response, body func(w io.Writer)) error {
	failed := Printed{ExitRefused}
	if resp.Code == "internal" || unansweredCode(resp.Code) || resp.Code == target.CodeNoDaemon {
		failed = Printed{ExitUsage} // not a refusal: something of ours broke, or the daemon went away or could not start
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
		switch {
		case unansweredCode(resp.Code):
			what = "unanswered" // nothing said no: the daemon went away
		case resp.Code == target.CodeNoDaemon:
			what = "unreachable" // nothing said no: no daemon could be started
		}
		fmt.Fprintf(p.Err, "%s: %s [%s]\n", what, bound(resp.Message), resp.Code)
		RefusalDetail(p.Err, resp, p.Session)
		return failed
	}
	if h, _ := resp.Facts["host"].(string); h != "" {
		fmt.Fprintf(p.Out, "host: %s\n", h) // the daemon of another host answered (VIBESPACE_HOST, --host)
	}
	if resp.Note != "" {
		fmt.Fprintf(p.Out, "note: %s\n", resp.Note)
	}
	if h := Header(resp.Target, resp.Profile, p.Session); h != "" && !resp.Said {
		fmt.Fprintln(p.Out, h) // left out when the session's previous answer said it (daemon/headers)
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

// AnswerWith prints resp as Answer does, its body written by body (nil:
// none); the error is Answer's, else body's.
func (p Printer) AnswerWith(resp wire.Response, body Body) error {
	var bodyErr error
	if err := p.Answer(resp, func(w io.Writer) {
		if body != nil {
			bodyErr = body(resp, w)
		}
	}); err != nil {
		return err
	}
	return bodyErr
}

// RefusalDetail prints what follows a refusal's sentence: its facts, the
// profile handles it lists, the target's header line and the handback note.
func RefusalDetail(w io.Writer, resp wire.Response, session string) {
	if f := Facts(resp.Facts); f != "" {
		fmt.Fprintf(w, "  facts: %s\n", bound(f))
	}
	def, _ := resp.Facts["default"].(string)
	for _, h := range Handles(resp.Facts) {
		mark := ""
		if h == def {
			mark = " (default)"
		}
		fmt.Fprintf(w, "  --profile %s%s\n", h, mark)
	}
	if h := Header(resp.Target, resp.Profile, session); h != "" {
		fmt.Fprintf(w, "  %s\n", h)
	}
	if resp.Note != "" {
		fmt.Fprintf(w, "note: %s\n", resp.Note)
	}
}

// RefusalText is a refusal as a client that has no exit code and no
// stderr says it (the MCP server's tool error): its code first, then its
// sentence, then RefusalDetail's lines.
//
//	held: win:1 is held by session "s1" since 2026-12-02T07:12:03Z; it must detach first
//	  facts: holder=s1 since=2026-12-02T07:12:03Z target=win:1
func RefusalText(resp wire.Response, session string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", resp.Code, bound(resp.Message))
	RefusalDetail(&b, resp, session)
	return b.String()
}

// Header is an answer's one header line: the target, its title, its lease
// state (a lease the caller's session holds is "yours"), a window's mode,
// and for the browser's words the profile, after the target:
//
//	tab:3 "Sign up" · lease: yours · profile: work (bp-3f9a1c02), default
//	win:2 "Editor" · lease: held by s2 since 2026-12-02T00:26:41Z · mode: auto → tree
//
// "" when the answer names neither.
func Header(t *wire.TargetInfo, p *wire.ProfileInfo, session string) string {
	var line string
	if t != nil {
		line = targetLine(t, session)
	}
	if p != nil {
		if line != "" {
			line += " · "
			q := *p
			q.Running = false // a tab of it is there: its browser runs (a desktop app's window is still named)
			p = &q
		}
		line += "profile: " + profileWords(p, true)
	}
	return line
}

// TargetLine names a target, its title and its lease state, and a
// window's mode; while someone is attached to its display from outside
// (WatchedWords), that too.
func TargetLine(t *wire.TargetInfo) string { return targetLine(t, "") }

func targetLine(t *wire.TargetInfo, session string) string {
	line := fmt.Sprintf("%s %q%s · lease: %s", t.ID, t.Title, DesktopWords(t), LeaseWords(t, session))
	if m := t.ModeWords(); m != "" {
		line += " · mode: " + m
	}
	return line + WatchedWords(t)
}

// LeaseWords is the target's lease state in words, with a lease session
// holds said "yours" ("yours — paused: …" while a person drives it): when
// it took it is the one fact left out, and --json keeps it (since).
func LeaseWords(t *wire.TargetInfo, session string) string {
	if session == "" || t.Holder != session {
		return t.Lease
	}
	if rest, ok := strings.CutPrefix(t.Lease, "held by "+session+" since "+t.Since); ok {
		return "yours" + rest
	}
	return t.Lease
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

// ProfileLine names the browser profile an answer acted on, as its
// header line does after the target: "profile: work (bp-3f9a1c02),
// default, 2 attachments", or "profile: own ephemeral".
func ProfileLine(p *wire.ProfileInfo) string { return "profile: " + profileWords(p, true) }

// ProfileWords names a profile without the "profile:" prefix, as a row of
// its own (profiles, attachments): "work (bp-3f9a1c02) · default · 1
// attachment".
func ProfileWords(p *wire.ProfileInfo) string { return profileWords(p, false) }

// profileWords names a profile. In a header (after the target, whose
// parts "·" parts) its facts are parted by ", ", the ephemeral context is
// "own ephemeral", and the session's attachments are counted only when
// there are others than the one named; beside a target, a browser that
// runs goes without saying (Header).
func profileWords(p *wire.ProfileInfo, header bool) string {
	sep := " · "
	if header {
		if p.Ephemeral || p.ID == "" {
			return "own ephemeral"
		}
		sep = ", "
	}
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
		fmt.Fprintf(&b, "%schild of %s", sep, p.Parent)
	}
	if p.Default {
		b.WriteString(sep + "default")
	}
	if p.Pinned {
		b.WriteString(sep + "pinned")
	}
	if p.Backend != "" {
		b.WriteString(sep + p.Backend)
	}
	switch {
	case p.Window != "":
		fmt.Fprintf(&b, "%srunning as %s", sep, p.Window)
	case p.Running:
		b.WriteString(sep + "running")
	}
	switch {
	case p.Attachments == 0, p.Attachments == 1 && header:
	case p.Attachments == 1:
		b.WriteString(sep + "1 attachment")
	default:
		fmt.Fprintf(&b, "%s%d attachments", sep, p.Attachments)
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
