package x11_test

import (
	"bytes"
	"context"
	"image/png"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/vibespace/vibespace/x11"
)

func TestCaptureWindow(t *testing.T) {
	fx := newFixture(t)
	c := fx.painted(t)
	g := xwininfo(t, fx.d, fx.f.Window.ID)
	if b := c.Image.Bounds(); b.Dx() != g.Width || b.Dy() != g.Height || c.Clipped {
		t.Errorf("capture is %v (clipped %v), the window %v", b, c.Clipped, g)
	}
	if c.Path != x11.CaptureSHM {
		t.Errorf("capture path %q, want shm on a local Xvfb", c.Path)
	}
	var buf bytes.Buffer
	if err := x11.EncodePNG(&buf, c.Image); err != nil {
		t.Fatalf("EncodePNG: %v", err)
	}
	img, err := png.Decode(&buf)
	if err != nil || img.Bounds() != c.Image.Bounds() {
		t.Fatalf("PNG decodes to %v, %v", img.Bounds(), err)
	}
}

// TestCaptureWithoutSHM reads the same window over core GetImage and
// compares the pixels with the MIT-SHM capture.
func TestCaptureWithoutSHM(t *testing.T) {
	fx := newFixture(t)
	viaSHM := fx.painted(t)
	x, err := x11.Open(t.Context(), fx.d.Display)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	x11.DisableSHM(x)
	plain, err := x.Capture(t.Context(), fx.f.Window.ID)
	if err != nil {
		t.Fatalf("Capture without SHM: %v", err)
	}
	if plain.Path != x11.CaptureGetImage {
		t.Errorf("path %q, want getimage", plain.Path)
	}
	if plain.Image.Bounds() != viaSHM.Image.Bounds() {
		t.Fatalf("GetImage capture %v, MIT-SHM capture %v", plain.Image.Bounds(), viaSHM.Image.Bounds())
	}
	// A blinking cursor may repaint between the two: allow a few pixels.
	differ := 0
	for i := 0; i < len(plain.Image.Pix); i += 4 {
		if !bytes.Equal(plain.Image.Pix[i:i+4], viaSHM.Image.Pix[i:i+4]) {
			differ++
		}
	}
	if n := len(plain.Image.Pix) / 4; differ > n/100 {
		t.Errorf("GetImage and MIT-SHM captures differ in %d of %d pixels", differ, n)
	}
}

// BenchmarkCapture captures the fixture window through MIT-SHM and through
// core GetImage.
func BenchmarkCapture(b *testing.B) {
	fx := newFixture(b)
	x, err := x11.Open(b.Context(), fx.d.Display)
	if err != nil {
		b.Fatal(err)
	}
	defer x.Close()
	x11.DisableSHM(x)
	for _, tc := range []struct {
		name string
		d    *x11.Display
	}{{"shm", fx.x}, {"getimage", x}} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := tc.d.Capture(b.Context(), fx.f.Window.ID); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestCapturePartlyOffScreen moves the fixture half off the right edge (the
// test's own connection; there is no window manager) and captures it.
func TestCapturePartlyOffScreen(t *testing.T) {
	fx := newFixture(t)
	sw, _ := fx.x.ScreenSize()
	g := fx.f.Window.Geometry
	c, err := xgb.NewConnDisplay(fx.d.Display)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	x := sw - g.Width/2
	if err := xproto.ConfigureWindowChecked(c, xproto.Window(fx.f.Window.ID), xproto.ConfigWindowX|xproto.ConfigWindowY,
		[]uint32{uint32(x), uint32(g.Y)}).Check(); err != nil {
		t.Fatal(err)
	}
	cap, err := fx.x.Capture(t.Context(), fx.f.Window.ID)
	if err != nil {
		t.Fatalf("Capture: %v", err)
	}
	want := x11.Geometry{X: x, Y: g.Y, Width: sw - x, Height: g.Height}
	if !cap.Clipped || cap.Area != want || cap.Image.Bounds().Dx() != want.Width || cap.Image.Bounds().Dy() != want.Height {
		t.Errorf("capture area %v clipped %v size %v, want area %v", cap.Area, cap.Clipped, cap.Image.Bounds(), want)
	}
}

// painted captures the fixture window until it is not blank (more than one
// distinct colour): a window just mapped is painted a moment later.
func (fx *fixture) painted(t testing.TB) *x11.Capture {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	for {
		c, err := fx.x.Capture(ctx, fx.f.Window.ID)
		if err != nil {
			t.Fatalf("Capture: %v", err)
		}
		if colours(c) > 1 {
			return c
		}
		if ctx.Err() != nil {
			t.Fatalf("the fixture window stays blank in every capture")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// colours counts distinct colours, up to a few.
func colours(c *x11.Capture) int {
	seen := map[[3]byte]bool{}
	p := c.Image.Pix
	for i := 0; i+3 < len(p) && len(seen) < 8; i += 4 {
		seen[[3]byte{p[i], p[i+1], p[i+2]}] = true
	}
	return len(seen)
}

// TestCaptureBGRX reads the fixture window unconverted, through MIT-SHM and
// through core GetImage, and compares the pixels with Capture's RGBA ones.
func TestCaptureBGRX(t *testing.T) {
	fx := newFixture(t)
	rgba := fx.painted(t)
	plain, err := x11.Open(t.Context(), fx.d.Display)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	x11.DisableSHM(plain)
	for _, tc := range []struct {
		d    *x11.Display
		path x11.CapturePath
	}{{fx.x, x11.CaptureSHM}, {plain, x11.CaptureGetImage}} {
		c, err := tc.d.CaptureBGRX(t.Context(), fx.f.Window.ID)
		if err != nil {
			t.Fatalf("CaptureBGRX (%s): %v", tc.path, err)
		}
		if c.Path != tc.path || c.Image != nil || c.Area != rgba.Area {
			t.Fatalf("CaptureBGRX: path %q, image %v, area %v; want path %q, no image, area %v", c.Path, c.Image != nil, c.Area, tc.path, rgba.Area)
		}
		if len(c.BGRX) != 4*c.Area.Width*c.Area.Height {
			t.Fatalf("CaptureBGRX (%s): %d bytes for %dx%d", tc.path, len(c.BGRX), c.Area.Width, c.Area.Height)
		}
		// A blinking cursor may repaint between the two: allow a few pixels.
		differ := 0
		for i := 0; i < len(c.BGRX); i += 4 {
			b, r := c.BGRX[i:i+4], rgba.Image.Pix[i:i+4]
			if b[0] != r[2] || b[1] != r[1] || b[2] != r[0] {
				differ++
			}
		}
		if n := len(c.BGRX) / 4; differ > n/100 {
			t.Errorf("CaptureBGRX (%s) and Capture differ in %d of %d pixels", tc.path, differ, n)
		}
	}
}
