package clitest

import (
	"bufio"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/vibespace/vibespace/daemon/wire"
)

// FakeDaemon answers on the socket that a client with environment env
// dials (its VIBESPACE_HOME and XDG_RUNTIME_DIR), speaking the daemon's
// wire protocol: it sends each request it reads on the channel answered,
// then writes answer(req) back. It checks what a client puts on the wire,
// not what a daemon does with it. It stops with the test.
func FakeDaemon(t testing.TB, env func(string) string, answer func(wire.Request) wire.Response) <-chan wire.Request {
	t.Helper()
	_, sock, err := wire.Paths(env)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(sock), 0o700); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	got := make(chan wire.Request, 64)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					req, err := wire.ReadRequest(r, 1<<20)
					if err != nil {
						return
					}
					got <- req
					if wire.WriteResponse(c, answer(req)) != nil {
						return
					}
				}
			}()
		}
	}()
	return got
}
