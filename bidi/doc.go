// Package bidi is a WebDriver BiDi client for Firefox, beside package cdp
// and with its habits: explicit handles (a browsing context, a user
// context, a realm are typed strings the caller holds), typed errors (a
// command the browser refused is an *Error carrying BiDi's own error code,
// "no such frame", "invalid argument", …; a connection that ended is
// ErrClosed), every call bounded by a deadline (the context's, or the
// connection's CallTimeout), and events by subscription (Subscribe asks
// the browser for them; Events hands them over in order, never blocking
// the read loop).
//
// No Go module speaks BiDi (the Go module list has CDP clients and plain
// WebSocket libraries only), so the protocol is written here, over the
// WebSocket library the repository already uses (gobwas/ws), and only the
// commands the browser kind needs.
//
// # No open door
//
// Firefox's Remote Agent listens on a TCP port of loopback, where any local
// user could reach it and drive every tab. Launch never lets it listen where
// another process can connect: the browser runs in a network namespace of
// its own, which holds nothing but its loopback. The road to it is a
// relay (this package's code, run again by the launching binary: see
// relay.go) started in a user namespace and a PID namespace of its own; it
// makes the network namespace on one of its threads, starts Firefox there,
// connects to the Remote Agent from that thread, and copies bytes between
// that connection and one end of a socket pair the launcher holds the other
// end of (inherited, never a path): so the only road to the browser is
// that inherited descriptor. Firefox's own traffic leaves its namespace by
// a SOCKS5 proxy the relay serves inside it and dials out from the
// launcher's network, so pages load as in any browser. The relay is the
// PID namespace's first process: when it ends, the kernel kills every
// process of the browser, so nothing outlives Close, a failed Launch, or
// the launcher's own death (the relay dies with it, by its parent-death
// signal and by the end of its socket).
//
// Where user namespaces cannot be had (a kernel or a policy that forbids
// them), Launch fails with an error that wraps ErrNoIsolation and says
// why; it never falls back to an open port.
package bidi
