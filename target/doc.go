// Package target is the shared model of vibespace: what an agent addresses
// (a tab or a window), the verbs, refs, the snapshot tree, capabilities, chords
// and the typed refusal codes every backend answers with.
//
// It imports no backend. Backends (x11, atspi, cdp) return *Refusal values
// from this package so that the daemon and the CLIs can report a stable code
// without knowing which backend refused.
package target
