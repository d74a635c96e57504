package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The JSON-RPC 2.0 answers to a line that is no message (its section 5.1).
const (
	codeParseError     = jsonrpc.CodeParseError     // -32700: the line is not JSON
	codeInvalidRequest = jsonrpc.CodeInvalidRequest // -32600: JSON, but no Request (nor Response) object
)

// Stdio is the server's transport: newline-delimited JSON-RPC on in and
// out, as the MCP stdio transport says (one message a line, no newline
// inside one). Unlike the SDK's IOTransport — whose session ends, with
// every call in flight, at the first line it cannot decode — a line that
// is no message is answered here, by us, as JSON-RPC 2.0 says (-32700 for
// one that is not JSON, -32600 for one that is no Request), and never
// reaches the SDK; the server keeps serving the lines after it.
type Stdio struct {
	In  io.ReadCloser
	Out io.WriteCloser
	// MaxLine bounds one line in bytes (0: mcp.DefaultMaxLineLength, the
	// SDK's own bound). A longer line is skipped to its end and answered
	// -32600; it is never held whole.
	MaxLine int
}

// Connect implements mcp.Transport: it starts reading In.
func (t *Stdio) Connect(context.Context) (mcp.Connection, error) {
	limit := t.MaxLine
	if limit <= 0 {
		limit = mcp.DefaultMaxLineLength
	}
	c := &stdioConn{in: t.In, out: t.Out, lines: make(chan line), closed: make(chan struct{})}
	go c.readLines(limit)
	return c, nil
}

// stdioConn is one Stdio connection (an mcp.Connection).
type stdioConn struct {
	in  io.ReadCloser
	out io.WriteCloser

	// lines carries In's lines from readLines, one at a time: reading
	// keeps in step with the SDK, so at most one line is held ahead.
	lines chan line

	writeMu sync.Mutex // one message a line: the SDK's writes and our answers never interleave

	closeOnce sync.Once
	closed    chan struct{}
	closeErr  error
}

// line is one line of In without its newline, or In's end (err: io.EOF,
// or why it could not be read).
type line struct {
	b       []byte
	tooLong int // longer than this bound (bytes): b is nil
	err     error
}

// readLines reads In into c.lines until its end, or until c is closed.
// A read of In that Close does not unblock leaves this goroutine parked
// until the process ends, as the SDK's own reader is: stdin's reads are
// not portably cancellable.
func (c *stdioConn) readLines(limit int) {
	br := bufio.NewReaderSize(c.in, 64<<10)
	for {
		b, tooLong, err := readLine(br, limit)
		if len(b) > 0 || tooLong { // the last line may end without a newline
			l := line{b: b}
			if tooLong {
				l.tooLong = limit
			}
			if !c.send(l) {
				return
			}
		}
		if err != nil {
			c.send(line{err: err})
			return
		}
	}
}

// send hands l to Read; false when c is closed.
func (c *stdioConn) send(l line) bool {
	select {
	case c.lines <- l:
		return true
	case <-c.closed:
		return false
	}
}

// readLine reads one line, without its newline; a line longer than limit
// bytes is read to its end and dropped (tooLong). err is io.EOF at In's
// end, b then the last line if it had no newline.
func readLine(br *bufio.Reader, limit int) (b []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		chunk = bytes.TrimSuffix(chunk, []byte("\n"))
		if !tooLong {
			if len(b)+len(chunk) > limit {
				b, tooLong = nil, true
			} else {
				b = append(b, chunk...)
			}
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return b, tooLong, err
		}
	}
}

// Read answers the next message for the SDK. A line that is no message is
// answered (written to Out) and skipped; a blank line is skipped.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		var l line
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case l = <-c.lines:
		}
		if l.err != nil {
			return nil, l.err
		}
		msg, bad := decode(l)
		if msg != nil {
			return msg, nil
		}
		if bad != nil {
			if err := c.answer(ctx, bad); err != nil {
				return nil, err
			}
		}
	}
}

// Write writes msg as one line; it may be called concurrently.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	return c.writeLine(data)
}

// answer writes the error answer to a line that is no message.
func (c *stdioConn) answer(ctx context.Context, bad *rejection) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := json.Marshal(bad.response())
	if err != nil {
		return err
	}
	return c.writeLine(data)
}

func (c *stdioConn) writeLine(data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.out.Write(append(data, '\n'))
	return err
}

// Close closes In and Out and unblocks Read; it may be called more than
// once, and concurrently.
func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() {
		c.closeErr = errors.Join(c.in.Close(), c.out.Close())
		close(c.closed)
	})
	return c.closeErr
}

// SessionID implements mcp.Connection: stdio has no session id.
func (c *stdioConn) SessionID() string { return "" }

// rejection is the error answer to a line that is no message: its code,
// its message, and the id it answers (nil: null, when the line had none
// that could be read, as JSON-RPC 2.0 says).
type rejection struct {
	id      json.RawMessage
	code    int64
	message string
}

// errorResponse is a JSON-RPC 2.0 error answer as it goes on the wire:
// unlike the SDK's encoding, which leaves an id it has not out, "id" is
// always there (null for a line whose id could not be read).
type errorResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   jsonrpc.Error   `json:"error"`
}

func (r *rejection) response() errorResponse {
	id := r.id
	if id == nil {
		id = json.RawMessage("null")
	}
	return errorResponse{JSONRPC: "2.0", ID: id, Error: jsonrpc.Error{Code: r.code, Message: r.message}}
}

// decode is a line as the SDK's message (msg), or as the answer it gets
// (bad), or neither for a blank line. Only what the SDK decodes reaches
// it, so that no line can end its session.
func decode(l line) (msg jsonrpc.Message, bad *rejection) {
	if l.tooLong > 0 {
		return nil, &rejection{code: codeInvalidRequest, message: fmt.Sprintf("Invalid Request: the line is longer than the %d bytes the server reads (one message a line)", l.tooLong)}
	}
	b := bytes.TrimSpace(l.b)
	if len(b) == 0 {
		return nil, nil
	}
	if !json.Valid(b) {
		return nil, &rejection{code: codeParseError, message: "Parse error: the line is not JSON (one JSON-RPC message a line)"}
	}
	switch b[0] {
	case '{':
	case '[':
		// JSON-RPC 2.0 batches: MCP 2025-06-18 removed them, and the
		// SDK's own transport ends its session at one once that version
		// is negotiated. We answer any batch, whatever the version, as
		// one Invalid Request (id null) and serve on; none of its
		// messages is run.
		return nil, &rejection{code: codeInvalidRequest, message: "Invalid Request: batches are not supported (MCP 2025-06-18 removed JSON-RPC batching): send one message a line"}
	default:
		return nil, &rejection{code: codeInvalidRequest, message: "Invalid Request: a message is a JSON object"}
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil { // valid JSON, an object: cannot fail, but is no message if it does
		return nil, &rejection{code: codeInvalidRequest, message: "Invalid Request: " + err.Error()}
	}
	id, hasID := fields["id"]
	// idOK: absent, null, a string or an integer (as MCP says: the SDK
	// would answer 1.5 as 1, and 2^53+1 as 2^53); idSome: a string or a
	// number, which an answer echoes.
	var idOK, idSome bool
	switch {
	case !hasID, string(id) == "null":
		idOK = true
	case id[0] == '"':
		idOK, idSome = true, true
	case id[0] == '-' || (id[0] >= '0' && id[0] <= '9'):
		f, err := strconv.ParseFloat(string(id), 64)
		idOK, idSome = err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53, true
	}
	r := &rejection{code: codeInvalidRequest}
	if idSome {
		r.id = id
	}
	method, hasMethod := fields["method"]
	_, hasResult := fields["result"]
	_, hasError := fields["error"]
	var version string
	switch {
	case json.Unmarshal(fields["jsonrpc"], &version) != nil || version != "2.0":
		r.message = `Invalid Request: "jsonrpc" must be "2.0"`
	case !idOK:
		r.message = `Invalid Request: "id" must be a string, an integer or null`
	case hasMethod && method[0] != '"':
		r.message = `Invalid Request: "method" must be a string`
	case !hasMethod && (!idSome || hasResult == hasError):
		// Neither a Request (it names its method) nor a Response (an id
		// and one of result and error).
		r.message = `Invalid Request: no "method"`
	}
	if r.message != "" {
		return nil, r
	}
	m, err := jsonrpc.DecodeMessage(b)
	if err != nil { // what the SDK alone refuses (as nesting beyond its bound)
		r.message = "Invalid Request: " + err.Error()
		return nil, r
	}
	return m, nil
}
