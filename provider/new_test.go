package provider

import (
	"testing"

	"github.com/vibespace/vibespace/target"
)

// TestCheckNew: new's provider, backend and endpoint are checked against
// the table, and a desktop app's flags are a desktop app's alone.
func TestCheckNew(t *testing.T) {
	for _, c := range []struct {
		n    New
		app  bool
		code target.Code
	}{
		{New{}, false, ""},
		{New{Backend: "cdp"}, false, ""},
		{New{Backend: DesktopApp, App: true}, true, ""},
		{New{Provider: DesktopApp}, true, ""},
		{New{Provider: Chromium, Backend: "cdp"}, false, ""},
		{New{Provider: CDP, Endpoint: "ws://127.0.0.1:9222/devtools/browser/x"}, false, ""},
		{New{Provider: CDP}, false, target.CodeBadRequest},
		{New{Provider: CDP, Endpoint: "ws://127.0.0.1:9222/devtools/browser/x", App: true}, false, target.CodeBadRequest},
		{New{Provider: DesktopApp, Backend: "cdp"}, false, target.CodeBadRequest},
		{New{Provider: LocalWindow}, false, target.CodeBadRequest},
		{New{Provider: "opera"}, false, target.CodeBadRequest},
		{New{Provider: Firefox}, false, ""}, // issue 42: Firefox over WebDriver BiDi is a profile provider
		{New{Provider: Firefox, Endpoint: "ws://h/"}, false, target.CodeBadRequest},
		{New{Provider: DesktopApp, Endpoint: "ws://h/"}, false, target.CodeBadRequest},
		{New{Endpoint: "ws://h/"}, false, target.CodeBadRequest},
		{New{App: true}, false, target.CodeBadRequest},
		{New{Backend: "firefox"}, false, target.CodeBadRequest},
	} {
		app, err := CheckNew(All(), c.n)
		if app != c.app || target.CodeOf(err) != c.code {
			t.Errorf("CheckNew(%+v) = %v, %v; want %v, %q", c.n, app, err, c.app, c.code)
		}
	}
}
