package daemoncall

// The bodies of answers that more than one client prints alike: both
// command lines and the MCP server (cmd/vibespace-mcp) print the same
// words for the same answer.

import (
	"fmt"
	"io"
	"strings"

	"github.com/vibespace/vibespace/daemon/wire"
)

// PrintText prints the answer's text (a snapshot, a find, a node's text),
// ending it with a newline.
func PrintText(r wire.Response, w io.Writer) error {
	fmt.Fprint(w, r.Text)
	if r.Text != "" && !strings.HasSuffix(r.Text, "\n") {
		fmt.Fprintln(w)
	}
	return nil
}

// PrintWatch prints watch's answer: the live view's address, or the xpra
// attach commands (watch --xpra).
func PrintWatch(r wire.Response, w io.Writer) error {
	if r.Text != "" {
		_, err := io.WriteString(w, r.Text+"\n")
		return err
	}
	return PrintURL(r, w)
}

// PrintWindows prints list's answer: each window a line, with its lease,
// its mode and whether its display answers.
func PrintWindows(r wire.Response, w io.Writer) error {
	if len(r.Targets) == 0 {
		fmt.Fprintln(w, "no windows (open one: vibespace-window open <app>)")
	}
	for _, t := range r.Targets {
		fmt.Fprintf(w, "%s %q%s  app=%s pid=%d · lease: %s", t.ID, t.Title, DesktopWords(&t), t.App, t.PID, t.Lease)
		if m := t.ModeWords(); m != "" {
			fmt.Fprintf(w, " · mode: %s", m)
		}
		if t.NotAnswering != "" {
			fmt.Fprintf(w, " · its display has not answered since %s (as last read)", t.NotAnswering)
		}
		fmt.Fprint(w, WatchedWords(&t))
		fmt.Fprintln(w)
	}
	return nil
}

// TabBody prints the answer of browser.tab with action: the tabs, "* "
// marking the current one (list), or the tab's address (new, close, select).
func TabBody(action string) Body {
	return func(r wire.Response, w io.Writer) error {
		if action != "list" {
			return PrintURL(r, w)
		}
		if len(r.Targets) == 0 {
			fmt.Fprintln(w, "no tabs (open one: vibespace-browser open <url>)")
			return nil
		}
		if r.Text != "" { // "* " marks the current tab
			fmt.Fprintln(w, r.Text)
			return nil
		}
		for i := range r.Targets {
			fmt.Fprintln(w, TargetLine(&r.Targets[i]))
		}
		return nil
	}
}

// GetBody prints the answer of browser.get what (text, url or title).
func GetBody(what string) Body {
	return func(r wire.Response, w io.Writer) error {
		switch {
		case r.Text != "":
			return PrintText(r, w)
		case what == "url" && r.URL != "":
			return PrintURL(r, w)
		case what == "title" && r.Target != nil:
			fmt.Fprintln(w, r.Target.Title)
		case len(r.Value) > 0:
			fmt.Fprintln(w, string(r.Value))
		}
		return nil
	}
}

// PrintProfiles lists profiles one a line, or none when there are none.
func PrintProfiles(list []wire.ProfileInfo, none string, w io.Writer) {
	if len(list) == 0 {
		fmt.Fprintln(w, none)
	}
	for i := range list {
		fmt.Fprintln(w, ProfileWords(&list[i]))
	}
}

// ProfilesBody prints profiles' answer.
func ProfilesBody(r wire.Response, w io.Writer) error {
	PrintProfiles(r.Profiles, "no profiles (register one: vibespace-browser new <label>)", w)
	return nil
}

// StatusBody prints status's answer (the daemon, its display, the
// session's windows) for session.
func StatusBody(session string) Body {
	return func(r wire.Response, w io.Writer) error {
		s := r.Status
		if s == nil {
			return nil
		}
		disp := s.Display
		if disp == "" {
			disp = "not started (it starts on the first open)"
		}
		fmt.Fprintf(w, "daemon pid %d since %s\nsession: %s\ndisplay: %s\nwindows: %d yours of %d\nstate: %s\nsocket: %s\naudit: %s\n",
			s.PID, s.Started, session, disp, s.Yours, s.Targets, s.StateDir, s.Socket, s.AuditPath)
		printKept(s, w)
		return nil
	}
}

// BrowserStatusBody prints browser.status's answer (the session's
// attachments and tabs), and the daemon's part when the answer carries it.
func BrowserStatusBody(session string) Body {
	return func(r wire.Response, w io.Writer) error {
		fmt.Fprintf(w, "session: %s\n", session)
		PrintBrowserSet(r, w)
		if s := r.Status; s != nil {
			fmt.Fprintf(w, "daemon pid %d since %s\nstate: %s\nsocket: %s\naudit: %s\n", s.PID, s.Started, s.StateDir, s.Socket, s.AuditPath)
			printKept(s, w)
		}
		return nil
	}
}

// PrintBrowserSet prints the session's attachments and tabs of
// browser.status's answer, one a line.
func PrintBrowserSet(r wire.Response, w io.Writer) {
	for i := range r.Attachments {
		fmt.Fprintf(w, "attachment: %s\n", ProfileWords(&r.Attachments[i]))
	}
	for i := range r.Targets {
		fmt.Fprintf(w, "tab: %s\n", TargetLine(&r.Targets[i]))
	}
}

// TabHandle is a tab handle as the daemon names it: "tab:N" ("3" is
// tab:3). A handle of another kind (win:N) is kept as it is, for the
// daemon to refuse by name.
func TabHandle(s string) string {
	if s == "" || strings.Contains(s, ":") {
		return s
	}
	return "tab:" + s
}

// printKept names the daemon's log files and where its stderr goes.
func printKept(s *wire.Status, w io.Writer) {
	fmt.Fprintf(w, "logs kept (in the state directory): %s; stderr (a crash's trace): %s\n", strings.Join(s.Kept, ", "), s.Stderr)
	for _, f := range s.Faults {
		fmt.Fprintf(w, "fault: %s\n", f)
	}
}

// DoctorBody prints doctor's matrix, one check a line.
func DoctorBody(r wire.Response, w io.Writer) error {
	for _, ch := range r.Checks {
		mark := "yes"
		if !ch.OK {
			mark = "no "
		}
		fmt.Fprintf(w, "%-4s %-22s %s\n", mark, ch.Name, ch.Detail)
	}
	return nil
}
