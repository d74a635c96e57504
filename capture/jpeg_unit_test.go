package capture

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"testing"
)

// testJPEG is a 1280×720 picture with gradients, edges and text-like
// noise, as a quality-85 JPEG (4:2:0, as a screencast's).
func testJPEG(t testing.TB) ([]byte, *image.YCbCr) {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 1280, 720))
	seed := uint32(1)
	for y := range 720 {
		for x := range 1280 {
			seed = seed*1664525 + 1013904223
			c := color.RGBA{uint8(x / 5), uint8(y / 3), uint8((x + y) / 8), 255}
			if (x/40+y/30)%3 == 0 && seed>>28 < 6 {
				c = color.RGBA{20, 20, 20, 255}
			}
			img.Set(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85}); err != nil {
		t.Fatal(err)
	}
	ref, err := jpeg.Decode(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), ref.(*image.YCbCr)
}

// TestDecodeJPEG checks decodeJPEG against image/jpeg, the decoder of the
// build without cgo: the same size, every pixel within a few levels (the
// decoders' IDCTs and upsampling round differently), alpha opaque; and a
// truncated or corrupt picture is an error, not a grey frame.
func TestDecodeJPEG(t *testing.T) {
	data, ref := testJPEG(t)
	f, err := decodeJPEG(data)
	if err != nil {
		t.Fatal(err)
	}
	if f.Format != FormatRGBA || f.Width != 1280 || f.Height != 720 || f.Stride < 4*1280 || len(f.Pix) < f.Stride*720 {
		t.Fatalf("decoded %s %dx%d stride %d, %d bytes; want rgba 1280x720", f.Format, f.Width, f.Height, f.Stride, len(f.Pix))
	}
	const tol = 6 // levels per channel; JPEG_BUILTIN or not
	worst := 0
	for y := range 720 {
		for x := range 1280 {
			r, g, b, _ := ref.At(x, y).RGBA()
			p := f.Pix[y*f.Stride+4*x:]
			if p[3] != 255 {
				t.Fatalf("alpha %d at %d,%d", p[3], x, y)
			}
			for i, want := range []uint32{r >> 8, g >> 8, b >> 8} {
				if d := abs(int(p[i]) - int(want)); d > worst {
					worst = d
				}
			}
		}
	}
	t.Logf("libjpeg-turbo built in: %v; largest difference from image/jpeg: %d levels", JPEGBuiltIn, worst)
	if worst > tol {
		t.Errorf("a channel differs from image/jpeg's by %d levels (> %d)", worst, tol)
	}
	for name, bad := range map[string][]byte{
		"empty":     nil,
		"truncated": data[:len(data)/2],
		"not JPEG":  []byte("\x89PNG\r\n\x1a\nnot a jpeg at all"),
	} {
		if _, err := decodeJPEG(bad); err == nil {
			t.Errorf("%s: decoded, want an error", name)
		}
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// BenchmarkDecodeJPEG is one 1280×720 quality-85 screencast picture
// decoded to RGBA: decodeJPEG (libjpeg-turbo when built in) against
// image/jpeg with the conversion the build without cgo makes.
func BenchmarkDecodeJPEG(b *testing.B) {
	data, _ := testJPEG(b)
	b.Run("decodeJPEG", func(b *testing.B) {
		for b.Loop() {
			if _, err := decodeJPEG(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("image-jpeg", func(b *testing.B) {
		for b.Loop() {
			img, err := jpeg.Decode(bytes.NewReader(data))
			if err != nil {
				b.Fatal(err)
			}
			_ = rgbaFrame(img)
		}
	})
}
