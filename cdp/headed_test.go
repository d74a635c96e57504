package cdp_test

import (
	"strings"
	"testing"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/testenv"
)

// A headed browser on our own X display works like a headless one and is
// not headless.
func TestHeadedOnDisplay(t *testing.T) {
	t.Parallel()
	needChromium(t)
	d := testenv.NewDesktop(t)
	ctx := ctxT(t)
	b, err := cdp.Launch(ctx, cdp.Options{Display: d.Display, Env: d.Env()})
	if err != nil {
		t.Fatal(err)
	}
	pid := b.PID()
	defer func() {
		if err := b.Close(); err != nil {
			t.Error(err)
		}
		if left := cdp.GroupProcesses(pid); len(left) > 0 {
			t.Errorf("processes %v left", left)
		}
	}()
	c, err := b.NewContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	srv := server(t)
	tab, err := c.NewTab(ctx, srv.URL+"/other")
	if err != nil {
		t.Fatal(err)
	}
	var ua string
	if err := tab.EvalInto(ctx, "navigator.userAgent", &ua); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(ua, "Headless") {
		t.Fatalf("headed browser says %q", ua)
	}
	if got, err := tab.Title(ctx); err != nil || got != "Other page" {
		t.Fatalf("title %q (%v)", got, err)
	}
}
