package xvfb

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// MarkerVar is the environment variable every process of a Desktop carries:
// VIBESPACE_TESTENV=<Desktop.ID>.
const MarkerVar = "VIBESPACE_TESTENV"

// markerVar is MarkerVar, as this package's files spell it.
const markerVar = MarkerVar

// MarkedPIDs returns the PIDs of live processes whose environment holds
// VIBESPACE_TESTENV=id (id "" matches any testenv marker). Zombies are
// skipped: they are dead, merely not yet reaped by their (adoptive) parent.
func MarkedPIDs(id string) []int {
	want := []byte(markerVar + "=" + id)
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		if envHas(pid, want, id == "") && alive(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// envHas reports whether pid's environment holds the entry want (or, with
// prefix, an entry starting with want).
func envHas(pid int, want []byte, prefix bool) bool {
	env, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "environ"))
	if err != nil {
		return false
	}
	for _, kv := range bytes.Split(env, []byte{0}) {
		if prefix && bytes.HasPrefix(kv, want) || !prefix && bytes.Equal(kv, want) {
			return true
		}
	}
	return false
}

// hasMarker reports whether pid's environment carries the marker id.
func hasMarker(pid int, id string) bool {
	return envHas(pid, []byte(markerVar+"="+id), false)
}

// stat is what /proc/<pid>/stat says of a live process: its parent and its
// process group. ok is false for a process that is gone or a zombie.
func stat(pid int) (ppid, pgid int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// pid (comm) state ppid pgrp …; comm may hold spaces and parens.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 3 || f[0][0] == 'Z' || f[0][0] == 'X' {
		return 0, 0, false
	}
	ppid, _ = strconv.Atoi(string(f[1]))
	pgid, _ = strconv.Atoi(string(f[2]))
	return ppid, pgid, true
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	_, _, ok := stat(pid)
	return ok
}

// ProcName is the command name of pid, for messages.
func ProcName(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(b))
}

// terminate sends SIGTERM to each pid, waits up to grace for them to die,
// then SIGKILLs the rest and waits again (bounded). It returns the PIDs that
// are still alive at the end.
func terminate(pids []int, grace time.Duration) []int {
	if len(pids) == 0 {
		return nil
	}
	for _, p := range pids {
		_ = syscall.Kill(p, syscall.SIGTERM)
	}
	if rest := waitDead(pids, grace); len(rest) == 0 {
		return nil
	}
	for _, p := range pids {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
	return waitDead(pids, 5*time.Second)
}

// waitDead polls until every pid is gone or a zombie, or until d passes.
func waitDead(pids []int, d time.Duration) []int {
	deadline := time.Now().Add(d)
	for {
		var rest []int
		for _, p := range pids {
			if alive(p) {
				rest = append(rest, p)
			}
		}
		if len(rest) == 0 || time.Now().After(deadline) {
			return rest
		}
		time.Sleep(10 * time.Millisecond)
	}
}

var errLeft = errors.New("xvfb: processes left behind")

// Owns reports whether process pid belongs to this desktop: it carries the
// desktop's marker. A PID that was reused by an unrelated process does not,
// and is never ours to signal.
func (d *Desktop) Owns(pid int) bool {
	return pid > 0 && d.ID != "" && alive(pid) && hasMarker(pid, d.ID)
}
