package native

import (
	"bytes"
	"fmt"
	"os"
)

// markerVar is the environment variable testenv gives every process of a
// desktop: VIBESPACE_TESTENV=<desktop id>.
const markerVar = "VIBESPACE_TESTENV"

// marked reports whether process pid carries the marker of desktop id in
// its environment. A PID that was reused by an unrelated process does not,
// and is never ours to signal. An unreadable environment counts as not
// marked.
func marked(pid int, id string) bool {
	if pid <= 0 || id == "" {
		return false
	}
	env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		return false
	}
	want := []byte(markerVar + "=" + id)
	for _, kv := range bytes.Split(env, []byte{0}) {
		if bytes.Equal(kv, want) {
			return true
		}
	}
	return false
}
