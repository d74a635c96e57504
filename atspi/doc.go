// Package atspi reads and drives native windows through AT-SPI2, the Linux
// accessibility protocol over D-Bus: a window's accessibility tree is its
// DOM. It finds an application's tree from a session bus address, walks one
// window exactly (the same nodes, in the same order, as a straight pyatspi
// walk) with many calls in flight, and acts on single nodes — without
// input injection, so the acts work where injection does not.
//
// The snapshot shape it produces (target.Snapshot, target.Node) and the
// refs minted over it (target.RefTable) live in package target, so a
// browser backend emits the same shape. A node's backend key is its
// Object.Key: the application's bus name and the object path.
//
// # Connecting
//
// Connect takes a session bus address (never the environment), asks it for
// the accessibility bus (org.a11y.Bus.GetAddress) and connects privately.
// Applications are found by PID on the registry's desktop; an application's
// top-level frames are matched to an X window by a WindowHint (PID, title,
// geometry: a plain struct, this package does not import x11). Calls to an
// application go over the peer-to-peer socket it offers
// (Application.GetApplicationBusAddress), else through the bus.
//
// # AT-SPI to Go
//
//	AT-SPI (org.a11y.*)                              Go
//	Bus.GetAddress (session bus, /org/a11y/bus)      Connect, A11yAddress
//	Registry desktop: Accessible.GetChildren         Bus.Applications, Desktop
//	DBus.GetConnectionUnixProcessID                  App.PID, Bus.AppByPID
//	Application.GetApplicationBusAddress             (the route of every call; Options.NoPeer)
//	app root: Accessible.GetChildren                 Bus.Frames, Bus.FindFrame(WindowHint)
//	Cache.GetItems (/org/a11y/atspi/cache)           Walk (role, name, description, states,
//	                                                 interfaces of the objects it holds)
//	Accessible.GetRole                               Node.Role (libatspi's role names)
//	Accessible.GetState                              Node.States (state names)
//	Accessible.GetInterfaces                         Node.Interfaces ("Action", "Text", …)
//	Properties.Get(Accessible, Name|Description)     Node.Name, Node.Description
//	Properties.Get(Application, ToolkitName|Version) the walk's corrections (GTK 4, below)
//	Accessible.GetChildren                           Node.Children (in this order, always)
//	Component.GetExtents(screen)                     Node.Bounds (showing nodes only)
//	Action.GetActions                                Node.Actions (localized names)
//	Action.GetName                                   DoAction matches these first
//	Action.DoAction                                  Bus.DoAction
//	Text.CharacterCount, Text.GetText                Node.Text, Node.TextLen; Bus.GetText
//	EditableText.SetTextContents                     Bus.SetText
//	EditableText.InsertText                          Bus.InsertText
//	Component.GrabFocus                              Bus.GrabFocus
//	Accessible.GetRelationSet (LABELLED_BY)          Node.Name of an unnamed control (names.go);
//	                                                 else its Description (a tooltip), NameFrom "tooltip"
//	Properties.Get(Value, Current|Minimum|MaximumValue) Node.Value (drawn nodes only;
//	  one Properties.GetAll(Value) from GTK)
//	Selection.SelectChild, ClearSelection, …         Bus.Select, Bus.Click (a page tab)
//	(one object's own fields, fresh)                 Bus.Node
//	Registry.RegisterEvent, Event.Object signals     Bus.WatchChanges (once per Bus), ChangeMark,
//	  (TextChanged, PropertyChange, ChildrenChanged,   ChangesSince, WaitChanges (events.go)
//	  StateChanged)
//
// Children are never placed by Accessible.GetIndexInParent: GTK3 answers
// indexes that disagree with GetChildren order, and libatspi's cache builds
// a wrong tree from them. Cache.GetItems fills only the fields above and
// only for the objects the bridge holds; GTK 3's bridge holds them only
// while some client listens to the registry, so a Bus registers itself as
// a listener (of an event nobody sends) once per registry. Its child count (and GetAll's
// ChildCount) spares GetChildren of a node that says it has none only
// where the toolkit's counts are GetChildren's (GTK: at-spi2-atk and GTK 4
// count the children GetChildren lists, and say -1 where they do not
// count); every other node's children come from GetChildren. The tests check that
// the tree is the same with and without it, through the peer socket and
// through the bus, and the same as pyatspi's. ReadingOrder then reorders a
// node's children by where they are drawn where the toolkit lists them
// against the screen (a GTK 3 grid, last attached first); it never adds or
// moves a node between parents.
//
// # Toolkits
//
// A property is read with the two-argument Properties.Get, and with
// GetAll only from GTK (GTK 3's at-spi2-atk and GTK 4 answer it; it is the
// name, description and child count of a node the cache lacks in one call):
// Qt 5's bridge answers a one-argument GetAll by reading an argument
// that is not there, and the application dies (QTBUG-107897), and a toolkit
// that did not say which it is is never asked GetAll. Qt answers
// Cache.GetItems with no items (harmless; once a walk knows the application
// is Qt it no longer asks): its nodes are asked one by one. Its
// top-levels have role filler, not frame; FindFrame matches them all the
// same (by PID, geometry, title and role: framematch.go). InsertText at the end asks the text's
// length (Qt ignores position -1) and gives Qt the text's length in UTF-16
// units, GTK in bytes.
//
// A walk asks the application's root for its toolkit (once per
// application) and corrects what GTK 4 reports differently from every
// other toolkit: it sets showing only on windows, so a node is taken to be
// showing when it is visible, its parent is showing and it has an area on
// screen; its extents are relative to the window, so they are moved by
// WalkOptions.Window's origin (and left out, unknown, without it); and a
// widget whose label is also its labelled-by child's text is named twice
// over ("_Press me Press me", a calculator's "1 1"), so it is named once —
// where the walk sees the child that repeats it, and so again when the
// object is read alone (Bus.Node: what an act answers with). GTK 4.8 also
// names an object that has no name by its class ("GtkButton", "GtkImage",
// "GtkTextView"): a class name is no name, the object is unnamed (and
// named, as any unnamed control, by what labels it, else its tooltip;
// Qt's "QPushButton" alike). The tests walk a Qt 5 and two GTK 4 fixtures
// against pyatspi and act on them.
//
// # Refusals
//
// Every refusal is a *target.Refusal, one code for one fact: no_action (the
// node exposes no Action, or not the one asked for; the facts name its
// interfaces — there is never a fall-back to a coordinate click),
// no_editable_text, no_text (no Text interface to read), no_focus (no
// Component, or not focusable), not_sensitive (AT-SPI writes even into a
// greyed-out entry; this package does not), not_editable (read-only),
// declined (the application answered false: it refused the change),
// stale_ref (the object is gone: an UnknownObject/UnknownMethod answer, a
// defunct state, or the application's connection closed), bad_ref,
// app_not_found, no_frame (the window has no accessible frame, or not yet),
// timeout (no answer in time — also when the application stopped reading
// and a write to it missed its deadline).
//
// # Deadlines and concurrency
//
// Every call carries a deadline: the caller's context, cut to
// Options.CallTimeout (DefaultCallTimeout) per call. A walk also has a node
// budget (WalkOptions.Budget) and a whole-walk deadline
// (WalkOptions.Timeout); an application that stops answering costs a walk
// one call timeout, and its subtree comes back marked Unreadable — Walk
// returns the rest of the tree, never an error that loses it.
//
// A Bus is safe for concurrent use by many goroutines. Each walk runs its
// own event loop over the shared connections; a slow or frozen application
// delays only calls to that application, up to their deadlines, because
// replies are matched to calls and every call's wait is bounded. (A walk
// takes its answers on the connection's reader goroutine, and sends from
// there what they unlock: a write that must wait for a frozen
// application's full socket holds that reader, up to the write's
// deadline.) A write that could not be made in time may leave part of a
// message in the socket: the connection is then dead for every caller
// before any call that waited on it returns — no call is written on it
// again and the next walk dials a new one (wconn's doc says how this is
// held; TestFrozenAppStalledWriteKillsConnection proves it).
//
// # Speed
//
// A walk sends every question it can at once — all of a node's questions
// together, a node's children as soon as GetChildren answers, up to
// WalkOptions.InFlight calls — and corks its writes so that a burst goes
// out in one write. A node's second questions (extents, actions, text
// length), which its first answers decide, go out with its first when the
// last walk of the window asked them of it, their answers taken only if
// this walk asks them too (early.go). The first write also asks, of every
// object the last walk of the window asked them of, its GetChildren and
// its phase one, taken only once this walk's own answers come to that
// object (ahead.go): a settled window is read in a few round trips,
// however deep its tree. TestWalkRoundTrips holds the walks'
// depth in round trips, beside their calls, to a budget. The answers are
// taken where they arrive, on the connections' reader goroutines: no
// goroutine is woken per reply; and those goroutines read their sockets
// with blocking system calls, outside Go's network poller (sock.go), so a
// reply wakes its reader directly; a reader with many calls in flight
// lets the replies of 200 µs gather before it reads again
// (wconn.gather). Calls to applications use this package's own lean
// D-Bus client (wire.go, wconn.go); godbus carries the registry and the
// bus daemon. Most of a walk's time is then the application's own
// work answering (tens of microseconds a call in GTK3); BenchmarkWalk
// compares the walk with pyatspi and dogtail on the same window in one
// run.
package atspi
