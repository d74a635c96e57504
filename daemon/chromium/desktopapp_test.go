package chromium

import (
	"slices"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/internal/chromeflags"
	"github.com/vibespace/vibespace/target"
)

// TestAppArgv: a desktop app is the pool's program with its own
// user-data-dir, its accessibility on, every flag of chromeflags.Quiet, the
// size asked and its address as an app window, and nothing of DevTools,
// automation or headless; it opens on the pool's display.
func TestAppArgv(t *testing.T) {
	p := New(Options{Binary: "/opt/chromium-test/chrome", IdleStop: -1})
	defer p.Close()
	if p.AppDisplay() != DefaultAppDisplay {
		t.Errorf("AppDisplay %q, want %q", p.AppDisplay(), DefaultAppDisplay)
	}
	argv := p.AppArgv("/srv/profiles/bp-1", kind.App{URL: "https://shop.example/", Width: 800, Height: 600})
	if argv[0] != "/opt/chromium-test/chrome" || argv[len(argv)-1] != "--app=https://shop.example/" {
		t.Fatalf("argv %q", argv)
	}
	want := append([]string{"--user-data-dir=/srv/profiles/bp-1", "--force-renderer-accessibility", "--window-size=800,600"}, chromeflags.Quiet()...)
	for _, w := range want {
		if !slices.Contains(argv, w) {
			t.Errorf("argv lacks %s: %q", w, argv)
		}
	}
	for _, a := range argv {
		for _, bad := range []string{"--remote-debugging", "--enable-automation", "--headless"} {
			if strings.HasPrefix(a, bad) {
				t.Errorf("argv has %s: %q", a, argv)
			}
		}
	}
	blank := New(Options{AppDisplay: "xvfb", IdleStop: -1})
	defer blank.Close()
	argv = blank.AppArgv("d", kind.App{})
	if blank.AppDisplay() != "xvfb" || argv[0] != DefaultBinary || argv[len(argv)-1] != "--app=about:blank" ||
		slices.ContainsFunc(argv, func(a string) bool { return strings.HasPrefix(a, "--window-size") }) {
		t.Errorf("a pool's defaults: %q on %s", argv, blank.AppDisplay())
	}
}

// TestAppCheck: a desktop app's address and size are read, or refused
// bad_request without repeating a password.
func TestAppCheck(t *testing.T) {
	if app, err := CheckApp("file:///srv/page.html", "800x600"); err != nil || app != (kind.App{URL: "file:///srv/page.html", Width: 800, Height: 600}) {
		t.Fatalf("CheckApp: %+v %v", app, err)
	}
	if app, err := CheckApp("", ""); err != nil || app != (kind.App{}) {
		t.Fatalf("CheckApp of nothing: %+v %v", app, err)
	}
	for _, c := range [][2]string{
		{"", "800"}, {"", "10x10"}, {"", "99999x600"}, {"javascript:alert(1)", ""}, {"ttp://shop.example/", ""},
		{"ftp://ada:secret@shop.example/", ""}, {"https://ada:secret@shop.example/", ""}, {"--no-sandbox", ""},
	} {
		_, err := CheckApp(c[0], c[1])
		if target.CodeOf(err) != target.CodeBadRequest || strings.Contains(err.Error(), "secret") {
			t.Errorf("CheckApp(%q, %q): %v", c[0], c[1], err)
		}
	}
}
