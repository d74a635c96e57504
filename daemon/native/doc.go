// Package native is the daemon's real backend: our display is a testenv
// desktop (Xvfb + a private session bus + AT-SPI) started detached so that it
// outlives a daemon killed with -9; windows and input go through package
// x11 (XTEST), trees and node actions through package atspi.
//
// It is the one registration that plugs the real roads into the daemon:
// daemon.Config{Backend: native.New(native.Options{…})}.
package native
