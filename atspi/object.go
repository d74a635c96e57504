package atspi

import (
	"strings"

	"github.com/godbus/dbus/v5"

	"github.com/vibespace/vibespace/target"
)

// Object is one accessible object: the bus name of the application that
// owns it and its object path there. It is the identity a ref maps to.
type Object struct {
	Name string          // the application's unique name on the accessibility bus, ":1.23"
	Path dbus.ObjectPath // "/org/a11y/atspi/accessible/42"
}

// Key is the object's identity as one string, "<bus name><object path>"
// (":1.23/org/a11y/atspi/accessible/42"); ParseKey reverses it. Snapshot
// nodes carry it as their backend key.
func (o Object) Key() string { return o.Name + string(o.Path) }

func (o Object) String() string { return o.Key() }

// IsNull reports whether o is AT-SPI's null reference (no object).
func (o Object) IsNull() bool { return o.Path == "" || o.Path == nullPath }

// ParseKey parses a key made by Object.Key. A malformed key is refused
// bad_ref.
func ParseKey(key string) (Object, error) {
	i := strings.IndexByte(key, '/')
	if i <= 0 {
		return Object{}, target.Refuse(target.CodeBadRef, "%q is not an AT-SPI object key", key)
	}
	o := Object{Name: key[:i], Path: dbus.ObjectPath(key[i:])}
	if !o.Path.IsValid() {
		return Object{}, target.Refuse(target.CodeBadRef, "%q is not an AT-SPI object key", key)
	}
	return o, nil
}
