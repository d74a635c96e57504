package atspi

import (
	"context"
	"fmt"

	"github.com/godbus/dbus/v5"
)

// listenEvent is the event the Bus registers a listener for: one that no
// toolkit on these desktops sends (GTK 3's bridge maps nothing to it), so
// the listener costs the applications no signals.
const listenEvent = "window:restyle"

// The registry's own object, where listeners register.
const (
	registryPath  = dbus.ObjectPath("/org/a11y/atspi/registry")
	ifaceRegistry = "org.a11y.atspi.Registry"
)

// listen makes this connection a listener of the registry, once per
// registry (WatchRegistry forgets it when the registry's name changes
// hands). GTK 3's bridge (at-spi2-atk) keeps its object cache, and so
// answers Cache.GetItems, only once some client listens: it builds the
// cache when a listener registers, and one that starts while a listener
// exists builds it at once. An application nobody listened to answers
// GetItems UnknownMethod, and a walk asks each of its nodes what the
// cache would have held: the first walk of a freshly started
// gtk3-widget-factory made 1,506 calls where the next, once something
// had listened, made 552 (TestFirstWalkRoundTrips). The registry drops the
// listener when this connection closes; the bridges keep their caches.
// An error is returned for the caller to log: a walk goes on without it.
func (b *Bus) listen(ctx context.Context) error {
	b.mu.Lock()
	if b.listening {
		b.mu.Unlock()
		return nil
	}
	b.listening = true
	b.mu.Unlock()
	cctx, cancel := withCallTimeout(ctx, b.opts.CallTimeout)
	defer cancel()
	b.counted(1)
	err := b.conn.Object(registryName, registryPath).CallWithContext(cctx, ifaceRegistry+".RegisterEvent", 0, listenEvent).Err
	if err != nil {
		b.mu.Lock()
		b.listening = false // asked again by the next walk
		b.mu.Unlock()
		return fmt.Errorf("atspi: listen to the registry: %w", err)
	}
	return nil
}

// forgetListen is called when the registry's name changes hands: a new
// registry knows no listeners, so the next walk registers again.
func (b *Bus) forgetListen() {
	b.mu.Lock()
	b.listening = false
	b.mu.Unlock()
}
