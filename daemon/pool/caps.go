package pool

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// The cap's defaults. DefaultPerDesk is a desktop's resident set in use,
// measured on this project's machine (README, "A pool of desktops"): an
// Xvfb desktop with its buses and accessibility registry, and a headed
// Chromium on it with one page. DefaultMargin leaves the rest of the free
// memory to the daemon, the shared browser and everything else.
const (
	DefaultPerDesk = 400 << 20
	DefaultMargin  = 0.5
)

// Cap is how many of desks may be lent at once: floor(free × margin /
// perUnit), at most desks; and the words that say how it was derived.
// Memory that cannot be read caps nothing (desks), said so.
func Cap(desks int, free func() (int64, error), margin float64, perUnit int64) (int, string) {
	f, err := free()
	if err != nil {
		return desks, fmt.Sprintf("%d (the free memory could not be read: %v)", desks, err)
	}
	n := int(math.Floor(float64(f) * margin / float64(perUnit)))
	why := fmt.Sprintf("floor(%d MiB free × %.2f / %d MiB a desktop) = %d", f>>20, margin, perUnit>>20, n)
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

// RSS is the resident set of pids together, in bytes (each one's VmRSS;
// a PID that ended counts nothing).
func RSS(pids []int) int64 {
	var sum int64
	for _, p := range pids {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(p) + "/status")
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
				if fs := strings.Fields(v); len(fs) > 0 {
					kb, _ := strconv.ParseInt(fs[0], 10, 64)
					sum += kb << 10
				}
			}
		}
	}
	return sum
}
