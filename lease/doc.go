// Package lease holds who drives a target: the lease object shared by window
// and tab targets, its acquire / release / takeover / handback rules, the
// atomic on-disk store of leases and targets, and the append-only audit log.
//
// A lease is cooperative bookkeeping between sessions of one uid, not a
// security boundary: any process of that uid can reach the display. What it
// guarantees is that vibespace itself does not inject for a session that does
// not hold the lease, nor for anyone while the user has taken over.
//
// Concurrency: a Table, a Store and an Audit are each safe for concurrent
// use. Time comes from an injectable clock (Options.Now) so that takeover and
// idle handback are testable without sleeping.
package lease
