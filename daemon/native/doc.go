// Package native is the daemon's window kind on X displays: windows are read
// through package atspi (the accessibility tree, node actions, text) and
// driven and grabbed through package x11 (XTEST input, focus, pixels), and
// each window is a kind.Target.
//
// Xvfb is the provider of our own display (package xvfb: a private Xvfb
// with its own session bus and AT-SPI, started detached so that it outlives
// a daemon killed with -9). It is registered with the daemon in one line:
// daemon.Config{Displays: []kind.DisplayProvider{native.Xvfb(native.Options{…})}}.
package native
