package rtc_test

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vibespace/vibespace/capture"
	"github.com/vibespace/vibespace/rtc"
	"github.com/vibespace/vibespace/testenv"
)

// rateSource is a synthetic source that records the rates it is set to
// and whether it was closed.
type rateSource struct {
	*synthSource
	mu     sync.Mutex
	fps    []int
	closed atomic.Int32
}

func (r *rateSource) SetFPS(fps int) {
	r.mu.Lock()
	r.fps = append(r.fps, fps)
	r.mu.Unlock()
}

func (r *rateSource) lastFPS() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.fps) == 0 {
		return 0
	}
	return r.fps[len(r.fps)-1]
}

func (r *rateSource) Close() error {
	r.closed.Add(1)
	return r.synthSource.Close()
}

// TestThumbAndFullInChromium: a real headless Chromium watches one target
// at the full tier and twice at the thumbnail tier. The target is captured
// once; two pipelines run, one per tier, the two thumbnails sharing one
// encoder; Chromium decodes the full one at the source's size and the
// thumbnails at 320 px wide with its aspect. The source runs at the full
// rate while the full viewer watches and at the thumbnail rate after it
// left; the last viewer leaving closes it.
func TestThumbAndFullInChromium(t *testing.T) {
	testenv.NeedIntegration(t, "chromium")
	needVP8(t)
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	const W, H = 800, 450
	hub := rtc.New(rtc.Options{Logger: testLogger(t)})
	defer hub.Close()
	var (
		mu   sync.Mutex
		srcs []*rateSource
	)
	vs := newViewerServer(t, hub.WHEP(func(*http.Request) (string, rtc.OpenFunc, error) {
		return "synth", func(context.Context) (capture.Source, error) {
			s := &rateSource{synthSource: newSynth(W, H, 10, false)}
			mu.Lock()
			srcs = append(srcs, s)
			mu.Unlock()
			return s, nil
		}, nil
	}))
	opened := func() []*rateSource {
		mu.Lock()
		defer mu.Unlock()
		return append([]*rateSource(nil), srcs...)
	}
	b := launchViewer(t, vs.URL+"/viewer?page=t&n=3&tiers=full,thumb,thumb")

	want := [3][2]int{{W, H}, {320, 180}, {320, 180}}
	for i := range 3 {
		rp, err := vs.wait(ctx, "t", i, func(r report) bool { return r.Frames >= 2 && r.Width > 0 })
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("viewer %d: %dx%d, %d frames decoded", i, rp.Width, rp.Height, rp.Frames)
		if rp.Width != want[i][0] || rp.Height != want[i][1] {
			t.Fatalf("viewer %d decoded %dx%d, want %dx%d", i, rp.Width, rp.Height, want[i][0], want[i][1])
		}
	}
	if n := len(opened()); n != 1 || hub.SourceOpens("synth") != 1 || hub.Sources() != 1 {
		t.Fatalf("three viewers of one target: %d sources opened (hub: %d opens, %d open)", n, hub.SourceOpens("synth"), hub.Sources())
	}
	ps := hub.Pipelines()
	if len(ps) != 2 || ps[0].Tier != rtc.TierFull || ps[1].Tier != rtc.TierThumb {
		t.Fatalf("want a full and a thumb pipeline, got %+v", ps)
	}
	full, thumb := ps[0], ps[1]
	if full.Viewers != 1 || full.Width != W || full.Height != H || full.Encoders != 1 {
		t.Fatalf("full pipeline %+v", full)
	}
	if thumb.Viewers != 2 || thumb.Width != 320 || thumb.Height != 180 || thumb.Encoders != 1 || thumb.Bitrate > 200_000 {
		t.Fatalf("thumb pipeline %+v", thumb)
	}
	if st, ok := hub.Stats("synth"); !ok || st.Tier != rtc.TierFull || st.Viewers != 3 {
		t.Fatalf("Stats: %+v %v, want the full tier's with 3 viewers", st, ok)
	}
	src := opened()[0]
	if got := src.lastFPS(); got != 10 {
		t.Fatalf("with a full viewer the source runs at %d fps, want 10", got)
	}

	// The full viewer leaves: its pipeline stops, the thumbnails keep the
	// source, now at 2 fps.
	vs.command("t", "close 0")
	eventually(t, ctx, "the full pipeline to stop", func() bool {
		ps := hub.Pipelines()
		return len(ps) == 1 && ps[0].Tier == rtc.TierThumb
	})
	// The stopped pipeline leaves the source as its loop ends.
	eventually(t, ctx, "the source to be set to the thumbnail rate", func() bool { return src.lastFPS() == 2 })
	if src.closed.Load() != 0 || hub.Sources() != 1 {
		t.Fatal("the source was closed while thumbnails watch")
	}
	if st, ok := hub.Stats("synth"); !ok || st.Tier != rtc.TierThumb || st.Viewers != 2 {
		t.Fatalf("Stats with thumbnails only: %+v %v", st, ok)
	}
	before := hub.Pipelines()[0].Frames
	if _, err := vs.wait(ctx, "t", 1, func(r report) bool { return r.Frames >= 4 }); err != nil {
		t.Fatal(err)
	}
	if hub.Pipelines()[0].Frames <= before {
		t.Fatal("the thumbnail pipeline sent nothing more after the full viewer left")
	}

	b.kill(t)
	eventually(t, ctx, "every pipeline to stop", func() bool { return len(hub.Pipelines()) == 0 && hub.Viewers() == 0 })
	eventually(t, ctx, "the source to be closed", func() bool { return src.closed.Load() == 1 && hub.Sources() == 0 })
	if hub.SourceOpens("synth") != 1 {
		t.Fatalf("%d opens", hub.SourceOpens("synth"))
	}
}
