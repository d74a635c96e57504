package wire

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// listenerEnv names the socket a re-run of this test binary listens on as
// a stand-in daemon (TestHelperDaemon): a process of its own, which a test
// can stop.
const listenerEnv = "VIBESPACE_WIRE_TEST_LISTEN"

// TestHelperDaemon is not a test: run with listenerEnv set, it is a
// stand-in daemon answering every request; "slow" gets its answer in two
// parts, a second apart.
func TestHelperDaemon(t *testing.T) {
	sock := os.Getenv(listenerEnv)
	if sock == "" {
		t.Skip("a helper process, not a test")
	}
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			r := bufio.NewReader(c)
			for {
				req, err := ReadRequest(r, 1<<20)
				if err != nil {
					return
				}
				var b bytes.Buffer
				WriteResponse(&b, Response{OK: true, Did: "did " + req.Verb})
				if req.Verb == "slow" {
					half := b.Len() / 2
					c.Write(b.Next(half))
					time.Sleep(time.Second)
				}
				c.Write(b.Bytes())
			}
		}()
	}
}

// standIn starts TestHelperDaemon on a socket of its own and returns the
// socket and the process, ended (by its pid) when the test ends.
func standIn(t *testing.T) (string, *os.Process) {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "d.sock")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperDaemon$")
	cmd.Env = append(os.Environ(), listenerEnv+"="+sock)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGCONT)
		cmd.Process.Kill()
		<-done
	})
	for deadline := time.Now().Add(30 * time.Second); ; {
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		cl, err := Dial(ctx, sock)
		cancel()
		if err == nil {
			cl.Close()
			return sock, cmd.Process
		}
		if time.Now().After(deadline) {
			t.Fatalf("the stand-in daemon did not listen: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestCallToAStoppedDaemon: a call to a daemon whose process is stopped
// (SIGSTOP) gives up once it has been seen stopped for StoppedFor — not at
// its deadline (before, it waited the whole of it) — with a *StoppedError
// naming the process (from the socket's peer credentials), which is
// ErrStopped and ErrNoAnswer too. The daemon continued answers again, and
// an answer that comes in parts slower than WatchEvery is read whole.
func TestCallToAStoppedDaemon(t *testing.T) {
	sock, p := standIn(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute) // guards against a hang only
	defer cancel()
	if err := p.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	cl, err := Dial(ctx, sock)
	if err != nil {
		t.Fatal(err)
	}
	_, err = cl.Call(ctx, Request{Verb: "click", Session: "s"})
	cl.Close()
	var se *StoppedError
	if !errors.As(err, &se) || se.PID != p.Pid || !se.Stopped() || se.Verb != "click" ||
		!errors.Is(err, ErrStopped) || !errors.Is(err, ErrNoAnswer) || ctx.Err() != nil {
		t.Fatalf("a call to a stopped daemon (pid %d): %v", p.Pid, err)
	}
	t.Logf("%v", err)
	if err := p.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	cl, err = Dial(ctx, sock)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for _, verb := range []string{"list", "slow"} {
		if resp, err := cl.Call(ctx, Request{Verb: verb, Session: "s"}); err != nil || resp.Did != "did "+verb {
			t.Fatalf("%s once the daemon runs again: %+v %v", verb, resp, err)
		}
	}
}

// TestProcState reads a process's state letter, and a process that is not
// there as gone.
func TestProcState(t *testing.T) {
	if st, gone := ProcState(os.Getpid()); gone || (st != "R" && st != "S") {
		t.Fatalf("this process: %q gone=%v", st, gone)
	}
	if st, gone := ProcState(1 << 30); !gone || st != "" {
		t.Fatalf("no such process: %q gone=%v", st, gone)
	}
}
