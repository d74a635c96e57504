package xvfb

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// startXvfb starts Xvfb on a display it picks itself and returns when the
// server has written that display number to -displayfd, i.e. when it accepts
// connections.
func (d *Desktop) startXvfb(ctx context.Context, width, height int) error {
	bin, err := exec.LookPath("Xvfb")
	if err != nil {
		return fmt.Errorf("xvfb: Xvfb: %w", err)
	}
	if err := writeXauth(d.xauthPath()); err != nil {
		return err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	cmd := exec.Command(bin,
		"-displayfd", "3",
		"-auth", d.xauthPath(),
		"-screen", "0", fmt.Sprintf("%dx%dx24", width, height),
		"-nolisten", "tcp", "-noreset",
		"+extension", "XTEST", "+extension", "MIT-SHM",
	)
	cmd.ExtraFiles = []*os.File{w}
	if _, err := d.start(cmd, "Xvfb"); err != nil {
		w.Close()
		return err
	}
	w.Close() // the child has its copy; EOF on r now means Xvfb died

	type res struct {
		line string
		err  error
	}
	ch := make(chan res, 1)
	go func() {
		line, err := bufio.NewReader(r).ReadString('\n')
		ch <- res{line, err}
	}()
	select {
	case got := <-ch:
		n, err := strconv.Atoi(strings.TrimSpace(got.line))
		if err != nil {
			return fmt.Errorf("xvfb: Xvfb did not report a display (%q, %v); its log: %s", got.line, got.err, d.logTail("Xvfb"))
		}
		d.Display = ":" + strconv.Itoa(n)
		return d.allowOwnUser(ctx)
	case <-ctx.Done():
		r.Close()
		return fmt.Errorf("xvfb: Xvfb not ready: %w", ctx.Err())
	}
}
