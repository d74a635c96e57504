package livebench

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// usage is CPU time and proportional memory of a set of processes.
type usage struct {
	CPU time.Duration
	Pss int64 // bytes
}

func (u usage) sub(v usage) usage { return usage{CPU: u.CPU - v.CPU, Pss: u.Pss - v.Pss} }

// selfUsage is this process's user+system CPU time and PSS.
func selfUsage() usage {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return usage{CPU: time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), Pss: pss(os.Getpid())}
}

// procsUsage sums the CPU time and PSS of pids (from /proc).
func procsUsage(pids []int) usage {
	var u usage
	for _, p := range pids {
		u.CPU += procCPU(p)
		u.Pss += pss(p)
	}
	return u
}

// statFields are the fields of /proc/pid/stat after the command name.
func statFields(pid int) []string {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(string(data[i+1:]))
}

// procCPU is utime+stime of pid (clock ticks of 10 ms on Linux).
func procCPU(pid int) time.Duration {
	f := statFields(pid)
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// pss is pid's proportional set size in bytes.
func pss(pid int) int64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/smaps_rollup")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "Pss:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// sessionProcs lists the live processes of session sid (a daemon that
// called setsid and everything it started).
func sessionProcs(sid int) []int {
	return procsWhere(func(pid int, f []string) bool {
		s, _ := strconv.Atoi(f[3])
		return s == sid
	})
}

// procsWhere lists the live (not zombie) processes whose stat fields match.
func procsWhere(match func(pid int, f []string) bool) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		f := statFields(pid)
		if len(f) < 13 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if match(pid, f) {
			out = append(out, pid)
		}
	}
	return out
}

// procsMentioning lists the live processes whose command line or
// environment holds s (a temp dir of ours: the helpers a browser detaches,
// like crashpad, are found by it).
func procsMentioning(s string) []int {
	want := []byte(s)
	return procsWhere(func(pid int, _ []string) bool {
		for _, f := range []string{"cmdline", "environ"} {
			if data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/" + f); err == nil && bytes.Contains(data, want) {
				return true
			}
		}
		return false
	})
}

// sendQueue sums the bytes waiting in the kernel send queues of the
// established IPv4 TCP sockets bound to local port (from /proc/net/tcp):
// what a stream server has written that has not yet left.
func sendQueue(port int) int {
	data, err := os.ReadFile("/proc/net/tcp")
	if err != nil {
		return -1
	}
	total := 0
	for i, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if i == 0 || len(f) < 5 || f[3] != "01" { // 01: established
			continue
		}
		_, lp, ok := strings.Cut(f[1], ":")
		if p, err := strconv.ParseInt(lp, 16, 64); !ok || err != nil || int(p) != port {
			continue
		}
		tx, _, _ := strings.Cut(f[4], ":")
		if n, err := strconv.ParseInt(tx, 16, 64); err == nil {
			total += int(n)
		}
	}
	return total
}
