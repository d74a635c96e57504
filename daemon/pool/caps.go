package pool

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// The cap's defaults. DefaultPerDesk is a desktop's memory in use (its
// processes' proportional sets, RSS), measured on this project's machine
// by TestMeasureRSS (README, "A pool of desktops"): an Xvfb desktop with
// its buses and accessibility registry, and a headed Chromium on it
// drawing a page, 274 MiB, rounded up. DefaultMargin leaves the rest of
// the free memory to the daemon, the shared browser and everything else.
//
// DefaultPerContext is what one session's context more in the shared
// browser takes, measured by the same test: 84 MiB with a blank page, 78
// drawing one, rounded up. It caps the shared browser's contexts
// (ContextCap).
const (
	DefaultPerDesk    = 280 << 20
	DefaultPerContext = 90 << 20
	DefaultMargin     = 0.5
)

// ContextCap is how many sessions' contexts the shared browser may hold:
// floor(free × margin / perContext), DefaultPerContext for 0, at least
// one; and how it was derived.
func ContextCap(free func() (int64, error), margin float64, perContext int64) (int, string) {
	if perContext == 0 {
		perContext = DefaultPerContext
	}
	if margin <= 0 {
		margin = DefaultMargin
	}
	n, why := Cap(math.MaxInt32, free, margin, perContext)
	if n < 1 { // one session may always browse
		return 1, why + ", at least 1"
	}
	return n, why
}

// Cap is how many of desks may be lent at once: floor(free × margin /
// perUnit), at most desks; and the words that say how it was derived.
// Memory that cannot be read caps nothing (desks), said so.
func Cap(desks int, free func() (int64, error), margin float64, perUnit int64) (int, string) {
	if perUnit <= 0 {
		return desks, fmt.Sprintf("%d (no figure of what one takes: %d bytes)", desks, perUnit)
	}
	f, err := free()
	if err != nil {
		return desks, fmt.Sprintf("%d (the free memory could not be read: %v)", desks, err)
	}
	n := int(math.Floor(float64(f) * margin / float64(perUnit)))
	why := fmt.Sprintf("floor(%d MiB free × %.2f / %d MiB each) = %d", f>>20, margin, perUnit>>20, n)
	if n > desks {
		return desks, why + fmt.Sprintf(", at most the pool's %d", desks)
	}
	return max(n, 0), why
}

// MemAvailable is /proc/meminfo's MemAvailable, in bytes.
func MemAvailable() (int64, error) { return meminfo("MemAvailable") }

func meminfo(field string) (int64, error) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || k != field {
			continue
		}
		fs := strings.Fields(v)
		if len(fs) == 0 {
			break
		}
		kb, err := strconv.ParseInt(fs[0], 10, 64)
		if err != nil {
			return 0, err
		}
		return kb << 10, nil
	}
	return 0, fmt.Errorf("/proc/meminfo has no %s", field)
}

// RSS is the memory pids hold together, in bytes: each one's proportional
// set (Pss of /proc/<pid>/smaps_rollup: its resident pages, a page shared
// with other processes counted as its share), else its VmRSS where the
// kernel gives no rollup. A PID that ended counts nothing. Summing VmRSS
// over a browser's processes would count its shared libraries once per
// process.
func RSS(pids []int) int64 {
	var sum int64
	for _, p := range pids {
		dir := "/proc/" + strconv.Itoa(p) + "/"
		if v, ok := field(dir+"smaps_rollup", "Pss:"); ok {
			sum += v
		} else if v, ok := field(dir+"status", "VmRSS:"); ok {
			sum += v
		}
	}
	return sum
}

// field is the kB figure of the line starting with name in file, in bytes.
func field(file, name string) (int64, bool) {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, name); ok {
			if fs := strings.Fields(v); len(fs) > 0 {
				kb, err := strconv.ParseInt(fs[0], 10, 64)
				return kb << 10, err == nil
			}
		}
	}
	return 0, false
}
