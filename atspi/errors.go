package atspi

import (
	"context"
	"errors"
	"fmt"

	"github.com/godbus/dbus/v5"

	"github.com/vibespace/vibespace/target"
)

// D-Bus error names that mean "the object or its application is gone".
var goneErrors = [...]string{
	"org.freedesktop.DBus.Error.UnknownObject",
	"org.freedesktop.DBus.Error.UnknownMethod",
	"org.freedesktop.DBus.Error.UnknownInterface",
	"org.freedesktop.DBus.Error.ServiceUnknown",
	"org.freedesktop.DBus.Error.NameHasNoOwner",
	"org.freedesktop.DBus.Error.NoReply",
	"org.freedesktop.DBus.Error.Disconnected",
}

// isGone reports whether err says the object or its application no longer
// exists: an unknown object/method answer, a name with no owner, or a peer
// connection that closed under us.
func isGone(err error) bool {
	if errors.Is(err, dbus.ErrClosed) || errors.Is(err, errWireClosed) {
		return true
	}
	var name string
	var de dbus.Error
	var re *remoteError
	switch {
	case errors.As(err, &re):
		name = re.Name
	case errors.As(err, &de):
		name = de.Name
	}
	for _, n := range goneErrors {
		if name == n {
			return true
		}
	}
	return false
}

// isTimeout reports whether err is a deadline or cancellation.
func isTimeout(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}

// callRefusal turns a failed call into a refusal: timeout, or stale_ref
// when the object is gone; other errors are returned wrapped.
func callRefusal(what string, err error) error {
	switch {
	case isTimeout(err):
		return target.Refuse(target.CodeTimeout, "%s: no answer in time", what).Wrap(err)
	case isGone(err):
		return target.Refuse(target.CodeStaleRef, "%s: the object is gone; take a new snapshot", what).Wrap(err)
	}
	return fmt.Errorf("atspi: %s: %w", what, err)
}

// objRefusal is callRefusal naming the object.
func objRefusal(o Object, what string, err error) error {
	e := callRefusal(what, err)
	if r, ok := target.AsRefusal(e); ok {
		r.With("object", o.Key())
	}
	return e
}
