package xpra_test

import (
	"context"
	"fmt"
	"net"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/testenv"
	"github.com/vibespace/vibespace/xpra"
)

// html5Window is what Xpra's HTML5 client shows of one window: its title
// bar's text (Window.js puts it in span.windowtitle, id "title<wid>", of
// the window's div in #screen) and its canvas, with how many distinct
// colours a sample of the canvas holds (a window drawn black or not drawn
// at all has one).
type html5Window struct {
	WID     string `json:"wid"`
	Title   string `json:"title"`
	W       int    `json:"w"`
	H       int    `json:"h"`
	Colours int    `json:"colours"`
}

const html5WindowsJS = `(() => Array.from(document.querySelectorAll('#screen > div')).map(div => {
	const t = div.querySelector('span.windowtitle'), c = div.querySelector('canvas');
	let colours = 0;
	if (c && c.width > 0 && c.height > 0) {
		const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data, seen = new Set();
		for (let i = 0; i < d.length && seen.size < 64; i += 4 * 97) seen.add(d[i] << 16 | d[i+1] << 8 | d[i+2]);
		colours = seen.size;
	}
	return {wid: div.id, title: t ? t.textContent : '', w: c ? c.width : 0, h: c ? c.height : 0, colours};
}))()`

// TestHTML5ClientSeesTheWindow: a headless Chromium pointed at the display's
// HTML5 port runs Xpra's own HTML5 client, which shows the fixture's window
// with its title and its pixels; while the page is open xpra counts one
// client and Watchers says attached; once the page is gone, neither.
func TestHTML5ClientSeesTheWindow(t *testing.T) {
	testenv.NeedIntegration(t, "chromium", "xpra")
	port := freePort(t)
	d := testenv.NewXpra(t, xpra.Options{HTML: fmt.Sprintf("127.0.0.1:%d", port)})
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	f, err := testenv.LaunchFixture(ctx, d.Desktop)
	if err != nil {
		t.Fatal(err)
	}
	if w, err := d.Watchers(); err != nil || w.Attached {
		t.Fatalf("watchers before the page: %+v %v", w, err)
	}
	in, err := d.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(in.Windows, func(w xpra.Window) bool { return w.XID == f.Window.ID })
	if i < 0 || in.Clients != 0 {
		t.Fatalf("before the page xpra says %d clients, windows %+v (fixture window %s)", in.Clients, in.Windows, f.Window.ID)
	}
	want := in.Windows[i]

	b, err := cdp.Launch(ctx, cdp.Options{Headless: true, UserDataDir: t.TempDir(), ExtraFlags: []string{"--window-size=1600,1000"}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := b.Close(); err != nil {
			t.Errorf("the viewer browser: %v", err)
		}
	}()
	c, err := b.NewContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// No sound (this display has none), and no reconnecting after the page
	// is gone.
	tab, err := c.NewTab(ctx, fmt.Sprintf("http://127.0.0.1:%d/index.html?sound=false&reconnect=false&clipboard=false&printing=false&file_transfer=false", port))
	if err != nil {
		t.Fatal(err)
	}
	var last []html5Window
	waitFor(t, ctx, "the HTML5 client to show the fixture's window, drawn", func() bool {
		last = nil
		if err := tab.EvalInto(ctx, html5WindowsJS, &last); err != nil {
			t.Logf("reading the page: %v", err)
			return false
		}
		for _, w := range last {
			if w.Title == "vibespace fixture" && w.WID == fmt.Sprint(want.WID) && w.W == want.Geometry.Width && w.H == want.Geometry.Height && w.Colours >= 3 {
				return true
			}
		}
		return false
	})
	t.Logf("the HTML5 client shows %+v", last)

	waitFor(t, ctx, "watchers attached", func() bool { w, _ := d.Watchers(); return w.Attached })
	if in, err := d.Info(ctx); err != nil || in.Clients != 1 {
		t.Fatalf("xpra counts %d clients (%v) while the page is open", in.Clients, err)
	}

	// The page goes (its browser context is disposed): the client leaves.
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "watchers gone", func() bool { w, _ := d.Watchers(); return !w.Attached })
	if in, err := d.Info(ctx); err != nil || in.Clients != 0 {
		t.Fatalf("xpra counts %d clients (%v) after the page closed", in.Clients, err)
	}
	if err := syscall.Kill(f.PID, 0); err != nil {
		t.Fatalf("the fixture died: %v", err)
	}
}

// freePort is a loopback port nobody listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
