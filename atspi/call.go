package atspi

import (
	"context"
	"time"

	"github.com/godbus/dbus/v5"
)

// route is where the calls for one application go: its peer-to-peer
// connection (dest empty: a peer socket has no bus names) or the
// accessibility bus (dest = the application's bus name).
type route struct {
	c    *wconn
	dest string
}

// send starts one method call ("interface.Member") and returns its serial;
// the reply, tagged tag, is delivered on ch. deadline bounds the write.
func (r route) send(deadline time.Time, path dbus.ObjectPath, method string, ch chan<- reply, tag any, args ...any) uint32 {
	return r.c.start(deadline, r.dest, string(path), method, args, ch, tag)
}

// sendFn is send with the reply handed to fn on the connection's reader
// goroutine (wconn.startFn).
func (r route) sendFn(deadline time.Time, path dbus.ObjectPath, method string, fn func(reply), tag any, args ...any) uint32 {
	return r.c.startFn(deadline, r.dest, string(path), method, args, fn, tag)
}

// call makes one call and waits for it, bounded by ctx.
func (r route) call(ctx context.Context, path dbus.ObjectPath, method string, args ...any) reply {
	return r.c.call(ctx, r.dest, string(path), method, args...)
}

// cork holds the route's writes until uncork.
func (r route) cork() { r.c.cork() }

// uncork releases the cork; with flush, it writes out what cork held.
func (r route) uncork(flush bool) { r.c.uncork(flush) }

// The interfaces, as the bridge names them.
const (
	ifaceAccessible   = "org.a11y.atspi.Accessible"
	ifaceAction       = "org.a11y.atspi.Action"
	ifaceApplication  = "org.a11y.atspi.Application"
	ifaceComponent    = "org.a11y.atspi.Component"
	ifaceEditableText = "org.a11y.atspi.EditableText"
	ifaceText         = "org.a11y.atspi.Text"
	ifaceValue        = "org.a11y.atspi.Value"
	ifaceSelection    = "org.a11y.atspi.Selection"
	ifaceTable        = "org.a11y.atspi.Table"
	ifaceProperties   = "org.freedesktop.DBus.Properties"

	registryName = "org.a11y.atspi.Registry"
	rootPath     = dbus.ObjectPath("/org/a11y/atspi/accessible/root")
	nullPath     = dbus.ObjectPath("/org/a11y/atspi/null")
)
