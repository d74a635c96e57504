// Package linetail keeps the last lines of a stream — a child process's
// standard error — for the error that says why the child failed.
package linetail

import (
	"strings"
	"sync"
)

// Tail keeps the last n lines added; safe for concurrent use.
type Tail struct {
	mu    sync.Mutex
	n     int
	lines []string
}

// New keeps the last n lines.
func New(n int) *Tail { return &Tail{n: n} }

// Add keeps line, forgetting the oldest past n.
func (t *Tail) Add(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, line)
	if len(t.lines) > t.n {
		t.lines = t.lines[len(t.lines)-t.n:]
	}
}

// String is the lines kept, oldest first, one per line.
func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.lines, "\n")
}
