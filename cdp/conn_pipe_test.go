package cdp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

// pipeBrowser is the far end of a pipe Conn, as Chromium's
// --remote-debugging-pipe is: it reads NUL-ended commands from one pipe
// and writes whatever the test scripts to the other.
type pipeBrowser struct {
	cmds chan wireMsg // every command the Conn sent, decoded
	raw  chan []byte  // the same, as framed on the wire (NUL included)
	out  *os.File     // its replies and events (the Conn's read end)
	in   *os.File     // the Conn's commands
}

// newPipeConnT connects a Conn to a pipeBrowser; max caps one incoming
// message (0: the package's cap).
func newPipeConnT(t *testing.T, max int, read bool) (*pipeBrowser, *Conn) {
	t.Helper()
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	evR, evW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	tr := newPipeTransport(evR, cmdW)
	if max > 0 {
		tr.max = max
	}
	c := newConn(tr, DialOptions{CallTimeout: 500 * time.Millisecond})
	b := &pipeBrowser{cmds: make(chan wireMsg, 100), raw: make(chan []byte, 100), out: evW, in: cmdR}
	t.Cleanup(func() {
		c.Close()
		evW.Close()
		cmdR.Close()
	})
	if read {
		go func() {
			br := bufio.NewReader(cmdR)
			for {
				frame, err := br.ReadBytes(0)
				if err != nil {
					close(b.cmds)
					return
				}
				b.raw <- frame
				var m wireMsg
				if jsonv2.Unmarshal(frame[:len(frame)-1], &m) == nil {
					b.cmds <- m
				}
			}
		}()
	}
	return b, c
}

func (b *pipeBrowser) write(t *testing.T, s string) {
	t.Helper()
	if _, err := b.out.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func (b *pipeBrowser) command(t *testing.T) wireMsg {
	t.Helper()
	select {
	case m, ok := <-b.cmds:
		if !ok {
			t.Fatal("the Conn's command pipe closed")
		}
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("no command came")
	}
	return wireMsg{}
}

// Each command is one JSON text ended by one NUL, and a reply comes back
// to its caller.
func TestPipeFraming(t *testing.T) {
	b, c := newPipeConnT(t, 0, true)
	errc := make(chan error, 1)
	var out struct{ A int }
	go func() { errc <- c.Call(t.Context(), "Echo.it", map[string]int{"A": 7}, &out) }()
	m := b.command(t)
	frame := <-b.raw
	if frame[len(frame)-1] != 0 || bytes.IndexByte(frame[:len(frame)-1], 0) >= 0 {
		t.Fatalf("frame %q: want one JSON text and one NUL at its end", frame)
	}
	if m.Method != "Echo.it" || string(m.Params) != `{"A":7}` {
		t.Fatalf("command %+v", m)
	}
	b.write(t, `{"id":`+strconv.FormatInt(m.ID, 10)+`,"result":{"A":7}}`+"\x00")
	if err := <-errc; err != nil || out.A != 7 {
		t.Fatalf("call: %+v, %v", out, err)
	}
}

// A message that arrives in pieces (the browser's write split across our
// reads) is put back together before it is dispatched.
func TestPipeMessageSplitAcrossReads(t *testing.T) {
	b, c := newPipeConnT(t, 0, true)
	errc := make(chan error, 1)
	var out struct{ S string }
	go func() { errc <- c.Call(t.Context(), "Big.one", nil, &out) }()
	m := b.command(t)
	big := strings.Repeat("x", 3*pipeChunk+17) // longer than one read too
	msg := `{"id":` + strconv.FormatInt(m.ID, 10) + `,"result":{"S":"` + big + `"}}` + "\x00"
	from := 0
	for _, cut := range []int{1, 10, pipeChunk, 2*pipeChunk + 5, len(msg)} {
		b.write(t, msg[from:cut])
		from = cut
		time.Sleep(5 * time.Millisecond) // let the read loop take each piece alone
	}
	if err := <-errc; err != nil || out.S != big {
		t.Fatalf("call: %d bytes, %v", len(out.S), err)
	}
}

// Two messages in one read (an event and a reply written at once) are
// both dispatched, in order.
func TestPipeTwoMessagesInOneRead(t *testing.T) {
	b, c := newPipeConnT(t, 0, true)
	events, cancel := c.Subscribe("Page.thing")
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- c.Call(t.Context(), "Emit.it", nil, nil) }()
	m := b.command(t)
	b.write(t, `{"method":"Page.thing","params":{"n":1}}`+"\x00"+`{"method":"Page.thing","params":{"n":2}}`+"\x00"+`{"id":`+strconv.FormatInt(m.ID, 10)+`,"result":{}}`+"\x00")
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	for want := 1; want <= 2; want++ {
		select {
		case v := <-events:
			if string(v) != `{"n":`+strconv.Itoa(want)+`}` {
				t.Fatalf("event %d: %s", want, v)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("event %d never came", want)
		}
	}
}

// A message over the cap is refused, whether its end came in the same read
// or never comes: the Conn closes with ErrClosed (the stream cannot be
// trusted after it), and the call waiting wakes.
func TestPipeOversizedMessageRefused(t *testing.T) {
	for _, tail := range []string{`"}}` + "\x00", ""} {
		b, c := newPipeConnT(t, 1024, true)
		errc := make(chan error, 1)
		go func() { errc <- c.Call(context.Background(), "Never.answered", nil, nil) }()
		b.command(t)
		go b.out.WriteString(`{"id":1,"result":{"S":"` + strings.Repeat("y", 4096) + tail)
		select {
		case err := <-errc:
			if !errors.Is(err, ErrClosed) {
				t.Fatalf("pending call: %v, want ErrClosed", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the pending call did not wake")
		}
		if err := c.Err(); !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "over 1024") {
			t.Fatalf("Err() = %v", err)
		}
	}
}

// The browser's end closing (it exited) closes the Conn with ErrClosed:
// the call in flight wakes, later calls fail at once, subscriptions end.
func TestPipeEOFClosesConn(t *testing.T) {
	b, c := newPipeConnT(t, 0, true)
	events, cancel := c.Subscribe("Page.thing")
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- c.Call(context.Background(), "Never.answered", nil, nil) }()
	b.command(t)
	b.write(t, `{"method":"Page.thing","params":{}}`) // half a message, then EOF
	b.out.Close()
	select {
	case err := <-errc:
		if !errors.Is(err, ErrClosed) {
			t.Fatalf("pending call: %v, want ErrClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the pending call did not wake at EOF")
	}
	select {
	case <-c.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("Done not closed")
	}
	if err := c.Call(t.Context(), "Any.thing", nil, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("later call: %v, want ErrClosed", err)
	}
	for range events {
	}
	// Closing the Conn closes our command pipe: the browser sees EOF.
	c.Close()
	select {
	case _, ok := <-b.cmds:
		if ok {
			t.Fatal("a command after Close")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the command pipe is still open after Close")
	}
}

// A browser that stops reading cannot hold a writer: the write gives up at
// the call timeout and closes the Conn.
func TestPipeWriteBounded(t *testing.T) {
	_, c := newPipeConnT(t, 0, false)                         // nobody reads the commands
	big := map[string]string{"s": strings.Repeat("z", 1<<20)} // more than a pipe holds
	start := time.Now()
	// The call's own deadline is far: under load, encoding a megabyte may
	// take longer than the Conn's call timeout, and the write must still
	// be tried (and given up at that timeout) rather than skipped.
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	err := c.Call(ctx, "Stuck.write", big, nil)
	if !errors.Is(err, ErrClosed) {
		t.Fatalf("err = %v, want ErrClosed", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("the write took %v", d)
	}
	if c.Err() == nil {
		t.Fatal("the Conn is still open after a failed write")
	}
}
