package firefox_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/target"
)

// samePages is the corpus both browsers read: real documentation from
// Debian packages (their own CSS and scripts), a form page of ours, and a
// page of ours with frames (one of its own origin, one of another holding
// a frame of its own), read in each browser with its frames grafted.
var samePages = []struct{ name, path string }{
	{"form", "/form"},
	{"python-index", "/python/"},
	{"python-library", "/python/library/index.html"},
	{"valgrind-memcheck", "/valgrind/mc-manual.html"},
	{"framed", "/framed"},
}

// sameFramed is a page with a frame of its own origin and one of another
// (the second server's: another port), which holds a frame of its own.
const sameFramed = `<!doctype html><title>Framed</title><h1>Top page</h1>
<p>Before the frames.</p>
<iframe title="Same frame" src="/framed-same" style="width:400px;height:160px"></iframe>
<iframe title="Cross frame" src="%s/cross" style="width:400px;height:260px"></iframe>
<p>After the frames.</p>`

var sameFrames = map[string]string{
	"/framed-same": `<!doctype html><title>Same</title><h2>Same frame</h2>
<label>Note <input value="kept"></label> <button>Same button</button>
<ul><li>One<li>Two</ul>`,
	"/cross": `<!doctype html><title>Cross</title><h2>Cross frame</h2>
<a href="#x">A link</a> <button>Cross button</button>
<iframe title="Nested frame" src="/nested" style="width:300px;height:100px"></iframe>`,
	"/nested": `<!doctype html><title>Nested</title><label><input type=checkbox checked> Nested box</label>`,
}

const sameForm = `<!doctype html><title>Settings</title><main>
<h1>Settings</h1>
<nav aria-label="Sections"><ul><li><a href="#a">Account</a><li><a href="#b">Billing</a></ul></nav>
<form><fieldset><legend>Profile</legend>
<label>Name <input name=n value="Ada"></label>
<label><input type=checkbox checked> Newsletter</label>
<label for=c>Country</label><select id=c><option>France<option selected>Peru</select>
<textarea aria-label="About you">Hello</textarea>
<label><input type=radio name=r checked> Day</label><label><input type=radio name=r> Night</label>
<input type=range aria-label=Volume min=0 max=10 value=3>
<button type=button aria-pressed=true>Bold</button>
<button disabled>Save</button>
</fieldset></form>
<table><caption>Quarterly results</caption><tr><th>Quarter<th>Sales<tr><td>Q1<td>10<tr><td>Q2<td>12</table>
<details open><summary>More</summary><p>Hidden <b>text</b> here.</p></details>
<div role=dialog aria-label="Notice" aria-modal=true><p>Saved.</p><button>OK</button></div>
<img alt="A chart" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width=20 height=20>
</main>`

// TestSnapshotSameAsChromium: the page road gives the same snapshot in
// Firefox (the walk run through BiDi's script module) as in Chromium (run
// through CDP, the road Chromium's tabs use), line for line, on the same
// pages served by the test. Where the two differ, the difference is
// listed below with why, and nothing else may differ:
//
//   - Chromium hands the walk the elements a page's scripts gave a click
//     listener (DOMDebugger.getEventListeners); BiDi has no way to list
//     listeners, so Firefox's walk gets none, and such an element that
//     nothing else makes clickable gets no click action. None of these
//     pages has one: the python pages' only listeners are on document and
//     window, and the form has none; the choices page's listeners are on
//     options of a list box, which are clickable by their role already.
func TestSnapshotSameAsChromium(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	other := http.NewServeMux()
	for path, body := range sameFrames {
		other.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte(body))
		})
	}
	osrv := httptest.NewServer(other)
	defer osrv.Close()
	mux := http.NewServeMux()
	mux.Handle("/python/", http.StripPrefix("/python/", http.FileServer(http.Dir("/usr/share/doc/python3/html"))))
	mux.Handle("/valgrind/", http.StripPrefix("/valgrind/", http.FileServer(http.Dir("/usr/share/doc/valgrind/html"))))
	for path, body := range map[string]string{"/form": sameForm, "/choices": choicePage, "/framed": fmt.Sprintf(sameFramed, osrv.URL), "/framed-same": sameFrames["/framed-same"]} {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte(body))
		})
	}
	srv := httptest.NewServer(mux)
	defer srv.Close()

	cb, err := cdp.Launch(ctx, cdp.Options{Headless: true, StartTimeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Close()
	cc, err := cb.NewContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ctab, err := cc.NewTab(ctx, "about:blank")
	if err != nil {
		t.Fatal(err)
	}
	ftab := newTab(t, ctx)
	// The same viewport in both: the documentation's styles lay a narrow
	// window out otherwise (a menu instead of the sidebar).
	var vp struct{ W, H int }
	if err := ctab.EvalInto(ctx, "({W: innerWidth, H: innerHeight})", &vp); err != nil {
		t.Fatal(err)
	}
	if err := browser(t).Conn().Call(ctx, "browsingContext.setViewport", map[string]any{"context": ftab.ID(),
		"viewport": map[string]int{"width": vp.W, "height": vp.H}}, nil); err != nil {
		t.Fatal(err)
	}

	for _, p := range samePages {
		t.Run(p.name, func(t *testing.T) {
			url := srv.URL + p.path
			if err := ftab.Navigate(ctx, url); err != nil {
				t.Fatal(err)
			}
			if err := ctab.Navigate(ctx, url); err != nil {
				t.Fatal(err)
			}
			cs, err := ctab.SnapshotRoad(ctx, target.NewRefTable(), false, cdp.RoadPage)
			if err != nil {
				t.Fatal(err)
			}
			fs, err := ftab.Snapshot(ctx, target.NewRefTable())
			if err != nil {
				t.Fatal(err)
			}
			if cs.Census.Nodes < 20 {
				t.Fatalf("chromium's snapshot of %s has %d nodes:\n%s", p.name, cs.Census.Nodes, cs.Text())
			}
			if p.name == "framed" && (!strings.Contains(cs.Text(), "Nested box") || !strings.Contains(cs.Text(), "Same button")) {
				t.Fatalf("the frames' content is not in the snapshot:\n%s", cs.Text())
			}
			same(t, p.name, cs, fs)
		})
	}
	// What the new verbs change reads the same too: the choices page
	// after select set its <select> and its ARIA list box in each browser
	// (Chromium's own select, Firefox's through the same page functions),
	// and after both scrolled it down.
	t.Run("choices-after-select", func(t *testing.T) {
		url := srv.URL + "/choices"
		if err := ftab.Navigate(ctx, url); err != nil {
			t.Fatal(err)
		}
		if err := ctab.Navigate(ctx, url); err != nil {
			t.Fatal(err)
		}
		crefs, frefs := target.NewRefTable(), target.NewRefTable()
		cs, err := ctab.SnapshotRoad(ctx, crefs, false, cdp.RoadPage)
		if err != nil {
			t.Fatal(err)
		}
		fs, err := ftab.Snapshot(ctx, frefs)
		if err != nil {
			t.Fatal(err)
		}
		for _, pick := range []struct{ role, name, option string }{{"combo box", "Colour", "Green"}, {"list box", "Size", "Large"}} {
			fn := find(t, fs, frefs, pick.role, pick.name)
			if _, err := ftab.Select(ctx, fn, []string{pick.option}); err != nil {
				t.Fatalf("firefox: select %s: %v", pick.option, err)
			}
			cn := find(t, cs, crefs, pick.role, pick.name)
			if _, err := ctab.Select(ctx, cdp.NodeRef{Ref: cn.Ref, Key: cn.Key}, []string{pick.option}); err != nil {
				t.Fatalf("chromium: select %s: %v", pick.option, err)
			}
		}
		if err := ftab.Scroll(ctx, nil, "down", 1); err != nil {
			t.Fatal(err)
		}
		if err := ctab.Scroll(ctx, 0, 100, nil); err != nil {
			t.Fatal(err)
		}
		if cs, err = ctab.SnapshotRoad(ctx, target.NewRefTable(), false, cdp.RoadPage); err != nil {
			t.Fatal(err)
		}
		if fs, err = ftab.Snapshot(ctx, target.NewRefTable()); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(fs.Text(), "Large") {
			t.Fatalf("the page after select:\n%s", fs.Text())
		}
		same(t, "choices after select", cs, fs)
	})
}

// same fails t where the two snapshots' texts differ, listing the first
// lines that do.
func same(t *testing.T, name string, cs, fs *target.Snapshot) {
	t.Helper()
	ct, ft := cs.Text(), fs.Text()
	if ct == ft {
		t.Logf("%s: the same %d nodes", name, cs.Census.Nodes)
		return
	}
	cl, fl := strings.Split(ct, "\n"), strings.Split(ft, "\n")
	n := 0
	for i := 0; i < max(len(cl), len(fl)) && n < 30; i++ {
		var a, b string
		if i < len(cl) {
			a = cl[i]
		}
		if i < len(fl) {
			b = fl[i]
		}
		if a != b {
			t.Errorf("line %d:\n  chromium: %s\n  firefox:  %s", i+1, a, b)
			n++
		}
	}
	t.Errorf("%s: the two snapshots differ (%d and %d lines)", name, len(cl), len(fl))
}
