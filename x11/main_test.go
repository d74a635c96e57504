package x11_test

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	"io"
	"log"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/vibespace/vibespace/testenv"
	"github.com/vibespace/vibespace/x11"
)

func TestMain(m *testing.M) {
	// xgb logs every connection's missing ~/.Xauthority to stderr, which
	// garbles benchmark output; the test binary owns this global.
	xgb.Logger = log.New(io.Discard, "", 0)
	testenv.Main(m)
}

// fixture is one fixture app on the shared desktop and our connection to
// its display.
type fixture struct {
	d *testenv.Desktop
	x *x11.Display
	f *testenv.Fixture
}

// newFixture launches a fixture app on the shared desktop, opens the display
// and gives the fixture window the focus. Everything is closed at cleanup.
func newFixture(t testing.TB) *fixture {
	t.Helper()
	d := testenv.SharedDesktop(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	x, err := x11.Open(ctx, d.Display)
	if err != nil {
		t.Fatalf("open %s: %v", d.Display, err)
	}
	t.Cleanup(func() {
		if err := x.Close(); err != nil {
			t.Errorf("close display: %v", err)
		}
	})
	f, err := testenv.LaunchFixture(ctx, d)
	if err != nil {
		t.Fatalf("launch fixture: %v", err)
	}
	t.Cleanup(func() { _ = f.Stop() })
	if err := x.Focus(ctx, f.Window.ID); err != nil {
		t.Fatalf("focus the fixture: %v", err)
	}
	return &fixture{d: d, x: x, f: f}
}

// extents asks the fixture itself, through AT-SPI (pyatspi in a separate
// process, not our code), where its named widgets are on the screen.
func (fx *fixture) extents(t testing.TB, names ...string) map[string]image.Rectangle {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	script, err := filepath.Abs(filepath.Join("testdata", "extents.py"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, testenv.FixturePython, append([]string{script, fmt.Sprint(fx.f.PID)}, names...)...)
	cmd.Env = fx.d.Env()
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("extents.py %v: %v %s", names, err, stderr)
	}
	var raw map[string][4]int
	if err := json.Unmarshal(out, &raw); err != nil {
		t.Fatalf("extents.py said %q: %v", out, err)
	}
	rects := make(map[string]image.Rectangle, len(raw))
	for n, r := range raw {
		rects[n] = image.Rect(r[0], r[1], r[0]+r[2], r[1]+r[3])
	}
	return rects
}

// centre is the middle of r.
func centre(r image.Rectangle) (int, int) { return (r.Min.X + r.Max.X) / 2, (r.Min.Y + r.Max.Y) / 2 }

// focusEntry clicks the fixture's entry, so that typed keys go there, and
// waits until the fixture says the entry has the focus.
func (fx *fixture) focusEntry(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	from := fx.f.Log.Len()
	x, y := centre(fx.extents(t, "Name")["Name"])
	if err := fx.x.Click(ctx, x, y, x11.ButtonLeft, 1); err != nil {
		t.Fatalf("click the entry: %v", err)
	}
	if _, err := fx.f.Log.WaitFrom(ctx, from, func(e testenv.Event) bool {
		return e.Type == "focus" && e.Widget == "entry"
	}); err != nil {
		// The entry may have had the focus already; a click is enough then.
		t.Logf("no focus event for the entry: %v", err)
	}
}

// waitText waits for the fixture to log widget's text as want.
func (fx *fixture) waitText(t testing.TB, from int, widget, want string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if _, err := fx.f.Log.WaitFrom(ctx, from, func(e testenv.Event) bool {
		return e.Type == "text" && e.Widget == widget && e.Text == want
	}); err != nil {
		t.Fatalf("the %s never held %q: %v", widget, want, err)
	}
}

// keysDown asks the X server (over a connection of the test's own) which
// keycodes are down now.
func keysDown(t testing.TB, display string) []int {
	t.Helper()
	c, err := xgb.NewConnDisplay(display)
	if err != nil {
		t.Fatalf("connect %s: %v", display, err)
	}
	defer c.Close()
	r, err := xproto.QueryKeymap(c).Reply()
	if err != nil {
		t.Fatalf("QueryKeymap: %v", err)
	}
	var down []int
	for i, b := range r.Keys {
		for bit := range 8 {
			if b&(1<<bit) != 0 {
				down = append(down, i*8+bit)
			}
		}
	}
	return down
}
