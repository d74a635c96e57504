package socket

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// answering answers every request OK, after hold if it is set (a verb that
// runs), or when its context ends, which it reports on ended.
type answering struct {
	hold  time.Duration
	ended chan error
}

func (a answering) Handle(ctx context.Context, req wire.Request) wire.Response {
	if a.hold > 0 {
		select {
		case <-time.After(a.hold):
		case <-ctx.Done():
			if a.ended != nil {
				a.ended <- ctx.Err()
			}
		}
	}
	return wire.Response{V: wire.ProtocolVersion, OK: true}
}

// served is a Server serving answering on a socket of its own.
type served struct {
	*Server
	sock string
	done chan struct{}
}

// startServerWith serves h (answering{} when nil) with the daemon's
// default bounds, tune changing them, and closes it when the test ends.
func startServerWith(t *testing.T, h Handler, tune func(*Options)) *served {
	t.Helper()
	if h == nil {
		h = answering{}
	}
	sock := filepath.Join(t.TempDir(), "run", "w.sock")
	opt := Options{Path: sock, MaxRequest: 1 << 20, IdleTimeout: 30 * time.Second, MaxConns: 64, MaxConnsPerPeer: 32}
	if tune != nil {
		tune(&opt)
	}
	srv, err := Listen(opt)
	if err != nil {
		t.Fatal(err)
	}
	s := &served{Server: srv, sock: opt.Path, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		if err := srv.Serve(context.WithoutCancel(t.Context()), h); err != nil {
			t.Errorf("Serve: %v", err)
		}
	}()
	t.Cleanup(func() { srv.Close(); <-s.done })
	return s
}

func (s *served) call(t *testing.T, req wire.Request) wire.Response {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	c, err := wire.Dial(ctx, s.sock)
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

func wantCode(t *testing.T, resp wire.Response, code target.Code) {
	t.Helper()
	if resp.Code != code || resp.OK != (code == "") {
		t.Fatalf("answer %+v, want code %q", resp, code)
	}
}
