package cdp

import (
	"errors"
	"fmt"
)

// ErrClosed is returned by calls on a connection that has closed (the
// browser exited, or Close was called).
var ErrClosed = errors.New("cdp: connection closed")

// ErrSessionGone is returned by calls on a session whose target closed or
// detached.
var ErrSessionGone = errors.New("cdp: session ended")

// Error is an error the browser returned for a command: the CDP (JSON-RPC)
// code and message, and the method that failed.
type Error struct {
	Method  string
	Code    int64
	Message string
	Data    string // the optional "data" member, often empty
}

func (e *Error) Error() string {
	s := fmt.Sprintf("cdp: %s: %s (%d)", e.Method, e.Message, e.Code)
	if e.Data != "" {
		s += ": " + e.Data
	}
	return s
}

// CDP error codes (JSON-RPC 2.0 plus the server-error range Chromium uses).
const (
	codeServerError   = -32000 // a command failed ("No node with given id found", …)
	codeInvalidParams = -32602
	codeNoSession     = -32001 // "Session with given id not found."
)

// asError finds a browser *Error in err's chain.
func asError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}
