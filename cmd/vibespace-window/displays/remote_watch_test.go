package displays_test

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/cdp/cdptest"
	"github.com/vibespace/vibespace/cmd/internal/clitest"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/testenv"
)

// remotePane is what the viewer page says of its pane of a target, and
// of the road its video takes: the selected candidate pair of the pane's
// peer connection, as the page's own getStats reports it.
type remotePane struct {
	State   string `json:"state"`
	Frames  int    `json:"frames"`
	Decoded int    `json:"decoded"`
	W       int    `json:"w"`
	H       int    `json:"h"`
	Local   string `json:"local"`  // "tcp active"
	Remote  string `json:"remote"` // "tcp 127.0.0.1:M passive"
}

func readRemotePane(t testing.TB, ctx context.Context, tab *cdp.Tab, id string) remotePane {
	t.Helper()
	var st remotePane
	expr := fmt.Sprintf(`(async () => {
		const p = window.vibespace && window.vibespace.panes.get(%q);
		if (!p) return {state: 'none'};
		const v = p.video;
		const out = {state: p.state, frames: p.frames, w: v.videoWidth, h: v.videoHeight,
			decoded: v.getVideoPlaybackQuality ? v.getVideoPlaybackQuality().totalVideoFrames : 0, local: '', remote: ''};
		if (!p.pc) return out;
		const stats = await p.pc.getStats();
		let pairId = '';
		stats.forEach(s => { if (s.type === 'transport' && s.selectedCandidatePairId) pairId = s.selectedCandidatePairId; });
		const pair = stats.get(pairId), l = pair && stats.get(pair.localCandidateId), r = pair && stats.get(pair.remoteCandidateId);
		if (l) out.local = l.protocol + ' ' + (l.tcpType || '');
		if (r) out.remote = r.protocol + ' ' + r.address + ':' + r.port + ' ' + (r.tcpType || '');
		return out;
	})()`, id)
	if err := tab.EvalInto(ctx, expr, &st); err != nil {
		t.Fatalf("reading the viewer page: %v", err)
	}
	return st
}

// openViewer opens u in a new browser context of b: a page of its own,
// so a viewer of its own. close closes that context.
func openViewer(t testing.TB, ctx context.Context, b *cdp.Browser, u string) (tab *cdp.Tab, closeIt func()) {
	t.Helper()
	c, err := b.NewContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	closeIt = func() {
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c.Close(cctx)
	}
	if tab, err = c.NewTab(ctx, u); err != nil {
		closeIt()
		t.Fatal(err)
	}
	return tab, closeIt
}

// remoteWatch runs watch over ssh and answers its address, the live
// view's page port and its ICE-TCP port (the fact ice_tcp_port).
func remoteWatch(t *testing.T, e *env, args ...string) (wire.Response, int, int) {
	t.Helper()
	w := e.Answer("s1", append([]string{"watch"}, args...)...)
	if !w.OK {
		t.Fatalf("watch over ssh: %+v", w)
	}
	clitest.CheckWatch(t, w.URL, strings.Join(args, ""))
	page, err := strconv.Atoi(strings.TrimPrefix(strings.SplitN(strings.TrimPrefix(w.URL, "http://"), "/", 2)[0], "127.0.0.1:"))
	if err != nil {
		t.Fatalf("watch's address %q: %v", w.URL, err)
	}
	ice, err := strconv.Atoi(fmt.Sprint(w.Facts["ice_tcp_port"]))
	if err != nil || ice <= 0 || ice == page {
		t.Fatalf("watch's ice_tcp_port fact: %+v", w.Facts)
	}
	return w, page, ice
}

// TestRemoteWatchVideo: the live view of a window on another host (sshd in
// a network namespace of its own: the remote daemon's 127.0.0.1 is not
// this side's, so its UDP candidates cannot be reached from here) is
// watched in a headless Chromium on this side through the ssh tunnel
// watch sets up: the page decodes the fixture's window at its size, and
// the pair its peer connection selected is TCP, to the forwarded ICE-TCP
// port. No socket of ours, at either end, is open beyond loopback. The
// fixture still answers afterwards.
func TestRemoteWatchVideo(t *testing.T) {
	testenv.NeedIntegration(t, "chromium")
	e, h, _ := remoteEnv(t)
	logPath := filepath.Join(h.Logs, "fixture.jsonl")
	open := e.Answer("s1", "open", testenv.FixturePython, filepath.Join(h.Bin, "fixture.py"), "--log", logPath)
	if !open.OK || open.Target == nil {
		t.Fatalf("open over ssh: %+v", open)
	}
	id := string(open.Target.ID)
	log := testenv.OpenFixtureLog(logPath)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	if _, err := log.WaitFrom(ctx, 0, func(ev testenv.Event) bool { return ev.Type == "ready" }); err != nil {
		t.Fatal(err)
	}
	shot := e.Answer("s1", "screenshot", id, "--out", filepath.Join(t.TempDir(), "win.png"))
	if !shot.OK || shot.Bounds == nil {
		t.Fatalf("screenshot over ssh: %+v", shot)
	}

	w, page, ice := remoteWatch(t, e, id)
	fw, _ := w.Facts["forwarded"].(string)
	for _, want := range []string{fmt.Sprintf("page 127.0.0.1:%d here → 127.0.0.1:%d on %s", page, page, h.Name),
		fmt.Sprintf("video (ICE-TCP) 127.0.0.1:%d here → 127.0.0.1:%d on %s", ice, ice, h.Name)} {
		if !strings.Contains(fw, want) {
			t.Fatalf("the forwarded fact %q does not say %q", fw, want)
		}
	}

	tab, closeTab := openViewer(t, ctx, cdptest.LaunchViewer(t, ctx), w.URL)
	defer closeTab()
	var st remotePane
	for {
		st = readRemotePane(t, ctx, tab, id)
		if st.State == "live" && st.Frames >= 1 && st.Decoded >= 1 && st.W > 0 && st.Remote != "" {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the pane of %s never showed video through the tunnel: last %+v", id, st)
		case <-time.After(100 * time.Millisecond):
		}
	}
	t.Logf("pane: %+v", st)
	if st.W != shot.Bounds.W || st.H != shot.Bounds.H {
		t.Errorf("the video is %dx%d, the window %dx%d", st.W, st.H, shot.Bounds.W, shot.Bounds.H)
	}
	if want := fmt.Sprintf("tcp 127.0.0.1:%d passive", ice); strings.TrimSpace(st.Remote) != want || !strings.HasPrefix(st.Local, "tcp") {
		t.Errorf("the pane's selected pair is %q → %q, want tcp → %q (the forwarded ICE-TCP port)", st.Local, st.Remote, want)
	}

	// No port of ours on any network interface, at either end, with the
	// video flowing: every listening TCP and bound UDP socket of the
	// remote user's processes (the daemon, its display, bus and app), read
	// in their own namespace, and of the ssh master here (the forwards) is
	// on loopback. Each side holds some: the remote live view's page and
	// ICE-TCP ports, the master's two forwards.
	if n := checkLoopbackOnly(t, "the remote host", h.RemotePIDs()); n < 2 {
		t.Errorf("the remote host's processes hold %d listening sockets; its live view alone has two", n)
	}
	masters := clitest.MasterPIDs(e.Run)
	if len(masters) != 1 {
		t.Fatalf("%d ssh masters answer here, want 1", len(masters))
	}
	if n := checkLoopbackOnly(t, "this side", masters); n < 2 {
		t.Errorf("the ssh master holds %d listening sockets; watch forwarded two ports", n)
	}

	// The fixture is alive and still takes a click through its tree.
	alpha := node(t, e.Snapshot("s1", id), "push button", "Alpha")
	from := log.Len()
	e.OK("s1", "click", id, alpha.Ref)
	wait(t, log, from, "the click on alpha after the live view", func(ev testenv.Event) bool { return ev.Type == "click" && ev.Widget == "alpha" })
}

// TestRemoteWatchPortTaken: a port of the live view taken on this side
// by somebody else is refused live_view_unavailable, naming it, before
// anything is forwarded; a port the master already forwards (an earlier
// watch's) is not taken. The ports are the remote daemon's, so the test
// learns them from a first watch, takes each back from the master (ssh -O
// cancel) and listens on it itself.
func TestRemoteWatchPortTaken(t *testing.T) {
	testenv.NeedIntegration(t)
	e, _, _ := remoteEnv(t)
	_, page, ice := remoteWatch(t, e)
	socks, _ := filepath.Glob(filepath.Join(e.Run, "vibespace", "ssh-*"))
	if len(socks) != 1 {
		t.Fatalf("want one master's control socket, got %v", socks)
	}
	// take cancels the master's forward of port and listens on it here.
	take := func(port int) net.Listener {
		t.Helper()
		spec := fmt.Sprintf("127.0.0.1:%d:127.0.0.1:%d", port, port)
		ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
		defer cancel()
		if out, err := exec.CommandContext(ctx, "ssh", "-o", "ControlPath="+socks[0], "-O", "cancel", "-L", spec, "x").CombinedOutput(); err != nil {
			t.Fatalf("ssh -O cancel -L %s: %v %s", spec, err, out)
		}
		ln, err := net.Listen("tcp4", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatalf("listening on the cancelled forward's port %d: %v", port, err)
		}
		return ln
	}
	refused := func(port int, road string) {
		t.Helper()
		r := e.Refused("live_view_unavailable", "s1", "watch")
		if !strings.Contains(r.Errout, fmt.Sprintf("127.0.0.1:%d is taken on this side", port)) ||
			!strings.Contains(r.Errout, "port="+strconv.Itoa(port)) || !strings.Contains(r.Errout, "road="+road) {
			t.Fatalf("watch with port %d taken here:\n%s", port, r.Errout)
		}
		if a := e.Answer("s1", "watch"); a.OK || a.Code != "live_view_unavailable" || fmt.Sprint(a.Facts["port"]) != strconv.Itoa(port) || a.Facts["road"] != road {
			t.Fatalf("watch --json with port %d taken here: %+v", port, a)
		}
	}

	// A second watch: both ports are the master's own forwards already.
	remoteWatch(t, e)

	// The video's port taken here: refused, naming it (the page's port,
	// the master's, is no reason).
	ln := take(ice)
	refused(ice, "video")
	// Freed: watch forwards it again, and the page is served.
	ln.Close()
	if _, p2, i2 := remoteWatch(t, e); p2 != page || i2 != ice {
		t.Fatalf("the remote live view moved: %d %d, was %d %d", p2, i2, page, ice)
	}

	// The page's port taken here: refused, naming it.
	ln = take(page)
	defer ln.Close()
	refused(page, "page")
}
