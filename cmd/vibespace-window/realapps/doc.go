// Package realapps holds the tests of vibespace-window's real-application
// matrix (LibreOffice Writer, Firefox, kcalc, gnome-calculator, the GTK
// file chooser): a package of their own, so that go test runs its binary
// beside the command's other tests instead of after them. It has no code
// but its tests.
package realapps
