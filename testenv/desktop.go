package testenv

import "github.com/vibespace/vibespace/xvfb"

// The desktop is package xvfb's; these are its names here, so that tests
// read testenv.Start, testenv.Desktop.
type (
	// Desktop is a private X display with its own session bus and AT-SPI bus.
	Desktop = xvfb.Desktop
	// Options configure Start.
	Options = xvfb.Options
	// App is an application launched into a Desktop.
	App = xvfb.App
	// State is what Adopt needs to take a Detach'ed desktop over again.
	State = xvfb.State
)

// MarkerVar is the environment variable every process of a Desktop carries.
const MarkerVar = xvfb.MarkerVar

// ErrExited is returned by Launch when the application exits before it maps
// a window.
var ErrExited = xvfb.ErrExited

// Start brings up a desktop (xvfb.Start).
var Start = xvfb.Start

// Adopt takes over a desktop started by an earlier process (xvfb.Adopt).
var Adopt = xvfb.Adopt
