package cdptest_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/cdp/cdptest"
	"github.com/vibespace/vibespace/testenv"
)

// TestOracle reads a page a real Chromium shows: Pages lists it in the
// browser context it was opened in, Eval answers what the page's own DOM
// holds (and a value written by one Eval is read back by the next), an
// expression that throws is an error naming the exception, and a match no
// page meets is ErrNoPage.
func TestOracle(t *testing.T) {
	testenv.NeedIntegration(t, "chromium")
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>oracle page</title><p id="p">from the server</p>`)
	}))
	defer site.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	b, err := cdp.Launch(ctx, cdp.Options{Headless: true, StartTimeout: 60 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	bc, err := b.NewContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	url := site.URL + "/page"
	if _, err := bc.NewTab(ctx, url); err != nil {
		t.Fatal(err)
	}

	pages, err := cdptest.Pages(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	var found []cdptest.Page
	for _, p := range pages {
		if p.Type != "page" {
			t.Fatalf("Pages answered a target of type %q: %+v", p.Type, p)
		}
		if p.URL == url {
			found = append(found, p)
		}
	}
	if len(found) != 1 || found[0].BrowserContextID != bc.ID() || found[0].Title != "oracle page" || found[0].TargetID == "" {
		t.Fatalf("the page in Pages (context %s): %+v of %+v", bc.ID(), found, pages)
	}

	at := cdptest.URL(url)
	if got, err := cdptest.Eval(ctx, b, at, "document.getElementById('p').textContent"); err != nil || got != "from the server" {
		t.Fatalf("Eval of the page's text: %q, %v", got, err)
	}
	if got, err := cdptest.Eval(ctx, b, at, "document.body.dataset.mark = 'written'; 6 * 7"); err != nil || got != "42" {
		t.Fatalf("Eval of an expression: %q, %v", got, err)
	}
	if got, err := cdptest.Eval(ctx, b, at, "document.body.dataset.mark"); err != nil || got != "written" {
		t.Fatalf("Eval reading back what the last one wrote: %q, %v", got, err)
	}
	if _, err := cdptest.Eval(ctx, b, at, "(() => { throw new Error('oracle boom') })()"); err == nil || !strings.Contains(err.Error(), "oracle boom") {
		t.Fatalf("an expression that throws: %v", err)
	}
	if _, err := cdptest.Eval(ctx, b, cdptest.URL(site.URL+"/nowhere"), "1"); !errors.Is(err, cdptest.ErrNoPage) {
		t.Fatalf("no page matches: %v", err)
	}
}
