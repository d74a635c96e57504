package profile

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/target"
)

// TestDesktopAppProfile: a desktop app's profile is a profile like any
// (an id, a private directory, a label unique across backends) that keeps
// its backend and how it starts across a reopen; its settings change with
// SetApp, which a CDP profile refuses.
func TestDesktopAppProfile(t *testing.T) {
	dir := t.TempDir()
	r := open(t, dir)
	work := mustNew(t, r, "work")
	app := App{URL: "https://shop.example/", Width: 800, Height: 600, Mode: "tree"}
	shop, err := r.NewApp("shop", app)
	if err != nil {
		t.Fatal(err)
	}
	if !idRE.MatchString(shop.ID) || !shop.DesktopApp() || shop.App != app || shop.BackendWords() != "desktop-app" {
		t.Fatalf("NewApp = %+v", shop)
	}
	if work.DesktopApp() || work.BackendWords() != "cdp" || work.App != (App{}) {
		t.Fatalf("a CDP profile: %+v", work)
	}
	if got := mode(t, filepath.Join(dir, DirName, shop.ID)); got != 0o700 {
		t.Fatalf("the desktop app's directory has mode %o", got)
	}
	// A label is unique whatever the backend; the refusal names the
	// backend of the one that has it.
	_, err = r.NewApp("Work", App{})
	if rf := wantCode(t, err, target.CodeLabelTaken); rf.Facts["backend"] != "cdp" {
		t.Fatalf("label_taken facts: %v", rf.Facts)
	}
	_, err = r.New("SHOP")
	if rf := wantCode(t, err, target.CodeLabelTaken); rf.Facts["backend"] != "desktop-app" || !strings.Contains(rf.Message, "backend desktop-app") {
		t.Fatalf("label_taken: %v", rf)
	}
	// The file keeps the backend; a CDP profile's entry says nothing of one.
	b, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"backend": "desktop-app"`) || strings.Count(string(b), `"backend"`) != 1 {
		t.Fatalf("profiles.json:\n%s", b)
	}
	if !reflect.DeepEqual(open(t, dir).List(), r.List()) {
		t.Fatalf("reopened: %+v, want %+v", open(t, dir).List(), r.List())
	}

	next := App{URL: "about:blank", Mode: "pixels"}
	got, err := r.SetApp(shop.ID, next)
	if err != nil || got.App != next {
		t.Fatalf("SetApp = %+v, %v", got, err)
	}
	if p, _ := open(t, dir).Find("shop"); p.App != next {
		t.Fatalf("after SetApp and a reopen: %+v", p)
	}
	_, err = r.SetApp(work.ID, next)
	wantCode(t, err, target.CodeBadRequest)
	_, err = r.SetApp("bp-00000000", next)
	wantCode(t, err, target.CodeUnknownProfile)
	if p, _ := r.Find("work"); p.App != (App{}) {
		t.Fatalf("a refused SetApp changed the CDP profile: %+v", p)
	}
}

// TestBackendInTheFileIsChecked: a profiles.json with a backend this
// build does not know, or a desktop app's settings on a CDP profile, is
// corrupt (named, kept); the valid shape opens.
func TestBackendInTheFileIsChecked(t *testing.T) {
	for name, body := range map[string]string{
		"unknown backend": `{"version":1,"profiles":[{"id":"bp-00000001","label":"a","created":"2026-01-01T00:00:00Z","backend":"firefox"}]}`,
		"app without one": `{"version":1,"profiles":[{"id":"bp-00000001","label":"a","created":"2026-01-01T00:00:00Z","app":{"url":"about:blank"}}]}`,
		"negative size":   `{"version":1,"profiles":[{"id":"bp-00000001","label":"a","created":"2026-01-01T00:00:00Z","backend":"desktop-app","app":{"width":-1}}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, FileName)
			if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := Open(dir, nil); err == nil || !strings.Contains(err.Error(), path) {
				t.Fatalf("Open = %v, want an error naming %s", err, path)
			}
		})
	}
	dir := t.TempDir()
	valid := `{"version":1,"profiles":[{"id":"bp-00000001","label":"a","created":"2026-01-01T00:00:00Z","backend":"desktop-app","app":{"url":"about:blank","width":800,"height":600}}]}`
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(valid), 0o600); err != nil {
		t.Fatal(err)
	}
	if p, err := open(t, dir).Find("a"); err != nil || !p.DesktopApp() || p.App.Width != 800 {
		t.Fatalf("the valid file: %+v, %v", p, err)
	}
}
