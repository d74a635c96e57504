package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/vibespace/vibespace/daemon"
)

// startWait bounds how long a command waits for a daemon it started.
const startWait = 20 * time.Second

// session is the caller's session name.
func session(env Env) string {
	if s := env("VIBESPACE_SESSION"); s != "" {
		return s
	}
	return "default"
}

// connect dials the daemon, starting it (detached, in its own session,
// output to daemon.log in the state directory) when none answers.
func connect(ctx context.Context, o Options) (*daemon.Client, error) {
	stateDir, sock, err := daemon.Paths(o.Getenv)
	if err != nil {
		return nil, usage("%v", err)
	}
	dctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	c, err := daemon.Dial(dctx, sock)
	cancel()
	if err == nil {
		return c, nil
	}
	if err := startDaemon(o, stateDir); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(startWait)
	for {
		dctx, cancel := context.WithTimeout(ctx, time.Second)
		c, err := daemon.Dial(dctx, sock)
		cancel()
		if err == nil {
			return c, nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return nil, &exitError{code: ExitUsage, err: fmt.Errorf("started the daemon but it did not answer on %s within %v; see %s",
				sock, startWait, filepath.Join(stateDir, "daemon.log"))}
		}
		select {
		case <-time.After(20 * time.Millisecond):
		case <-ctx.Done():
		}
	}
}

// startDaemon forks "vibespace-window serve" detached from us.
func startDaemon(o Options, stateDir string) error {
	exe := o.Executable
	if exe == "" {
		return usage("cannot start the daemon: unknown executable path")
	}
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return usage("state dir: %v", err)
	}
	logf, err := os.OpenFile(filepath.Join(stateDir, "daemon.log"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return usage("daemon log: %v", err)
	}
	defer logf.Close()
	cmd := exec.Command(exe, "serve")
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return usage("start the daemon: %v", err)
	}
	// Reap it if it exits while we are still here (another daemon won the
	// race, or it failed); otherwise it outlives us and init reaps it.
	go func() {
		if err := cmd.Wait(); err != nil && !errors.Is(err, os.ErrProcessDone) {
			_ = err
		}
	}()
	return nil
}
