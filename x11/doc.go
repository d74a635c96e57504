// Package x11 is one X display, seen and driven the way vibespace needs it:
// top-level windows (title, class, _NET_WM_PID, geometry, mapped state),
// XTEST pointer and keyboard input, input focus, and the pixels of one window.
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
// here over jezek/xgb directly, where every request can carry a deadline.
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
// call returns a timeout refusal and the late reply is discarded.
package x11
