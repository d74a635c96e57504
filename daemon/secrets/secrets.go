// Package secrets types secrets by name: type @ref --secret NAME and
// fill @ref --secret NAME, on a window or a tab alike, take the value from
// the daemon's key store (package daemon/secret; the user stores it with
// key set secret:NAME, read from stdin), never from the request. It is a
// registered stage (cmd/vibespace-daemon/stages), first of all, so that it
// resolves the name before any other stage admits the verb and cleans the
// answer before any other stage finishes it (the audit row, the trace):
//
//   - Admit: a verb whose arguments name a secret (args.Secret) gets the
//     secret's value as the text it types (args.WithText); the name stays
//     in its arguments, so every later stage and the kind's backend see a
//     verb that types a secret. An unknown name is refused no_secret. The
//     resolution knows no kind: any verb whose arguments type text by name
//     (type, fill on a tab or a window) is resolved here.
//   - Finish: the answer says a secret of N characters was typed, by name;
//     the value is blanked out of every word of it (its sentence, facts,
//     note and what the effect saw), and a refusal that would say what a
//     field holds (value_not_set) says only how many characters.
//
// The trace (daemon/trace) keeps the name and the count, never the value,
// and keeps no picture of a target a secret was typed into (a field that
// is not a password one shows its text).
//
// The package never imports the core (layout_test.go).
package secrets

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/effect"
	"github.com/vibespace/vibespace/daemon/secret"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/target"
)

// Name is the stage's name.
const Name = "secrets"

// Stage resolves secrets typed by name over the daemon's key store.
type Stage struct {
	keys *secret.Store // nil: none lent (every secret is then unknown)
}

// New makes the stage over the daemon's key store (env.Keys).
func New(env stage.Env) (stage.Stage, error) { return &Stage{keys: env.Keys}, nil }

func (s *Stage) Name() string { return Name }

// typed is what the stage keeps of a call that types a secret.
type typed struct {
	name  string // as typed: NAME (without secret:)
	value string
}

type key struct{}

// Admit resolves the secret c's arguments name into the text its verb
// types; no_secret when the store keeps none under that name.
func (s *Stage) Admit(_ context.Context, c *stage.Call) error {
	name := args.Secret(c.Args)
	if name == "" {
		return nil
	}
	short := strings.TrimPrefix(name, args.SecretPrefix)
	if err := args.CheckSecretName(name); err != nil {
		return err
	}
	var (
		v   string
		ok  bool
		err error
	)
	if s.keys != nil {
		v, ok, err = s.keys.Get(name)
	}
	if err != nil {
		return target.Refuse(target.CodeInternal, "the secret %s could not be read: %s", short, s.keys.Scrub(err.Error())).With("secret", short)
	}
	if !ok {
		return target.Refuse(target.CodeNoSecret, "no secret named %s is kept by the daemon: the user stores it with vibespace-browser key set %s%s (read from stdin, never shown)", short, args.SecretPrefix, short).
			With("secret", short)
	}
	c.Args = args.WithText(c.Args, v)
	c.Put(key{}, typed{name: short, value: v})
	return nil
}

// Finish cleans the answer of a call that typed a secret: the value is in
// none of its words, and it says the secret's name and length.
func (s *Stage) Finish(c *stage.Call, a *stage.Answer) {
	t, ok := c.Get(key{}).(typed)
	if !ok {
		return
	}
	blank := func(text string) string {
		if t.value != "" {
			text = strings.ReplaceAll(text, t.value, secret.Mask)
		}
		if s.keys != nil {
			text = s.keys.Scrub(text)
		}
		return text
	}
	r := &a.Resp
	n := utf8.RuneCountInString(t.value)
	if r.Code == target.CodeValueNotSet {
		// What the field holds may be part of the secret (a maxlength
		// cut it): only the count is said.
		r.Message = fmt.Sprintf("the field did not take the secret %s (%d characters) as it was; what it holds is not shown, as it may be part of the secret", t.name, n)
		delete(r.Facts, "holds")
	}
	r.Message, r.Note = blank(r.Message), blank(r.Note)
	for k, v := range r.Facts {
		if str, ok := v.(string); ok {
			r.Facts[k] = blank(str)
		}
	}
	// What the effect saw may quote the field's text (or part of it): only
	// its word is kept, in the effect and in the answer's words.
	did, words := r.Did, ""
	if r.Effect != nil {
		if cut, ok := strings.CutSuffix(did, effect.Words(r.Effect)); ok {
			did = cut
		}
		r.Effect.Seen = nil
		words = effect.Words(r.Effect)
	}
	if r.OK {
		did += fmt.Sprintf(" (a secret of %d characters, %s, was typed; its value is never shown)", n, t.name)
	}
	r.Did = blank(did) + words
	r.Text = blank(r.Text)
	if a.Err != nil {
		if rf, ok := target.AsRefusal(a.Err); ok {
			cl := &target.Refusal{Code: rf.Code, Message: r.Message}
			for k, v := range r.Facts {
				cl.With(k, v)
			}
			a.Err = cl
		}
	}
}
