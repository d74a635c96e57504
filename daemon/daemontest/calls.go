package daemontest

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/vibespace/vibespace/daemon"
)

// Calls records the methods of the commands a browser pool sends to its
// browsers (its Options.Calls hook, Add): what the tests named
// Test…RoundTrips count per verb. Proto names the protocol in what they
// say ("CDP", "BiDi"). Safe for concurrent use.
type Calls struct {
	Proto string

	mu      sync.Mutex
	methods []string
}

// Add records one command's method.
func (c *Calls) Add(method string) {
	c.mu.Lock()
	c.methods = append(c.methods, method)
	c.mu.Unlock()
}

// Count calls r on s, which must answer OK, logs the commands it cost and
// fails the test unless they are budget many.
func (c *Calls) Count(t *testing.T, s *Served, what string, r daemon.Request, budget int) daemon.Response {
	t.Helper()
	c.mu.Lock()
	from := len(c.methods)
	c.mu.Unlock()
	resp := s.OK(t, r)
	c.mu.Lock()
	got := slices.Clone(c.methods[from:])
	c.mu.Unlock()
	eff := ""
	if resp.Effect != nil {
		eff = " → " + string(resp.Effect.Word)
	}
	t.Logf("%s: %d %s commands%s: %s", what, len(got), c.Proto, eff, strings.Join(got, " "))
	if len(got) != budget {
		t.Errorf("%s sent %d %s commands, its budget is %d: a change of the budget is said where it is set", what, len(got), c.Proto, budget)
	}
	return resp
}
