package daemon

// Provider keys: the key a cloud browser provider's connect URL carries,
// kept on the daemon's side (daemon/secret, <state dir>/keys) so it never
// stands in an agent's argv, environment or any answer. The key words
// (key.set, key.clear, key.list) are the registered stage daemon/keys';
// the core keeps the store (lent to the stages as stage.Env.Keys), the
// check of the provider a key word names (runs), and the blanking of
// every stored key out of what leaves the daemon (scrubErr).

import (
	"github.com/vibespace/vibespace/daemon/args"
	"slices"
	"strings"

	"github.com/vibespace/vibespace/provider"
	"github.com/vibespace/vibespace/target"
)

// keysDir is the key store's directory under the state directory.
const keysDir = "keys"

// keyProviders are the providers that take a key: the provider rows
// that name a key scope.
var keyProviders = provider.Keyed()

// checkKeyProvider refuses a provider that takes no key, naming those that
// do, and a secret's name (secret:NAME) that is none. It is the one place
// that decides which names key.* accepts.
func checkKeyProvider(name string) error {
	if name == "" {
		return target.Refuse(target.CodeBadRequest, "name the provider: key set|clear <provider>, one of %v", keyProviders).With("providers", keyProviders)
	}
	if strings.HasPrefix(name, args.SecretPrefix) { // a secret typed by name (daemon/secrets)
		return args.CheckSecretName(name)
	}
	if !slices.Contains(keyProviders, name) {
		return target.Refuse(target.CodeBadRequest, "%s is no provider that takes a key: one of %v", target.Echo(name), keyProviders).With("providers", keyProviders)
	}
	return nil
}

func checkKeyNamed(d *Daemon, c *call) error {
	var name string
	switch a := c.Args.(type) {
	case args.KeySet:
		name = a.Provider
	case args.KeyNamed:
		name = a.Provider
	}
	return checkKeyProvider(name)
}

func checkKeyList(d *Daemon, c *call) error {
	if p := c.Args.(args.KeyNamed).Provider; p != "" {
		return checkKeyProvider(p)
	}
	return nil
}

// scrubErr is err with every stored key blanked out of it
// (secret.Store.ScrubErr).
func (d *Daemon) scrubErr(err error) error {
	if d.keys == nil {
		return err
	}
	return d.keys.ScrubErr(err)
}
