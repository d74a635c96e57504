package livebench

import (
	"context"
	"fmt"
	"image"
	"sync"

	"github.com/vibespace/vibespace/capture"
)

// The cells' layout, as in cells.js.
const (
	cellSize  = 20
	cellCols  = 28
	cellRows  = 2
	cellsLeft = markSize + 8 // CX: the cells start right of the marker
)

// decodeCells is cells.js's decode in Go, on a captured frame: the paint
// timestamp (ms) the cells whose marker is at mark carry, or false when
// the check fails (a torn or half-drawn picture).
func decodeCells(f capture.Frame, mark image.Point) (int64, bool) {
	lumaAt := func(cx, cy int) float64 {
		s := 0.0
		for y := cy - 3; y < cy+3; y++ {
			for x := cx - 3; x < cx+3; x++ {
				if x < 0 || y < 0 || x >= f.Width || y >= f.Height {
					return -1
				}
				p := f.Pix[y*f.Stride+4*x:]
				r, g, b := float64(p[0]), float64(p[1]), float64(p[2])
				if f.Format == capture.FormatBGRX {
					r, b = b, r
				}
				s += 0.299*r + 0.587*g + 0.114*b
			}
		}
		return s / 36
	}
	var by []byte
	b := 0
	for i := range cellRows * cellCols {
		l := lumaAt(mark.X+cellsLeft+(i%cellCols)*cellSize+cellSize/2, mark.Y+(i/cellCols)*cellSize+cellSize/2)
		if l < 0 {
			return 0, false
		}
		b *= 2
		if l > 128 {
			b++
		}
		if i%8 == 7 {
			by = append(by, byte(b))
			b = 0
		}
	}
	c := by[len(by)-1]
	by = by[:len(by)-1]
	s := 0x5a
	for _, x := range by {
		s = (s*31 + int(x) + 7) % 256
	}
	if byte(s) != c {
		return 0, false
	}
	var v int64
	for _, x := range by {
		v = v*256 + int64(x)
	}
	return v / 16, true
}

// stampSource wraps a window's source and reads, from every frame it
// delivers, the paint timestamp its cells carry: when (ms) each painted
// timestamp was captured, so that glass-to-glass can be split into the
// content's own paint-to-screen plus our capture wait (paint to capture)
// and our conversion, encoding, sending and the viewer's decode and show
// (capture to shown). It forwards Period and SetFPS, which the hub asks
// of a source.
type stampSource struct {
	*capture.Window
	mu       sync.Mutex
	mark     image.Point
	haveMark bool
	misses   int             // frames in a row whose cells did not decode
	captured map[int64]int64 // paint ts → capture ms
}

func newStampSource(w *capture.Window) *stampSource {
	return &stampSource{Window: w, captured: make(map[int64]int64)}
}

func (s *stampSource) Next(ctx context.Context) (capture.Frame, error) {
	f, err := s.Window.Next(ctx)
	if err != nil {
		return f, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.haveMark {
		// Magenta is magenta with red and blue swapped: BGRX frames too.
		img := &image.RGBA{Pix: f.Pix, Stride: f.Stride, Rect: image.Rect(0, 0, f.Width, f.Height)}
		s.mark, s.haveMark = findMarker(img)
		if !s.haveMark {
			return f, nil
		}
	}
	if ts, ok := decodeCells(f, s.mark); ok {
		s.misses = 0
		if _, seen := s.captured[ts]; !seen {
			s.captured[ts] = ms(f.Time)
		}
	} else if s.misses++; s.misses >= 5 {
		s.haveMark, s.misses = false, 0 // look for the marker again (the page may have moved)
	}
	return f, nil
}

// capturedAt is when the picture painted at ts was captured, if it was
// (nil: no source, nothing captured).
func (s *stampSource) capturedAt(ts int64) (int64, bool) {
	if s == nil {
		return 0, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.captured[ts]
	return c, ok
}

// String says what the source has found, for the log.
func (s *stampSource) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fmt.Sprintf("marker %v at %v, %d paint stamps read", s.haveMark, s.mark, len(s.captured))
}

// stampSources keeps the stamping source of each target the hub opened.
type stampSources struct {
	mu sync.Mutex
	by map[int]*stampSource
}

func (ss *stampSources) put(i int, s *stampSource) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.by == nil {
		ss.by = make(map[int]*stampSource)
	}
	ss.by[i] = s
}

func (ss *stampSources) get(i int) *stampSource {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.by[i]
}
