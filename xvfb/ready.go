package xvfb

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strings"
)

// ErrNoReadyLine is ReadyLine's answer for a child that exited, or closed
// its end of the pipe, before it printed its line.
var ErrNoReadyLine = errors.New("xvfb: the process printed no ready line")

// ReadyLine waits for the first line a child prints on r, the read end of
// the pipe it says it is ready on (a server's display number, a bus's
// address on --print-address=3), bounded by ctx and by exited (the
// child's end; nil when not watched). It answers the line, trimmed; an
// empty line or a closed pipe is ErrNoReadyLine, an expired ctx its
// ctx.Err(). The caller closes r, which ends the read if it is still
// waiting.
func ReadyLine(ctx context.Context, r io.Reader, exited <-chan struct{}) (string, error) {
	type res struct {
		line string
		err  error
	}
	ch := make(chan res, 1)
	go func() {
		line, err := bufio.NewReader(r).ReadString('\n')
		ch <- res{strings.TrimSpace(line), err}
	}()
	select {
	case got := <-ch:
		if got.line == "" {
			if got.err != nil && !errors.Is(got.err, io.EOF) {
				return "", errors.Join(ErrNoReadyLine, got.err)
			}
			return "", ErrNoReadyLine
		}
		return got.line, nil
	case <-exited:
		return "", ErrNoReadyLine
	case <-ctx.Done():
		return "", ctx.Err()
	}
}
