package profile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/vibespace/vibespace/target"
)

// TestRemoteProfile: a profile of somebody else's browser keeps its
// provider and endpoint across a reopen and gets no directory of ours; an
// unknown provider is refused; a file written before providers existed
// (backend only) loads as before.
func TestRemoteProfile(t *testing.T) {
	dir := t.TempDir()
	r := open(t, dir)
	p, err := r.NewRemote("theirs", ProviderCDP, "ws://127.0.0.1:9222/devtools/browser/x")
	if err != nil {
		t.Fatal(err)
	}
	if !p.Remote() || p.ProviderName() != "cdp" || p.Endpoint != "ws://127.0.0.1:9222/devtools/browser/x" {
		t.Fatalf("NewRemote = %+v", p)
	}
	if _, err := os.Lstat(filepath.Join(dir, DirName, p.ID)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a remote profile got a directory: %v", err)
	}
	c, err := r.NewRemote("cloud", "cloud:browserless", "")
	if err != nil || c.ProviderName() != "cloud:browserless" {
		t.Fatalf("NewRemote(cloud) = %+v, %v", c, err)
	}
	if _, err := r.NewRemote("x", "cloud:", ""); target.CodeOf(err) != target.CodeBadRequest {
		t.Fatalf("cloud: with no name: %v", err)
	}
	if _, err := r.NewRemote("theirs", ProviderCDP, "ws://h/"); target.CodeOf(err) != target.CodeLabelTaken {
		t.Fatalf("a taken label: %v", err)
	}
	r2 := open(t, dir)
	got, err := r2.Find("theirs")
	if err != nil || got != p {
		t.Fatalf("after reopen: %+v, %v; want %+v", got, err, p)
	}
	if w := mustNew(t, r2, "ours"); w.Remote() || w.ProviderName() != "chromium" {
		t.Fatalf("a built-in profile: %+v", w)
	}
}

func TestOlderFileWithBackendLoads(t *testing.T) {
	dir := t.TempDir()
	old := `{"version":1,"profiles":[{"id":"bp-0000abcd","label":"shop","created":"2026-01-01T00:00:00Z","backend":"desktop-app","app":{"url":"about:blank"}}]}`
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	r := open(t, dir)
	p, err := r.Find("shop")
	if err != nil || !p.DesktopApp() || p.ProviderName() != "desktop-app" || p.Remote() {
		t.Fatalf("older file: %+v, %v", p, err)
	}
	bad := `{"version":1,"profiles":[{"id":"bp-0000abcd","label":"x","created":"2026-01-01T00:00:00Z","provider":"desktop-app"}]}`
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, nil); err == nil {
		t.Fatal("a file with an unknown provider loaded")
	}
}
