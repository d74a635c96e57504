// Package sessions holds the tests of vibespace-browser that are about
// sessions, profiles and the daemon's life rather than one page's verbs:
// sessions kept apart, takeover, a daemon killed and started again, lost
// tabs, profiles and their providers, a desktop app. A package of their
// own, so that go test runs its binary beside the command's other tests
// instead of after them. It has no code but its tests.
package sessions
