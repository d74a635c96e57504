package atspi

import (
	"context"
	"errors"
)

// WithAnswerHook returns o with fn to be run by the walk's own loop right
// after it has taken its nth answer, so a test can act (SIGSTOP the
// application) at a known point inside the walk, never after it.
func WithAnswerHook(o WalkOptions, n int, fn func()) WalkOptions {
	o.hook = &walkHook{after: n, fn: fn}
	return o
}

// WithoutMemo returns o for a walk that neither uses nor keeps what the
// last walk of its root asked (early.go): every phase-two question waits
// for its node's phase one, as a first walk's do.
func WithoutMemo(o WalkOptions) WalkOptions {
	o.noMemo = true
	return o
}

// WithDepth returns o for a walk that puts its depth in round trips in
// *d: the longest chain of calls each of which waited for the answer of
// the one before (a node's phase one for its parent's GetChildren, its
// phase two for its phase one, a text for its length, the nodes below
// the root for Cache.GetItems and the toolkit, the names asked after the
// tree for the whole tree). It depends on the tree alone, not on timing.
func WithDepth(o WalkOptions, d *int) WalkOptions {
	o.depth = d
	return o
}

// CallRaw makes one call to the object over the route a verb would use,
// bounded like a verb's call. It returns nil when the application answered
// (an error answer included: only the transport is under test), else the
// refusal a verb would give.
func (b *Bus) CallRaw(ctx context.Context, o Object, method string, args ...any) error {
	cctx, cancel := withCallTimeout(ctx, b.opts.CallTimeout)
	defer cancel()
	r := b.route(cctx, o.Name).call(cctx, o.Path, method, args...)
	var re *remoteError
	if r.err == nil || errors.As(r.err, &re) {
		return nil
	}
	return objRefusal(o, method, r.err)
}

// WireName is the unique bus name of the connection a Bus asks
// applications through when it has no peer socket to them (Options.NoPeer):
// the sender a bus monitor sees on a walk's calls.
func (b *Bus) WireName() string { return b.wbus.name }

// RouteConn is the connection a call to the application name would be
// written on now, as an opaque value to compare, and whether it is the
// application's own peer socket (not the bus). It makes no call to the
// application while a peer socket to it is open.
func (b *Bus) RouteConn(ctx context.Context, name string) (conn any, peer bool) {
	r := b.route(ctx, name)
	return r.c, r.c != b.wbus
}
