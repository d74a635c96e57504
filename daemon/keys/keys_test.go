package keys

import (
	"context"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/stage/stagetest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/daemon/secret"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/provider"
	"github.com/vibespace/vibespace/target"
)

func newStage(t *testing.T) (*Stage, *secret.Store, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "keys")
	keys, err := secret.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := New(stage.Env{Keys: keys})
	if err != nil {
		t.Fatal(err)
	}
	return st.(*Stage), keys, dir
}

func ask(s *Stage, req wire.Request) (wire.Response, *stage.Call, error) {
	c := stagetest.Decoded(&stage.Call{Req: req})
	resp, err := s.Answer(context.Background(), c)
	return resp, c, err
}

// set stores the key in the daemon's store (read back from the store, the
// oracle), and neither the answer nor the call's audit fact carries it:
// they name the provider only. clear removes it, and says when there was
// none.
func TestSetListClear(t *testing.T) {
	s, keys, dir := newStage(t)
	const name, key = provider.Browserless, "sk-unit-4f2a9c"
	resp, c, err := ask(s, wire.Request{Verb: "key.set"}.With(args.KeySet{Provider: name, Secret: key}))
	if err != nil {
		t.Fatal(err)
	}
	if v, ok, err := keys.Get(name); err != nil || !ok || v != key {
		t.Fatalf("the store holds %q, %v, %v after set", v, ok, err)
	}
	if len(resp.Keys) != 1 || !resp.Keys[0].Set || resp.Keys[0].Provider != name || resp.Keys[0].SetAt == "" {
		t.Errorf("set answered keys %+v", resp.Keys)
	}
	if c.Fact.Setting != name {
		t.Errorf("the audit fact names %q, want the provider %q", c.Fact.Setting, name)
	}
	if strings.Contains(resp.Did, key) || strings.Contains(c.Fact.Setting, key) {
		t.Errorf("the key leaked into the answer or the audit fact: %q / %q", resp.Did, c.Fact.Setting)
	}
	files, _ := os.ReadDir(dir)
	for _, f := range files {
		if fi, err := f.Info(); err == nil && fi.Mode().Perm() != 0o600 {
			t.Errorf("%s is %v, want 0600", f.Name(), fi.Mode().Perm())
		}
	}

	resp, _, err = ask(s, wire.Request{Verb: "key.list"})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Keys) != len(provider.Keyed()) {
		t.Errorf("list answered %d providers, want every keyed one (%v)", len(resp.Keys), provider.Keyed())
	}
	for _, k := range resp.Keys {
		if k.Set != (k.Provider == name) {
			t.Errorf("list: %+v", k)
		}
	}

	resp, _, err = ask(s, wire.Request{Verb: "key.clear"}.With(args.KeyNamed{Provider: name}))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := keys.Get(name); ok {
		t.Error("the store still holds the key after clear")
	}
	if !strings.Contains(resp.Did, "key cleared") || resp.Keys[0].Set {
		t.Errorf("clear answered %+v", resp)
	}
	resp, _, _ = ask(s, wire.Request{Verb: "key.clear"}.With(args.KeyNamed{Provider: name}))
	if !strings.Contains(resp.Did, "no key was set") {
		t.Errorf("a second clear answered %q", resp.Did)
	}
}

// A key the store would not keep (here: empty, and one with a line
// break) is refused bad_request without the value, and nothing is stored.
func TestSetRefusesABadValue(t *testing.T) {
	s, keys, _ := newStage(t)
	for _, v := range []string{"", "two\nlines"} {
		_, _, err := ask(s, wire.Request{Verb: "key.set"}.With(args.KeySet{Provider: provider.Browserless, Secret: v}))
		if target.CodeOf(err) != target.CodeBadRequest {
			t.Errorf("set %q: %v, want %s", v, err, target.CodeBadRequest)
		}
		if err != nil && v != "" && strings.Contains(err.Error(), v) {
			t.Errorf("the refusal repeats the value: %v", err)
		}
		if strings.Contains(errString(err), "secret: ") {
			t.Errorf("the refusal keeps the package prefix: %v", err)
		}
	}
	if _, ok, _ := keys.Get(provider.Browserless); ok {
		t.Error("a refused key was stored")
	}
}

// With no key store lent, the stage refuses, never panics.
func TestNoStore(t *testing.T) {
	st, _ := New(stage.Env{})
	_, err := st.(*Stage).Answer(context.Background(), stagetest.Decoded(&stage.Call{Req: wire.Request{Verb: "key.list"}}))
	if target.CodeOf(err) != target.CodeInternal {
		t.Errorf("no store: %v, want %s", err, target.CodeInternal)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
