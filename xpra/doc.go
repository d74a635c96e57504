// Package xpra runs a seamless Xpra display of our own: an Xpra server
// (xpra 3.1 as Debian 12 ships it) managing the windows of its own Xvfb,
// with the same private session bus, AT-SPI bus, environment and teardown
// as package xvfb's plain display (it is an xvfb.Server). A person attaches
// Xpra's own client and sees the applications as windows of their own
// desktop, each window sent alone; agents drive the same windows through
// the same X display and accessibility bus.
//
// # What is private
//
// Debian's /etc/xpra config runs an Xsession script and probes OpenGL;
// Start gives xpra a config of its own (XPRA_SYSTEM_CONF_DIRS and
// XPRA_USER_CONF_DIRS point at it): no Xsession, no sound, no mDNS, no
// D-Bus forwarding, no commands started by clients, sockets in a 0700
// directory of the display, the display's own Xauthority and runtime dir.
// xpra answers `xpra info` with its whole environment, so it runs with the
// display's clean environment (xvfb.Desktop.Env), never its caller's.
//
// # The hidden-window trap
//
// With no client attached xpra keeps a new window unmapped (its frame,
// Xpra-CorralWindow-…, is unmapped): its pixels are black and input sent
// to it is lost. Launch shows an application's first window (the server
// is an xvfb.Shower), and Display.Show shows any later one and waits until
// it is viewable; a window shown once stays shown after a client leaves.
// xpra also ignores a restack asked of the X server: Display.Raise raises
// through xpra.
//
// # Costs, measured on this machine
//
// Start: ready in about 1–1.5 s on a quiet machine, about 3 s under load
// (the X server, xpra's own setup, the buses); xpra and its Xvfb take about
// 160 and 90–120 MB. Every control call is a Python process of about 0.2 s (more under
// load), so Info is read once when asked and kept as a value; whether a
// client is attached is read from a file xpra's connect hooks write, with
// no call at all.
package xpra
