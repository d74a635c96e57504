package daemon

// Provider keys: the key a cloud browser provider's connect URL carries,
// kept on the daemon's side (daemon/secret, <state dir>/keys) so it never
// stands in an agent's argv, environment or any answer. The user sets it
// with "vibespace-browser key set <provider>" (read from stdin); an agent
// can only learn whether one is set.

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/vibespace/vibespace/daemon/secret"
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

func checkKeyNamed(d *Daemon, req Request) error { return checkKeyProvider(req.Provider) }

func checkKeyList(d *Daemon, req Request) error {
	if req.Provider != "" {
		return checkKeyProvider(req.Provider)
	}
	return nil
}

// Keys is the daemon's key store, for the providers that read a key.
func (d *Daemon) Keys() *secret.Store { return d.keys }

// keySet stores the request's key for its provider. The answer and the
// audit name the provider, never the key.
func (d *Daemon) keySet(ctx context.Context, c *call) Response {
	c.Fact.Setting = c.Req.Provider
	if err := secret.ValidValue(c.Req.Secret); err != nil {
		return d.finish(c, Response{}, target.Refuse(target.CodeBadRequest, "the key for %s was not stored: %s", c.Req.Provider, trimSecretPrefix(err)))
	}
	if err := d.keys.Set(c.Req.Provider, c.Req.Secret); err != nil {
		return d.finish(c, Response{}, target.Refuse(codeInternal, "the key for %s was not stored: %v", c.Req.Provider, err))
	}
	return d.finish(c, Response{Did: "key set for " + c.Req.Provider + " (kept by the daemon, 0600; never shown)", Keys: []KeyInfo{d.keyInfo(c.Req.Provider)}}, nil)
}

func (d *Daemon) keyClear(ctx context.Context, c *call) Response {
	c.Fact.Setting = c.Req.Provider
	was := d.keys.Has(c.Req.Provider)
	if err := d.keys.Clear(c.Req.Provider); err != nil {
		return d.finish(c, Response{}, target.Refuse(codeInternal, "the key for %s was not cleared: %v", c.Req.Provider, err))
	}
	did := "key cleared for " + c.Req.Provider
	if !was {
		did = "no key was set for " + c.Req.Provider
	}
	return d.finish(c, Response{Did: did, Keys: []KeyInfo{d.keyInfo(c.Req.Provider)}}, nil)
}

func (d *Daemon) keyList(ctx context.Context, c *call) Response {
	names := keyProviders
	if c.Req.Provider != "" {
		names = []string{c.Req.Provider}
	}
	out := make([]KeyInfo, 0, len(names))
	for _, n := range names {
		out = append(out, d.keyInfo(n))
	}
	return d.finish(c, Response{Keys: out}, nil)
}

func (d *Daemon) keyInfo(name string) KeyInfo {
	k := KeyInfo{Provider: name}
	if at, ok := d.keys.SetAt(name); ok {
		k.Set, k.SetAt = true, at.UTC().Format(time.RFC3339)
	}
	return k
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

// trimSecretPrefix is a secret error's text without its package prefix.
func trimSecretPrefix(err error) string {
	s := err.Error()
	if len(s) > len("secret: ") && s[:len("secret: ")] == "secret: " {
		return s[len("secret: "):]
	}
	return s
}
