package native

import (
	"bufio"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadIdleness reads real processes that do what an application's
// event loop does: one that sleeps in poll with no timeout (asleep), one
// whose poll has a timer due in 800 ms (asleep beyond a 500 ms horizon,
// not within 1.5 s), and one whose child spins (the parent's tree runs:
// its run time grows between two readings).
func TestReadIdleness(t *testing.T) {
	if pollSyscall < 0 {
		t.Skip("this architecture's poll is not read (idle_other.go)")
	}
	start := func(t *testing.T, code string) int {
		t.Helper()
		cmd := exec.Command("/usr/bin/python3", "-c", code)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its children end with it
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
		if _, err := bufio.NewReader(out).ReadString('\n'); err != nil { // it says it is ready
			t.Fatal(err)
		}
		return cmd.Process.Pid
	}
	// settled reads pid until its main thread is in the state want says
	// (a process just past its print is still on its way into poll).
	settled := func(t *testing.T, pid int, want func(idleness) bool) idleness {
		t.Helper()
		var s idleness
		for range 200 {
			var ok bool
			if s, ok = readIdleness(pid); !ok {
				t.Fatalf("pid %d: idleness unread", pid)
			}
			if want(s) {
				return s
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatalf("pid %d never settled: last %+v", pid, s)
		return s
	}
	const loop = "import select, sys, os\nprint('ready', flush=True)\nwhile True:\n    select.poll().poll(%s)\n"

	t.Run("poll-forever", func(t *testing.T) {
		pid := start(t, strings.Replace(loop, "%s", "-1", 1))
		s := settled(t, pid, func(s idleness) bool { return s.timer < 0 })
		if !s.asleep(time.Second) || s.runs {
			t.Fatalf("a process in poll(-1) is not asleep: %+v", s)
		}
		again, _ := readIdleness(pid)
		if again.cpu != s.cpu {
			t.Fatalf("a process asleep in poll ran: %d → %d ns", s.cpu, again.cpu)
		}
	})
	t.Run("timer", func(t *testing.T) {
		pid := start(t, strings.Replace(loop, "%s", "800", 1))
		s := settled(t, pid, func(s idleness) bool { return s.timer > 0 })
		if s.timer != 800*time.Millisecond {
			t.Fatalf("poll(800) read as a timer of %v", s.timer)
		}
		if !s.asleep(500*time.Millisecond) || s.asleep(pendingHorizon) {
			t.Fatalf("a timer due in 800 ms: asleep beyond 500 ms %v, beyond %v %v", s.asleep(500*time.Millisecond), pendingHorizon, s.asleep(pendingHorizon))
		}
	})
	t.Run("busy-child", func(t *testing.T) {
		pid := start(t, "import os, select\nif os.fork() == 0:\n    while True: pass\nprint('ready', flush=True)\nselect.poll().poll(-1)\n")
		s := settled(t, pid, func(s idleness) bool { return s.timer < 0 })
		time.Sleep(50 * time.Millisecond)
		again, _ := readIdleness(pid)
		if again.cpu <= s.cpu {
			t.Fatalf("a tree whose child spins did not run: %d → %d ns", s.cpu, again.cpu)
		}
	})
}
