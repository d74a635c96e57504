package testenv_test

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vibespace/vibespace/testenv"
)

// syncBuf is a buffer a subprocess writes while the test reads.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The person's input comes from its own master's XTEST slaves, as xinput
// (the X.Org tool, not our watcher) reports the raw events' sourceid; and
// Close removes the master.
func TestPerson(t *testing.T) {
	testenv.NeedIntegration(t, "xinput")
	d := testenv.NewDesktop(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	p, err := testenv.NewPerson(ctx, d.Display, "")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Keyboard != p.Name+" XTEST keyboard" || p.Pointer != p.Name+" XTEST pointer" {
		t.Fatalf("person %q has devices %q and %q", p.Name, p.Keyboard, p.Pointer)
	}

	var out syncBuf
	cmd := exec.CommandContext(ctx, "xinput", "test-xi2", "--root")
	cmd.Env = d.Env()
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()

	// xinput says nothing when it is ready: act until it has seen both.
	key := fmt.Sprintf("(%d)", p.KeyboardID)
	ptr := fmt.Sprintf("(%d)", p.PointerID)
	seen := func(evtype, src string) bool {
		for _, ev := range strings.Split(out.String(), "EVENT type")[1:] {
			if strings.Contains(ev, evtype) && strings.Contains(ev, "device: ") && strings.Contains(strings.SplitN(strings.SplitN(ev, "device: ", 2)[1], "\n", 2)[0], src) {
				return true
			}
		}
		return false
	}
	for i := 0; !seen("(RawKeyPress)", key) || !seen("(RawMotion)", ptr); i++ {
		if ctx.Err() != nil {
			t.Fatalf("xinput never saw the person's key from %s and motion from %s:\n%s", key, ptr, out.String())
		}
		if err := p.Key(ctx, 'a'); err != nil {
			t.Fatal(err)
		}
		if err := p.Move(ctx, 10+i%100, 10); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if seen("(RawKeyPress)", "(5)") {
		t.Errorf("the person's key came from the core XTEST keyboard too:\n%s", out.String())
	}

	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	cmdList := exec.CommandContext(ctx, "xinput", "list", "--name-only")
	cmdList.Env = d.Env()
	names, err := cmdList.Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(names), p.Name) {
		t.Errorf("after Close the server still lists %q:\n%s", p.Name, names)
	}
}
