package rtc_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pion/rtcp"
	"github.com/pion/webrtc/v4"

	"github.com/vibespace/vibespace/capture"
	"github.com/vibespace/vibespace/rtc"
	"github.com/vibespace/vibespace/target"
)

// pionViewer is a Go WebRTC receiver that offers what Chromium offers that
// matters here: VP8 with RTX, and the playout-delay extension.
func pionViewer(t testing.TB) *webrtc.PeerConnection {
	t.Helper()
	m := &webrtc.MediaEngine{}
	if err := m.RegisterDefaultCodecs(); err != nil {
		t.Fatal(err)
	}
	if err := m.RegisterHeaderExtension(webrtc.RTPHeaderExtensionCapability{URI: rtc.PlayoutDelayURI}, webrtc.RTPCodecTypeVideo); err != nil {
		t.Fatal(err)
	}
	s := webrtc.SettingEngine{}
	s.LoggerFactory = rtc.PionLogs(testLogger(t).With("side", "client"))
	s.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4})
	s.SetIncludeLoopbackCandidate(true)
	s.SetIPFilter(func(ip net.IP) bool { return ip.IsLoopback() })
	pc := recvVideo(t, webrtc.NewAPI(webrtc.WithMediaEngine(m), webrtc.WithSettingEngine(s)), webrtc.Configuration{RTPHeaderEncryptionPolicy: webrtc.RTPHeaderEncryptionPolicyDisable})
	pc.OnConnectionStateChange(func(st webrtc.PeerConnectionState) { t.Logf("pion viewer: %s", st) })
	return pc
}

// recvVideo is a peer connection of api with one receive-only video
// transceiver, closed when the test ends.
func recvVideo(t testing.TB, api *webrtc.API, cfg webrtc.Configuration) *webrtc.PeerConnection {
	t.Helper()
	pc, err := api.NewPeerConnection(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pc.Close() })
	if _, err := pc.AddTransceiverFromKind(webrtc.RTPCodecTypeVideo, webrtc.RTPTransceiverInit{Direction: webrtc.RTPTransceiverDirectionRecvonly}); err != nil {
		t.Fatal(err)
	}
	return pc
}

// offerSDP is pc's offer with every candidate gathered.
func offerSDP(t testing.TB, ctx context.Context, pc *webrtc.PeerConnection) string {
	t.Helper()
	offer, err := pc.CreateOffer(nil)
	if err != nil {
		t.Fatal(err)
	}
	gathered := webrtc.GatheringCompletePromise(pc)
	if err := pc.SetLocalDescription(offer); err != nil {
		t.Fatal(err)
	}
	select {
	case <-gathered:
	case <-ctx.Done():
		t.Fatal(ctx.Err())
	}
	return pc.LocalDescription().SDP
}

// offerTo posts pc's offer to url and applies the answer; it returns the
// answer and the viewer's resource URL.
func offerTo(t testing.TB, ctx context.Context, pc *webrtc.PeerConnection, url string) (answer, location string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(offerSDP(t, ctx, pc)))
	req.Header.Set("Content-Type", "application/sdp")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("offer: %s: %s", res.Status, body)
	}
	if err := pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeAnswer, SDP: string(body)}); err != nil {
		t.Fatal(err)
	}
	return string(body), res.Header.Get("Location")
}

// TestWHEPStream checks the RTP a viewer gets: no RTX negotiated, every
// packet stamped with playout delay 0/0, PLI answered by a keyframe at most
// once per KeyframeMinInterval, and a DELETE of the viewer stopping the
// pipeline.
func TestWHEPStream(t *testing.T) {
	needVP8(t)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	hub := rtc.New(rtc.Options{KeyframeMinInterval: 300 * time.Millisecond, Logger: testLogger(t)})
	defer hub.Close()
	src := newSynth(160, 120, 20, true) // still: only keyframe requests make frames
	srv := httptest.NewServer(hub.WHEP(func(*http.Request) (string, rtc.OpenFunc, error) {
		return "synth", func(context.Context) (capture.Source, error) { return src, nil }, nil
	}))
	defer srv.Close()

	pc := pionViewer(t)
	packets := make(chan []byte, 1024)
	pc.OnTrack(func(tr *webrtc.TrackRemote, _ *webrtc.RTPReceiver) {
		for {
			p, _, err := tr.ReadRTP()
			if err != nil {
				t.Logf("pion viewer: read RTP: %v", err)
				return
			}
			ext := []byte(nil)
			for _, id := range p.GetExtensionIDs() {
				if id == playoutID.Load() {
					ext = append([]byte{1}, p.GetExtension(id)...)
				}
			}
			select {
			case packets <- ext:
			default:
			}
		}
	})
	answer, loc := offerTo(t, ctx, pc, srv.URL+"/whep/synth")
	if strings.Contains(strings.ToLower(answer), "rtx") {
		t.Fatalf("the answer negotiates RTX:\n%s", answer)
	}
	m := regexp.MustCompile(`a=extmap:(\d+) ` + regexp.QuoteMeta(rtc.PlayoutDelayURI)).FindStringSubmatch(answer)
	if m == nil {
		t.Fatalf("the answer has no playout-delay extension:\n%s", answer)
	}
	id, _ := strconv.Atoi(m[1])
	playoutID.Store(uint8(id))

	// Like a browser, ask for a keyframe until pictures come: what was sent
	// before the receiver's SRTP was up is lost.
	ms := regexp.MustCompile(`a=ssrc:(\d+) `).FindStringSubmatch(answer)
	if ms == nil {
		t.Fatalf("the answer declares no SSRC:\n%s", answer)
	}
	ssrc64, _ := strconv.ParseUint(ms[1], 10, 32)
	ssrc := uint32(ssrc64)
	firstPacket := make(chan struct{})
	go func() {
		for {
			_ = pc.WriteRTCP([]rtcp.Packet{&rtcp.PictureLossIndication{MediaSSRC: ssrc}})
			select {
			case <-firstPacket:
				return
			case <-ctx.Done():
				return
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()

	checkExt := func(ext []byte) {
		t.Helper()
		if len(ext) != 4 || ext[1] != 0 || ext[2] != 0 || ext[3] != 0 {
			t.Fatalf("packet playout-delay extension %v, want 0/0", ext)
		}
	}
	select {
	case ext := <-packets:
		close(firstPacket)
		checkExt(ext)
	case <-ctx.Done():
		st, _ := hub.Stats("synth")
		t.Fatalf("no RTP packet arrived; pipeline %+v", st)
	}

	// A burst of PLIs: keyframes follow, but not one per PLI.
	eventually(t, ctx, "the first keyframe", func() bool { st, _ := hub.Stats("synth"); return st.Keyframes >= 1 })
	before, _ := hub.Stats("synth")
	start := time.Now()
	for range 20 {
		if err := pc.WriteRTCP([]rtcp.Packet{&rtcp.PictureLossIndication{MediaSSRC: ssrc}}); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, ctx, "a keyframe answering the PLIs", func() bool { st, _ := hub.Stats("synth"); return st.Keyframes > before.Keyframes })
	select {
	case ext := <-packets: // the picture made for the PLIs is stamped too
		checkExt(ext)
	case <-ctx.Done():
		t.Fatal("the keyframe never arrived")
	}
	after, _ := hub.Stats("synth")
	elapsed := time.Since(start)
	if max := uint64(elapsed/(300*time.Millisecond)) + 2; after.Keyframes-before.Keyframes > max {
		t.Fatalf("%d keyframes for 20 PLIs in %s: not rate-limited", after.Keyframes-before.Keyframes, elapsed)
	}

	// DELETE drops the viewer; the pipeline stops and closes its source.
	req, _ := http.NewRequestWithContext(ctx, http.MethodDelete, srv.URL+loc, nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("DELETE %s: %s", loc, res.Status)
	}
	if hub.Viewers() != 0 || len(hub.Pipelines()) != 0 {
		t.Fatalf("after DELETE: %d viewers, pipelines %+v", hub.Viewers(), hub.Pipelines())
	}
	select {
	case <-src.closed:
	default:
		t.Fatal("the source was not closed")
	}
}

var playoutID atomicU8

// TestWHEPRefusals: a malformed request and an unavailable encoder are
// refusals with stable codes, and a pipeline whose encoder fails drops its
// viewers.
func TestWHEPRefusals(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	broken := func(rtc.EncoderOptions) (rtc.Encoder, error) { return nil, errors.New("no encoder here") }
	hub := rtc.New(rtc.Options{NewEncoder: broken, Logger: testLogger(t)})
	defer hub.Close()
	srv := httptest.NewServer(hub.WHEP(func(r *http.Request) (string, rtc.OpenFunc, error) {
		if strings.HasSuffix(r.URL.Path, "/gone") {
			return "", nil, target.Refuse(target.CodeWindowGone, "window 0x1 is gone")
		}
		return "synth", func(context.Context) (capture.Source, error) { return newSynth(64, 48, 20, false), nil }, nil
	}))
	defer srv.Close()

	post := func(path, ctype, body string) (int, string) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", ctype)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		t.Logf("POST %s: %s %s", path, res.Status, b)
		return res.StatusCode, res.Header.Get("X-Vibespace-Code")
	}
	if st, code := post("/whep/x", "text/plain", "v=0"); st != http.StatusBadRequest || code != "bad_request" {
		t.Fatalf("wrong content type: %d %s", st, code)
	}
	if st, code := post("/whep/gone", "application/sdp", "v=0"); st != http.StatusNotFound || code != "window_gone" {
		t.Fatalf("gone target: %d %s", st, code)
	}
	if st, code := post("/whep/x", "application/sdp", "not sdp"); st != http.StatusBadRequest || code != "bad_request" {
		t.Fatalf("bad offer: %d %s", st, code)
	}
	// A tier other than full or thumb is refused, a valid offer or not,
	// and opens nothing.
	opens := hub.SourceOpens("synth")
	for _, q := range []string{"?tier=huge", "?tier=THUMB", "?tier="} {
		st, code := post("/whep/x"+q, "application/sdp", offerSDP(t, ctx, pionViewer(t)))
		if q == "?tier=" { // empty is the full tier
			if st != http.StatusCreated && (st != http.StatusServiceUnavailable || code != "live_view_unavailable") {
				t.Fatalf("tier %q: %d %s", q, st, code)
			}
			continue
		}
		if st != http.StatusBadRequest || code != "bad_request" {
			t.Fatalf("tier %q: %d %s, want 400 bad_request", q, st, code)
		}
		if hub.SourceOpens("synth") != opens {
			t.Fatalf("a refused tier opened the source")
		}
	}
	eventually(t, ctx, "the failed offer's pipeline to go", func() bool { return len(hub.Pipelines()) == 0 && hub.Viewers() == 0 })

	// An encoder that cannot be made ends the pipeline and drops the viewer.
	// Either the offer is answered and the viewer dropped when the first
	// frame fails to encode, or (if that came first) the offer is refused.
	if st, code := post("/whep/x", "application/sdp", offerSDP(t, ctx, pionViewer(t))); st != http.StatusCreated &&
		(st != http.StatusServiceUnavailable || code != "live_view_unavailable") {
		t.Fatalf("offer to a failing pipeline: %d %s", st, code)
	}
	eventually(t, ctx, "the viewer of a failed pipeline to be dropped", func() bool { return hub.Viewers() == 0 && len(hub.Pipelines()) == 0 })
	// And the hub says why, for the viewer's page.
	if why := hub.Stopped("synth"); target.CodeOf(why) != target.CodeLiveViewUnavailable || !strings.Contains(why.Error(), "no encoder here") {
		t.Fatalf("why the pipeline stopped: %v", why)
	}
	if why := hub.Stopped("other"); why != nil {
		t.Fatalf("a target never watched stopped: %v", why)
	}

	// Without VP8 in the build, the live view says so.
	plain := rtc.New(rtc.Options{})
	defer plain.Close()
	if rtc.VP8Available() {
		if err := plain.Available(); err != nil {
			t.Fatalf("VP8 is built in, yet: %v", err)
		}
		return
	}
	if target.CodeOf(plain.Available()) != target.CodeLiveViewUnavailable {
		t.Fatalf("no VP8: Available() = %v", plain.Available())
	}
	psrv := httptest.NewServer(plain.WHEP(func(*http.Request) (string, rtc.OpenFunc, error) {
		return "synth", func(context.Context) (capture.Source, error) { return newSynth(64, 48, 20, false), nil }, nil
	}))
	defer psrv.Close()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, psrv.URL+"/whep/x", strings.NewReader("v=0"))
	req.Header.Set("Content-Type", "application/sdp")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("X-Vibespace-Code") != "live_view_unavailable" {
		t.Fatalf("no VP8: %s %s", res.Status, res.Header.Get("X-Vibespace-Code"))
	}
}

// TestViewerThatNeverConnects: an answered offer whose peer never shows up
// is dropped after ConnectTimeout, and its pipeline with it.
func TestViewerThatNeverConnects(t *testing.T) {
	needVP8(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	hub := rtc.New(rtc.Options{ConnectTimeout: time.Second, Logger: testLogger(t)})
	defer hub.Close()
	src := newSynth(64, 48, 10, true)
	srv := httptest.NewServer(hub.WHEP(func(*http.Request) (string, rtc.OpenFunc, error) {
		return "synth", func(context.Context) (capture.Source, error) { return src, nil }, nil
	}))
	defer srv.Close()

	pc := pionViewer(t)
	offer := offerSDP(t, ctx, pc)
	_ = pc.Close() // gone before it could connect
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/whep/synth", strings.NewReader(offer))
	req.Header.Set("Content-Type", "application/sdp")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("offer: %s", res.Status)
	}
	eventually(t, ctx, "the unconnected viewer to be dropped", func() bool { return hub.Viewers() == 0 && len(hub.Pipelines()) == 0 })
	select {
	case <-src.closed:
	case <-ctx.Done():
		t.Fatal("the source was not closed")
	}
}
