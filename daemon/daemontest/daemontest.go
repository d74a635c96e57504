// Package daemontest runs a real daemon for the tests of other packages:
// served on a socket in a temporary directory and called over it, as a CLI
// calls it. Only tests import it.
package daemontest

import (
	"context"
	"github.com/vibespace/vibespace/cmd/vibespace-daemon/stages"
	"sync"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon"
)

// CallTimeout bounds one Call.
const CallTimeout = 60 * time.Second

// Served is one daemon serving cfg.SocketPath.
type Served struct {
	D    *daemon.Daemon
	Sock string

	done chan struct{}
	once sync.Once
}

// Start makes a daemon of cfg, listens and serves until the test ends (or
// Close or Detach). A failure to start fails the test.
func Start(t *testing.T, cfg daemon.Config) *Served {
	t.Helper()
	if cfg.Stages == nil {
		cfg.Stages = stages.All() // what the program runs
	}
	d, err := daemon.New(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Listen(); err != nil {
		d.Close()
		t.Fatal(err)
	}
	s := &Served{D: d, Sock: cfg.SocketPath, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		if err := d.Serve(context.WithoutCancel(t.Context())); err != nil {
			t.Errorf("Serve: %v", err)
		}
	}()
	t.Cleanup(s.Close)
	return s
}

// Close stops the daemon for good (its display and applications too) and
// waits for Serve to return. Only the first Close or Detach acts.
func (s *Served) Close() { s.once.Do(func() { s.D.Close(); <-s.done }) }

// Detach stops serving but leaves what the daemon started running, as kill
// -9 would, and waits for Serve to return.
func (s *Served) Detach() { s.once.Do(func() { s.D.Detach(); <-s.done }) }

// Call sends req on a connection of its own and returns the answer; a
// failure to talk to the daemon fails the test.
func (s *Served) Call(t *testing.T, req daemon.Request) daemon.Response {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), CallTimeout)
	defer cancel()
	c, err := daemon.Dial(ctx, s.Sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	resp, err := c.Call(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// OK is Call, failing the test on a refusal.
func (s *Served) OK(t *testing.T, req daemon.Request) daemon.Response {
	t.Helper()
	resp := s.Call(t, req)
	if !resp.OK {
		t.Fatalf("%s: refused %s: %s %v", req.Verb, resp.Code, resp.Message, resp.Facts)
	}
	return resp
}
