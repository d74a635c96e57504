package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestDecode holds each line to what it is: a message for the SDK, the
// error answer JSON-RPC 2.0 gives it (code and id), or nothing (blank).
func TestDecode(t *testing.T) {
	for _, c := range []struct {
		line string
		code int64  // 0: a message
		id   string // the answer's id
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, 0, ""},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, 0, ""},
		{`  {"jsonrpc":"2.0","id":"a","method":"ping"}` + "\r", 0, ""},
		{`{"jsonrpc":"2.0","id":4,"result":{}}`, 0, ""}, // a client's answer to a request of ours
		{`{"jsonrpc":"2.0","id":4,"error":{"code":-1,"message":"no"}}`, 0, ""},
		{`{not json`, codeParseError, "null"},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"} {}`, codeParseError, "null"},
		{`[{"jsonrpc":"2.0","id":9,"method":"tools/list"}]`, codeInvalidRequest, "null"},
		{`[]`, codeInvalidRequest, "null"},
		{`5`, codeInvalidRequest, "null"},
		{`null`, codeInvalidRequest, "null"},
		{`{}`, codeInvalidRequest, "null"},
		{`{"jsonrpc":"2.0"}`, codeInvalidRequest, "null"},
		{`{"jsonrpc":"2.0","id":5}`, codeInvalidRequest, "5"},
		{`{"jsonrpc":"2.0","id":5,"result":{},"error":{"code":1,"message":"x"}}`, codeInvalidRequest, "5"},
		{`{"jsonrpc":"2.0","id":null,"result":{}}`, codeInvalidRequest, "null"},
		{`{"id":5,"method":"ping"}`, codeInvalidRequest, "5"},
		{`{"jsonrpc":"1.0","id":"x","method":"ping"}`, codeInvalidRequest, `"x"`},
		{`{"jsonrpc":2,"id":1,"method":"ping"}`, codeInvalidRequest, "1"},
		{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, codeInvalidRequest, "null"},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, codeInvalidRequest, "null"},
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, codeInvalidRequest, "1.5"}, // the SDK would answer it as id 1
		{`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, codeInvalidRequest, "9007199254740993"},
		{`{"jsonrpc":"2.0","id":-3,"method":"ping"}`, 0, ""},
		{`{"jsonrpc":"2.0","id":7,"method":5}`, codeInvalidRequest, "7"},
		{`{"jsonrpc":"2.0","id":7,"method":null}`, codeInvalidRequest, "7"},
		{`{"jsonrpc":"2.0","id":8,"result":{},"error":"no"}`, codeInvalidRequest, "8"}, // the SDK's own decoding refuses it
	} {
		msg, bad := decode(line{b: []byte(c.line)})
		switch {
		case c.code == 0 && (msg == nil || bad != nil):
			t.Errorf("%s: want a message, got %+v", c.line, bad)
		case c.code != 0 && (msg != nil || bad == nil):
			t.Errorf("%s: want the error %d, got the message %+v", c.line, c.code, msg)
		case c.code != 0:
			r := bad.response()
			b, err := json.Marshal(r)
			if err != nil || r.Error.Code != c.code || string(r.ID) != c.id || !strings.Contains(string(b), `"id":`+c.id) {
				t.Errorf("%s: want the error %d with id %s, got %s (%v)", c.line, c.code, c.id, b, err)
			}
		}
	}
	if msg, bad := decode(line{b: []byte(" \t\r")}); msg != nil || bad != nil {
		t.Errorf("a blank line: want nothing, got %v %v", msg, bad)
	}
	if _, bad := decode(line{tooLong: 256}); bad == nil || bad.code != codeInvalidRequest || bad.id != nil || !strings.Contains(bad.message, "256 bytes") {
		t.Errorf("a line too long: want -32600 with id null, got %+v", bad)
	}
}

// TestStdioServesOn: over pipes, a server on Stdio answers a line too long
// for it, one that is not JSON and one that is no Request, and serves the
// requests after them.
func TestStdioServesOn(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	ss, err := New(Config{Groups: AllGroups}).Connect(ctx, &Stdio{In: inR, Out: outW, MaxLine: 256}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	br := bufio.NewReader(outR)
	for _, c := range []struct {
		line string
		id   string // the answer's; "": none is due
		code int64  // the answer's error code; 0: a result
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`, "1", 0},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, "", 0},
		{`{"jsonrpc":"2.0","id":2,"method":"ping","params":{"pad":"` + strings.Repeat("x", 300) + `"}}`, "null", codeInvalidRequest},
		{``, "", 0},
		{`{not json`, "null", codeParseError},
		{`{"jsonrpc":"2.0","id":3}`, "3", codeInvalidRequest},
		{`{"jsonrpc":"2.0","id":4,"method":"ping"}` + "\r", "4", 0},
	} {
		if _, err := io.WriteString(inW, c.line+"\n"); err != nil {
			t.Fatalf("write %s: %v", c.line, err)
		}
		if c.id == "" {
			continue
		}
		l, err := readAnswer(ctx, br)
		if err != nil {
			t.Fatalf("%s: want an answer with id %s: %v", c.line, c.id, err)
		}
		var a struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *jsonrpc.Error  `json:"error"`
		}
		if err := json.Unmarshal([]byte(l), &a); err != nil || string(a.ID) != c.id ||
			(c.code == 0) != (a.Error == nil) || (a.Error != nil && a.Error.Code != c.code) {
			t.Fatalf("%s: want id %s and error code %d, got %s", c.line, c.id, c.code, l)
		}
	}
}

// TestReadLine: lines without their newline, one too long skipped to its
// end (and the next read whole), and a last line without a newline.
func TestReadLine(t *testing.T) {
	long := strings.Repeat("y", 100)
	br := bufio.NewReaderSize(strings.NewReader("a\n"+long+"\nb\r\n\nlast"), 16)
	for _, w := range []struct {
		b       string
		tooLong bool
		err     error
	}{{"a", false, nil}, {"", true, nil}, {"b\r", false, nil}, {"", false, nil}, {"last", false, io.EOF}} {
		b, tooLong, err := readLine(br, 50)
		if string(b) != w.b || tooLong != w.tooLong || err != w.err {
			t.Fatalf("want %q %v %v, got %q %v %v", w.b, w.tooLong, w.err, b, tooLong, err)
		}
	}
}

// readAnswer reads one line of out, bounded by ctx.
func readAnswer(ctx context.Context, br *bufio.Reader) (string, error) {
	type got struct {
		l   string
		err error
	}
	ch := make(chan got, 1)
	go func() {
		l, err := br.ReadString('\n')
		ch <- got{l, err}
	}()
	select {
	case g := <-ch:
		return g.l, g.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}
