//go:build cgo && !vibespace_nopipewire

package capture_test

import (
	"context"
	"testing"
	"time"

	"github.com/vibespace/vibespace/capture"
)

// TestPipeWireShareJoin: mutter sends a stream's picture when the stream
// starts and then only when the screen changes, so a second PipeWire
// consumer of a stream already running gets no picture while the screen
// stands still (measured: 3 of 3 waited 5 s for nothing). Through a Share,
// a second reader of the node, opened once the first has its picture and
// nothing moves, is given that picture, over the one connection.
func TestPipeWireShareJoin(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	w, _, m := monitorWithFixture(t, ctx)
	var sh capture.Share
	opens := 0
	open := func(ctx context.Context) (capture.Source, error) {
		opens++
		return capture.OpenPipeWire(ctx, nil, w.RuntimeDir(), m.Node())
	}
	a, err := sh.Open(ctx, m.Node(), "the monitor's stream", open)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	fa, err := a.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, err := sh.Open(ctx, m.Node(), "the monitor's stream", open)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	fb, err := b.Next(ctx)
	if err != nil {
		t.Fatalf("the second reader got no picture: %v", err)
	}
	if fb.Width != fa.Width || fb.Height != fa.Height {
		t.Fatalf("the second reader's picture (%dx%d) is not of the first's stream (%dx%d)", fb.Width, fb.Height, fa.Width, fa.Height)
	}
	if diffPixels(fa, fb) != 0 {
		// The screen may have moved between the two (a caret blinks):
		// the second's is then the newest picture, which the first is
		// given again on asking.
		a.RequestKeyframe()
		fa2, err := a.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if diffPixels(fa2, fb) != 0 {
			t.Fatalf("the second reader's picture is neither the first's nor the newest the first is given")
		}
	}
	if opens != 1 {
		t.Fatalf("the node was connected to %d times", opens)
	}
}
