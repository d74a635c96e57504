package daemon

import (
	"encoding/json"
	"github.com/vibespace/vibespace/daemon/args"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/daemon/kind/kindtest"
	"github.com/vibespace/vibespace/target"
)

// The key verbs over the socket: the key is stored, listed as set and
// never answered or audited; a key riding along with another verb is
// refused before the verb runs.
func TestKeyVerbs(t *testing.T) {
	td := startDaemon(t, &kindtest.Provider{}, "")
	const key = "bl-daemon-test-0123456789"
	resp := td.call(t, Request{Verb: "key.set", Session: "s"}.With(args.KeySet{Provider: "cloud:browserless", Secret: key}))
	if !resp.OK || len(resp.Keys) != 1 || !resp.Keys[0].Set {
		t.Fatalf("key.set: %+v", resp)
	}
	if v, ok, err := td.keys.Get("cloud:browserless"); v != key || !ok || err != nil {
		t.Fatalf("the store holds %q %v %v", v, ok, err)
	}
	for _, req := range []Request{
		Request{Verb: "key.set", Session: "s"}.With(args.KeySet{Provider: "cloud:browserless", Secret: "two\nlines"}),
		Request{Verb: "key.set", Session: "s"}.With(args.KeySet{Provider: "../x", Secret: key}),
		Request{Verb: "key.set", Session: "s"}.With(args.KeySet{Provider: "cloud:browserless"}),
		{Verb: "status", Session: "s", Args: json.RawMessage(`{"secret":"` + key + `"}`)},
		{Verb: "key.clear", Session: "s", Args: json.RawMessage(`{"provider":"cloud:browserless","secret":"` + key + `"}`)},
	} {
		r := td.call(t, req)
		if r.OK || r.Code != target.CodeBadRequest {
			t.Errorf("%s with %s: %+v, want bad_request", req.Verb, req.Args, r)
		}
	}
	if v, _, _ := td.keys.Get("cloud:browserless"); v != key {
		t.Errorf("a refused request changed the key")
	}
	list := td.call(t, Request{Verb: "key.list", Session: "other"})
	if !list.OK || len(list.Keys) != 1 || list.Keys[0].Provider != "cloud:browserless" || !list.Keys[0].Set {
		t.Fatalf("key.list: %+v", list)
	}
	if r := td.call(t, Request{Verb: "key.clear", Session: "s"}.With(args.KeyNamed{Provider: "cloud:browserless"})); !r.OK || r.Keys[0].Set {
		t.Fatalf("key.clear: %+v", r)
	}
	audit, err := os.ReadFile(filepath.Join(td.cfg.StateDir, auditFile))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(audit), key) || !strings.Contains(string(audit), `"verb":"key.set","ok":true,"setting":"cloud:browserless"`) {
		t.Errorf("audit:\n%s", audit)
	}
}
