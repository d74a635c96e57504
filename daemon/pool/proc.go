package pool

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"syscall"
	"time"
)

// Bounds of ending a desktop's processes.
const (
	termGrace = 2 * time.Second // SIGTERM's grace before SIGKILL
	killWait  = 5 * time.Second // how long SIGKILL's end is waited for
	procPoll  = 10 * time.Millisecond
)

// terminate ends pids: SIGTERM, then SIGKILL to those still running after
// the grace; it answers those still running after that (none, normally).
// Each is signalled by PID and only while it runs (a PID that ended is
// never signalled again: it may be reused).
func terminate(ctx context.Context, pids []int) []int {
	signal(pids, syscall.SIGTERM)
	left := waitEnded(ctx, pids, termGrace)
	if len(left) == 0 {
		return nil
	}
	signal(left, syscall.SIGKILL)
	return waitEnded(context.WithoutCancel(ctx), left, killWait)
}

func signal(pids []int, sig syscall.Signal) {
	for _, p := range pids {
		if running(p) {
			_ = syscall.Kill(p, sig)
		}
	}
}

// waitEnded waits until /proc shows each of pids ended (gone, or a zombie
// its parent has yet to reap: no longer running), up to d or ctx's end,
// and answers those still running. A process of ours is reaped by whoever
// started it (package xvfb waits for each application it launched), so it
// goes from /proc too.
func waitEnded(ctx context.Context, pids []int, d time.Duration) []int {
	deadline := time.Now().Add(d)
	for {
		var rest []int
		for _, p := range pids {
			if running(p) {
				rest = append(rest, p)
			}
		}
		if len(rest) == 0 || time.Now().After(deadline) || ctx.Err() != nil {
			return rest
		}
		time.Sleep(procPoll)
	}
}

// running reports whether /proc shows pid running (present and not a
// zombie).
func running(pid int) bool {
	st, ok := state(pid)
	return ok && st != 'Z' && st != 'X'
}

// exists reports whether pid is in /proc at all (a zombie is).
func exists(pid int) bool {
	_, ok := state(pid)
	return ok
}

// state is pid's state letter in /proc/<pid>/stat.
func state(pid int) (byte, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return 0, false
	}
	return b[i+2], true
}
