package bidi

import (
	"errors"
	"fmt"
)

// ErrClosed is returned by calls on a connection that has ended (the
// browser exited or was killed, or Close was called).
var ErrClosed = errors.New("bidi: connection closed")

// ErrNoIsolation is wrapped by Launch's error when the browser cannot be
// put in a network namespace of its own (no user namespaces here): the
// browser is then not started at all, rather than with a port another
// user could reach.
var ErrNoIsolation = errors.New("bidi: no network namespace for the browser")

// Error is an error the browser returned for a command: BiDi's error code
// (a string of the spec's table: "no such frame", "invalid argument",
// "unknown command", "no such element", …), its message, and the method
// that failed.
type Error struct {
	Method     string
	Code       string
	Message    string
	Stacktrace string
}

func (e *Error) Error() string {
	return fmt.Sprintf("bidi: %s: %s: %s", e.Method, e.Code, e.Message)
}

// BiDi error codes this package's callers test for.
const (
	CodeInvalidArgument  = "invalid argument"
	CodeNoSuchFrame      = "no such frame"
	CodeNoSuchNode       = "no such node"
	CodeUnknownCommand   = "unknown command"
	CodeUnknownError     = "unknown error"
	CodeUnsupportedOp    = "unsupported operation"
	CodeNoSuchUserCtx    = "no such user context"
	CodeJavascriptError  = "javascript error" // script.* with a thrown exception: see ScriptError instead
	CodeSessionNotCreate = "session not created"
)

// ErrorCode is err's BiDi error code, or "" when err is not the browser's.
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// ScriptError is a script.evaluate or script.callFunction whose script
// threw (BiDi answers it as a success of type "exception").
type ScriptError struct {
	Text       string // the exception's text (exceptionDetails.text)
	LineNumber int
}

func (e *ScriptError) Error() string { return "bidi: script threw: " + e.Text }
