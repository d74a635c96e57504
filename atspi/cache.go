package atspi

import (
	"github.com/godbus/dbus/v5"
)

// cachePath is where the bridge serves org.a11y.atspi.Cache (not the
// application root).
const (
	cachePath  = dbus.ObjectPath("/org/a11y/atspi/cache")
	ifaceCache = "org.a11y.atspi.Cache"
)

// cacheItem is one entry of Cache.GetItems, D-Bus
// "((so)(so)(so)iiassusau)": the object, its application, its parent, its
// index in parent (unreliable in GTK3; never used), its child count, its
// interfaces, name, role, description and states.
type cacheItem struct {
	Self, App, Parent Object
	Index             int32
	ChildCount        int32
	Interfaces        []string
	Name              string
	Role              uint32
	Description       string
	States            []uint32
}

// cacheItems reads the answer of Cache.GetItems — every object the
// application's bridge has cached — into a map by object path. The bridge
// computes each field when asked, so the values are as live as the
// separate calls would give; but it holds only some of the objects (GTK3
// tree-view cells never), so a walk uses an entry when there is one and
// asks the object itself otherwise. A malformed answer yields nil: the
// walk then asks every object.
func cacheItems(b *body) map[dbus.ObjectPath]*cacheItem {
	m := make(map[dbus.ObjectPath]*cacheItem)
	b.array(8, func() {
		b.align(8)
		it := &cacheItem{}
		it.Self = b.objRef()
		it.App = b.objRef()
		it.Parent = b.objRef()
		it.Index = b.i32()
		it.ChildCount = b.i32()
		b.array(4, func() { it.Interfaces = append(it.Interfaces, b.str()) })
		it.Name = b.str()
		it.Role = b.u32()
		it.Description = b.str()
		b.array(4, func() { it.States = append(it.States, b.u32()) })
		m[it.Self.Path] = it
	})
	if b.err != nil {
		return nil
	}
	return m
}
