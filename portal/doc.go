// Package portal is a client of xdg-desktop-portal's RemoteDesktop and
// ScreenCast interfaces: it asks the person at the desktop, through the
// portal's consent dialog, for input devices and screen streams, and then
// sends input (the Notify* calls) and opens the PipeWire remote for pixels.
//
// The sequence is the portal's: RemoteDesktop.CreateSession, SelectDevices,
// optionally ScreenCast.SelectSources, then RemoteDesktop.Start, each
// answered through an org.freedesktop.portal.Request's Response signal.
// Version 2 of RemoteDesktop adds restore tokens (persist_mode,
// restore_token): single-use standing grants that let a later session start
// without a dialog. They are sent only to a portal that says it is version 2
// or newer.
//
// The bus address is always the caller's: nothing here reads the process
// environment. Every call carries a deadline. A restore token never appears
// in an error or a log line.
package portal
