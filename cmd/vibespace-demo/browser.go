package main

// The tab half of the demo: a page this program serves on loopback, driven
// through vibespace-browser with the same verbs the window got. The page
// reports its own state back to this program, which is the oracle: the demo
// never takes the CLI's word for an effect.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// pageState is what the page posts to /state after every change. Seq
// orders the reports of one page load (Load): two fetches in flight may
// arrive in either order, and an older report must never overwrite a newer
// one.
type pageState struct {
	Load    string `json:"load"`
	Seq     int    `json:"seq"`
	Name    string `json:"name"`
	Agreed  bool   `json:"agreed"`
	Greeted string `json:"greeted"`
}

// pageServer serves the demo page on 127.0.0.1 and keeps the last state the
// page reported.
type pageServer struct {
	srv *http.Server
	url string

	mu      sync.Mutex
	last    pageState
	changed chan struct{} // closed and replaced on every report
}

const demoPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>vibespace demo form</title>
<style>body{font:16px sans-serif;margin:2em} #out{margin-top:1em;font-weight:bold}</style></head>
<body>
<h1>Sign the guest book</h1>
<label for="name">Name</label> <input id="name" autocomplete="off">
<p><label><input type="checkbox" id="agree"> I agree to be greeted</label></p>
<button id="greet">Greet me</button>
<p id="out" role="status"></p>
<script>
const load = String(performance.timeOrigin) + Math.random();
let seq = 0;
const report = () => fetch('/state', {method: 'POST', body: JSON.stringify({
  load, seq: ++seq,
  name: document.getElementById('name').value,
  agreed: document.getElementById('agree').checked,
  greeted: document.getElementById('out').textContent})});
document.getElementById('name').addEventListener('input', report);
document.getElementById('agree').addEventListener('change', report);
document.getElementById('greet').addEventListener('click', () => {
  const n = document.getElementById('name').value;
  document.getElementById('out').textContent =
    document.getElementById('agree').checked ? 'Hello, ' + n + '!' : 'Please agree first.';
  report();
});
</script>
</body></html>
`

func startPageServer() (*pageServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &pageServer{url: "http://" + ln.Addr().String() + "/", changed: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, demoPage)
	})
	mux.HandleFunc("POST /state", func(w http.ResponseWriter, r *http.Request) {
		var s pageState
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&s); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		if s.Load == p.last.Load && s.Seq <= p.last.Seq {
			return // a report older than the one kept, delivered late
		}
		p.last = s
		close(p.changed)
		p.changed = make(chan struct{})
	})
	p.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go p.srv.Serve(ln)
	return p, nil
}

func (p *pageServer) close() { p.srv.Close() }

// wait returns the first state the page reports that satisfies ok, or an
// error after the deadline naming the last state seen.
func (p *pageServer) wait(ctx context.Context, ok func(pageState) bool) (pageState, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for {
		p.mu.Lock()
		s, ch := p.last, p.changed
		p.mu.Unlock()
		if ok(s) {
			return s, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return s, fmt.Errorf("the page never reported the expected state; last report: %+v", s)
		}
	}
}

// browserPart drives the demo page through vibespace-browser.
func (d *demo) browserPart(ctx context.Context) error {
	page, err := startPageServer()
	if err != nil {
		return err
	}
	defer page.close()
	fmt.Fprintln(d.out, "# the same verbs on a browser tab: a page served by this demo on 127.0.0.1, in the agent's own browser context")
	b := d.browser()
	if _, err := b.show(ctx, "open", page.url); err != nil {
		return err
	}
	snap, err := b.show(ctx, "snapshot", "-i")
	if err != nil {
		return err
	}
	name := refOf(snap, `"Name"`)
	agree := refOf(snap, `check box`)
	greet := refOf(snap, `button "Greet me"`)
	if name == "" || agree == "" || greet == "" {
		return fmt.Errorf("the page's snapshot lacks the Name field, the check box or the button:\n%s", snap)
	}
	if _, err := b.show(ctx, "fill", name, "Ada, an agent"); err != nil {
		return err
	}
	if _, err := b.show(ctx, "click", agree); err != nil {
		return err
	}
	if _, err := b.show(ctx, "click", greet); err != nil {
		return err
	}
	s, err := page.wait(ctx, func(s pageState) bool { return s.Greeted != "" })
	if err != nil {
		return err
	}
	fmt.Fprintf(d.out, "# the page itself reported: name=%q agreed=%v greeting=%q\n\n", s.Name, s.Agreed, s.Greeted)
	if s.Name != "Ada, an agent" || !s.Agreed || s.Greeted != "Hello, Ada, an agent!" {
		return errors.New("the page's own state is not what the agent did")
	}
	if _, err := b.show(ctx, "get", "title"); err != nil {
		return err
	}
	if _, err := b.show(ctx, "tab", "list"); err != nil {
		return err
	}
	return nil
}

// livePart prints the live view's address and checks that the page answers
// there with both targets listed.
func (d *demo) livePart(ctx context.Context) (string, error) {
	fmt.Fprintln(d.out, "# the live view: a person opens this address in a browser to watch both targets, take over and hand back")
	out, err := d.show(ctx, "watch")
	if err != nil {
		return "", err
	}
	addr := ""
	for _, f := range strings.Fields(out) {
		if strings.HasPrefix(f, "http://127.0.0.1:") {
			addr = f
		}
	}
	if addr == "" {
		return "", fmt.Errorf("watch printed no loopback address:\n%s", out)
	}
	// Ask the viewer's own API, with the token the address carries, what a
	// person opening it would see listed.
	base, frag, _ := strings.Cut(addr, "#")
	token := ""
	for _, kv := range strings.Split(frag, "&") {
		if v, ok := strings.CutPrefix(kv, "token="); ok {
			token = v
		}
	}
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, strings.TrimSuffix(base, "/")+"/api/targets", nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("the live view does not answer: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("the live view's target list answered %s: %s", resp.Status, body)
	}
	var listed struct {
		Targets []struct {
			ID    string `json:"id"`
			Title string `json:"title"`
			Kind  string `json:"kind"`
		} `json:"targets"`
	}
	if err := json.Unmarshal(body, &listed); err != nil {
		return "", fmt.Errorf("the live view's target list: %w: %s", err, body)
	}
	kinds := map[string]bool{}
	fmt.Fprintln(d.out, "# the viewer page lists (its own API, with that token):")
	for _, t := range listed.Targets {
		kinds[t.Kind] = true
		fmt.Fprintf(d.out, "  %-6s %s %q\n", t.Kind, t.ID, t.Title)
	}
	fmt.Fprintln(d.out)
	if !kinds["window"] || !kinds["tab"] {
		return "", fmt.Errorf("the live view does not list both a window and a tab: %s", body)
	}
	return addr, nil
}
