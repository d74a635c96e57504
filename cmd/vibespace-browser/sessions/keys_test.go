package sessions_test

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A provider's key goes in through stdin only, is kept 0600 by the daemon,
// and is in no answer, log, audit or other file of the state directory.
func TestProviderKey(t *testing.T) {
	e := newEnv(t)
	e.Serve()
	b := make([]byte, 16)
	rand.Read(b)
	key := "bl-" + hex.EncodeToString(b)
	var outputs []string
	saw := func(out ...string) { outputs = append(outputs, out...) }

	r := e.CLIStdin("s1", key+"\n", "key", "set", "cloud:browserless")
	saw(r.Out, r.Errout)
	if r.Code != 0 || !strings.Contains(r.Out, "key set for cloud:browserless") {
		t.Fatalf("key set: exit %d\n%s%s", r.Code, r.Out, r.Errout)
	}
	out := e.OK("s2", "key", "list")
	saw(out)
	if !strings.Contains(out, "cloud:browserless\tset\t") {
		t.Fatalf("key list after set:\n%s", out)
	}
	resp := e.Answer("s2", "key", "list")
	if !resp.OK || len(resp.Keys) != 1 || !resp.Keys[0].Set || resp.Keys[0].SetAt == "" {
		t.Fatalf("key list --json: %+v", resp)
	}

	// The file itself, read apart from the daemon: the key and a newline
	// (a file without it was cut short), 0600, in a 0700 directory.
	dir := filepath.Join(e.Home, "keys")
	file := filepath.Join(dir, "cloud~browserless.key")
	got, err := os.ReadFile(file)
	if err != nil || string(got) != key+"\n" {
		t.Fatalf("the key file holds %q (%v)", got, err)
	}
	for p, want := range map[string]os.FileMode{dir: 0o700, file: 0o600} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v (%v), want %o", p, fi.Mode().Perm(), err, want)
		}
	}

	// A key given as a word of argv is refused, saying to use stdin, and
	// never repeated; the stored key is untouched.
	other := "bl-argv-" + hex.EncodeToString(b[:4])
	r = e.CLIStdin("s1", "", "key", "set", "cloud:browserless", other)
	saw(r.Out, r.Errout)
	if r.Code != 2 || !strings.Contains(r.Errout, "stdin") || strings.Contains(r.Out+r.Errout, other) {
		t.Errorf("key set with the key in argv: exit %d\n%s%s", r.Code, r.Out, r.Errout)
	}
	if got, _ := os.ReadFile(file); string(got) != key+"\n" {
		t.Errorf("the refused call changed the key")
	}
	// An empty stdin and a provider that takes no key are refused too.
	r = e.CLIStdin("s1", "", "key", "set", "cloud:browserless")
	saw(r.Out, r.Errout)
	if r.Code != 2 {
		t.Errorf("key set with an empty stdin: exit %d\n%s%s", r.Code, r.Out, r.Errout)
	}
	r = e.CLIStdin("s1", key, "key", "set", "cloud:nowhere")
	saw(r.Out, r.Errout)
	if r.Code != 1 || !strings.Contains(r.Errout, "[bad_request]") {
		t.Errorf("key set for an unknown provider: exit %d\n%s%s", r.Code, r.Out, r.Errout)
	}
	// The status line and a browser verb's refusal, for good measure.
	saw(e.OK("s1", "status"))

	// The audit says who set which provider's key, and not the key.
	audit, err := os.ReadFile(filepath.Join(e.Home, "audit.jsonl"))
	if err != nil || !strings.Contains(string(audit), `"verb":"key.set","ok":true,"setting":"cloud:browserless"`) {
		t.Errorf("audit has no key.set row (%v):\n%s", err, audit)
	}

	out = e.OK("s1", "key", "clear", "cloud:browserless")
	saw(out)
	if !strings.Contains(out, "key cleared for cloud:browserless") {
		t.Errorf("key clear:\n%s", out)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("the key file is still there after clear: %v", err)
	}
	out = e.OK("s1", "key", "list")
	saw(out)
	if !strings.Contains(out, "cloud:browserless\tnot set") {
		t.Errorf("key list after clear:\n%s", out)
	}

	for _, o := range outputs {
		if strings.Contains(o, key) {
			t.Errorf("a command's output holds the key:\n%s", o)
		}
	}
	// Every file of the state directory and the daemon's own log.
	files := []string{filepath.Join(e.Dir, "serve.log")}
	filepath.WalkDir(e.Home, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			files = append(files, p)
		}
		return nil
	})
	if len(files) < 3 {
		t.Fatalf("too few files to look in: %v", files)
	}
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), key) {
			t.Errorf("%s holds the key", p)
		}
	}
}
