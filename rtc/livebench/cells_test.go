package livebench

import (
	"bytes"
	"context"
	"image"
	"image/draw"
	"image/png"
	"testing"
	"time"

	"github.com/vibespace/vibespace/testenv"
)

// markSize is the marker's side in page pixels, as in cells.js.
const markSize = 40

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func magenta(p []byte) bool { return p[0] > 180 && p[1] < 90 && p[2] > 180 }

// findMarker is cells.js's find in Go: the top-left of the magenta marker
// square in img. The benchmark waits for it in the captured window before
// it measures.
func findMarker(img *image.RGBA) (image.Point, bool) {
	r := img.Rect
	at := func(x, y int) []byte { i := img.PixOffset(x, y); return img.Pix[i : i+4] }
	for y := r.Min.Y; y+markSize <= r.Max.Y; y++ {
		for x := r.Min.X; x+markSize <= r.Max.X; x++ {
			if magenta(at(x, y)) && magenta(at(x+markSize-4, y+markSize-4)) && magenta(at(x+markSize-4, y+4)) && magenta(at(x+4, y+markSize-4)) {
				return image.Pt(x, y), true
			}
		}
	}
	return image.Point{}, false
}

// roundTrip is what the page answers for one drawn timestamp.
type roundTrip struct {
	TS     float64 `json:"ts"`
	Inputs int     `json:"inputs"`
	Mark   *struct {
		X int `json:"x"`
		Y int `json:"y"`
	} `json:"mark"`
	Got *struct {
		TS     float64 `json:"ts"`
		Inputs int     `json:"inputs"`
		Block  int     `json:"block"`
	} `json:"got"`
	Broken any `json:"broken"` // the decode of a picture with one cell flipped
}

// roundTripJS draws each (timestamp, input count) at (37, 51) of a white
// canvas, compresses the picture as a JPEG at quality 0.3 (harsher than
// any row of the benchmark), decodes it back, finds the marker and decodes
// the cells: the same find and decode the viewer runs on every frame. It
// also flips one cell of a clean picture, which the check must reject.
const roundTripJS = `(async () => {
  const out = [];
  const cases = [[0, 0], [1, 1], [255, 2], [256, 15], [1785038682238, 7], [2 ** 44 - 1, 9], [Date.now(), 4]];
  for (const [ts, inputs] of cases) {
    const c = new OffscreenCanvas(700, 180), x = c.getContext('2d');
    x.fillStyle = '#fff'; x.fillRect(0, 0, 700, 180);
    LB.draw(x, 37, 51, ts, inputs);
    const bm = await createImageBitmap(await c.convertToBlob({type: 'image/jpeg', quality: 0.3}));
    const d = new OffscreenCanvas(700, 180), y = d.getContext('2d', {willReadFrequently: true});
    y.drawImage(bm, 0, 0);
    const mark = LB.find(y.getImageData(0, 0, 700, 180));
    const got = mark && LB.decode(y.getImageData(mark.x, mark.y, LB.W, LB.H));
    // One cell flipped: white where a black cell was, in a clean picture.
    x.fillStyle = '#fff'; x.fillRect(0, 0, 700, 180);
    LB.draw(x, 37, 51, ts, inputs);
    const i = LB.bits(ts, inputs).indexOf(0);
    x.fillStyle = '#fff';
    x.fillRect(37 + LB.CX + (i % LB.COLS) * LB.CELL, 51 + Math.floor(i / LB.COLS) * LB.CELL, LB.CELL, LB.CELL);
    const broken = LB.decode(x.getImageData(37, 51, LB.W, LB.H));
    out.push({ts, inputs, mark, got, broken});
  }
  return out;
})()`

// TestCellsRoundTrip verifies the measuring instrument: a timestamp and an
// input count drawn by cells.js survive JPEG compression and are found and
// decoded exactly (the block shows the count's parity); a picture with one
// wrong cell is rejected; and the Go finder that aims clicks finds the
// marker where the page drew it.
func TestCellsRoundTrip(t *testing.T) {
	testenv.NeedIntegration(t, "chromium")
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	srv := newServer(t)
	b := launchViewer(t, ctx)
	c, err := b.NewContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := c.NewTab(ctx, srv.URL+"/blank.html")
	if err != nil {
		t.Fatal(err)
	}
	var res []roundTrip
	if err := tab.EvalInto(ctx, roundTripJS, &res); err != nil {
		t.Fatal(err)
	}
	if len(res) != 7 {
		t.Fatalf("got %d results: %+v", len(res), res)
	}
	for _, r := range res {
		// JPEG smears the marker's edge by a pixel or two; the cells are
		// sampled 6×6 at the centre of 20 px squares, so ±3 px is harmless.
		if r.Mark == nil || abs(r.Mark.X-37) > 3 || abs(r.Mark.Y-51) > 3 {
			t.Errorf("ts %.0f: marker found at %+v, drawn at (37, 51)", r.TS, r.Mark)
		}
		if r.Got == nil || r.Got.TS != r.TS || r.Got.Inputs != r.Inputs || r.Got.Block != r.Inputs%2 {
			t.Errorf("ts %.0f inputs %d: decoded %+v", r.TS, r.Inputs, r.Got)
		}
		if r.Broken != nil {
			t.Errorf("ts %.0f: a picture with a flipped cell decoded as %+v", r.TS, r.Broken)
		}
	}

	// The Go finder, on a real screenshot of the page.
	var ok bool
	if err := tab.EvalInto(ctx, `(() => {
	  const c = document.createElement('canvas'); c.width = 700; c.height = 200;
	  c.style.cssText = 'position:fixed;left:0;top:0';
	  document.body.appendChild(c);
	  LB.draw(c.getContext('2d'), 123, 45, Date.now(), 1);
	  return true;
	})()`, &ok); err != nil {
		t.Fatal(err)
	}
	shot, err := tab.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	rgba := image.NewRGBA(img.Bounds())
	draw.Draw(rgba, rgba.Rect, img, img.Bounds().Min, draw.Src)
	if p, ok := findMarker(rgba); !ok || p != image.Pt(123, 45) {
		t.Fatalf("Go finder: marker at %v (found %v), drawn at (123, 45)", p, ok)
	}
}
