package livebench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vibespace/vibespace/capture"
	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/rtc"
	"github.com/vibespace/vibespace/testenv"
	"github.com/vibespace/vibespace/x11"
	"github.com/vibespace/vibespace/xpra"
)

// xpraLB is the instrument injected into Xpra's HTML5 client (after its
// Window.js, before it connects): the same cells decoder as the viewer
// page, run on the content window's canvas right after every draw the
// client makes of it (XpraWindow.prototype.draw copies the window's
// off-screen canvas to the visible one on an animation frame). A sample is
// kept per distinct painted timestamp: a draw that did not touch the cells
// is no new frame. Each paint's coding is tallied (what xpra picked), and
// lb.take() answers the bytes our proxy read from xpra's websocket so far.
const xpraLB = `'use strict';
const lb = window.lb = {state: 'starting', error: '', samples: [], fails: 0, frames: 0, draws: 0,
  width: 0, height: 0, mark: null, sinceMiss: 0, last: -1, codings: {}, canvas: null};
const part = document.createElement('canvas');
part.width = LB.W; part.height = LB.H;
const pctx = part.getContext('2d', {willReadFrequently: true});
const isContent = win => win.title && String(win.title).indexOf('livebench content') >= 0;
function onDraw(win) {
  if (!isContent(win)) return;
  const c = win.canvas, w = c.width, h = c.height, t = Date.now();
  lb.draws++; lb.width = w; lb.height = h; lb.canvas = c; lb.state = 'drawing';
  if (!lb.mark) {
    lb.mark = LB.find(win.canvas_ctx.getImageData(0, 0, w, h));
    if (!lb.mark) { lb.fails++; return; }
  }
  pctx.clearRect(0, 0, LB.W, LB.H);
  pctx.drawImage(c, lb.mark.x, lb.mark.y, LB.W, LB.H, 0, 0, LB.W, LB.H);
  const r = LB.decode(pctx.getImageData(0, 0, LB.W, LB.H));
  if (!r || Math.abs(t - r.ts) > 60000) {
    lb.fails++;
    if (++lb.sinceMiss >= 5) { lb.mark = null; lb.sinceMiss = 0; }
    return;
  }
  lb.sinceMiss = 0;
  if (r.ts === lb.last) return;
  lb.last = r.ts; lb.frames++;
  lb.samples.push([t, r.ts, r.inputs]);
}
const draw = XpraWindow.prototype.draw;
XpraWindow.prototype.draw = function () { draw.apply(this, arguments); try { onDraw(this); } catch (e) { lb.error = String(e); } };
const doPaint = XpraWindow.prototype.do_paint;
XpraWindow.prototype.do_paint = function (x, y, width, height, coding, img_data) {
  if (isContent(this)) {
    const k = lb.codings[coding] || (lb.codings[coding] = {paints: 0, bytes: 0});
    k.paints++; k.bytes += img_data ? (img_data.length || img_data.byteLength || 0) : 0;
  }
  return doPaint.apply(this, arguments);
};
lb.take = async function () {
  const bytes = Number(await (await fetch('/lb/bytes', {cache: 'no-store'})).text());
  let mime = '', most = -1;
  for (const [k, v] of Object.entries(lb.codings)) if (v.paints > most) { most = v.paints; mime = k; }
  const out = {state: lb.state, error: lb.error, samples: lb.samples, fails: lb.fails, frames: lb.frames,
    bytes, w: lb.width, h: lb.height, mime};
  lb.samples = []; lb.fails = 0;
  return out;
};
// blockPoint is where in the page the block is drawn (CSS pixels).
lb.blockPoint = () => {
  if (!lb.mark || !lb.canvas) throw new Error('no picture to click in yet');
  const r = lb.canvas.getBoundingClientRect(), s = r.width / lb.canvas.width;
  return {X: r.left + (lb.mark.x + LB.CX + LB.BLOCK / 2) * s, Y: r.top + (lb.mark.y + LB.BY + LB.BLOCK / 2) * s};
};
`

// html5Params keep the client to the picture: no sound (the display has
// none), clipboard, printing, file transfer, nor reconnecting once the row
// is over; the encodings are the client's and xpra's own choice.
const html5Params = "sound=false&reconnect=false&clipboard=false&printing=false&file_transfer=false&floating_menu=false"

// html5Proxy serves Xpra's HTML5 client to the viewer with the instrument
// added, on 127.0.0.1. Its pages and scripts come from xpra directly; its
// websocket (the stream) goes to ws, which is xpra itself on loopback or
// the emulated link in front of it, and the bytes read from that
// websocket's connection are counted: the stream's bytes, framing and all.
type html5Proxy struct {
	URL    string
	srv    *http.Server
	stream atomic.Int64 // bytes read from xpra on websocket connections
	static atomic.Int64 // bytes read from xpra for the pages and scripts

	mu    sync.Mutex
	conns []net.Conn // to xpra, closed by Close (a websocket's outlives the server's Shutdown)
}

// countingConn counts what is read from it.
type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// byUpgrade sends websocket upgrades through one transport and the rest
// through the other.
type byUpgrade struct{ ws, static http.RoundTripper }

func (t byUpgrade) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		return t.ws.RoundTrip(r)
	}
	return t.static.RoundTrip(r)
}

func newHTML5Proxy(tb testing.TB, xpraAddr, wsAddr string) *html5Proxy {
	tb.Helper()
	p := &html5Proxy{}
	dialer := &net.Dialer{Timeout: 5 * time.Second}
	transport := func(addr string, n *atomic.Int64) *http.Transport {
		return &http.Transport{
			DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
				c, err := dialer.DialContext(ctx, "tcp", addr)
				if err != nil {
					return nil, err
				}
				p.mu.Lock()
				p.conns = append(p.conns, c)
				p.mu.Unlock()
				return countingConn{c, n}, nil
			},
			DisableCompression: true,
		}
	}
	wsT, staticT := transport(wsAddr, &p.stream), transport(xpraAddr, &p.static)
	tb.Cleanup(func() { wsT.CloseIdleConnections(); staticT.CloseIdleConnections() })
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(&url.URL{Scheme: "http", Host: xpraAddr})
			r.Out.Host = xpraAddr
			r.Out.Header.Del("Accept-Encoding")
		},
		Transport: byUpgrade{ws: wsT, static: staticT},
		// A row's end cuts its page's requests short: not worth a line.
		ErrorLog: log.New(io.Discard, "", 0),
		ModifyResponse: func(res *http.Response) error {
			if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
				return nil
			}
			body, err := io.ReadAll(res.Body)
			res.Body.Close()
			if err != nil {
				return err
			}
			body = bytes.Replace(body, []byte("</head>"), []byte(`<script src="/lb/cells.js"></script><script src="/lb/xpra.js"></script></head>`), 1)
			res.Body = io.NopCloser(bytes.NewReader(body))
			res.ContentLength = int64(len(body))
			res.Header.Set("Content-Length", strconv.Itoa(len(body)))
			res.Header.Del("Content-Encoding")
			return nil
		},
	}
	cells, err := assets.ReadFile("testdata/cells.js")
	if err != nil {
		tb.Fatal(err)
	}
	mux := http.NewServeMux()
	js := func(src []byte) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			_, _ = w.Write(src)
		}
	}
	mux.Handle("/lb/cells.js", js(cells))
	mux.Handle("/lb/xpra.js", js([]byte(xpraLB)))
	mux.HandleFunc("/lb/bytes", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprint(w, p.stream.Load())
	})
	mux.Handle("/", rp)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = p.srv.Serve(ln) }()
	p.URL = "http://" + ln.Addr().String()
	return p
}

// Close ends the proxy and every connection through it: a websocket,
// hijacked, is no longer the server's, so its upstream end is closed here,
// which ends the proxy's copying both ways.
func (p *html5Proxy) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = p.srv.Shutdown(ctx)
	_ = p.srv.Close()
	p.mu.Lock()
	for _, c := range p.conns {
		_ = c.Close()
	}
	p.mu.Unlock()
}

// BenchmarkXpra is Xpra's own stream beside our WebRTC pane, of the same
// window: content.html in a headed Chromium on a seamless Xpra display of
// ours (xpra.Start, its HTML5 client served on a loopback port).
//
//   - vp8-xpra-window: our rtc.Hub over capture.NewWindow of that window on
//     the Xpra display's X server (as the live view watches a window opened
//     with --display xpra), watched by the headless viewer over WebRTC, as
//     BenchmarkLiveView's window rows; no xpra client is attached meanwhile.
//   - xpra-html5: Xpra's own HTML5 client, in a tab of the same headless
//     viewer browser, with the encodings it and the server pick; the cells
//     are decoded from the window's canvas right after each draw the client
//     makes (xpraLB). Its scripts come from xpra directly; its websocket
//     goes through a proxy of ours that counts the bytes (and, on the poor
//     link, through the emulated link in front of xpra). Input: a real CDP
//     click on the canvas at the block, which the client sends to xpra.
//
// Each on loopback and through the emulated poor link (shaper_test.go).
// Ours are measured first: run right after an HTML5 client's session, our
// poor-link row fell, in each of five runs, into a storm of picture-loss
// requests in which no frame ever decoded (each 1280×720 keyframe
// overflows the link's queue), while alone, or after our loopback row, it
// decoded 28-29 fps; the window's new place, the viewer's context and
// xpra's CPU were ruled out.
// Glass-to-glass is the viewer's clock at decode minus the painted one, as
// in BenchmarkLiveView. Server CPU is this process for ours, xpra's server
// process for xpra's; the X server's is in neither. Reported, not asserted.
func BenchmarkXpra(b *testing.B) {
	testenv.NeedIntegration(b, "chromium", "xpra")
	if !rtc.VP8Available() {
		if os.Getenv(testenv.IntegrationEnv) == "1" {
			b.Fatalf("this build has no VP8 encoder — %s=1, so this is a failure, not a skip", testenv.IntegrationEnv)
		}
		b.Skip("SKIP: this build has no VP8 encoder")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	xpraAddr := ln.Addr().String()
	ln.Close()
	d := testenv.NewXpra(b, xpra.Options{HTML: xpraAddr, Logf: func(string, ...any) {}})
	ctx, cancel := context.WithTimeout(b.Context(), 5*time.Minute)
	defer cancel()
	in, err := d.Info(ctx)
	if err != nil {
		b.Fatal(err)
	}
	xpraUsage := func() usage { return procsUsage([]int{in.PID}) }

	srv := newServer(b)
	// The viewer as a screen of 1920×1080, the Xpra display's size: the
	// HTML5 client lays the windows out on its own screen.
	viewer, err := cdp.Launch(ctx, cdp.Options{Headless: true, UserDataDir: b.TempDir(), Logger: slog.New(slog.DiscardHandler),
		ExtraFlags: append(slices.Clone(viewerFlags), "--window-size=1920,1080")})
	if err != nil {
		b.Fatalf("viewer browser: %v", err)
	}
	b.Cleanup(func() {
		if err := viewer.Close(); err != nil {
			b.Errorf("viewer browser: %v", err)
		}
	})
	vctx, err := viewer.NewContext(ctx)
	if err != nil {
		b.Fatal(err)
	}
	disp, err := x11.Open(ctx, d.Display)
	if err != nil {
		b.Fatal(err)
	}
	defer disp.Close()
	// xpra holds the browser's window hidden until it is shown, as the
	// daemon shows a window on that display.
	show := func(ctx context.Context, id x11.WindowID) error { return d.Show(ctx, disp, id) }
	content, contentTab, win, _ := openContentWindow(b, ctx, d.Desktop, disp, srv.URL+"/content.html", show)
	seen := func(ctx context.Context) (int, error) {
		var n int
		err := contentTab.EvalInto(ctx, "window.inputs", &n)
		return n, err
	}
	browUsage := func() usage { return procsUsage(cdp.GroupProcesses(content.PID())) }

	rows := map[string]*row{}
	var order []string
	run := func(name string, f func(b *testing.B) *row) {
		b.Run(name, func(b *testing.B) {
			if r, ok := rows[name]; ok { // measured once (see BenchmarkLiveView)
				report(b, r)
				return
			}
			r := f(b)
			report(b, r)
			order = append(order, name)
			rows[name] = r
		})
	}
	links := []struct {
		suffix string
		poor   bool
	}{{"loopback", false}, {"poor-link", true}}
	// Ours on both links, then xpra's: see the comment above the benchmark
	// on why xpra's client comes last.
	oursRows := func() {
		for i, l := range links {
			run("vp8-xpra-window-"+l.suffix, func(b *testing.B) *row {
				return measureOurs(b, ctx, vctx, srv, fmt.Sprintf("/whep/xpra/%d/", i), "vp8-xpra-window-"+l.suffix, "vp8", l.poor, ours{
					key: "xprawin",
					open: func(context.Context) (capture.Source, error) {
						return capture.NewWindow(disp, win, capture.WindowOptions{FPS: captureFPS}), nil
					},
					input: func(_ *rtc.Hub, ev rtc.InputEvent) {
						if ev.Type != rtc.InputClick {
							return
						}
						ictx, cancel := context.WithTimeout(ctx, 5*time.Second)
						defer cancel()
						if err := disp.ClickIn(ictx, win, int(ev.X), int(ev.Y), x11.Button(ev.Button), ev.Count); err != nil {
							b.Logf("input: %v", err)
						}
					},
					inputsSeen: seen, brow: browUsage,
				})
			})
		}
	}
	xpraRows := func() {
		for _, l := range links {
			run("xpra-html5-"+l.suffix, func(b *testing.B) *row {
				return measureHTML5(b, ctx, vctx, d, xpraAddr, "xpra-html5-"+l.suffix, l.poor, seen, xpraUsage, browUsage)
			})
		}
	}
	oursRows()
	xpraRows()
	if err := content.Close(); err != nil {
		b.Errorf("content browser: %v", err)
	}

	printed := false
	b.Run("summary", func(b *testing.B) {
		for _, n := range order {
			r, base := rows[n], xpraBaseline(rows, n)
			if base == nil {
				continue
			}
			for _, q := range tabRatios(r, base) {
				b.ReportMetric(q.v, n+"-"+q.what+"/xpra-html5")
			}
		}
		printOnce(b, &printed, func() string { return xpraTable(rows, order) })
	})
}

// measureHTML5 measures Xpra's HTML5 client: measure, with the viewer page
// being the client (served through html5Proxy) and the input a real click
// on its canvas.
func measureHTML5(b *testing.B, ctx context.Context, vctx *cdp.Context, d *xpra.Display, xpraAddr, name string, poor bool, seen func(context.Context) (int, error), serve, brow func() usage) *row {
	b.Helper()
	wsAddr, stop := throughLink(b, xpraAddr, poor)
	defer stop()
	px := newHTML5Proxy(b, xpraAddr, wsAddr)
	defer px.Close()
	var (
		codings string
		clicks  int
		info    = make(chan string, 1)
	)
	r := measure(b, ctx, vctx, spec{
		name: name, codec: "xpra", poor: poor,
		viewerURL: px.URL + "/index.html?" + html5Params,
		click: func(ctx context.Context, tab *cdp.Tab) (int64, error) {
			var p cdp.Point
			if err := tab.EvalInto(ctx, "lb.blockPoint()", &p); err != nil {
				return 0, err
			}
			if clicks++; clicks == 2 {
				// Once the stream has run a while, what xpra picked: the
				// client's tally of paints by coding, and xpra's own
				// account of its client (one Python process, once a row).
				_ = tab.EvalInto(ctx, "JSON.stringify(lb.codings)", &codings)
				go func() { info <- clientInfo(ctx, d) }()
			}
			t := ms(time.Now())
			return t, tab.ClickAt(ctx, p)
		},
		inputsSeen: seen, serve: serve, brow: brow,
	})
	r.Note = strings.TrimSpace(fmt.Sprintf("%s paints by coding %s; %d KB of pages and scripts not counted", r.Note, codings, px.static.Load()>>10))
	select {
	case s := <-info:
		b.Logf("%s: xpra info of its client, mid-row:\n  %s", name, s)
	case <-ctx.Done():
	}
	// The next row must not share the machine with a client xpra still
	// serves: wait until its hooks say the client left.
	px.Close()
	left := time.Now()
	for {
		w, err := d.Watchers()
		if err != nil {
			b.Fatal(err)
		}
		if !w.Attached {
			break
		}
		if time.Since(left) > 30*time.Second {
			b.Fatalf("%s: xpra still serves the HTML5 client 30 s after its page closed", name)
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.Logf("%s: xpra saw its client leave %v after the page closed", name, time.Since(left).Round(10*time.Millisecond))
	return r
}

// clientInfo is what `xpra info` says of how it encodes for its client:
// the encodings the client takes, the largest picture it takes as video,
// and per window the selection, quality, speed, damage rate and the
// pixels encoded per second with each encoding.
func clientInfo(ctx context.Context, d *xpra.Display) string {
	raw, err := rawInfo(ctx, d)
	if err != nil {
		return "xpra info: " + err.Error()
	}
	var keep []string
	for _, l := range strings.Split(raw, "\n") {
		l = strings.TrimSpace(l)
		k, _, ok := strings.Cut(l, "=")
		if !ok || !strings.HasPrefix(k, "client.") {
			continue
		}
		if k == "client.encodings" || strings.HasSuffix(k, "client-defaults.video_max_size") ||
			strings.HasPrefix(k, "client.window.") && (strings.HasSuffix(k, ".encoding.selection") || strings.HasSuffix(k, ".encoding.quality.avg") ||
				strings.HasSuffix(k, ".encoding.speed.avg") || strings.HasSuffix(k, ".damage.fps") || strings.HasSuffix(k, ".dimensions") ||
				strings.HasSuffix(k, ".pixels_encoded_per_second") || strings.HasSuffix(k, ".pipeline_param.encoding")) {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n  ")
}

// rawInfo is xpra's own `xpra info` of the display, from its socket (the
// parsed Info keeps nothing of the clients' encodings).
func rawInfo(ctx context.Context, d *xpra.Display) (string, error) {
	sock, err := d.Socket()
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, xpra.CallTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "xpra", "info", "socket://"+sock)
	cmd.Env = d.Env()
	cmd.WaitDelay = time.Second
	out, err := cmd.Output()
	return string(out), err
}

// xpraBaseline is the xpra-html5 row on the same link as our row n.
func xpraBaseline(rows map[string]*row, n string) *row {
	link, ok := strings.CutPrefix(n, "vp8-xpra-window-")
	if !ok || rows[n] == nil {
		return nil
	}
	return rows["xpra-html5-"+link]
}

// xpraTable lays out the rows, ours beside xpra's own on each link, and
// the ratios.
func xpraTable(rows map[string]*row, order []string) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "\nxpra benchmark, %s; poor link = %s\n", time.Now().UTC().Format(time.RFC3339), linkDesc)
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
	sb.WriteString("ours / xpra's own HTML5 client (same window, same link):\n")
	for _, n := range order {
		base := xpraBaseline(rows, n)
		if base == nil {
			continue
		}
		var parts []string
		for _, q := range tabRatios(rows[n], base) {
			parts = append(parts, fmt.Sprintf("%s %.3f×", q.what, q.v))
		}
		if p95, theirs := pct(rows[n].G2G, 95), pct(base.G2G, 95); !math.IsNaN(p95) && theirs > 0 {
			parts = append(parts, fmt.Sprintf("g2g-p95 %.3f×", p95/theirs))
		}
		fmt.Fprintf(&sb, "  %s / %s: %s\n", n, base.Name, strings.Join(parts, ", "))
	}
	sb.WriteString("fps: ours = frames decoded by the viewer's video element per second; xpra-html5 = distinct painted timestamps\n" +
		"  decoded from the window's canvas per second (a paint that missed the cells is no frame);\n" +
		"bytes/s: ours = RTP bytes received (payload + headers); xpra-html5 = bytes read from xpra's websocket connection\n" +
		"  (TCP payload: websocket frames and all), the client's pages and scripts not counted (loaded directly, unshaped);\n" +
		"input p50 = ms from the viewer sending a click at the block to the first frame showing it (ours: DataChannel to XTEST;\n" +
		"  xpra-html5: a CDP click on the client's canvas, which the client sends to xpra); seen-in-video/counted-by-page/sent;\n" +
		"serve% = CPU of the serving process (ours: this test process; xpra: its server process), % of one core; the X server's in neither;\n" +
		"brow% = CPU of the Chromium rendering the content; mem MB = PSS growth of the serving process while watched.\n" +
		"The machine is shared and noisy (2 cores): rerun quiet for figures to quote.\n")
	return sb.String()
}
