// Package daemon is the long-lived per-user process behind vibespace-window:
// it owns our display (started lazily on the first open), the window
// targets, their leases and the audit log, and answers one JSON request per
// line on a Unix socket (mode 0600) in the runtime directory.
//
// Backends plug in through the small interfaces of backend.go (Backend,
// Display, TreeReader, Injector, Capturer), defined here by their consumer,
// so that the daemon's lease and protocol logic is tested without X.
//
// Concurrency: there is no lock around backend calls that spans targets.
// Each target has its own lock, taken with the verb's context, so a frozen
// application blocks only verbs on its own window; injected input (one
// keyboard and one pointer per display) is serialised per display. A
// takeover never waits for either: it cancels the verbs in flight on the
// target and releases every key and button.
package daemon
