// Package keys is the provider keys' words, out of the daemon's core:
// key.set, key.clear and key.list, answered as a registered stage
// (stage.Answerer, cmd/vibespace-daemon/stages). A provider key is the
// key a cloud browser provider's connect URL carries, kept on the
// daemon's side (package daemon/secret, <state dir>/keys) so it never
// stands in an agent's argv, environment or any answer. The user sets it
// with "vibespace-browser key set <provider>" (read from stdin); an agent
// can only learn whether one is set.
//
// The core keeps the key store (it opens it, lends it to the stages as
// stage.Env.Keys, reads a key for the provider's gate and blanks every
// stored key out of every answer, audit row and step), the refusal of a
// key riding along with another verb (verb.Facts.Secret) and the check of
// the provider a key word names, which runs before this stage answers.
// The package never imports the core (layout_test.go).
package keys

import (
	"context"
	"github.com/vibespace/vibespace/daemon/args"
	"time"

	"github.com/vibespace/vibespace/daemon/secret"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/provider"
	"github.com/vibespace/vibespace/target"
)

// Name is the stage's name.
const Name = "keys"

// Stage is the key words' stage.
type Stage struct {
	keys *secret.Store // the daemon's key store; nil: none was lent
}

// New makes the stage over the daemon's key store (env.Keys).
func New(env stage.Env) (stage.Stage, error) { return &Stage{keys: env.Keys}, nil }

func (s *Stage) Name() string { return Name }

// Verbs are the key words.
func (s *Stage) Verbs() []string { return []string{"key.set", "key.clear", "key.list"} }

// Answer answers one of Verbs; the provider it names was checked before.
// The answer and the audit name the provider, never the key.
func (s *Stage) Answer(ctx context.Context, c *stage.Call) (wire.Response, error) {
	if s.keys == nil {
		return wire.Response{}, target.Refuse(target.CodeInternal, "stage %s has no key store", Name)
	}
	switch c.Req.Verb {
	case "key.set":
		return s.set(c)
	case "key.clear":
		return s.clear(c)
	case "key.list":
		return s.list(c)
	}
	return wire.Response{}, target.Refuse(target.CodeInternal, "stage %s does not answer %s", Name, c.Req.Verb)
}

// set stores the request's key for its provider. The answer and the
// audit name the provider, never the key.
func (s *Stage) set(c *stage.Call) (wire.Response, error) {
	a := c.Args.(args.KeySet)
	c.Fact.Setting = a.Provider
	if err := secret.ValidValue(a.Secret); err != nil {
		return wire.Response{}, target.Refuse(target.CodeBadRequest, "the key for %s was not stored: %s", a.Provider, trimSecretPrefix(err))
	}
	if err := s.keys.Set(a.Provider, a.Secret); err != nil {
		return wire.Response{}, target.Refuse(target.CodeInternal, "the key for %s was not stored: %v", a.Provider, err)
	}
	return wire.Response{Did: "key set for " + a.Provider + " (kept by the daemon, 0600; never shown)", Keys: []wire.KeyInfo{s.info(a.Provider)}}, nil
}

func (s *Stage) clear(c *stage.Call) (wire.Response, error) {
	a := c.Args.(args.KeyNamed)
	c.Fact.Setting = a.Provider
	was := s.keys.Has(a.Provider)
	if err := s.keys.Clear(a.Provider); err != nil {
		return wire.Response{}, target.Refuse(target.CodeInternal, "the key for %s was not cleared: %v", a.Provider, err)
	}
	did := "key cleared for " + a.Provider
	if !was {
		did = "no key was set for " + a.Provider
	}
	return wire.Response{Did: did, Keys: []wire.KeyInfo{s.info(a.Provider)}}, nil
}

// list answers whether each provider that takes a key (the provider rows
// that name a key scope), or the one the request names, has one set.
func (s *Stage) list(c *stage.Call) (wire.Response, error) {
	names := provider.Keyed()
	if p := c.Args.(args.KeyNamed).Provider; p != "" {
		names = []string{p}
	}
	out := make([]wire.KeyInfo, 0, len(names))
	for _, n := range names {
		out = append(out, s.info(n))
	}
	return wire.Response{Keys: out}, nil
}

func (s *Stage) info(name string) wire.KeyInfo {
	k := wire.KeyInfo{Provider: name}
	if at, ok := s.keys.SetAt(name); ok {
		k.Set, k.SetAt = true, at.UTC().Format(time.RFC3339)
	}
	return k
}

// trimSecretPrefix is a secret error's text without its package prefix.
func trimSecretPrefix(err error) string {
	s := err.Error()
	if len(s) > len("secret: ") && s[:len("secret: ")] == "secret: " {
		return s[len("secret: "):]
	}
	return s
}
