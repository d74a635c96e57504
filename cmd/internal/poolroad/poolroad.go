// Package poolroad is a remote member of the desktop pool (pool.Remote)
// over the ssh road (package sshroad): each call runs the remote daemon's
// bridge over the host's master and asks that daemon's own pool, as the
// borrowing session, to borrow or return one of its desktops.
// cmd/vibespace-daemon makes one for each --pool-remote.
package poolroad

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/vibespace/vibespace/cmd/internal/sshroad"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// Road is one remote member's host.
type Road struct {
	spec string
	host *sshroad.Host
}

// New reads spec (ssh://user@host[:port]) with the environment
// (VIBESPACE_SSH_CONFIG, VIBESPACE_REMOTE_DAEMON) into a road whose
// master's control socket lives beside socket, the daemon's own.
func New(spec string, env sshroad.Env, socket string) (*Road, error) {
	h, err := sshroad.Parse(spec, env, filepath.Dir(socket))
	if err != nil {
		return nil, err
	}
	return &Road{spec: "ssh://" + h.Name, host: h}, nil
}

// Host names the host: ssh://user@host[:port].
func (r *Road) Host() string { return r.spec }

// Borrow borrows a desktop of the host's pool for session, not waiting.
func (r *Road) Borrow(ctx context.Context, session string) (string, error) {
	resp, err := r.call(ctx, session, args.Request("borrow", "", args.Borrow{}))
	if err != nil {
		return "", err
	}
	there, _ := resp.Facts["desk"].(string)
	if there == "" {
		return "", target.Refuse(target.CodeInternal, "the daemon on %s lent no desktop it named: %s", r.spec, resp.Did)
	}
	return there, nil
}

// Return gives back the desktop session holds on the host.
func (r *Road) Return(ctx context.Context, session string) (string, error) {
	resp, err := r.call(ctx, session, args.Request("return", "", args.Empty{}))
	if err != nil {
		return "", err
	}
	return resp.Did, nil
}

// Ping asks the host's daemon its status.
func (r *Road) Ping(ctx context.Context) error {
	_, err := r.call(ctx, "daemon (pool)", wire.Request{Verb: "status"})
	return err
}

// call sends req as session over a bridge of its own; a refusal there,
// or a road that did not reach the daemon, is a *target.Refusal.
func (r *Road) call(ctx context.Context, session string, req wire.Request) (wire.Response, error) {
	req.Session = session
	cl, _, err := r.host.Bridge(ctx)
	var f *sshroad.Failure
	if errors.As(err, &f) {
		return wire.Response{}, target.Refuse(f.Code, "%s", f.Message).With("ssh_stderr", f.Stderr)
	}
	if err != nil {
		return wire.Response{}, target.Refuse(target.CodeHostUnreachable, "%s: %v", r.spec, err)
	}
	defer cl.Close()
	resp, err := cl.Call(ctx, req)
	if err != nil {
		return wire.Response{}, target.Refuse(target.CodeHostUnreachable, "the daemon on %s did not answer %s: %v", r.spec, req.Verb, err)
	}
	if !resp.OK {
		return resp, &target.Refusal{Code: resp.Code, Message: fmt.Sprintf("%s (on %s)", resp.Message, r.spec), Facts: resp.Facts}
	}
	return resp, nil
}
