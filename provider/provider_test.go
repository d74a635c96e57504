package provider

import (
	"net/url"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/target"
)

func TestRowsAreWhole(t *testing.T) {
	want := []string{Chromium, Firefox, CDP, Browserless, DesktopApp, LocalWindow}
	if got := Names(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
	for _, r := range All() {
		if r.Starts == "" || r.LeaseKind == "" || r.Kind == "" || r.Tier == "" {
			t.Errorf("row %s is missing a field: %+v", r.Name, r)
		}
		if r.Remote() && (r.OwnsDir || r.CanSwitch) {
			t.Errorf("row %s is somebody else's browser but says it owns a dir or switches", r.Name)
		}
		if r.Remote() && r.Why(FeatureHeaded) == "" {
			t.Errorf("row %s is remote and does not refuse headed", r.Name)
		}
	}
	if k := Keyed(); len(k) != 1 || k[0] != Browserless {
		t.Fatalf("Keyed() = %v", k)
	}
	if r, ok := Lookup(""); !ok || r.Name != Chromium {
		t.Fatalf(`Lookup("") = %v %v`, r.Name, ok)
	}
	if _, ok := Lookup("cloud:nobody"); ok {
		t.Fatal("an unknown provider was found")
	}
}

func TestRefuseNamesProvider(t *testing.T) {
	r, _ := Lookup(CDP)
	err := r.Refuse(FeatureHeaded)
	ref, ok := target.AsRefusal(err)
	if !ok || ref.Code != target.CodeNotOnThisProvider || ref.Facts["provider"] != CDP || !strings.Contains(ref.Message, CDP) {
		t.Fatalf("Refuse(headed) = %v", err)
	}
	if err := r.Refuse("browser.snapshot"); err != nil {
		t.Fatalf("cdp refused a snapshot: %v", err)
	}
	c, _ := Lookup(Chromium)
	if err := c.Refuse(FeatureHeaded); err != nil {
		t.Fatalf("chromium refused headed: %v", err)
	}
}

func TestCheckEndpoint(t *testing.T) {
	cdp, _ := Lookup(CDP)
	bl, _ := Lookup(Browserless)
	ch, _ := Lookup(Chromium)
	for _, tc := range []struct {
		row  Row
		in   string
		want string // "" and ok=false: refused
		ok   bool
	}{
		{cdp, "ws://127.0.0.1:9222/devtools/browser/abc", "ws://127.0.0.1:9222/devtools/browser/abc", true},
		{cdp, "http://127.0.0.1:9222", "http://127.0.0.1:9222", true},
		{cdp, "", "", false},
		{cdp, "ftp://x", "", false},
		{cdp, "ws://user:pw@h:1/", "", false},
		{cdp, "127.0.0.1:9222", "", false},
		{bl, "", "", true},
		{bl, "wss://production-lon.browserless.io", "wss://production-lon.browserless.io", true},
		{bl, "wss://production-lon.browserless.io/", "wss://production-lon.browserless.io", true},
		{bl, "wss://h?token=abc", "", false},
		{bl, "http://h", "", false},
		{ch, "ws://h", "", false},
		{ch, "", "", true},
	} {
		got, err := tc.row.CheckEndpoint(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("%s.CheckEndpoint(%q) = %q, %v; want %q ok=%v", tc.row.Name, tc.in, got, err, tc.want, tc.ok)
		}
		if err != nil && target.CodeOf(err) != target.CodeBadRequest {
			t.Errorf("%s.CheckEndpoint(%q): code %s", tc.row.Name, tc.in, target.CodeOf(err))
		}
	}
}

func TestConnectURL(t *testing.T) {
	bl, _ := Lookup(Browserless)
	if _, err := bl.ConnectURL("", ""); target.CodeOf(err) != target.CodeNoKey {
		t.Fatalf("no key: %v", err)
	}
	got, err := bl.ConnectURL("", "k&y=1")
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(got)
	if err != nil || u.Scheme != "wss" || u.Host != "production-sfo.browserless.io" || u.Query().Get("token") != "k&y=1" {
		t.Fatalf("ConnectURL = %q (%v)", got, err)
	}
	cdp, _ := Lookup(CDP)
	if got, err := cdp.ConnectURL("ws://127.0.0.1:1/devtools/browser/x", "ignored"); err != nil || got != "ws://127.0.0.1:1/devtools/browser/x" {
		t.Fatalf("cdp ConnectURL = %q, %v", got, err)
	}
}
