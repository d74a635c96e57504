package daemoncall

import (
	"errors"
	"fmt"
	"github.com/vibespace/vibespace/daemon/wire"
	"io"
)

// Exit codes.
const (
	ExitOK      = 0
	ExitRefused = 1 // the daemon refused the verb (a typed refusal)
	ExitUsage   = 2 // bad usage or an internal error
)

// Env is what a command reads from its environment; main passes
// os.Getenv, tests a map.
type Env func(string) string

// Options wire a command line: its name, where it writes, its environment,
// and where it runs from (the daemon, vibespace-daemon, is looked for
// beside it).
type Options struct {
	// Name is the program's name in messages ("vibespace-window").
	Name           string
	Stdout, Stderr io.Writer
	// Stdin is where key set reads a provider's key; nil means none is
	// given (key set then refuses).
	Stdin  io.Reader
	Getenv Env
	// Executable is this program's path: vibespace-daemon is looked for in
	// its directory first, then on PATH.
	Executable string
	// FindExecutable gives Executable when it is empty (main passes
	// os.Executable); it is called only to find the daemon, not on every
	// call.
	FindExecutable func() (string, error)
	// Capture, when set, takes the request a command would send, checked
	// (args.Check), instead of sending it: batch reads each of its lines
	// through the command line's own commands so (batch.go). A command
	// that would call the daemon another way is refused.
	Capture func(wire.Request)
}

// ExitError carries an exit code and its message up to ExitCode.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// Usage is a bad-usage error (exit 2).
func Usage(format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, args...)}
}

// Internal is an error of ours or of reaching the daemon (exit 2).
func Internal(err error) error { return &ExitError{Code: ExitUsage, Err: err} }

// Printed is an error whose words were already printed; only its exit code
// remains.
type Printed struct{ Code int }

func (e Printed) Error() string { return fmt.Sprintf("exit %d", e.Code) }

// ExitCode maps the error of a command to its exit code, printing what was
// not printed yet as "<name>: <message>" on stderr.
func ExitCode(err error, name string, stderr io.Writer) int {
	if err == nil {
		return ExitOK
	}
	var p Printed
	if errors.As(err, &p) {
		return p.Code
	}
	var e *ExitError
	if errors.As(err, &e) {
		fmt.Fprintf(stderr, "%s: %v\n", name, e.Err)
		return e.Code
	}
	fmt.Fprintf(stderr, "%s: %v\n", name, err)
	return ExitUsage
}
