package rtc_test

import (
	"io"
	"log/slog"
	"sync"
	"testing"

	"github.com/vibespace/vibespace/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// testLogger logs to the test's output (debug with -v). pion's goroutines
// may still log while a test ends: what comes after is dropped.
func testLogger(t testing.TB) *slog.Logger {
	level := slog.LevelInfo
	if testing.Verbose() {
		level = slog.LevelDebug
	}
	w := &endingWriter{w: t.Output()}
	t.Cleanup(func() {
		w.mu.Lock()
		w.done = true
		w.mu.Unlock()
	})
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}

// endingWriter writes to w until done.
type endingWriter struct {
	mu   sync.Mutex
	w    io.Writer
	done bool
}

func (e *endingWriter) Write(p []byte) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.done {
		return len(p), nil
	}
	return e.w.Write(p)
}
