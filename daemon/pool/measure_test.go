package pool_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cmd/vibespace-daemon/stages"
	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/chromium"
	"github.com/vibespace/vibespace/daemon/daemontest"
	"github.com/vibespace/vibespace/daemon/native"
	"github.com/vibespace/vibespace/daemon/pool"
	"github.com/vibespace/vibespace/testenv"
	"github.com/vibespace/vibespace/xvfb"
)

// busyPage is a page that keeps working: text, and a canvas drawn on every
// frame.
const busyPage = `<!doctype html><title>busy</title><h1>busy</h1><p>` +
	`Some text to lay out, a few times over.</p><canvas id=c width=800 height=600></canvas>` +
	`<script>const c=document.getElementById('c').getContext('2d');let n=0;` +
	`(function f(){n++;c.fillStyle='hsl('+(n%360)+',60%,50%)';c.fillRect(0,0,800,600);` +
	`c.fillStyle='#000';c.fillText('frame '+n,20,20);requestAnimationFrame(f)})()</script>`

func mib(b int64) string { return strconv.FormatInt(b>>20, 10) + " MiB" }

// descendants are the live processes under pid (not itself) whose
// program's name starts with prefix, as /proc says.
func descendants(pid int, prefix string) []int {
	parent := map[int]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		f := strings.Fields(s[i+1:])
		if len(f) > 1 {
			parent[p], _ = strconv.Atoi(f[1])
		}
	}
	var out []int
	for p := range parent {
		for q := parent[p]; q > 1; q = parent[q] {
			if q == pid {
				if strings.HasPrefix(xvfb.ProcName(p), prefix) {
					out = append(out, p)
				}
				break
			}
		}
	}
	return out
}

// TestMeasureRSS measures, on this machine, what the pool's cap divides
// by: a desktop's resident set idle (our Xvfb with its buses and
// accessibility registry) and in use (a headed Chromium on it showing a
// page that draws every frame), and what one more browser context of the
// shared headless Chromium adds, idle (a blank page) and active (the same
// page). It logs the figures (the README has them) and the cap this
// machine derives; it checks that each use costs more than none, and that
// the desktop's wipe leaves only the display's own processes.
func TestMeasureRSS(t *testing.T) {
	testenv.NeedIntegration(t, "chromium")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	page := filepath.Join(t.TempDir(), "busy.html")
	if err := os.WriteFile(page, []byte(busyPage), 0o600); err != nil {
		t.Fatal(err)
	}

	// A desktop.
	p := pool.New(pool.Config{Desks: 1, Kind: native.ProviderName, Inner: native.Xvfb(native.Options{Logf: t.Logf})})
	disp, err := p.Desks()[0].Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = disp.Close() })
	var st xvfb.State
	if err := json.Unmarshal(disp.Record(), &st); err != nil {
		t.Fatal(err)
	}
	settle := func() { time.Sleep(2 * time.Second) } // let the resident sets settle before reading them
	settle()
	idle := pool.RSS(p.Processes(ctx, "desk1"))
	if _, err := p.Borrow(ctx, "m", false, "", 0); err != nil {
		t.Fatal(err)
	}
	if _, err := disp.Launch(ctx, []string{"chromium", "--no-sandbox", "--no-first-run", "--no-default-browser-check",
		"--user-data-dir=" + filepath.Join(st.Dir, "profile"), "file://" + page}); err != nil {
		t.Fatal(err)
	}
	settle()
	var names []string
	for _, pid := range p.Processes(ctx, "desk1") {
		names = append(names, xvfb.ProcName(pid))
	}
	t.Logf("the desktop in use runs %s", strings.Join(names, ", "))
	inUse := pool.RSS(p.Processes(ctx, "desk1"))
	w, err := p.Return(ctx, "m", pool.ReturnAsked)
	if err != nil {
		t.Fatal(err)
	}
	after := pool.RSS(p.Processes(ctx, "desk1"))
	t.Logf("a desktop: idle %s, in use (a headed Chromium drawing a page) %s; after its wipe (%s) %s",
		mib(idle), mib(inUse), w, mib(after))
	if idle <= 0 || inUse <= idle || after >= inUse {
		t.Errorf("desktop RSS idle %d, in use %d, after the wipe %d", idle, inUse, after)
	}

	// Browser contexts of the shared headless Chromium, one per session.
	br := chromium.New(chromium.Options{Binary: "chromium"})
	dir := t.TempDir()
	sv := daemontest.Start(t, daemon.Config{StateDir: dir, SocketPath: filepath.Join(dir, "run", "m.sock"),
		Browser: br, Stages: stages.All(), VerbTimeout: 60 * time.Second})
	open := func(session, url string) {
		sv.OK(t, daemon.Request{Verb: "browser.open", Session: session}.With(args.OpenURL{URL: url}))
	}
	browser := func() int64 { settle(); return pool.RSS(descendants(os.Getpid(), "chrom")) }
	open("a", "about:blank")
	one := browser()
	open("b", "about:blank")
	two := browser()
	open("c", "file://"+page)
	three := browser()
	ctxIdle, ctxActive := two-one, three-two
	t.Logf("the shared Chromium: %s with one context; a context more adds %s idle (a blank page), %s active (the drawing page)",
		mib(one), mib(ctxIdle), mib(ctxActive))
	// A blank context's own cost is within the browser's own swings (it
	// measured -28 to +84 MiB here, as the browser trims and grows its
	// processes): only a context drawing a page, in a renderer of its own,
	// is sure to weigh.
	if one <= 0 || three <= one {
		t.Errorf("browser RSS: one context %d, with a third drawing a page %d (a second added %d)", one, three, ctxIdle)
	}
	free, err := pool.MemAvailable()
	if err != nil {
		t.Fatal(err)
	}
	n, why := pool.Cap(1<<20, func() (int64, error) { return free, nil }, pool.DefaultMargin, inUse)
	nc, whyc := pool.Cap(1<<20, func() (int64, error) { return free, nil }, pool.DefaultMargin, ctxActive)
	t.Logf("caps here: desktops %d (%s); browser contexts %d (%s)", n, why, nc, whyc)
}
