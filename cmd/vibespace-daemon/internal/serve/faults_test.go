package serve

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenLogCannotWrite (issue 35): a daemon.log that cannot be opened
// (here its directory is a file; in life a read-only state directory)
// does not stop the daemon: it logs to its standard error, and says so
// there.
func TestOpenLogCannotWrite(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "state")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	l, err := openLog(blocker, &stderr, func(string) string { return "" })
	if err != nil {
		t.Fatalf("openLog refused: %v", err)
	}
	defer l.file.Close()
	if _, err := l.w.Write([]byte("a line\n")); err != nil {
		t.Fatal(err)
	}
	if s := stderr.String(); !strings.Contains(s, "daemon.log cannot be written") || !strings.Contains(s, "a line") {
		t.Fatalf("stderr: %q", s)
	}
}
