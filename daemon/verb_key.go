package daemon

// Provider keys: the key a cloud browser provider's connect URL carries,
// kept on the daemon's side (daemon/secret, <state dir>/keys) so it never
// stands in an agent's argv, environment or any answer. The key words
// (key.set, key.clear, key.list) are the registered stage daemon/keys';
// the core keeps the store (lent to the stages as stage.Env.Keys), the
// check of the provider a key word names (runs), and the blanking of
// every stored key out of what leaves the daemon (scrubErr).

import (
	"errors"
	"github.com/vibespace/vibespace/daemon/args"
	"slices"

	"github.com/vibespace/vibespace/provider"
	"github.com/vibespace/vibespace/target"
)

// keysDir is the key store's directory under the state directory.
const keysDir = "keys"

// keyProviders are the providers that take a key: the provider rows
// that name a key scope.
var keyProviders = provider.Keyed()

// checkKeyProvider refuses a provider that takes no key, naming those that
// do. It is the one place that decides which names key.* accepts.
func checkKeyProvider(name string) error {
	if name == "" {
		return target.Refuse(target.CodeBadRequest, "name the provider: key set|clear <provider>, one of %v", keyProviders).With("providers", keyProviders)
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

// scrubErr is err with every stored key blanked out of its sentence, its
// facts and its cause (Store.Scrub); an error that names no key is
// answered as it is.
func (d *Daemon) scrubErr(err error) error {
	if err == nil || d.keys == nil {
		return err
	}
	r, ok := target.AsRefusal(err)
	if !ok {
		if s := d.keys.Scrub(err.Error()); s != err.Error() {
			return errors.New(s)
		}
		return err
	}
	changed := false
	scrub := func(s string) string {
		t := d.keys.Scrub(s)
		changed = changed || t != s
		return t
	}
	out := &target.Refusal{Code: r.Code, Message: scrub(r.Message)}
	for k, v := range r.Facts {
		if s, ok := v.(string); ok {
			v = scrub(s)
		}
		out.With(k, v)
	}
	if r.Err != nil {
		out.Err = errors.New(scrub(r.Err.Error()))
	}
	if !changed {
		return err
	}
	return out
}
