// Package xvfb runs a display of our own: a private Xvfb, a private D-Bus
// session bus, the AT-SPI bus and registry, and applications launched into
// them with the right environment — and it tears all of it down again, by
// PID, leaving no process and no temp dir behind. The daemon's window kind
// runs on it (package daemon/native); tests get it through package testenv.
//
// # What a Desktop is
//
//	Xvfb        -displayfd readiness (never a sleep), a free display chosen by Xvfb
//	session bus dbus-daemon with a config of our own: only the services we list
//	            (the AT-SPI bus launcher) can be activated, so no portal or
//	            document FUSE mount is started behind our back
//	AT-SPI      org.a11y.Bus.GetAddress activates at-spi-bus-launcher; the
//	            registry is started by name on the accessibility bus
//	dirs        XDG_RUNTIME_DIR, XDG_CONFIG_HOME, XDG_CACHE_HOME, XDG_DATA_HOME
//	            and HOME under one temp dir (0700)
//
// Every process started for a Desktop carries VIBESPACE_TESTENV=<id> in its
// environment (the name predates this package; displays an earlier version
// started carry it too), and bus-activated services inherit it from the bus
// daemon. Close stops the applications, then every peer of both buses
// (asking each bus for its connections' PIDs: activated services are
// re-parented to PID 1 and would outlive the bus), then the buses and Xvfb,
// and finally sweeps /proc for any process that still carries the marker.
//
// With Options.Detach the processes outlive the one that started them, and
// State and Adopt let a restarted process (a daemon killed with -9) take the
// desktop over again.
package xvfb
