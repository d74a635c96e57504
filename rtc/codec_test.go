package rtc_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pion/webrtc/v4"

	"github.com/vibespace/vibespace/capture"
	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/rtc"
	"github.com/vibespace/vibespace/testenv"
)

// codecPage is a viewer that opens n peer connections to /whep/<path> and
// reports, for each, the video size, the frames decoded and the codec the
// browser says it receives (getStats: inbound-rtp → codec → mimeType).
// With codec=vp8 it keeps only VP8 in its offer (setCodecPreferences).
const codecPage = `<!doctype html>
<meta charset="utf-8">
<title>vibespace codec viewer</title>
<body>
<script>
const q = new URLSearchParams(location.search);
const page = q.get('page'), n = +(q.get('n') || 1), only = q.get('codec'), path = q.get('path');
function report(index, r) {
  return fetch('/report', {method: 'POST', body: JSON.stringify(Object.assign({page, index}, r))}).catch(() => {});
}
async function view(index) {
  const pc = new RTCPeerConnection();
  const tr = pc.addTransceiver('video', {direction: 'recvonly'});
  if (only) {
    const all = RTCRtpReceiver.getCapabilities('video').codecs;
    tr.setCodecPreferences(all.filter(c => c.mimeType.toLowerCase() === 'video/' + only));
  }
  const v = document.createElement('video');
  v.muted = true; v.autoplay = true; v.playsInline = true;
  document.body.appendChild(v);
  pc.ontrack = e => { v.srcObject = e.streams[0] || new MediaStream([e.track]); v.play().catch(() => {}); };
  await pc.setLocalDescription(await pc.createOffer());
  await new Promise(done => {
    if (pc.iceGatheringState === 'complete') return done();
    pc.addEventListener('icegatheringstatechange', () => { if (pc.iceGatheringState === 'complete') done(); });
    setTimeout(done, 3000);
  });
  const offered = /H264/.test(pc.localDescription.sdp);
  const res = await fetch(path, {method: 'POST', headers: {'Content-Type': 'application/sdp'}, body: pc.localDescription.sdp});
  const body = await res.text();
  if (res.status !== 201) { report(index, {error: res.status + ' ' + body}); return; }
  await pc.setRemoteDescription({type: 'answer', sdp: body});
  setInterval(async () => {
    let frames = 0, codecId = '', mime = '';
    const stats = await pc.getStats();
    stats.forEach(s => { if (s.type === 'inbound-rtp' && s.kind === 'video') { frames = s.framesDecoded || 0; codecId = s.codecId; } });
    if (codecId && stats.get(codecId)) mime = stats.get(codecId).mimeType;
    report(index, {w: v.videoWidth, h: v.videoHeight, frames, codec: mime, offeredH264: offered, state: pc.connectionState});
  }, 200);
}
for (let i = 0; i < n; i++) view(i).catch(e => report(i, {error: String(e)}));
</script>
`

// codecReport is what codecPage says of one peer connection.
type codecReport struct {
	Page        string `json:"page"`
	Index       int    `json:"index"`
	Width       int    `json:"w"`
	Height      int    `json:"h"`
	Frames      int    `json:"frames"`
	Codec       string `json:"codec"`
	OfferedH264 bool   `json:"offeredH264"`
	State       string `json:"state"`
	Error       string `json:"error"`
}

// codecServer serves codecPage, a WHEP endpoint and the report sink on
// 127.0.0.1.
type codecServer struct {
	URL string
	*reportSink[codecReport]
}

func newCodecServer(t *testing.T, whep http.Handler) *codecServer {
	t.Helper()
	cs := &codecServer{reportSink: newReportSink[codecReport]()}
	mux := http.NewServeMux()
	mux.Handle("/whep/", whep)
	mux.HandleFunc("/viewer", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(codecPage))
	})
	mux.Handle("/report", cs.reportSink)
	cs.URL = serveLoopback(t, mux)
	return cs
}

// TestH264InChromium: a real headless Chromium that offers H.264 gets it —
// its own stats say it decodes video/H264 at the picture's size — and its
// two peer connections share one H.264 pipeline; a page that offers VP8
// only gets VP8, from a second pipeline of the same target, fed by the
// same capture.
func TestH264InChromium(t *testing.T) {
	testenv.NeedIntegration(t, "chromium")
	needVP8(t)
	needH264(t)
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	const W, H = 321, 181 // odd: H.264 sends 322×182, VP8 the size itself
	hub := rtc.New(rtc.Options{Logger: testLogger(t)})
	defer hub.Close()
	var (
		mu   sync.Mutex
		srcs []*countingSource
	)
	cs := newCodecServer(t, hub.WHEP(func(*http.Request) (string, rtc.OpenFunc, error) {
		return "synth", func(context.Context) (capture.Source, error) {
			s := &countingSource{Source: newSynth(W, H, 15, false)}
			mu.Lock()
			srcs = append(srcs, s)
			mu.Unlock()
			return s, nil
		}, nil
	}))
	launchViewer(t, cs.URL+"/viewer?page=h&n=2&path=/whep/synth")
	for i := range 2 {
		rp, err := cs.wait(ctx, "h", i, func(r codecReport) bool { return r.Frames >= 3 && r.Width > 0 && r.Codec != "" })
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("viewer h/%d: %s %dx%d, %d frames decoded, %s", i, rp.Codec, rp.Width, rp.Height, rp.Frames, rp.State)
		if !rp.OfferedH264 {
			t.Fatal("this Chromium offers no H.264: the test cannot check it")
		}
		if rp.Codec != "video/H264" || rp.Width != W+1 || rp.Height != H+1 {
			t.Fatalf("viewer h/%d decodes %s at %dx%d, want video/H264 at %dx%d", i, rp.Codec, rp.Width, rp.Height, W+1, H+1)
		}
	}
	ps := hub.Pipelines()
	if len(ps) != 1 || ps[0].Codec != rtc.CodecH264 || ps[0].Viewers != 2 || ps[0].Encoders != 1 {
		t.Fatalf("want one H.264 pipeline with two viewers, got %+v", ps)
	}

	launchViewer(t, cs.URL+"/viewer?page=v&n=1&codec=vp8&path=/whep/synth")
	rp, err := cs.wait(ctx, "v", 0, func(r codecReport) bool { return r.Frames >= 3 && r.Width > 0 && r.Codec != "" })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("viewer v/0: %s %dx%d, %d frames decoded", rp.Codec, rp.Width, rp.Height, rp.Frames)
	if rp.Codec != "video/VP8" || rp.Width != W || rp.Height != H {
		t.Fatalf("the VP8-only viewer decodes %s at %dx%d", rp.Codec, rp.Width, rp.Height)
	}
	ps = hub.Pipelines()
	if len(ps) != 2 || ps[0].Codec != rtc.CodecH264 || ps[0].Viewers != 2 || ps[1].Codec != rtc.CodecVP8 || ps[1].Viewers != 1 {
		t.Fatalf("want an H.264 pipeline with two viewers and a VP8 one with one, got %+v", ps)
	}
	if st, ok := hub.Stats("synth"); !ok || st.Codec != rtc.CodecH264 || st.Viewers != 3 {
		t.Fatalf("Stats of a target watched in both codecs: %+v, want the H.264 pipeline counting all 3 viewers", st)
	}
	// Both pipelines read the one capture of the target.
	mu.Lock()
	defer mu.Unlock()
	if len(srcs) != 1 || srcs[0].closed.Load() != 0 || hub.SourceOpens("synth") != 1 || hub.Sources() != 1 {
		t.Fatalf("two pipelines of one target: %d sources opened, the hub counts %d opens and %d open; want one", len(srcs), hub.SourceOpens("synth"), hub.Sources())
	}
}

// TestTabInChromium is a tab watched end to end: a page animating in one
// headless Chromium (driven over CDP) is screencast, encoded, and decoded
// by the viewer page in a second Chromium, at the tab's viewport size.
func TestTabInChromium(t *testing.T) {
	testenv.NeedIntegration(t, "chromium")
	needVP8(t)
	ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
	defer cancel()
	b, err := cdp.Launch(context.WithoutCancel(ctx), cdp.Options{Headless: true, StartTimeout: 60 * time.Second})
	if err != nil {
		t.Fatalf("launch: %v", err)
	}
	defer func() {
		pid := b.PID()
		if err := b.Close(); err != nil {
			t.Errorf("closing the browser: %v", err)
		}
		if left := cdp.GroupProcesses(pid); len(left) > 0 {
			t.Errorf("the browser left processes %v", left)
		}
	}()
	bc, err := b.NewContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<!doctype html><title>spinner</title><body style="margin:0;background:#eee">
<div id="n" style="font:48px monospace">0</div>
<script>let n = 0; (function tick() { document.getElementById('n').textContent = ++n; requestAnimationFrame(tick); })();</script>`))
	}))
	defer page.Close()
	tab, err := bc.NewTab(ctx, page.URL)
	if err != nil {
		t.Fatal(err)
	}
	var vp [2]int
	if err := tab.EvalInto(ctx, "[Math.round(innerWidth * devicePixelRatio), Math.round(innerHeight * devicePixelRatio)]", &vp); err != nil {
		t.Fatal(err)
	}

	hub := rtc.New(rtc.Options{Logger: testLogger(t)})
	defer hub.Close()
	cs := newCodecServer(t, hub.WHEP(func(*http.Request) (string, rtc.OpenFunc, error) {
		return "tab:" + tab.ID(), func(context.Context) (capture.Source, error) {
			return capture.NewTab(tab, capture.TabOptions{FPS: 15})
		}, nil
	}))
	launchViewer(t, cs.URL+"/viewer?page=t&n=1&path=/whep/tab")
	rp, err := cs.wait(ctx, "t", 0, func(r codecReport) bool { return r.Frames >= 10 && r.Width > 0 })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("tab viewer: %s %dx%d, %d frames decoded; viewport %dx%d", rp.Codec, rp.Width, rp.Height, rp.Frames, vp[0], vp[1])
	if w, h := vp[0]+vp[0]%2, vp[1]+vp[1]%2; rp.Width != w || rp.Height != h {
		t.Fatalf("the viewer decodes %dx%d, the tab's viewport is %dx%d", rp.Width, rp.Height, vp[0], vp[1])
	}
	st, ok := hub.Stats("tab:" + tab.ID())
	if !ok || st.Frames < 10 || st.Width != vp[0] {
		t.Fatalf("pipeline %+v", st)
	}
}

// TestCodecChoice: an offer with H.264 42e01f packetization-mode 1 gets
// H.264 when the build has it (and the hub does not refuse it), VP8
// otherwise; the answer then names that codec only, and each codec has its
// own pipeline of the target.
func TestCodecChoice(t *testing.T) {
	needVP8(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	open := func(context.Context) (capture.Source, error) { return newSynth(64, 48, 10, true), nil }
	vp8Only := func() *webrtc.PeerConnection {
		m := &webrtc.MediaEngine{}
		if err := m.RegisterCodec(webrtc.RTPCodecParameters{
			RTPCodecCapability: webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeVP8, ClockRate: 90000}, PayloadType: 96,
		}, webrtc.RTPCodecTypeVideo); err != nil {
			t.Fatal(err)
		}
		return recvVideo(t, webrtc.NewAPI(webrtc.WithMediaEngine(m)), webrtc.Configuration{})
	}
	want := rtc.CodecVP8
	if rtc.H264Available() {
		want = rtc.CodecH264
	}
	cases := []struct {
		name string
		o    rtc.Options
		pc   func() *webrtc.PeerConnection
		want rtc.Codec
	}{
		{"offers both", rtc.Options{}, func() *webrtc.PeerConnection { return pionViewer(t) }, want},
		{"offers both, hub without H.264", rtc.Options{NoH264: true}, func() *webrtc.PeerConnection { return pionViewer(t) }, rtc.CodecVP8},
		{"offers VP8 only", rtc.Options{}, vp8Only, rtc.CodecVP8},
	}
	for _, c := range cases {
		c.o.Logger = testLogger(t)
		hub := rtc.New(c.o)
		a, err := hub.Offer(ctx, "synth", open, offerSDP(t, ctx, c.pc()))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		h264 := strings.Contains(a.SDP, "H264/90000")
		vp8 := strings.Contains(a.SDP, "VP8/90000")
		if a.Codec != c.want || h264 != (c.want == rtc.CodecH264) || vp8 != (c.want == rtc.CodecVP8) {
			t.Fatalf("%s: codec %s (answer: H264 %v, VP8 %v), want %s", c.name, a.Codec, h264, vp8, c.want)
		}
		if c.want == rtc.CodecH264 && !strings.Contains(a.SDP, "packetization-mode=1") {
			t.Fatalf("%s: the answer's H.264 is not packetization-mode 1:\n%s", c.name, a.SDP)
		}
		if ps := hub.Pipelines(); len(ps) != 1 || ps[0].Codec != c.want {
			t.Fatalf("%s: pipelines %+v", c.name, ps)
		}
		_ = hub.Close()
	}
}
