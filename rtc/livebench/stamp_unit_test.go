package livebench

import (
	"image"
	"testing"

	"github.com/vibespace/vibespace/capture"
)

// drawCells is cells.js's draw in Go, into a frame of either format: the
// marker at mark and the cells carrying ts (no inputs).
func drawCells(f capture.Frame, mark image.Point, ts int64) {
	fill := func(x0, y0, w, h int, r, g, b byte) {
		if f.Format == capture.FormatBGRX {
			r, b = b, r
		}
		for y := y0; y < y0+h; y++ {
			for x := x0; x < x0+w; x++ {
				p := f.Pix[y*f.Stride+4*x:]
				p[0], p[1], p[2], p[3] = r, g, b, 255
			}
		}
	}
	fill(mark.X, mark.Y, markSize, markSize, 255, 0, 255)
	v := ts * 16
	by := make([]byte, 6)
	for i := 5; i >= 0; i-- {
		by[i] = byte(v % 256)
		v /= 256
	}
	s := 0x5a
	for _, x := range by {
		s = (s*31 + int(x) + 7) % 256
	}
	by = append(by, byte(s))
	for i := range cellRows * cellCols {
		bit := by[i/8] >> (7 - i%8) & 1
		c := byte(0)
		if bit == 1 {
			c = 255
		}
		fill(mark.X+cellsLeft+(i%cellCols)*cellSize, mark.Y+(i/cellCols)*cellSize, cellSize, cellSize, c, c, c)
	}
}

// TestDecodeCells: the cells drawn into a frame, RGBA or BGRX, are found
// and read back; a flipped cell fails the check.
func TestDecodeCells(t *testing.T) {
	const w, h = 700, 200
	const ts = 1764756000123
	for _, format := range []capture.Format{capture.FormatRGBA, capture.FormatBGRX} {
		f := capture.Frame{Format: format, Width: w, Height: h, Stride: 4 * w, Pix: make([]byte, 4*w*h)}
		for i := range f.Pix {
			f.Pix[i] = 230
		}
		at := image.Pt(13, 37)
		drawCells(f, at, ts)
		img := &image.RGBA{Pix: f.Pix, Stride: f.Stride, Rect: image.Rect(0, 0, w, h)}
		mark, ok := findMarker(img)
		if !ok || mark != at {
			t.Fatalf("%v: marker found %v %v, drawn at %v", format, mark, ok, at)
		}
		got, ok := decodeCells(f, mark)
		if !ok || got != ts {
			t.Fatalf("%v: decoded %d %v, want %d", format, got, ok, ts)
		}
		// Flip the first cell: the check fails.
		x, y := at.X+cellsLeft+cellSize/2, at.Y+cellSize/2
		for dy := -4; dy < 4; dy++ {
			for dx := -4; dx < 4; dx++ {
				p := f.Pix[(y+dy)*f.Stride+4*(x+dx):]
				p[0], p[1], p[2] = 255-p[0], 255-p[1], 255-p[2]
			}
		}
		if got, ok := decodeCells(f, mark); ok {
			t.Errorf("%v: a flipped cell decoded as %d", format, got)
		}
	}
}
