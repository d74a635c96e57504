package cdptest

import (
	"context"
	"testing"

	"github.com/vibespace/vibespace/cdp"
)

// ViewerFlags are a headless viewer's flags for the live view: Chromium
// ignores loopback ICE candidates without the first two, and the rest keep
// a page that is not in front decoding at full rate.
var ViewerFlags = []string{
	"--allow-loopback-in-peer-connection",
	"--disable-features=WebRtcHideLocalIpsWithMdns",
	"--autoplay-policy=no-user-gesture-required",
	"--disable-background-timer-throttling",
	"--disable-renderer-backgrounding",
	"--disable-backgrounding-occluded-windows",
}

// LaunchViewer starts a headless Chromium of the test's own for the live
// view's page (ViewerFlags); it is closed when the test ends.
func LaunchViewer(t testing.TB, ctx context.Context) *cdp.Browser {
	t.Helper()
	b, err := cdp.Launch(ctx, cdp.Options{Headless: true, ExtraFlags: ViewerFlags})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}
