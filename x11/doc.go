// Package x11 is one X display, seen and driven the way vibespace needs it:
// top-level windows (title, class, geometry, mapped state, and the process
// that made each: the X server says, through X-Resource, where a toolkit
// sets no _NET_WM_PID), XTEST pointer and keyboard input, input focus,
// asking a window to close (WM_DELETE_WINDOW), and the pixels of one window.
//
// # Which X library, and why
//
// The package speaks X11 through github.com/jezek/xgb only. It does not use
// github.com/BurntSushi/xgbutil: xgbutil is built on BurntSushi/xgb, whose
// connection and protocol types are distinct from jezek/xgb's and do not mix,
// so using both would mean two X connections per display and two copies of
// every protocol type (the jezek/xgbutil fork that would fit is GPLv3, which
// we will not link). What we would take from xgbutil is small — reading
// _NET_WM_PID, _NET_WM_NAME and WM_CLASS, and keysym names — and is written
// here over jezek/xgb directly, where every request can carry a deadline
// (the keysym names live in target's chord parser, which CDP shares).
// jezek/xgb is the maintained fork and carries the XTEST and MIT-SHM
// extensions we need.
//
// No xgb type appears in this package's API: callers see Window, Geometry,
// image.Image and *target.Refusal values, so a different X library (or an
// XCB binding) can replace xgb without touching a caller.
//
// # Deadlines
//
// xgb replies have no context. Every request here runs under a context: if
// the context has no deadline, DefaultTimeout applies; when it expires the
// call returns a timeout refusal and the late reply is discarded. (xgb's
// request write itself has no deadline: a server that stops reading its
// socket can still block a sender; the periodic round trip of an injection
// makes that show up as a timeout soon after.)
//
// # Input
//
// Pointer and keyboard input go through XTEST (Move, Click, ButtonDown/Up,
// Scroll, Key, Type), in root coordinates or relative to a window (ClickIn,
// ScrollIn, RootPoint). Injections are serialised per Display and sent
// without waiting, with one round trip at the end (and every 512 events).
// Every key and button pressed is tracked until released: ReleaseAll (and
// Close) lets go of all of them, and interrupts an injection in flight
// between two events; a cancelled context does the same for its own call.
// Chords are parsed by target.ParseChord, which knows nothing of X.
//
// Type types any Unicode text. Characters missing from the keymap are typed
// through spare keycodes (keycodes with no keysym) bound with
// ChangeKeyboardMapping. A toolkit translates a key with the keymap it
// fetches when it reads the event, so a keycode is rebound or restored only
// after the focused client has answered a _NET_WM_PING sent after the keys:
// restoring after our own round trip instead lost characters in 9 of 10 runs
// against GTK 3. Focus gives a window the input focus and raises it (there is
// no window manager on our displays).
//
// # Capture
//
// Capture reads one window's pixels, clipped to the screen, through MIT-SHM
// when the server can attach our SysV segment and core GetImage otherwise;
// Capture.Path says which. EncodePNG encodes it.
package x11
