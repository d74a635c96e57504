// Package displays holds the tests of vibespace-window on displays other
// than the daemon's own Xvfb, and of displays that die: the person's own
// desktop (X and Wayland, the portal), xpra, remote hosts over ssh and
// their live view, an X server killed or stopped. A package of their own,
// so that go test runs its binary beside the command's other tests
// instead of after them. It has no code but its tests.
package displays
