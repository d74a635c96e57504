package target

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Code is a stable, snake_case name for why a verb did not run. Agents branch
// on it; its meaning never changes once published (README.md, "How it is built").
type Code string

// The refusal codes. Add new ones here; never reuse one for a different fact.
const (
	CodeNotExposed          Code = "not_exposed"
	CodeNotAttached         Code = "not_attached"
	CodeHeld                Code = "held"
	CodeWindowPaused        Code = "window_paused"
	CodeBrowserPaused       Code = "browser_paused"
	CodeNoAction            Code = "no_action"
	CodeNoEditableText      Code = "no_editable_text"
	CodeNoInjectionBackend  Code = "no_injection_backend"
	CodeStaleRef            Code = "stale_ref"
	CodeWindowGone          Code = "window_gone"
	CodeTabGone             Code = "tab_gone"
	CodeWindowNotVisible    Code = "window_not_visible"
	CodeOutsideWindow       Code = "outside_window"
	CodeProfileRequired     Code = "profile_required"
	CodeProfileChanged      Code = "profile_changed"
	CodeUnknownProfile      Code = "unknown_profile"
	CodePathNotHandle       Code = "path_not_handle"
	CodeTimeout             Code = "timeout"
	CodeBadChord            Code = "bad_chord"
	CodeBadRef              Code = "bad_ref"
	CodeNotSensitive        Code = "not_sensitive"
	CodeNotEditable         Code = "not_editable"
	CodeAppNotFound         Code = "app_not_found"
	CodeTextTooLong         Code = "text_too_long"
	CodeUnknownTarget       Code = "unknown_target"
	CodeBadRequest          Code = "bad_request"
	CodeInterrupted         Code = "interrupted"
	CodeNoTree              Code = "no_tree"               // the window has no accessibility tree we can read
	CodeNoCapture           Code = "no_capture"            // the window's pixels cannot be read
	CodeAppExited           Code = "app_exited"            // the application exited before it showed a window
	CodeInternal            Code = "internal"              // a failure of ours (a bug), not a refusal
	CodeBusy                Code = "busy"                  // the daemon is at its connection limit; try again
	CodeWrongKind           Code = "wrong_kind"            // a handle of the other command line's kind (a tab to vibespace-window, a window to vibespace-browser)
	CodeNoDisplay           Code = "no_display"            // no display of that name is registered with this daemon
	CodeDisplayLimit        Code = "display_limit"         // the ceiling of per-session displays running at once is reached: close windows on one, or wait for an idle one to stop
	CodeDisplayNotAnswering Code = "display_not_answering" // the window's display (its X server) does not answer: stopped or starved
	CodeTakenOver           Code = "taken_over"            // another user has taken the target over: a second takeover waits for their handback (or --force)
	CodeNoClose             Code = "no_close"              // the window does not take WM_DELETE_WINDOW: it cannot be closed alone (close its application's first window to stop the application)

	// A window's mode (target.Mode).
	CodeBadMode    Code = "bad_mode"    // a mode word other than auto, tree or pixels
	CodeModePixels Code = "mode_pixels" // the window is in pixels mode: a verb that reads the tree or takes a ref is not used (mode <handle> tree switches)
	CodeModeTree   Code = "mode_tree"   // the window is in tree mode: a verb at a point (click --at, scroll --at) is not used (mode <handle> pixels switches)

	// What a command line says itself when the daemon's connection ended
	// after the request was sent and before its answer came (the daemon was
	// killed, stopped or restarted meanwhile). Not refusals: nothing said
	// no. The command exits 2, as for a daemon it could not reach.
	CodeOutcomeUnknown Code = "outcome_unknown" // a verb that acts (type, key, click, …) may have run in part or in whole: read the target before retrying
	CodeDaemonGone     Code = "daemon_gone"     // a verb that only reads got no answer: running it again is safe
	// What a client says itself when no daemon answered and none could be
	// started (the MCP server's tool error; a command line exits 2).
	CodeNoDaemon Code = "no_daemon" // the answer says why and how to start it

	// Browser tabs (cdp/).
	CodeNotYourTab       Code = "not_your_tab"      // a tab of another session's browser context
	CodeNotVisible       Code = "not_visible"       // the node has no visible box in the page
	CodeCovered          Code = "covered"           // another element is on top of the node's centre
	CodeNavigationFailed Code = "navigation_failed" // the page did not load (network error, bad URL)
	CodeScriptError      Code = "script_error"      // the page's JavaScript threw
	CodeOutsideContext   Code = "outside_context"   // a CDP command that reaches past the session's own browser context
	CodeOutsidePage      Code = "outside_page"      // a point (--at) outside the tab's viewport

	CodeLiveViewUnavailable Code = "live_view_unavailable" // this build or machine has no video encoder (rtc/), or the live view cannot listen on its port (on another host: the port, the same at both ends, is taken on this side)
	CodeNoText              Code = "no_text"               // the node has no Text interface: there is no text to read
	CodeNoFocus             Code = "no_focus"              // the node cannot take focus (no Component, or not focusable)
	CodeDeclined            Code = "declined"              // the application refused the change (its call answered false)
	CodeNoFrame             Code = "no_frame"              // the window has no accessible frame (yet); its application is there

	// Observing and verifying (issue 15).
	CodeNoProgress  Code = "no_progress"  // the same action on the same node saw no_visible_change too many times in a row, the target unchanged between them: look again (snapshot) or do something else
	CodeBudgetSpent Code = "budget_spent" // the session's step or wall-clock budget is spent: whoever set it (the agent's own operator) raises or resets it: a guard rail, not a boundary
	// CodeBudgetUnreadable: the saved budgets could not be read back, so
	// this session's is unknown: acting verbs are refused (the guard rail
	// fails closed) until its operator sets it again.
	CodeBudgetUnreadable Code = "budget_unreadable"
	CodeValueNotSet      Code = "value_not_set"  // a form verb set a value that did not take: read back, the control holds something else
	CodeNoOption         Code = "no_option"      // select named an option the control does not have: the refusal names the ones it has
	CodeNoBrowser        Code = "no_browser"     // this daemon has no browser backend (no Chromium)
	CodeNoTab            Code = "no_tab"         // the session has no current tab in this profile: open <url> first
	CodeBrowserLimit     Code = "browser_limit"  // the ceiling of browsers running at once is reached
	CodeBrowserInUse     Code = "browser_in_use" // a browser asked to stop has a tab open or a verb using it: close its tabs first

	// Xpra displays (xpra/).
	CodeNoAttach Code = "no_attach" // the window's display has no client of its own a person can attach (only an xpra display has)

	// The user's own desktop (opt-in only).
	CodeDesktopOff    Code = "desktop_off"     // the user's own desktop is not open to agents (the operator has not opted in, or opted out): vibespace-window desktop on
	CodeNoPixelsGrant Code = "no_pixels_grant" // click --at or scroll --at on a window of the user's desktop without the operator's pixels grant for that window
	CodeYourDesktop   Code = "your_desktop"    // something never done on the user's own desktop (start an application there, close a window of theirs)
	CodeUserActive    Code = "user_active"     // the person used their own keyboard or pointer on their desktop: the agent is paused until an explicit handback
	CodeNotFocused    Code = "not_focused"     // keys on Wayland go to the window the compositor focused, and that is not this one (we cannot give it the focus)

	// A profile whose browser runs as a desktop app: a window on a
	// display, with no DevTools to drive it by.
	CodeNoCDPOnThisBackend Code = "no_cdp_on_this_backend" // a CDP verb on such a profile: drive its window with vibespace-window

	// Browser providers (provider/): where a profile's browser comes from.
	CodeNotOnThisProvider   Code = "not_on_this_provider" // the profile's provider cannot do this verb (someone else's browser cannot be switched or stopped): the refusal names the provider and why
	CodeProviderUnreachable Code = "provider_unreachable" // the provider's endpoint did not answer (a remote DevTools endpoint or a cloud service): the refusal names the endpoint, never a key
	CodeNoKey               Code = "no_key"               // the provider needs a key and none is set: vibespace-browser key set <provider> (the key is read from stdin, kept by the daemon)
	CodeKeyRejected         Code = "key_rejected"         // the provider refused the key the daemon holds for it (401): set the right one with vibespace-browser key set <provider>
	CodeNoSecret            Code = "no_secret"            // type or fill --secret NAME names no secret the daemon keeps: the user stores it with key set secret:NAME (read from stdin)

	// The desktop pool (daemon/pool).
	CodePoolBusy Code = "pool_busy" // every desktop of the pool is lent (or the pool is at its memory cap) and the borrow waited its whole --wait: the refusal says its place in the queue

	// Hand-off to a person (daemon/handoff).
	CodeHandoffDeclined Code = "handoff_declined" // the person asked (handoff) declined from the live view: do the part another way, or stop; the refusal names who and after how long
	CodeHandoffTimeout  Code = "handoff_timeout"  // no person took the target over and handed it back within the hand-off's bound (--wait, at most the verb timeout): its "needs you" mark was withdrawn; the refusal says whether a person still drives it

	// Batches of steps (daemon/batch).
	CodeExpectUnmet Code = "expect_unmet" // a batch step ran but its --expect (changed, text:…, window) did not hold: the batch stopped there

	// Browser profiles and attachment sets (profile/).
	CodeLabelTaken         Code = "label_taken"          // another profile already has that label
	CodeAliasTaken         Code = "alias_taken"          // the alias is already a handle in this session's attachment set
	CodeProfileNotAttached Code = "profile_not_attached" // the profile exists but this session has not attached it (use it first)

	// A daemon on another host, reached through OpenSSH (VIBESPACE_HOST);
	// the command line gives these itself, with ssh's last stderr line.
	CodeHostUnreachable Code = "host_unreachable" // ssh could not reach or log in to the host (ssh exited 255)
	CodeNoRemoteDaemon  Code = "no_remote_daemon" // the host has no vibespace-daemon to run, or its bridge failed (exit 126/127, no greeting)
	CodeElsewhere       Code = "elsewhere"        // the verb is for another host (a desktop of the pool that lives there): its facts name the host and the handle there, and the command lines and MCP send it there themselves
)

// Refusal is a verb that did not run: a stable code, a one-line sentence for a
// person, and the facts behind it (who holds it, since when, the probe result…).
// It is an error, so it travels up call chains; find it with errors.As or
// AsRefusal.
type Refusal struct {
	Code    Code           `json:"code"`
	Message string         `json:"message"`
	Facts   map[string]any `json:"facts,omitempty"`
	Err     error          `json:"-"` // the underlying cause, if any; never shown to agents verbatim
}

// Refuse builds a Refusal with a formatted message.
func Refuse(code Code, format string, args ...any) *Refusal {
	return &Refusal{Code: code, Message: fmt.Sprintf(format, args...)}
}

// With returns r with one more fact attached. It mutates and returns r so
// calls chain: Refuse(...).With("holder", s).With("since", t).
func (r *Refusal) With(key string, value any) *Refusal {
	if r.Facts == nil {
		r.Facts = make(map[string]any)
	}
	r.Facts[key] = value
	return r
}

// Wrap records the underlying cause.
func (r *Refusal) Wrap(err error) *Refusal {
	r.Err = err
	return r
}

func (r *Refusal) Error() string {
	var b strings.Builder
	b.WriteString(r.Message)
	b.WriteString(" [")
	b.WriteString(string(r.Code))
	b.WriteString("]")
	if len(r.Facts) > 0 {
		keys := make([]string, 0, len(r.Facts))
		for k := range r.Facts {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, " %s=%v", k, r.Facts[k])
		}
	}
	return b.String()
}

func (r *Refusal) Unwrap() error { return r.Err }

// Is reports whether target is a *Refusal with the same code, so
// errors.Is(err, &Refusal{Code: CodeStaleRef}) works.
func (r *Refusal) Is(target error) bool {
	t, ok := target.(*Refusal)
	return ok && t.Code == r.Code
}

// AsRefusal finds a Refusal in err's chain.
func AsRefusal(err error) (*Refusal, bool) {
	var r *Refusal
	if errors.As(err, &r) {
		return r, true
	}
	return nil, false
}

// CodeOf returns the refusal code in err's chain, or "" if there is none.
func CodeOf(err error) Code {
	if r, ok := AsRefusal(err); ok {
		return r.Code
	}
	return ""
}
