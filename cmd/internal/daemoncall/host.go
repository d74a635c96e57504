package daemoncall

import (
	"context"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/vibespace/vibespace/cmd/internal/sshroad"
	"github.com/vibespace/vibespace/daemon/wire"
)

// hostKey carries --host in a command's context.
type hostKey struct{}

// HostFlag is the command lines' --host: the daemon of another host,
// reached through OpenSSH (default: $VIBESPACE_HOST; none: this host's).
func HostFlag() cli.Flag {
	return &cli.StringFlag{Name: "host", Usage: "talk to the daemon of another host through OpenSSH: ssh://user@host[:port] (default: $VIBESPACE_HOST)"}
}

// WithHost is ctx carrying host (--host), which wins over $VIBESPACE_HOST.
func WithHost(ctx context.Context, host string) context.Context {
	if host == "" {
		return ctx
	}
	return context.WithValue(ctx, hostKey{}, host)
}

// HostSpec is the host a call goes to: --host, else $VIBESPACE_HOST; ""
// is this host.
func HostSpec(ctx context.Context, o Options) string {
	if h, _ := ctx.Value(hostKey{}).(string); h != "" {
		return h
	}
	return o.Getenv("VIBESPACE_HOST")
}

// RemoteHost is the other host a call goes to, nil for this one. Its
// master's control socket lives beside this host's daemon socket (a 0700
// directory of ours).
func RemoteHost(ctx context.Context, o Options) (*sshroad.Host, error) {
	spec := HostSpec(ctx, o)
	if spec == "" {
		return nil, nil
	}
	_, sock, err := wire.Paths(o.Getenv)
	if err != nil {
		return nil, Usage("%v", err)
	}
	h, err := sshroad.Parse(spec, sshroad.Env(o.Getenv), filepath.Dir(sock))
	if err != nil {
		return nil, Usage("%v", err)
	}
	return h, nil
}
