package livebench

import (
	"context"
	"fmt"
	"image"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pion/logging"
	"github.com/pion/webrtc/v4"

	"github.com/vibespace/vibespace/capture"
	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/daemon/chromium"
	"github.com/vibespace/vibespace/rtc"
	"github.com/vibespace/vibespace/testenv"
	"github.com/vibespace/vibespace/x11"
)

// Measurement windows: short, so the whole benchmark stays near three
// minutes. Inputs are spaced wider on the poor link, whose JPEG streams lag
// seconds behind; each input is matched to its frame by the page's input
// count, so a late one is still matched.
const (
	warmLoop   = 2 * time.Second
	warmPoor   = 4 * time.Second
	windowLoop = 8 * time.Second
	windowPoor = 8 * time.Second
	clickLoop  = 1 * time.Second
	clickPoor  = 2 * time.Second
	captureFPS = 30
)

// row is one line of the table.
type row struct {
	Name     string
	Codec    string
	Bytes    float64   // received, per second
	FPS      float64   // frames received (decoded, for WebRTC) per second
	G2G      []float64 // glass-to-glass per decoded frame, ms
	Input    []float64 // input → first frame showing its effect, ms
	Inputs   int       // inputs sent
	Seen     int       // inputs the page counted (its own count, read through CDP or agent-browser eval)
	ServeCPU float64   // % of one core: the process serving the stream
	BrowCPU  float64   // % of one core: the Chromium that renders (and, for agent-browser, encodes)
	MemMB    float64   // PSS growth of the serving processes while watched
	BrowMB   float64   // PSS growth of the rendering browser while watched
	Fails    int       // frames whose cells did not decode
	Note     string
}

func pct(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	i := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// take is what the viewer page's lb.take() answers.
type take struct {
	State   string       `json:"state"`
	Error   string       `json:"error"`
	Samples [][3]float64 `json:"samples"` // arrival ms, painted ms, the page's input count mod 16
	Fails   int          `json:"fails"`
	Frames  float64      `json:"frames"`
	Bytes   float64      `json:"bytes"`
	W       int          `json:"w"`
	H       int          `json:"h"`
	Mime    string       `json:"mime"`
	Transit []float64    `json:"transit"` // agent-browser: its capture stamp → arrival, ms
}

// spec says how to measure one row.
type spec struct {
	name, codec string
	viewerURL   string
	poor        bool
	// click makes one input at the block and says when (Unix ms).
	click func(ctx context.Context, tab *cdp.Tab) (int64, error)
	// inputsSeen reads the content page's own input count.
	inputsSeen func(ctx context.Context) (int, error)
	// serve and brow sample the serving processes and the rendering
	// browser.
	serve, brow func() usage
	// port, if set, is the stream server's TCP port: the bytes it has
	// queued in the kernel are noted at the end of the window.
	port int
}

func ms(t time.Time) int64 { return t.UnixNano() / 1e6 }

// viewerClick clicks the block from the viewer page, over the row's own
// input path, and says when the page sent it.
func viewerClick(ctx context.Context, tab *cdp.Tab) (int64, error) {
	var t int64
	err := tab.EvalInto(ctx, "lb.clickBlock()", &t)
	return t, err
}

// measure opens the row's viewer page, waits until decoded frames flow,
// then measures for the window while making inputs.
func measure(b *testing.B, ctx context.Context, vctx *cdp.Context, s spec) *row {
	b.Helper()
	tab, err := vctx.NewTab(ctx, s.viewerURL)
	if err != nil {
		b.Fatalf("%s: viewer: %v", s.name, err)
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = vctx.CloseTab(cctx, tab.ID())
	}()
	lbTake := func() take {
		var t take
		if err := tab.EvalInto(ctx, "lb.take()", &t); err != nil {
			b.Fatalf("%s: viewer: %v", s.name, err)
		}
		if t.Error != "" {
			b.Fatalf("%s: viewer: %s", s.name, t.Error)
		}
		return t
	}
	serve0, brow0 := s.serve(), s.brow()
	seen0, err := s.inputsSeen(ctx)
	if err != nil {
		b.Fatalf("%s: reading the page's input count: %v", s.name, err)
	}
	warm, window, every := warmLoop, windowLoop, clickLoop
	if s.poor {
		warm, window, every = warmPoor, windowPoor, clickPoor
	}
	// Frames must flow before the warm-up counts.
	deadline := time.Now().Add(30 * time.Second)
	for n := 0; n < 5; {
		if time.Now().After(deadline) {
			t := lbTake()
			b.Fatalf("%s: no frame decoded in 30 s (viewer state %q, %d frames, %d decode failures, picture %dx%d)", s.name, t.State, int(t.Frames), t.Fails, t.W, t.H)
		}
		n += len(lbTake().Samples)
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(warm)

	first := lbTake()
	serve1, brow1 := s.serve(), s.brow()
	start := time.Now()
	var (
		samples [][3]float64
		transit []float64
		clicks  []int64
		fails   int
		last    = first
	)
	samples = append(samples, first.Samples...)
	nextClick, nextTake := start.Add(every/2), start.Add(time.Second)
	for time.Since(start) < window {
		if time.Now().After(nextClick) {
			t, err := s.click(ctx, tab)
			if err != nil {
				b.Fatalf("%s: input: %v", s.name, err)
			}
			clicks = append(clicks, t)
			nextClick = nextClick.Add(every)
		}
		time.Sleep(100 * time.Millisecond)
		if time.Now().After(nextTake) { // keep the page's arrays small
			last = lbTake()
			samples = append(samples, last.Samples...)
			transit = append(transit, last.Transit...)
			fails += last.Fails
			nextTake = nextTake.Add(time.Second)
		}
	}
	sendQ := -1
	if s.port != 0 {
		sendQ = sendQueue(s.port)
	}
	last = lbTake()
	samples = append(samples, last.Samples...)
	transit = append(transit, last.Transit...)
	fails += last.Fails
	elapsed := time.Since(start).Seconds()
	serve2, brow2 := s.serve(), s.brow()
	// The last inputs' effects may arrive after the window: watch a little
	// longer for them (these frames count for nothing else).
	drain := samples
	time.Sleep(every)
	drain = append(drain, lbTake().Samples...)
	seen, err := s.inputsSeen(ctx)
	if err != nil {
		b.Fatalf("%s: reading the page's input count: %v", s.name, err)
	}

	r := &row{Name: s.name, Codec: s.codec, Inputs: len(clicks)}
	if sendQ >= 0 {
		r.Note = strings.TrimSpace(fmt.Sprintf("%s server's kernel send queue %d KB at the end", r.Note, sendQ>>10))
		if sendQ > 256<<10 {
			// Loopback's 64 KB segments let TCP autotune a send buffer to
			// megabytes; a real narrow path's window would keep it smaller.
			r.Note += " (loopback lets it grow; a real path would hold less)"
		}
	}
	if last.Mime != "" {
		r.Codec = strings.TrimPrefix(strings.ToLower(last.Mime), "video/")
	}
	r.Bytes = (last.Bytes - first.Bytes) / elapsed
	r.FPS = (last.Frames - first.Frames) / elapsed
	t0, t1 := float64(ms(start)), float64(ms(start))+elapsed*1000
	for _, sm := range samples {
		if sm[0] >= t0 && sm[0] <= t1 {
			r.G2G = append(r.G2G, sm[0]-sm[1])
		}
	}
	r.Input = inputDelays(drain, clicks)
	r.Seen = seen - seen0
	r.ServeCPU = 100 * (serve2.CPU - serve1.CPU).Seconds() / elapsed
	r.BrowCPU = 100 * (brow2.CPU - brow1.CPU).Seconds() / elapsed
	r.MemMB = float64(serve2.Pss-serve0.Pss) / (1 << 20)
	r.BrowMB = float64(brow2.Pss-brow0.Pss) / (1 << 20)
	r.Fails = fails
	b.Logf("%s: %dx%d %s, %d frames decoded in the window, %d decode failures, browser PSS %+.1f MB", s.name, last.W, last.H, r.Codec, len(r.G2G), r.Fails, r.BrowMB)
	if len(transit) > 0 {
		b.Logf("%s: from agent-browser's capture stamp to the message's arrival: p50 %.0f ms, p90 %.0f ms", s.name, pct(transit, 50), pct(transit, 90))
	}
	return r
}

// inputDelays pairs input k with the first decoded frame, painted after
// it, whose input count (mod 16) shows it: the page counts every mousedown
// and keydown and paints the count in the cells. An input whose effect is
// never seen is left out.
func inputDelays(samples [][3]float64, clicks []int64) []float64 {
	if len(clicks) == 0 || len(clicks) > 15 {
		return nil
	}
	sort.Slice(samples, func(i, j int) bool { return samples[i][0] < samples[j][0] })
	// The count painted last before the first input.
	c0, drawn := -1.0, -1.0
	for _, s := range samples {
		if s[1] < float64(clicks[0]) && s[1] > drawn {
			c0, drawn = s[2], s[1]
		}
	}
	if c0 < 0 {
		return nil
	}
	var out []float64
	for k, c := range clicks {
		for _, s := range samples {
			seen := (int(s[2]) - int(c0) + 16) % 16
			if s[0] >= float64(c) && s[1] >= float64(c) && seen >= k+1 {
				out = append(out, s[0]-float64(c))
				break
			}
		}
	}
	return out
}

func report(b *testing.B, r *row) {
	b.ReportMetric(r.Bytes, "bytes/s")
	b.ReportMetric(r.FPS, "frames/s")
	b.ReportMetric(pct(r.G2G, 50), "g2g-p50-ms")
	b.ReportMetric(pct(r.G2G, 90), "g2g-p90-ms")
	b.ReportMetric(pct(r.G2G, 95), "g2g-p95-ms")
	if len(r.Input) > 0 {
		b.ReportMetric(pct(r.Input, 50), "input-p50-ms")
	}
	b.ReportMetric(r.ServeCPU, "serve-cpu%")
	b.ReportMetric(r.BrowCPU, "browser-cpu%")
	b.ReportMetric(r.MemMB, "mem-MB")
}

// ours is what one of our rows is measured with, besides its codec and
// link: the hub key of the target, how to open its source, where the
// viewer's input goes, the page's own input count, and the rendering
// browser's usage.
type ours struct {
	key        string
	open       rtc.OpenFunc
	input      func(hub *rtc.Hub, ev rtc.InputEvent)
	inputsSeen func(context.Context) (int, error)
	brow       func() usage
	// sourceRate notes in the row the rate the pipeline encoded and sent
	// at over its life: at most what the source delivered, whatever the
	// link then let through.
	sourceRate bool
}

// measureOurs measures one of our rows: an rtc.Hub of its own (its UDP
// through the emulated link when poor) serves the target over WHEP at p on
// srv, and the viewer page watches it over WebRTC and clicks over its input
// DataChannel. The serving process is this one.
func measureOurs(b *testing.B, ctx context.Context, vctx *cdp.Context, srv *server, p, name, codec string, poor bool, o ours) *row {
	b.Helper()
	ro := rtc.Options{NoH264: codec == "vp8"}
	var shaped *shapedPacketConn
	if poor {
		inner, err := net.ListenPacket("udp4", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		shaped = newShapedPacketConn(inner)
		mux := webrtc.NewICEUDPMux(logging.NewDefaultLoggerFactory().NewLogger("livebench"), shaped)
		defer shaped.Close()
		defer mux.Close()
		ro.ICEUDPMux = mux
	}
	hub := rtc.New(ro)
	defer hub.Close()
	hub.OnInput(func(_, _ string, ev rtc.InputEvent) { o.input(hub, ev) })
	srv.mux.Handle(p, hub.WHEP(func(*http.Request) (string, rtc.OpenFunc, error) {
		return o.key, o.open, nil
	}))
	r := measure(b, ctx, vctx, spec{
		name: name, codec: codec, poor: poor,
		viewerURL: srv.URL + "/viewer.html?mode=rtc&codec=" + codec + "&src=" + url.QueryEscape(srv.URL+p),
		click:     viewerClick, inputsSeen: o.inputsSeen, serve: selfUsage, brow: o.brow,
	})
	if shaped != nil {
		r.Note = fmt.Sprintf("%d packets dropped by the link", shaped.dropped())
	}
	if st, ok := hub.Stats(o.key); ok {
		if o.sourceRate {
			rate := fmt.Sprintf("pipeline sent %.1f frames/s", float64(st.Frames)/time.Since(st.Started).Seconds())
			r.Note = strings.Join(slices.DeleteFunc([]string{r.Note, rate}, func(s string) bool { return s == "" }), "; ")
		}
		b.Logf("%s: pipeline %dx%d, %d frames encoded, %d keyframes, encoder target %d bit/s", r.Name, st.Width, st.Height, st.Frames, st.Keyframes, st.Bitrate)
	}
	return r
}

// BenchmarkLiveView is the live view against its baselines, side by side
// in one run on the same animated content (content.html: scrolling text, a
// bouncing ball, a counter, and the measuring cells):
//
//   - vp8 (and h264, when this build has it): our rtc.Hub over
//     capture.NewWindow of a headed Chromium window on the test display,
//     watched by a headless Chromium over WebRTC;
//   - jpegws: the same window, each capture encoded as a JPEG (quality 80)
//     and sent as a binary WebSocket message, latest-wins;
//   - vp8-tab and h264-tab: our rtc.Hub over capture.NewTab (a CDP
//     screencast, the source of the daemon's tab kind) of the same page in
//     a headless Chromium tab of ours, with agent-browser's viewport;
//   - vp8-tabwin and h264-tabwin: our rtc.Hub over the window road of a
//     tab (daemon/chromium's PaneWindow, chromium.WindowPane): the same
//     page in a tab of a headed Chromium of ours on the test display, in a
//     window of its own sized to the same viewport, read from that window
//     less the browser's bar; its input CDP clicks, as the tab rows';
//   - agent-browser: agent-browser's own JPEG stream of the same page in
//     its headless tab.
//
// The tab rows (both roads) are measured again on the light page (light.html: text
// typed at a word every 250 ms and the cells), on loopback:
// <codec>-tab-light-loopback against agent-browser-tab-light-loopback.
//
// Each row is measured on loopback and again through the emulated poor
// link (shaper_test.go: 1 Mbit/s, 200 ms RTT, in user space). The viewer
// decodes the cells of every frame the moment it is decoded
// (requestVideoFrameCallback for WebRTC, createImageBitmap for JPEG);
// glass-to-glass is the viewer's clock minus the painted one (one machine,
// one clock). Input → changed frame: for the window rows the viewer's
// click at the block injected with XTEST; for our tab rows that click
// delivered to the tab as a CDP click, mapped from picture to CSS pixels
// as the daemon maps it; for agent-browser its viewer's input_mouse
// message. Server CPU is our process for ours and jpegws, the daemon for
// agent-browser; the rendering browser's CPU is given apart (agent-browser's
// Chromium, and ours for the tab rows, also captures and encodes the
// screencast's JPEGs). Memory is the serving processes' PSS growth while
// watched. One content browser runs at a time: the window's, then our
// tab's, then our headed tab's, then agent-browser's.
func BenchmarkLiveView(b *testing.B) {
	testenv.NeedIntegration(b, "chromium")
	if !rtc.VP8Available() {
		if os.Getenv(testenv.IntegrationEnv) == "1" {
			b.Fatalf("this build has no VP8 encoder — %s=1, so this is a failure, not a skip", testenv.IntegrationEnv)
		}
		b.Skip("SKIP: this build has no VP8 encoder")
	}
	abBin := agentBrowserBin(b)
	d := testenv.SharedDesktop(b)
	ctx, cancel := context.WithTimeout(b.Context(), 10*time.Minute)
	defer cancel()
	srv := newServer(b)
	viewer := launchViewer(b, ctx)
	vctx, err := viewer.NewContext(ctx)
	if err != nil {
		b.Fatal(err)
	}
	rows := map[string]*row{}
	var order []string
	run := func(name string, f func(b *testing.B) *row) {
		b.Run(name, func(b *testing.B) {
			// A row is measured once: with -benchtime Nx, N > 1, the
			// testing package calls this again after its N = 1 run, and
			// the row's figures are reported again rather than measured
			// twice.
			if r, ok := rows[name]; ok {
				report(b, r)
				return
			}
			r := f(b)
			report(b, r)
			order = append(order, name)
			rows[name] = r
		})
	}

	// The window rows: a headed Chromium on the test display.
	disp, err := x11.Open(ctx, d.Display)
	if err != nil {
		b.Fatal(err)
	}
	defer disp.Close()
	content, contentTab, win, _ := openContentWindow(b, ctx, d, disp, srv.URL+"/content.html", nil)
	winSeen := func(ctx context.Context) (int, error) {
		var n int
		err := contentTab.EvalInto(ctx, "window.inputs", &n)
		return n, err
	}
	browUsage := func() usage { return procsUsage(cdp.GroupProcesses(content.PID())) }
	// The window rows' input: a click event from the viewer (over our
	// DataChannel, or the naive server's WebSocket) injected with XTEST at
	// the picture's coordinates, which are the window's.
	winInput := func(ev rtc.InputEvent) {
		if ev.Type != rtc.InputClick {
			return
		}
		ictx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if err := disp.ClickIn(ictx, win, int(ev.X), int(ev.Y), x11.Button(ev.Button), ev.Count); err != nil {
			b.Logf("input: %v", err)
		}
	}
	openWin := func() capture.Source {
		return capture.NewWindow(disp, win, capture.WindowOptions{FPS: captureFPS})
	}
	// The JPEG baseline reads RGBA, which image/jpeg takes, as it did
	// before our capture went BGRX (rgbaReader).
	openWinRGBA := func() capture.Source {
		return capture.NewWindow(rgbaReader{disp}, win, capture.WindowOptions{FPS: captureFPS})
	}
	var seq int
	path := func(kind string) string { seq++; return fmt.Sprintf("/%s/%d/", kind, seq) }

	codecs := []string{"vp8"}
	if rtc.H264Available() {
		codecs = append(codecs, "h264")
	}
	for _, poor := range []bool{false, true} {
		suffix := "loopback"
		if poor {
			suffix = "poor-link"
		}
		run("jpegws-window-"+suffix, func(b *testing.B) *row {
			p := path("jpeg")
			jw := &jpegWS{open: openWinRGBA, input: winInput}
			srv.mux.Handle(p, jw)
			addr := strings.TrimPrefix(srv.URL, "http://")
			_, portText, _ := net.SplitHostPort(addr)
			port, _ := strconv.Atoi(portText)
			addr, stop := throughLink(b, addr, poor)
			defer stop()
			r := measure(b, ctx, vctx, spec{
				name: "jpegws-window-" + suffix, codec: "jpeg q80", poor: poor,
				viewerURL: srv.URL + "/viewer.html?mode=ws&src=" + url.QueryEscape("ws://"+addr+p),
				click:     viewerClick, inputsSeen: winSeen, serve: selfUsage, brow: browUsage, port: port,
			})
			b.Logf("%s: %d JPEG frames encoded in all", r.Name, jw.encoded.Load())
			return r
		})
		for _, codec := range codecs {
			run(codec+"-window-"+suffix, func(b *testing.B) *row {
				return measureOurs(b, ctx, vctx, srv, path("whep"), codec+"-window-"+suffix, codec, poor, ours{
					key:        "win",
					open:       func(context.Context) (capture.Source, error) { return openWin(), nil },
					input:      func(_ *rtc.Hub, ev rtc.InputEvent) { winInput(ev) },
					inputsSeen: winSeen, brow: browUsage,
				})
			})
		}
	}
	if err := content.Close(); err != nil {
		b.Errorf("content browser: %v", err)
	}

	// Our tab rows: the same page in a headless tab of our own, its pixels
	// from the screencast the daemon's tab kind uses (capture.Tab), into
	// our hub as the window rows. Its browser is closed before
	// agent-browser's starts, as the window's was: one content browser
	// renders at a time.
	tabBrowser, tab := openContentTab(b, ctx, srv.URL+"/content.html")
	tabSeen := func(ctx context.Context) (int, error) {
		var n int
		err := tab.EvalInto(ctx, "window.inputs", &n)
		return n, err
	}
	tabBrowUsage := func() usage { return procsUsage(cdp.GroupProcesses(tabBrowser.PID())) }
	// As for the window: logged to the whole benchmark, which outlives a
	// click still being delivered when its row ends.
	tabInput := tabClicker(b, ctx, tab, "tab")
	openTab := func(context.Context) (capture.Source, error) {
		src, err := capture.NewTab(tab, capture.TabOptions{FPS: captureFPS})
		if err != nil {
			return nil, err
		}
		return src, nil
	}
	for _, poor := range []bool{false, true} {
		suffix := "loopback"
		if poor {
			suffix = "poor-link"
		}
		for _, codec := range codecs {
			run(codec+"-tab-"+suffix, func(b *testing.B) *row {
				return measureOurs(b, ctx, vctx, srv, path("whep"), codec+"-tab-"+suffix, codec, poor, ours{
					key: "tab", open: openTab, input: tabInput,
					inputsSeen: tabSeen, brow: tabBrowUsage, sourceRate: true,
				})
			})
		}
	}
	// The same tab on the light page (light.html: typed text and the
	// cells), on loopback.
	if err := tab.Navigate(ctx, srv.URL+"/light.html"); err != nil {
		b.Fatalf("content tab: %v", err)
	}
	for _, codec := range codecs {
		run(codec+"-tab-light-loopback", func(b *testing.B) *row {
			return measureOurs(b, ctx, vctx, srv, path("whep"), codec+"-tab-light-loopback", codec, false, ours{
				key: "tab", open: openTab, input: tabInput,
				inputsSeen: tabSeen, brow: tabBrowUsage, sourceRate: true,
			})
		})
	}
	if err := tabBrowser.Close(); err != nil {
		b.Errorf("content tab browser: %v", err)
	}

	// Our tab rows by the window road (daemon/chromium's PaneWindow): the
	// same page in a tab of a headed Chromium of ours on the test display,
	// in a window of its own sized to agent-browser's viewport, its
	// pixels read from that window less the browser's bar
	// (chromium.WindowPane), its input the same CDP clicks as the
	// screencast rows'.
	winTabBrowser, winTab := openContentWindowTab(b, ctx, d, srv.URL+"/content.html")
	winTabSeen := func(ctx context.Context) (int, error) {
		var n int
		err := winTab.EvalInto(ctx, "window.inputs", &n)
		return n, err
	}
	winTabUsage := func() usage { return procsUsage(cdp.GroupProcesses(winTabBrowser.PID())) }
	winTabInput := tabClicker(b, ctx, winTab, "tabwin")
	openWinTab := func(ctx context.Context) (capture.Source, error) {
		return chromium.WindowPane(ctx, winTab, winTabBrowser, captureFPS)
	}
	for _, poor := range []bool{false, true} {
		suffix := "loopback"
		if poor {
			suffix = "poor-link"
		}
		for _, codec := range codecs {
			run(codec+"-tabwin-"+suffix, func(b *testing.B) *row {
				return measureOurs(b, ctx, vctx, srv, path("whep"), codec+"-tabwin-"+suffix, codec, poor, ours{
					key: "tabwin", open: openWinTab, input: winTabInput,
					inputsSeen: winTabSeen, brow: winTabUsage, sourceRate: true,
				})
			})
		}
	}
	if err := winTab.Navigate(ctx, srv.URL+"/light.html"); err != nil {
		b.Fatalf("content window tab: %v", err)
	}
	for _, codec := range codecs {
		run(codec+"-tabwin-light-loopback", func(b *testing.B) *row {
			return measureOurs(b, ctx, vctx, srv, path("whep"), codec+"-tabwin-light-loopback", codec, false, ours{
				key: "tabwin", open: openWinTab, input: winTabInput,
				inputsSeen: winTabSeen, brow: winTabUsage, sourceRate: true,
			})
		})
	}
	if err := winTabBrowser.Close(); err != nil {
		b.Errorf("content window tab browser: %v", err)
	}

	// The tab rows: agent-browser's own stream of the same page.
	ab := startAgentBrowser(b, ctx, abBin, srv.URL+"/content.html")
	abUsage := func() usage { return procsUsage(ab.procs()) }
	daemonUsage := func() usage { return procsUsage([]int{ab.daemon}) }
	for _, poor := range []bool{false, true} {
		suffix := "loopback"
		if poor {
			suffix = "poor-link"
		}
		run("agent-browser-tab-"+suffix, func(b *testing.B) *row {
			addr, stop := throughLink(b, fmt.Sprintf("127.0.0.1:%d", ab.port), poor)
			defer stop()
			r := measure(b, ctx, vctx, spec{
				name: "agent-browser-tab-" + suffix, codec: "jpeg q80", poor: poor,
				viewerURL: srv.URL + "/viewer.html?mode=ab&src=" + url.QueryEscape("ws://"+addr+"/"),
				click:     viewerClick, inputsSeen: ab.inputsSeen, serve: daemonUsage, port: ab.port,
				brow: func() usage { u := abUsage(); return u.sub(daemonUsage()) },
			})
			return r
		})
	}
	// And agent-browser's stream of the light page.
	if _, err := ab.run(ctx, "open", srv.URL+"/light.html"); err != nil {
		b.Fatal(err)
	}
	if _, err := ab.run(ctx, "set", "viewport", "1280", "720"); err != nil {
		b.Fatal(err)
	}
	run("agent-browser-tab-light-loopback", func(b *testing.B) *row {
		return measure(b, ctx, vctx, spec{
			name: "agent-browser-tab-light-loopback", codec: "jpeg q80",
			viewerURL: srv.URL + "/viewer.html?mode=ab&src=" + url.QueryEscape(fmt.Sprintf("ws://127.0.0.1:%d/", ab.port)),
			click:     viewerClick, inputsSeen: ab.inputsSeen, serve: daemonUsage, port: ab.port,
			brow: func() usage { u := abUsage(); return u.sub(daemonUsage()) },
		})
	})
	printed := false
	b.Run("summary", func(b *testing.B) {
		// Ours against each baseline, as ratios; and the table, once.
		for _, n := range order {
			r := rows[n]
			base := rows["jpegws-window-"+strings.TrimPrefix(strings.TrimPrefix(n, "vp8-window-"), "h264-window-")]
			if r == nil || base == nil || r == base || strings.HasPrefix(n, "agent-browser") || base.Bytes == 0 {
				continue
			}
			b.ReportMetric(r.Bytes/base.Bytes, n+"-bytes/jpegws")
			if base.FPS > 0 {
				b.ReportMetric(r.FPS/base.FPS, n+"-fps/jpegws")
			}
		}
		// Our tab rows against agent-browser's tab of the same page on
		// the same link.
		for _, n := range order {
			r, base := rows[n], abBaseline(rows, n)
			if base == nil {
				continue
			}
			for _, q := range tabRatios(r, base) {
				b.ReportMetric(q.v, n+"-"+q.what+"/agent-browser")
			}
		}
		printOnce(b, &printed, func() string { return table(rows, order) })
	})
}

// openContentWindow starts a headed Chromium on the test display showing
// url, and returns it, its window and where the marker is in the window.
// show, when not nil, is asked to show a window its application mapped but
// the display keeps hidden (xpra's).
func openContentWindow(b *testing.B, ctx context.Context, d *testenv.Desktop, disp *x11.Display, url string, show func(context.Context, x11.WindowID) error) (*cdp.Browser, *cdp.Tab, x11.WindowID, image.Point) {
	b.Helper()
	br, err := cdp.Launch(ctx, cdp.Options{
		Display: d.Display, Env: d.Env(), UserDataDir: b.TempDir(),
		ExtraFlags: []string{"--window-position=0,0", "--window-size=1280,720", "--force-device-scale-factor=1",
			"--disable-background-timer-throttling", "--disable-renderer-backgrounding", "--disable-backgrounding-occluded-windows"},
	})
	if err != nil {
		b.Fatalf("content browser: %v", err)
	}
	b.Cleanup(func() { _ = br.Close() })
	dc, err := br.DefaultContext(ctx)
	if err != nil {
		b.Fatal(err)
	}
	tabs, err := dc.Tabs(ctx)
	if err != nil || len(tabs) == 0 {
		b.Fatalf("content browser tabs: %v %v", tabs, err)
	}
	tab, err := dc.Tab(ctx, tabs[0].ID)
	if err != nil {
		b.Fatal(err)
	}
	if err := tab.Navigate(ctx, url); err != nil {
		b.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		ws, _ := disp.WindowsOfPID(ctx, br.PID())
		for _, w := range ws {
			if w.Geometry.Width < 400 || w.Geometry.Height < 300 {
				continue
			}
			if !w.Viewable {
				if w.Mapped && show != nil {
					if err := show(ctx, w.ID); err != nil {
						b.Logf("show %s: %v", w.ID, err)
					}
				}
				continue
			}
			c, err := disp.Capture(ctx, w.ID)
			if err != nil {
				continue
			}
			if p, ok := findMarker(c.Image); ok {
				p = p.Sub(c.Image.Rect.Min)
				b.Logf("content window %s %v on %s, page marker at %v of it", w.ID, w.Geometry, d.Display, p)
				return br, tab, w.ID, p
			}
		}
		if time.Now().After(deadline) {
			b.Fatalf("the content window did not show the marker in 30 s (windows %+v)", ws)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// printOnce prints a benchmark's table the first time it is called (with
// -benchtime Nx, a summary runs again): to the log with -v, else to stdout,
// since a benchmark's log is cut to a few lines unless -v.
func printOnce(b *testing.B, printed *bool, table func() string) {
	if *printed {
		return
	}
	*printed = true
	if t := table(); testing.Verbose() {
		b.Log(t)
	} else {
		fmt.Fprint(os.Stdout, t)
	}
}

// abBaseline is the agent-browser row on the same link as our tab row n
// ("<codec>-tab-<link>"); nil if n is not one of our tab rows or that row
// was not measured.
func abBaseline(rows map[string]*row, n string) *row {
	codec, link, ok := strings.Cut(n, "-tab-")
	if !ok {
		codec, link, ok = strings.Cut(n, "-tabwin-") // the window road's
	}
	if !ok || codec == "agent-browser" || rows[n] == nil {
		return nil
	}
	return rows["agent-browser-tab-"+link]
}

// ratio is one figure of ours over the baseline's.
type ratio struct {
	what string
	v    float64
}

// tabRatios are r's bytes/s, frames/s and glass-to-glass p50 over base's,
// those that base has a figure for.
func tabRatios(r, base *row) []ratio {
	var out []ratio
	if base.Bytes > 0 {
		out = append(out, ratio{"bytes", r.Bytes / base.Bytes})
	}
	if base.FPS > 0 {
		out = append(out, ratio{"fps", r.FPS / base.FPS})
	}
	if ours, theirs := pct(r.G2G, 50), pct(base.G2G, 50); !math.IsNaN(ours) && theirs > 0 {
		out = append(out, ratio{"g2g-p50", ours / theirs})
	}
	return out
}

// table lays the rows out and checks the goals (reported, not asserted).
func table(rows map[string]*row, order []string) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "\nlive view benchmark, %s; poor link = %s\n", time.Now().UTC().Format(time.RFC3339), linkDesc)
	fmt.Fprintf(&sb, "%-28s %-9s %11s %7s %8s %8s %8s %15s %7s %7s %7s %8s %6s  %s\n",
		"row", "codec", "bytes/s", "fps", "g2g p50", "p90", "p95", "input p50", "serve%", "brow%", "total%", "mem MB", "fails", "note")
	for _, n := range order {
		r := rows[n]
		in := "—"
		if len(r.Input) > 0 {
			in = fmt.Sprintf("%.0f", pct(r.Input, 50))
		}
		in += fmt.Sprintf(" %d/%d/%d", len(r.Input), r.Seen, r.Inputs)
		fmt.Fprintf(&sb, "%-28s %-9s %11.0f %7.1f %8.0f %8.0f %8.0f %15s %7.0f %7.0f %7.0f %8.1f %6d  %s\n",
			r.Name, r.Codec, r.Bytes, r.FPS, pct(r.G2G, 50), pct(r.G2G, 90), pct(r.G2G, 95), in, r.ServeCPU, r.BrowCPU, r.ServeCPU+r.BrowCPU, r.MemMB, r.Fails, r.Note)
	}
	sb.WriteString("\ngoals (reported, not asserted):\n")
	goal := func(ok bool, f string, a ...any) {
		mark := "MET   "
		if !ok {
			mark = "NOT MET"
		}
		fmt.Fprintf(&sb, "  %s %s\n", mark, fmt.Sprintf(f, a...))
	}
	jl, jp := rows["jpegws-window-loopback"], rows["jpegws-window-poor-link"]
	for _, n := range order {
		r := rows[n]
		if strings.HasPrefix(n, "jpegws") || strings.HasPrefix(n, "agent-browser") {
			continue
		}
		if strings.HasSuffix(n, "-loopback") {
			// A tab row's baseline is agent-browser's tab, not the
			// window's JPEG stream.
			if jl != nil && jl.Bytes > 0 && abBaseline(rows, n) == nil {
				goal(r.Bytes <= jl.Bytes/10 && r.FPS >= jl.FPS, "%s: %.3f× jpegws's bytes/s (≤ 0.1) at %.1f fps vs its %.1f (≥)", n, r.Bytes/jl.Bytes, r.FPS, jl.FPS)
			}
			ab := abBaseline(rows, n) // a tab row's: agent-browser on the same page
			if ab == nil {
				ab = rows["agent-browser-tab-loopback"]
			}
			if ab != nil && ab.Bytes > 0 {
				goal(r.Bytes <= ab.Bytes/10 && r.FPS >= ab.FPS, "%s: %.3f× agent-browser's bytes/s (≤ 0.1) at %.1f fps vs its %.1f (≥)", n, r.Bytes/ab.Bytes, r.FPS, ab.FPS)
			}
			goal(pct(r.G2G, 50) <= 50, "%s: glass-to-glass p50 %.0f ms (≤ 50 ms on loopback)", n, pct(r.G2G, 50))
		} else {
			goal(r.FPS >= 15 && pct(r.G2G, 95) <= 400, "%s: %.1f fps (≥ 15), p95 %.0f ms (≤ 400 ms)", n, r.FPS, pct(r.G2G, 95))
		}
	}
	for _, r := range []*row{jp, rows["agent-browser-tab-poor-link"]} {
		if r != nil {
			goal(r.FPS >= 15 && pct(r.G2G, 95) <= 400, "%s (baseline): %.1f fps (≥ 15), p95 %.0f ms (≤ 400 ms)", r.Name, r.FPS, pct(r.G2G, 95))
		}
	}
	var ratios []string
	for _, n := range order {
		base := abBaseline(rows, n)
		if base == nil {
			continue
		}
		var parts []string
		for _, q := range tabRatios(rows[n], base) {
			parts = append(parts, fmt.Sprintf("%s %.3f×", q.what, q.v))
		}
		ratios = append(ratios, fmt.Sprintf("  %s / %s: %s\n", n, base.Name, strings.Join(parts, ", ")))
	}
	if len(ratios) > 0 {
		sb.WriteString("ours-tab / agent-browser-tab (same page, same picture size, same link):\n")
		sb.WriteString(strings.Join(ratios, ""))
	}
	sb.WriteString("input p50 = ms from the viewer page sending a click at the block to the first frame showing it; then seen-in-video/counted-by-page/sent;\n" +
		"  ours (window): over the viewer's \"input\" DataChannel to XTEST; ours (tab): over that DataChannel to a CDP click (Input.dispatchMouseEvent) at the\n" +
		"  picture point scaled to CSS pixels by innerWidth/picture width; jpegws: a WebSocket text message to XTEST; agent-browser: its input_mouse messages;\n" +
		"serve% = CPU of the serving process (ours: this test process, which also runs the JPEG server, and for a tab decodes the screencast's JPEGs;\n" +
		"  agent-browser: its daemon), % of one core;\n" +
		"brow% = CPU of the Chromium rendering the content (for agent-browser, and for our tab rows, it also captures and JPEG-encodes the screencast);\n" +
		"total% = serve% + brow%, the like-for-like figure (capture of a window also costs the X server, not counted);\n" +
		"mem MB = growth of the serving processes' PSS from before the viewer joined to the end of the window (agent-browser: daemon only).\n" +
		"The machine is shared and noisy (2 cores): rerun quiet for figures to quote.\n")
	return sb.String()
}

// throughLink is addr itself on loopback or, on a poor link, the address
// of a shaped proxy in front of it; stop closes that proxy.
func throughLink(b *testing.B, addr string, poor bool) (string, func()) {
	b.Helper()
	if !poor {
		return addr, func() {}
	}
	px, err := newShapedProxy(addr)
	if err != nil {
		b.Fatal(err)
	}
	return px.Addr(), func() { _ = px.Close() }
}
