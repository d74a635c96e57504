package rtc

import (
	"testing"

	"github.com/vibespace/vibespace/capture"
)

// TestConvertFrameMatchesConvert: the conversion the pipeline uses (libyuv
// when built in) gives the pure-Go Convert's picture, within rounding, for
// both pixel formats and an odd size.
func TestConvertFrameMatchesConvert(t *testing.T) {
	const w, h = 37, 21
	f := capture.Frame{Format: capture.FormatRGBA, Width: w, Height: h, Stride: 4*w + 8, Pix: make([]byte, (4*w+8)*h)}
	for y := range h {
		for x := range w {
			p := f.Pix[y*f.Stride+4*x:]
			p[0], p[1], p[2], p[3] = byte(x*7), byte(y*11), byte((x*y)%256), 255
		}
	}
	for _, format := range []capture.Format{capture.FormatRGBA, capture.FormatBGRX} {
		g := f
		g.Format = format
		g.Pix = append([]byte(nil), f.Pix...)
		if format == capture.FormatBGRX {
			for i := 0; i+3 < len(g.Pix); i += 4 {
				g.Pix[i], g.Pix[i+2] = g.Pix[i+2], g.Pix[i]
			}
		}
		var want, got I420
		if err := want.Convert(g); err != nil {
			t.Fatal(err)
		}
		if err := convertFrame(&got, g); err != nil {
			t.Fatal(err)
		}
		if got.Width != w || got.Height != h || got.StrideY != want.StrideY || got.StrideC != want.StrideC {
			t.Fatalf("%s: %dx%d strides %d/%d, want %d/%d", format, got.Width, got.Height, got.StrideY, got.StrideC, want.StrideY, want.StrideC)
		}
		for _, pl := range []struct {
			name      string
			got, want []byte
		}{{"Y", got.Y, want.Y}, {"U", got.U, want.U}, {"V", got.V, want.V}} {
			if len(pl.got) != len(pl.want) {
				t.Fatalf("%s %s: %d samples, want %d", format, pl.name, len(pl.got), len(pl.want))
			}
			for i := range pl.got {
				if d := int(pl.got[i]) - int(pl.want[i]); d > 2 || d < -2 {
					t.Fatalf("%s %s[%d] = %d, pure Go says %d", format, pl.name, i, pl.got[i], pl.want[i])
				}
			}
		}
	}
}

// BenchmarkConvertFrame is the pipeline's RGBA → I420 conversion of a
// 1280×720 picture (libyuv when built in), next to the pure-Go Convert.
func BenchmarkConvertFrame(b *testing.B) {
	f := capture.Frame{Format: capture.FormatRGBA, Width: 1280, Height: 720, Stride: 4 * 1280, Pix: make([]byte, 4*1280*720)}
	for i := range f.Pix {
		f.Pix[i] = byte(i * 7)
	}
	var p I420
	b.Run("pipeline", func(b *testing.B) {
		for b.Loop() {
			if err := convertFrame(&p, f); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("pure-go", func(b *testing.B) {
		for b.Loop() {
			if err := p.Convert(f); err != nil {
				b.Fatal(err)
			}
		}
	})
}
