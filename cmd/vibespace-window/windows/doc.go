// Package windows holds the tests of vibespace-window about the kinds of
// windows it drives and how it shows them: each toolkit's fixture,
// windows with no tree (Tk, a plain X client), dialogs and a child
// process's windows, overlapping windows, the modes, names, Chromium as a
// window, the observe and diff views. A package of their own, so that go
// test runs its binary beside the command's other tests instead of after
// them. It has no code but its tests.
package windows
