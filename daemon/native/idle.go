package native

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"time"
)

// An application that did what an act asked and has nothing more to do
// is idle: none of its threads (nor those of the processes it started)
// ran or waits to run, and its main thread sleeps in its event loop's
// wait with no timer due soon — and so is the X server it talks to, which
// may hold a request of it still unanswered (a window to map, whose
// answer wakes the application again). That is when the wait for an act's
// effect may end early instead of at its deadline: a window tells its
// changes by events (changes.go), and an application with nothing to run
// will send none. It is read from /proc, the processes' own account,
// which costs them nothing: each thread's run time (schedstat, in ns) and
// state (stat: runnable or not), and the main thread's system call with
// its arguments (syscall: a poll's timeout). Where any of it cannot be
// read (another host's process, the person's own X server, a kernel
// without schedstat, a toolkit that waits in a call whose timeout /proc
// does not show, an architecture whose numbers this file does not know),
// idleness is unknown and the wait runs to its deadline, as it did
// before.

// idleness is one reading of an application's processes.
type idleness struct {
	cpu uint64 // ns every thread of the process and its descendants ran
	// runs: one of those threads runs, or is woken and waits for a CPU
	// (R), or sleeps in the kernel on a disk (D).
	runs bool
	// timer is how long the main thread's wait may last before a timer
	// wakes it: -1 none (it waits for input alone); 0 it does not wait
	// (it runs, or is in another call).
	timer time.Duration
	known bool // the main thread's wait could be read
}

// asleep reports whether the main thread waits for input with no timer
// due within horizon, and no thread runs.
func (s idleness) asleep(horizon time.Duration) bool {
	return s.known && !s.runs && (s.timer < 0 || s.timer > horizon)
}

// readIdleness reads pid's idleness; false where /proc does not tell it.
func readIdleness(pid int) (idleness, bool) {
	if pid <= 0 || pollSyscall < 0 {
		return idleness{}, false
	}
	var s idleness
	timer, ok := mainWait(pid)
	if !ok {
		return idleness{}, false
	}
	s.timer, s.known = timer, true
	seen := map[int]bool{}
	var walk func(p int) bool
	walk = func(p int) bool {
		if seen[p] || len(seen) > 256 {
			return true
		}
		seen[p] = true
		tasks, err := os.ReadDir("/proc/" + strconv.Itoa(p) + "/task")
		if err != nil {
			return p != pid // a child that just exited ran no more
		}
		for _, t := range tasks {
			dir := "/proc/" + strconv.Itoa(p) + "/task/" + t.Name()
			b, err := os.ReadFile(dir + "/schedstat")
			if err != nil {
				continue // a thread that just ended
			}
			f := bytes.Fields(b)
			if len(f) == 0 {
				return false
			}
			n, err := strconv.ParseUint(string(f[0]), 10, 64)
			if err != nil {
				return false
			}
			s.cpu += n
			if st, err := os.ReadFile(dir + "/stat"); err == nil {
				// pid (comm) state …: comm may hold anything, the
				// state follows its last ')'.
				if i := bytes.LastIndexByte(st, ')'); i >= 0 && i+2 < len(st) && (st[i+2] == 'R' || st[i+2] == 'D') {
					s.runs = true
				}
			}
			kids, err := os.ReadFile(dir + "/children")
			if err != nil {
				continue
			}
			for _, k := range bytes.Fields(kids) {
				if c, err := strconv.Atoi(string(k)); err == nil && !walk(c) {
					return false
				}
			}
		}
		return true
	}
	if !walk(pid) {
		return idleness{}, false
	}
	return s, true
}

// mainWait reads the main thread's system call: the timeout of a poll or
// epoll_wait it sleeps in (-1: none), 0 when it runs or is in another
// call; false when the file cannot be read or says nothing known.
func mainWait(pid int) (time.Duration, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/syscall")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, false
	}
	if f[0] == "running" {
		return 0, true
	}
	nr, err := strconv.Atoi(f[0])
	if err != nil || nr < 0 {
		return 0, true // blocked outside a system call (a page fault): not waiting
	}
	arg := -1
	switch nr {
	case pollSyscall:
		arg = 3 // poll(fds, nfds, timeout)
	case epollWaitSyscall, epollPwaitSyscall:
		arg = 4 // epoll_wait(epfd, events, maxevents, timeout)
	default:
		return 0, true
	}
	if len(f) <= arg {
		return 0, false
	}
	v, err := strconv.ParseUint(strings.TrimPrefix(f[arg], "0x"), 16, 64)
	if err != nil {
		return 0, false
	}
	ms := int32(uint32(v)) // an int in the call: 0xffffffff is -1
	if ms < 0 {
		return -1, true
	}
	return time.Duration(ms) * time.Millisecond, true
}
