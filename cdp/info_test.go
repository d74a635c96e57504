package cdp_test

import (
	"strings"
	"testing"
)

// Info follows the page: a navigation's new URL and title show at once, on
// the next Info; a title set by script shows in ReadInfo.
func TestInfoFollowsThePage(t *testing.T) {
	t.Parallel()
	tab := openPage(t)
	ctx := ctxT(t)
	ti, err := tab.Info(ctx)
	if err != nil || ti.Title != "Anchor test page" || !strings.HasSuffix(ti.URL, "/page") || ti.ID != tab.ID() {
		t.Fatalf("Info %+v %v", ti, err)
	}
	if _, err := tab.Eval(ctx, `document.title = "Retitled"`); err != nil {
		t.Fatal(err)
	}
	if ti, err = tab.ReadInfo(ctx); err != nil || ti.Title != "Retitled" {
		t.Fatalf("ReadInfo after the page retitled itself: %+v %v", ti, err)
	}
	// A page with no title of its own has none: not its address, which
	// the browser shows in its stead (and which may carry a secret).
	if err := tab.Navigate(ctx, strings.Replace(ti.URL, "/page", "/untitled?token=s3cret", 1)); err != nil {
		t.Fatal(err)
	}
	if ti, err = tab.Info(ctx); err != nil || ti.Title != "" || !strings.HasSuffix(ti.URL, "token=s3cret") {
		t.Fatalf("Info of an untitled page: %+v %v", ti, err)
	}
	if err := tab.Navigate(ctx, strings.Replace(ti.URL, "/untitled?token=s3cret", "/other", 1)); err != nil {
		t.Fatal(err)
	}
	ti, err = tab.Info(ctx)
	if err != nil || !strings.HasSuffix(ti.URL, "/other") || ti.Title == "Retitled" {
		t.Fatalf("Info right after the navigation: %+v %v", ti, err)
	}
}
