package daemoncall

import (
	"encoding/json"
	"errors"
	"net"
	"strconv"
	"syscall"
	"testing"
)

// TestPortFree: a port a listener holds on 127.0.0.1 (or on every
// address) is taken, EADDRINUSE; once closed it is free, and the test
// bind leaves nothing behind.
func TestPortFree(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:0", "0.0.0.0:0"} {
		ln, err := net.Listen("tcp4", addr)
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		if err := portFree(port); !errors.Is(err, syscall.EADDRINUSE) {
			t.Fatalf("port %d held by a listener on %s: portFree said %v, want EADDRINUSE", port, addr, err)
		}
		ln.Close()
		if err := portFree(port); err != nil {
			t.Fatalf("port %d after its listener closed: %v", port, err)
		}
		// Nothing of the test bind stays: the port can be listened on.
		ln, err = net.Listen("tcp4", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			t.Fatalf("port %d after portFree: %v", port, err)
		}
		ln.Close()
	}
}

// TestFactPort reads a port fact as it comes out of JSON, and nothing else.
func TestFactPort(t *testing.T) {
	var facts map[string]any
	if err := json.Unmarshal([]byte(`{"p": 41234, "big": 70000, "neg": -1, "frac": 80.5, "s": "80"}`), &facts); err != nil {
		t.Fatal(err)
	}
	if p, ok := factPort(facts["p"]); !ok || p != 41234 {
		t.Fatalf("factPort(41234) = %d %v", p, ok)
	}
	for _, k := range []string{"big", "neg", "frac", "s", "missing"} {
		if p, ok := factPort(facts[k]); ok {
			t.Errorf("factPort(%v) = %d, want none", facts[k], p)
		}
	}
}
