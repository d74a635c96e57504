package cdp_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/target"
)

// frameActPage is a frame's page: a button whose handler changes the
// frame's text, and a <select> that reports its choice to the server.
const frameActPage = `<!doctype html><title>Act %[1]s</title>
<p id="out">idle %[1]s</p>
<button onclick="document.getElementById('out').textContent = 'pressed %[1]s'">Press %[1]s</button>
<select aria-label="Pick %[1]s" onchange="fetch('/hit?f=%[1]s&v=' + this.value)"><option>one</option><option>two</option></select>`

// frameSite serves a page with a same-origin frame and a cross-site one
// (localhost against 127.0.0.1) of frameActPage, and records /hit.
type frameSite struct {
	*httptest.Server
	mu   sync.Mutex
	hits []string
}

func newFrameSite(t *testing.T) *frameSite {
	s := &frameSite{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch r.URL.Path {
		case "/frames":
			port := s.URL[strings.LastIndex(s.URL, ":")+1:]
			fmt.Fprintf(w, `<!doctype html><title>Frames</title><h1>Frames</h1><button>Main button</button>
<iframe src="/act?f=same" title="Same frame"></iframe>
<iframe src="http://localhost:%s/act?f=cross" title="Cross frame"></iframe>`, port)
		case "/act":
			fmt.Fprintf(w, frameActPage, r.URL.Query().Get("f"))
		case "/hit":
			s.mu.Lock()
			s.hits = append(s.hits, r.URL.Query().Get("f")+"="+r.URL.Query().Get("v"))
			s.mu.Unlock()
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *frameSite) waitHit(t *testing.T, want string) {
	t.Helper()
	ctx := ctxT(t)
	for {
		s.mu.Lock()
		got := strings.Join(s.hits, " ")
		s.mu.Unlock()
		if strings.Contains(" "+got+" ", " "+want+" ") {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the page never reported %s (it reported: %s)", want, got)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// framesLoaded snapshots tab until both frames' buttons show.
func framesLoaded(t *testing.T, tab *cdp.Tab) *target.Snapshot {
	t.Helper()
	ctx := ctxT(t)
	for {
		s := snapshot(t, tab, false)
		if strings.Contains(s.Text(), "Press same") && strings.Contains(s.Text(), "Press cross") {
			return s
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the frames' contents never showed:\n%s", s.Text())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// In the same-origin and the cross-site frame: a node's role and name
// are read in its own frame (NodeState, NodeFacts: the frame's button, not
// a main-frame element), select by ref reaches the frame's <select> (its
// report to the server), and a click whose handler changes the frame's
// text changes the tab's content digest.
func TestFrameNodes(t *testing.T) {
	t.Parallel()
	site := newFrameSite(t)
	tab := openAt(t, newContext(t), site.URL+"/frames")
	ctx := ctxT(t)
	s := framesLoaded(t, tab)
	for _, f := range []string{"same", "cross"} {
		button := find(t, s, "push button", "Press "+f)
		_, info, err := tab.NodeState(ctx, nr(tab, button.Ref))
		if err != nil || info.Role != "push button" || info.Name != "Press "+f {
			t.Errorf("frame %s: NodeState(%s) = %+v, %v; want push button %q", f, button.Ref, info, err, "Press "+f)
		}
		facts, err := tab.NodeFacts(ctx, nr(tab, button.Ref))
		if err != nil || facts.Role != "push button" || facts.Name != "Press "+f {
			t.Errorf("frame %s: NodeFacts(%s) = %+v, %v; want push button %q", f, button.Ref, facts, err, "Press "+f)
		}
		pick := find(t, s, "combo box", "Pick "+f)
		_, info, err = tab.NodeState(ctx, nr(tab, pick.Ref))
		if err != nil || !info.Choice {
			t.Errorf("frame %s: NodeState(%s) = %+v, %v; want a choice control", f, pick.Ref, info, err)
		}
		if _, err := tab.Select(ctx, nr(tab, pick.Ref), []string{"two"}); err != nil {
			t.Fatalf("frame %s: select %s: %v", f, pick.Ref, err)
		}
		site.waitHit(t, f+"=two")

		before, err := tab.ContentDigest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := tab.Click(ctx, nr(tab, button.Ref)); err != nil {
			t.Fatalf("frame %s: click %s: %v", f, button.Ref, err)
		}
		// The frame's own text, read on a road other than the digest's.
		for {
			again := snapshot(t, tab, false)
			if strings.Contains(again.Text(), "pressed "+f) {
				break
			}
			select {
			case <-ctx.Done():
				t.Fatalf("frame %s: the click never changed the frame's text:\n%s", f, again.Text())
			case <-time.After(20 * time.Millisecond):
			}
		}
		after, err := tab.ContentDigest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if after == before {
			t.Errorf("frame %s: the content digest %s did not change with the frame's text", f, after)
		}
		s = snapshot(t, tab, false)
	}
}

// Frames do not pile up: reloading a page with a same-origin and a
// cross-site frame, and reading it each time, leaves the tab with the
// frames and frame sessions of the page now, and the connection with no
// more sessions than the first read left it.
// Not parallel: the connection's sessions are the shared browser's.
func TestFrameSessionsBounded(t *testing.T) {
	site := newFrameSite(t)
	tab := openAt(t, newContext(t), site.URL+"/frames")
	ctx := ctxT(t)
	framesLoaded(t, tab)
	_, _, conn0 := tab.FrameCounts()
	for i := range 5 {
		if err := tab.Reload(ctx); err != nil {
			t.Fatal(err)
		}
		framesLoaded(t, tab)
		frames, sessions, conn := tab.FrameCounts()
		if frames > 2 || sessions > 1 || conn > conn0 {
			t.Fatalf("after reload %d: %d frames, %d frame sessions, %d connection sessions (%d at first); want at most 2, 1, %d",
				i+1, frames, sessions, conn, conn0, conn0)
		}
	}
	// The main frame navigating away takes the frames' sessions with it.
	if err := tab.Navigate(ctx, site.URL+"/act?f=main"); err != nil {
		t.Fatal(err)
	}
	snapshot(t, tab, false)
	if frames, sessions, _ := tab.FrameCounts(); frames != 0 || sessions != 0 {
		t.Errorf("on a page without frames the tab holds %d frames, %d frame sessions", frames, sessions)
	}
}
