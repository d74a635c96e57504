package x11

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"image"
	"image/png"
	"io"
	"math/bits"

	"github.com/jezek/xgb/xproto"

	"github.com/vibespace/vibespace/target"
)

// CapturePath names how a capture's pixels were read.
type CapturePath string

// The capture paths.
const (
	CaptureSHM      CapturePath = "shm"      // MIT-SHM: the server writes into shared memory
	CaptureGetImage CapturePath = "getimage" // core GetImage: the pixels travel over the socket
)

// Capture is the pixels of one window, as far as it lies on the screen.
type Capture struct {
	// Image is the pixels as RGBA (Capture); nil from CaptureBGRX.
	Image *image.RGBA
	// BGRX is the pixels from CaptureBGRX: 4 bytes a pixel, B, G, R and
	// an undefined byte in memory, rows of 4×Area.Width bytes; nil from
	// Capture.
	BGRX   []byte
	Window WindowID
	// Area is the captured rectangle in root coordinates: the window's
	// geometry clipped to the screen.
	Area Geometry
	// Clipped is set when part of the window lies off the screen.
	Clipped bool
	Path    CapturePath
}

// Capture reads window id's pixels. The part of the window that lies off the
// screen is clipped away (Area says what was read). A window that is gone is
// window_gone; one that is unmapped or wholly off-screen is
// window_not_visible; a pixel format other than 32 bits per pixel is
// no_capture.
func (d *Display) Capture(ctx context.Context, id WindowID) (*Capture, error) {
	return d.capture(ctx, id, false)
}

// CaptureBGRX is Capture without the conversion to RGBA: the pixels come
// in c.BGRX, as the server lays them out on an LSB-first server (libyuv's
// "ARGB", what a video encoder's conversion takes). Reading them is a
// plain copy out of the shared segment, where Capture rewrites every pixel
// (about ten times the CPU at 1280×720).
func (d *Display) CaptureBGRX(ctx context.Context, id WindowID) (*Capture, error) {
	return d.capture(ctx, id, true)
}

func (d *Display) capture(ctx context.Context, id WindowID, bgrx bool) (*Capture, error) {
	type where struct {
		x, y, w, h int
		depth      byte
		viewable   bool
	}
	at, err := call(ctx, d, "locate window "+id.String(), func() (where, error) {
		ac := xproto.GetWindowAttributes(d.conn, xproto.Window(id))
		gc := xproto.GetGeometry(d.conn, xproto.Drawable(id))
		tc := xproto.TranslateCoordinates(d.conn, xproto.Window(id), d.root, 0, 0)
		a, aerr := ac.Reply()
		g, gerr := gc.Reply()
		t, terr := tc.Reply()
		if err := errors.Join(aerr, gerr, terr); err != nil {
			return where{}, goneOr(err, id)
		}
		return where{int(t.DstX), int(t.DstY), int(g.Width), int(g.Height), g.Depth, a.MapState == xproto.MapStateViewable}, nil
	})
	if err != nil {
		return nil, err
	}
	if !at.viewable {
		return nil, target.Refuse(target.CodeWindowNotVisible, "window %s is not viewable", id).With("window", id.String())
	}
	area := clip(Geometry{at.x, at.y, at.w, at.h}, Geometry{0, 0, d.width, d.height})
	if area.Width <= 0 || area.Height <= 0 {
		return nil, target.Refuse(target.CodeWindowNotVisible, "window %s is entirely off the screen", id).With("window", id.String())
	}
	if bpp := d.bitsPerPixel(at.depth); bpp != 32 {
		return nil, target.Refuse(target.CodeNoCapture, "window %s has depth %d at %d bits per pixel; only 32 is supported", id, at.depth, bpp).
			With("window", id.String())
	}
	// Window-relative rectangle of the visible part.
	rx, ry := area.X-at.x, area.Y-at.y
	c := &Capture{Window: id, Area: area, Clipped: area.Width != at.w || area.Height != at.h}
	msb := xproto.Setup(d.conn).ImageByteOrder == xproto.ImageOrderMSBFirst
	convert := func(data []byte) pixels {
		if bgrx {
			return pixels{bgrx: toBGRX(data, area.Width, area.Height, msb)}
		}
		return pixels{rgba: toRGBA(data, area.Width, area.Height, msb)}
	}
	px, ok, err := shmGetImage(ctx, d, xproto.Drawable(id), rx, ry, area.Width, area.Height, convert)
	c.Path = CaptureSHM
	if !ok && err == nil {
		c.Path = CaptureGetImage
		px, err = call(ctx, d, "GetImage", func() (pixels, error) {
			r, err := xproto.GetImage(d.conn, xproto.ImageFormatZPixmap, xproto.Drawable(id),
				int16(rx), int16(ry), uint16(area.Width), uint16(area.Height), ^uint32(0)).Reply()
			if err != nil {
				return pixels{}, err
			}
			if len(r.Data) < area.Width*area.Height*4 {
				return pixels{}, target.Refuse(target.CodeNoCapture, "window %s: got %d bytes of pixels for %dx%d", id, len(r.Data), area.Width, area.Height)
			}
			if bgrx && !msb { // the reply is ours: no copy needed
				return pixels{bgrx: r.Data[:area.Width*area.Height*4]}, nil
			}
			return convert(r.Data), nil
		})
	}
	if err != nil {
		var bm xproto.MatchError
		if errors.As(err, &bm) {
			return nil, target.Refuse(target.CodeWindowNotVisible, "window %s cannot be read now (unmapped or moved off screen)", id).
				With("window", id.String()).Wrap(err)
		}
		if target.CodeOf(err) != "" {
			return nil, err
		}
		return nil, goneOr(err, id)
	}
	c.Image, c.BGRX = px.rgba, px.bgrx
	return c, nil
}

// pixels is what a capture converts the server's pixels to: one of the two.
type pixels struct {
	rgba *image.RGBA
	bgrx []byte
}

// bitsPerPixel looks up the server's ZPixmap format for depth.
func (d *Display) bitsPerPixel(depth byte) int {
	for _, f := range xproto.Setup(d.conn).PixmapFormats {
		if f.Depth == depth {
			return int(f.BitsPerPixel)
		}
	}
	return 0
}

// toRGBA converts 32-bit ZPixmap pixels (B, G, R, X in memory on an
// LSB-first server; X, R, G, B on an MSB-first one) to opaque RGBA.
func toRGBA(data []byte, w, h int, msbFirst bool) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	n := w * h * 4
	pix, src := img.Pix[:n:n], data[:n:n]
	// Whole pixels as little-endian words: one load and one store each.
	if msbFirst { // X R G B in memory → R G B A
		for i := 0; i < n; i += 4 {
			v := binary.LittleEndian.Uint32(src[i:])
			binary.LittleEndian.PutUint32(pix[i:], v>>8|0xff000000)
		}
		return img
	}
	for i := 0; i < n; i += 4 { // B G R X in memory → R G B A
		v := binary.LittleEndian.Uint32(src[i:])
		binary.LittleEndian.PutUint32(pix[i:], v>>16&0xff|v&0xff00|(v&0xff)<<16|0xff000000)
	}
	return img
}

// toBGRX copies 32-bit ZPixmap pixels out as B, G, R, X bytes: as they are
// on an LSB-first server, reordered from X, R, G, B on an MSB-first one.
func toBGRX(data []byte, w, h int, msbFirst bool) []byte {
	n := w * h * 4
	if !msbFirst {
		return bytes.Clone(data[:n]) // not zeroed first, unlike make and copy
	}
	out := make([]byte, n)
	src := data[:n:n]
	for i := 0; i < n; i += 4 { // X R G B in memory → B G R X
		v := binary.LittleEndian.Uint32(src[i:])
		binary.LittleEndian.PutUint32(out[i:], bits.ReverseBytes32(v))
	}
	return out
}

// clip is the intersection of g and bounds.
func clip(g, bounds Geometry) Geometry {
	x0, y0 := max(g.X, bounds.X), max(g.Y, bounds.Y)
	x1, y1 := min(g.X+g.Width, bounds.X+bounds.Width), min(g.Y+g.Height, bounds.Y+bounds.Height)
	return Geometry{X: x0, Y: y0, Width: max(0, x1-x0), Height: max(0, y1-y0)}
}

// EncodePNG writes img as PNG, favouring speed over size (a capture is
// usually sent on at once).
func EncodePNG(w io.Writer, img image.Image) error {
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	return enc.Encode(w, img)
}
