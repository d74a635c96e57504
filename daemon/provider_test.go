package daemon

import (
	"context"
	"errors"
	"fmt"
	"github.com/vibespace/vibespace/daemon/args"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/kind/kindtest"
	"github.com/vibespace/vibespace/profile"
	"github.com/vibespace/vibespace/target"
)

// keyBrowser is the fake browser, recording every key it was asked for
// and failing, when told, with an error that repeats the URL it dialled
// (as a careless backend might).
type keyBrowser struct {
	*kindtest.Browser
	mu   sync.Mutex
	keys []kind.BrowserKey
	fail bool
}

func (b *keyBrowser) Context(ctx context.Context, key kind.BrowserKey) (kind.BrowserContext, func(), error) {
	b.mu.Lock()
	b.keys = append(b.keys, key)
	fail := b.fail
	b.mu.Unlock()
	if fail {
		return nil, nil, fmt.Errorf("dial %s: connection refused", key.Connect)
	}
	return b.Browser.Context(ctx, key)
}

func (b *keyBrowser) asked() []kind.BrowserKey {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]kind.BrowserKey(nil), b.keys...)
}

// TestProviderRows: new --provider registers somebody else's browser with
// its endpoint and no directory; what its row cannot do is refused
// not_on_this_provider naming it before the browser is asked anything; a
// cloud profile without a key is no_key, with one the backend is handed
// the documented URL with the key, and no answer or audit carries it, even
// when the backend's error repeats it. doctor lists every row.
func TestProviderRows(t *testing.T) {
	dir := t.TempDir()
	br := &keyBrowser{Browser: kindtest.NewBrowser()}
	td := startDaemonWith(t, nil, dir, func(c *Config) {
		c.Displays = []kind.DisplayProvider{&kindtest.Provider{}}
		c.Browser = br
	})
	const ep = "ws://127.0.0.1:9/devtools/browser/abc"
	for _, req := range []Request{
		Request{Verb: "browser.new", Session: "a"}.With(args.New{Label: "x", Provider: "cdp"}),
		Request{Verb: "browser.new", Session: "a"}.With(args.New{Label: "x", Provider: "cdp", Endpoint: "file:///etc"}),
		Request{Verb: "browser.new", Session: "a"}.With(args.New{Label: "x", Provider: "local-window"}),
		Request{Verb: "browser.new", Session: "a"}.With(args.New{Label: "x", Provider: "cloud:nobody"}),
		Request{Verb: "browser.new", Session: "a"}.With(args.New{Label: "x", Provider: "cloud:browserless", Endpoint: "wss://h/?token=k"}),
		Request{Verb: "browser.new", Session: "a"}.With(args.New{Label: "x", Provider: "desktop-app", Backend: "cdp"}),
		Request{Verb: "browser.new", Session: "a"}.With(args.New{Label: "x", Endpoint: ep}),
	} {
		wantCode(t, td.call(t, req), target.CodeBadRequest)
	}
	r := td.call(t, Request{Verb: "browser.new", Session: "a"}.With(args.New{Label: "theirs", Provider: "cdp", Endpoint: ep}))
	wantCode(t, r, "")
	if r.Profile == nil || r.Profile.Provider != "cdp" || r.Profile.Endpoint != ep {
		t.Fatalf("new --provider cdp: %+v", r.Profile)
	}
	if _, err := os.Lstat(filepath.Join(dir, profile.DirName, r.Profile.ID)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a cdp profile got a directory of ours: %v", err)
	}
	wantCode(t, td.call(t, Request{Verb: "browser.use", Session: "a"}.With(args.Use{Label: "theirs"})), "")
	hr := td.call(t, Request{Verb: "browser.open", Session: "a", Headed: true}.With(args.OpenURL{URL: "http://127.0.0.1:1/"}))
	wantCode(t, hr, target.CodeNotOnThisProvider)
	if hr.Facts["provider"] != "cdp" || !strings.Contains(hr.Message, "cdp") {
		t.Fatalf("the refusal does not name the provider: %+v", hr)
	}
	wantCode(t, td.call(t, Request{Verb: "browser.close", Session: "a"}.With(args.Close{Label: "theirs"})), target.CodeNotOnThisProvider)
	if n := len(br.asked()); n != 0 {
		t.Fatalf("a refused verb reached the browser (%d contexts asked)", n)
	}
	wantCode(t, td.call(t, Request{Verb: "browser.open", Session: "a"}.With(args.OpenURL{URL: "http://127.0.0.1:1/"})), "")
	if k := br.asked(); len(k) != 1 || k[0].Provider != "cdp" || k[0].Connect != ep || k[0].Dir != "" || k[0].Headed {
		t.Fatalf("the browser was asked %+v", k)
	}

	// The cloud row.
	wantCode(t, td.call(t, Request{Verb: "browser.new", Session: "b"}.With(args.New{Label: "cloud", Provider: "cloud:browserless"})), "")
	wantCode(t, td.call(t, Request{Verb: "browser.use", Session: "b"}.With(args.Use{Label: "cloud"})), "")
	nk := td.call(t, Request{Verb: "browser.open", Session: "b"}.With(args.OpenURL{URL: "http://127.0.0.1:1/"}))
	wantCode(t, nk, target.CodeNoKey)
	if !strings.Contains(nk.Message, "key set cloud:browserless") {
		t.Fatalf("no_key does not name the command: %q", nk.Message)
	}
	const key = "bl-key/with?odd&chars-0123456789"
	wantCode(t, td.call(t, Request{Verb: "key.set", Session: "b"}.With(args.KeySet{Provider: "cloud:browserless", Secret: key})), "")
	br.mu.Lock()
	br.fail = true
	br.mu.Unlock()
	failed := td.call(t, Request{Verb: "browser.open", Session: "b"}.With(args.OpenURL{URL: "http://127.0.0.1:1/"}))
	if failed.OK {
		t.Fatal("the failing backend's open succeeded")
	}
	br.mu.Lock()
	br.fail = false
	br.mu.Unlock()
	ok := td.call(t, Request{Verb: "browser.open", Session: "b"}.With(args.OpenURL{URL: "http://127.0.0.1:1/"}))
	wantCode(t, ok, "")
	k := br.asked()
	last := k[len(k)-1]
	if !strings.HasPrefix(last.Connect, "wss://production-sfo.browserless.io/?token=") || !strings.Contains(last.Connect, "token=bl-key%2Fwith%3Fodd%26chars") {
		t.Fatalf("the cloud URL: %q", last.Connect)
	}
	doc := td.call(t, Request{Verb: "doctor", Session: "b"})
	names := map[string]string{}
	for _, c := range doc.Checks {
		names[c.Name] = c.Detail
	}
	for _, n := range []string{"provider chromium", "provider cdp", "provider cloud:browserless", "provider desktop-app", "provider local-window"} {
		if names[n] == "" {
			t.Errorf("doctor lists no %q: %v", n, doc.Checks)
		}
	}
	if !strings.Contains(names["provider cloud:browserless"], "key set") || !strings.Contains(names["provider cdp"], "cannot: headed") {
		t.Errorf("doctor's provider rows: %v", names)
	}
	// The key is in no answer and in the audit nowhere.
	for _, resp := range []Response{nk, failed, ok, doc} {
		if s := fmt.Sprintf("%+v", resp); strings.Contains(s, "bl-key") {
			t.Errorf("an answer carries the key: %s", s)
		}
	}
	if !strings.Contains(failed.Message, "dial wss://production-sfo.browserless.io/?token=") {
		t.Errorf("the failure's message lost its sense: %q", failed.Message)
	}
	audit, err := os.ReadFile(filepath.Join(dir, auditFile))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(audit), "bl-key") {
		t.Errorf("the audit carries the key")
	}
}
