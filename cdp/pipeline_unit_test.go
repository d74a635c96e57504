package cdp

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

// Pipelined commands reach the browser in the order they were sent, and
// each reply reaches its own waiter, whatever order they are read in.
func TestConnPipelineOrder(t *testing.T) {
	var mu sync.Mutex
	var got []string
	_, c := newFakeBrowser(t, func(m wireMsg, send func(wireMsg)) {
		mu.Lock()
		got = append(got, string(m.Params))
		mu.Unlock()
		send(wireMsg{ID: m.ID, Result: m.Params})
	})
	ctx := t.Context()
	var sent []*inflight
	var want []string
	for i := range 50 {
		p := map[string]int{"n": i}
		want = append(want, `{"n":`+strconv.Itoa(i)+`}`)
		f, err := c.send(ctx, "", nil, "Echo.it", p)
		if err != nil {
			t.Fatal(err)
		}
		sent = append(sent, f)
	}
	for i := len(sent) - 1; i >= 0; i-- { // read back to front
		var out struct {
			N int `json:"n"`
		}
		if err := c.wait(ctx, nil, sent[i], &out); err != nil || out.N != i {
			t.Fatalf("reply %d: %+v, %v", i, out, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(got, want) {
		t.Fatalf("the browser got %v", got)
	}
}

// countdownCtx is a context that ends after its Err has been asked a set
// number of times: a cancellation at every point where the code looks.
type countdownCtx struct {
	context.Context
	mu   sync.Mutex
	left int
	once sync.Once
	done chan struct{}
}

func newCountdownCtx(t *testing.T, n int) *countdownCtx {
	inner, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	c := &countdownCtx{Context: inner, left: n, done: make(chan struct{})}
	go func() {
		select {
		case <-inner.Done():
			c.once.Do(func() { close(c.done) })
		case <-c.done:
		}
	}()
	return c
}

func (c *countdownCtx) Done() <-chan struct{} { return c.done }

func (c *countdownCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.left == 0 {
		c.once.Do(func() { close(c.done) })
		return context.Canceled
	}
	c.left--
	return c.Context.Err()
}

// inputTab is a Tab on a fake browser that logs the input events it gets,
// in wire order, and answers each at once.
func inputTab(t *testing.T) (*Tab, func() []string) {
	var mu sync.Mutex
	var log []string
	_, c := newFakeBrowser(t, func(m wireMsg, send func(wireMsg)) {
		var p struct {
			Type string `json:"type"`
		}
		if err := jsonv2.Unmarshal(m.Params, &p); err == nil {
			mu.Lock()
			log = append(log, p.Type)
			mu.Unlock()
		}
		send(wireMsg{ID: m.ID, Result: jsonv2.Value(`{}`)})
	})
	s := &Session{conn: c, id: "S1", targetID: "T1", gone: make(chan struct{})}
	tab := &Tab{sess: s}
	// drain returns the events logged since the last drain, once the fake
	// has answered everything sent (a final round trip flushes the log).
	drain := func() []string {
		if err := s.Call(t.Context(), "Flush.log", nil, nil); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		out := log
		log = nil
		return out
	}
	return tab, drain
}

// A click cancelled at any point either sends nothing, or stops before the
// press, or sends the release after the press: the button is never left
// held, and a click that did not go out whole reports the cancellation.
func TestClickAtCancelledNeverHoldsButton(t *testing.T) {
	tab, drain := inputTab(t)
	full := []string{"mouseMoved", "mousePressed", "mouseReleased"}
	seen := map[int]bool{}
	for k := range 8 {
		err := tab.ClickAt(newCountdownCtx(t, k), Point{10, 20})
		got := drain()
		switch {
		case slices.Equal(got, full):
			if err != nil && !errors.Is(err, context.Canceled) {
				t.Fatalf("k=%d: whole click, err = %v", k, err)
			}
		case len(got) == 0 || slices.Equal(got, full[:1]):
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("k=%d: click cut short (%v) but err = %v", k, got, err)
			}
		default:
			t.Fatalf("k=%d: the browser got %v", k, got)
		}
		seen[len(got)] = true
	}
	for _, n := range []int{0, 1, 3} {
		if !seen[n] {
			t.Errorf("no cancellation point left %d of the click's events; the test covers less than it should", n)
		}
	}
}

// Likewise a key press: a key down sent is always followed by its key up.
func TestPressCancelledNeverHoldsKey(t *testing.T) {
	tab, drain := inputTab(t)
	seen := map[int]bool{}
	for k := range 6 {
		err := tab.press(newCountdownCtx(t, k), 0, runeKey('a'))
		got := drain()
		switch {
		case slices.Equal(got, []string{"keyDown", "keyUp"}):
		case len(got) == 0:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("k=%d: nothing sent but err = %v", k, err)
			}
		default:
			t.Fatalf("k=%d: the browser got %v", k, got)
		}
		seen[len(got)] = true
	}
	if !seen[0] || !seen[2] {
		t.Errorf("outcomes seen %v; the test covers less than it should", seen)
	}
}
