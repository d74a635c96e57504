// Package displays holds the tests of vibespace-window on displays other
// than the daemon's own Xvfb, and of displays that die: the person's own
// desktop (X and Wayland, the portal), xpra, remote hosts over ssh and
// their live view, an X server killed or stopped. A package of their own,
// so that go test runs its binary beside the command's other tests
// instead of after them. It has no code but its tests.
//
// The tests of an Xvfb or the registry that dies or stops each run their
// own daemon and displays and read nothing another test changes: they
// call t.Parallel, so go test runs two at once while they wait. The
// others stay one at a time: the remote hosts share a user, a network
// namespace and ports; xpra hunts for a free display number and has a
// bound to open its socket (seen exceeded with many X servers starting
// at once); GNOME Shell, KWin and the Wayland stack start slowly under
// load; the person's desktop tests time a person's key against the
// agent's typing.
package displays
