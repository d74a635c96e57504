package atspi

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/godbus/dbus/v5"
)

// The registry (at-spi2-registryd) is the one process every application
// registers with: without it the desktop lists nothing. Whoever started it
// for a display watches it (WatchRegistry) and starts it again when it dies
// (its name loses its owner); RegistryPID says which process owns it now.

// RegistryPID is the PID of the process that owns the registry's name on
// the bus now, or 0 when none does (it died and nothing started it again).
// It never starts the registry.
func (b *Bus) RegistryPID(ctx context.Context) (int, error) {
	cctx, cancel := withCallTimeout(ctx, b.opts.CallTimeout)
	defer cancel()
	var pid uint32
	b.counted(1)
	err := b.conn.BusObject().CallWithContext(cctx, "org.freedesktop.DBus.GetConnectionUnixProcessID", 0, registryName).Store(&pid)
	var de dbus.Error
	if errors.As(err, &de) && de.Name == "org.freedesktop.DBus.Error.NameHasNoOwner" {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("atspi: who owns %s: %w", registryName, err)
	}
	return int(pid), nil
}

// WatchRegistry calls lost (on a goroutine of its own, one call at a time)
// each time the registry's name loses its owner — its process ended —
// until stop is called or the bus is closed.
func (b *Bus) WatchRegistry(lost func()) (stop func(), err error) {
	opts := []dbus.MatchOption{
		dbus.WithMatchSender("org.freedesktop.DBus"),
		dbus.WithMatchInterface("org.freedesktop.DBus"),
		dbus.WithMatchMember("NameOwnerChanged"),
		dbus.WithMatchArg(0, registryName),
	}
	if err := b.conn.AddMatchSignal(opts...); err != nil {
		return nil, fmt.Errorf("atspi: watch %s: %w", registryName, err)
	}
	ch := make(chan *dbus.Signal, 16)
	b.conn.Signal(ch)
	done := make(chan struct{})
	var once sync.Once
	stop = func() {
		once.Do(func() {
			close(done)
			b.conn.RemoveSignal(ch)
			b.conn.RemoveMatchSignal(opts...)
		})
	}
	go func() {
		for {
			select {
			case <-done:
				return
			case sig, ok := <-ch:
				if !ok {
					return // the bus closed
				}
				if sig == nil || sig.Name != "org.freedesktop.DBus.NameOwnerChanged" || len(sig.Body) != 3 {
					continue
				}
				name, _ := sig.Body[0].(string)
				owner, _ := sig.Body[2].(string)
				if name != registryName {
					continue
				}
				b.forgetListen() // a new registry knows no listeners
				if owner == "" {
					lost()
				}
			}
		}
	}()
	return stop, nil
}
