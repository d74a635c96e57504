package clitest

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// CheckWatch checks an address watch printed: the live view on 127.0.0.1,
// a viewer token in the fragment, the target named there (target "" is the
// overview: none named), and a page served at it.
func CheckWatch(t testing.TB, addr, target string) {
	t.Helper()
	u, err := url.Parse(strings.TrimSpace(addr))
	if err != nil || u.Scheme != "http" || u.Hostname() != "127.0.0.1" || !strings.HasPrefix(u.Fragment, "token=") {
		t.Fatalf("watch printed %q (%v)", addr, err)
	}
	frag, _ := url.ParseQuery(u.Fragment)
	if frag.Get("token") == "" || frag.Get("target") != target {
		t.Errorf("watch's address names target %q, want %q (token set: %v)", frag.Get("target"), target, frag.Get("token") != "")
	}
	c := &http.Client{Timeout: 30 * time.Second}
	resp, err := c.Get(u.Scheme + "://" + u.Host + u.Path)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("the live view page answered %s", resp.Status)
	}
}
