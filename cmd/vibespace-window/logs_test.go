package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDaemonLogIsBounded: the daemon a command line starts writes its log
// to daemon.log, rotated at a size bound (VIBESPACE_LOG_MAX_BYTES, tiny
// here) with two old files kept, its standard error to daemon.stderr, and
// status names the files kept and where stderr goes.
func TestDaemonLogIsBounded(t *testing.T) {
	e := newEnv(t)
	const bound = 200
	e.Extra = append(e.Extra, "VIBESPACE_LOG_MAX_BYTES=200")
	for range 3 {
		e.OpenFixture("s1") // starts the daemon, then its display: lines in its log
	}
	r := e.CLI("s1", "--json", "status")
	var ans struct {
		Status map[string]any `json:"status"`
	}
	if err := json.Unmarshal([]byte(r.Out), &ans); err != nil || ans.Status == nil {
		t.Fatalf("status: %v\n%s", err, r.Out)
	}
	for _, f := range []string{"daemon.log", "daemon.log.1", "daemon.log.2"} {
		st, err := os.Stat(filepath.Join(e.Home, f))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if b, _ := os.ReadFile(filepath.Join(e.Home, f)); st.Size() > bound && strings.Count(string(b), "\n") > 1 {
			t.Fatalf("%s is %d bytes, past the bound of %d:\n%s", f, st.Size(), bound, b)
		}
	}
	if _, err := os.Stat(filepath.Join(e.Home, "daemon.log.3")); err == nil {
		t.Fatal("a third old daemon.log was kept")
	}
	if _, err := os.Stat(filepath.Join(e.Home, "daemon.stderr")); err != nil {
		t.Fatalf("daemon.stderr: %v", err)
	}
	kept, _ := json.Marshal(ans.Status["kept"])
	if !strings.Contains(string(kept), `"daemon.log","daemon.log.1","daemon.log.2"`) || !strings.Contains(string(kept), `"audit.jsonl"`) {
		t.Fatalf("status names the files kept as %s", kept)
	}
	if ans.Status["stderr"] != "daemon.stderr" {
		t.Fatalf("status names stderr %v", ans.Status["stderr"])
	}
	if out := e.OK("s1", "status"); !strings.Contains(out, "daemon.log.1") || !strings.Contains(out, "daemon.stderr") {
		t.Fatalf("status:\n%s", out)
	}
}
