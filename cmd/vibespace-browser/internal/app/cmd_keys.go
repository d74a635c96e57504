package app

// key set|clear|list: a cloud provider's key, or a secret typed by name,
// kept by the daemon (the words are both command lines', daemoncall's).

import (
	"github.com/urfave/cli/v2"

	"github.com/vibespace/vibespace/cmd/internal/daemoncall"
	"github.com/vibespace/vibespace/daemon/wire"
)

func keyStoreCommands(o Options) []*cli.Command {
	return daemoncall.KeyStoreCommands(o, func(c *cli.Context, req wire.Request, body daemoncall.Body) error {
		return ask(c, o, req, body)
	})
}
