package native

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestPlanLaunch: a Chromium or an Electron app gets
// --force-renderer-accessibility right after the program unless it has
// it; nothing else is touched.
func TestPlanLaunch(t *testing.T) {
	dir := t.TempDir()
	// A packaged Electron app: the program, and resources/app.asar beside it.
	app := filepath.Join(dir, "opt", "notes", "notes")
	os.MkdirAll(filepath.Join(dir, "opt", "notes", "resources"), 0o755)
	os.WriteFile(app, []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "opt", "notes", "resources", "app.asar"), []byte("asar"), 0o644)
	link := filepath.Join(dir, "notes")
	os.Symlink(app, link)
	plain := filepath.Join(dir, "plain")
	os.WriteFile(plain, []byte("#!/bin/sh\n"), 0o755)

	for _, c := range []struct {
		argv []string
		want []string // nil: unchanged
	}{
		{[]string{"chromium", "--no-sandbox", "file:///p.html"}, []string{"chromium", forceA11y, "--no-sandbox", "file:///p.html"}},
		{[]string{"/usr/bin/chromium-browser"}, []string{"/usr/bin/chromium-browser", forceA11y}},
		{[]string{"google-chrome-stable", "--", "x"}, []string{"google-chrome-stable", forceA11y, "--", "x"}},
		{[]string{"/opt/google/chrome/chrome"}, []string{"/opt/google/chrome/chrome", forceA11y}},
		{[]string{"electron", "main.js"}, []string{"electron", forceA11y, "main.js"}},
		{[]string{app, "--flag"}, []string{app, forceA11y, "--flag"}},
		{[]string{link}, []string{link, forceA11y}},
		// Already there (or with a value): unchanged.
		{[]string{"chromium", "--x", forceA11y}, nil},
		{[]string{"chromium", forceA11y + "=basic"}, nil},
		// After "--" it is no switch: added before it.
		{[]string{"chromium", "--", forceA11y}, []string{"chromium", forceA11y, "--", forceA11y}},
		// Not a browser.
		{[]string{"gtk3-widget-factory"}, nil},
		{[]string{plain, "chromium"}, nil},
		{[]string{"env", "chromium"}, nil},
		{[]string{"no-such-program-vibespace"}, nil},
	} {
		p := planLaunch(slices.Clone(c.argv))
		want := c.want
		if want == nil {
			want = c.argv
		}
		if !slices.Equal(p.argv, want) {
			t.Errorf("planLaunch(%q) runs %q, want %q", c.argv, p.argv, want)
		}
		if changed := c.want != nil; changed != (p.note != "") || (changed && !strings.Contains(p.note, "accessibility switched on: "+forceA11y)) {
			t.Errorf("planLaunch(%q) says %q", c.argv, p.note)
		}
	}
	if k := chromiumKind(link); !strings.Contains(k, "Electron") {
		t.Errorf("chromiumKind(a link to a packaged Electron app) = %q", k)
	}
}
