package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// theirChromium starts a Chromium of the benchmark's own with DevTools on
// 127.0.0.1 (port 0: the one it chose is in DevToolsActivePort), killed
// and reaped when the benchmark ends. It answers the http base of its
// endpoint.
func theirChromium(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	cmd := exec.Command(chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
		"--disable-background-networking", "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
		"--user-data-dir="+dir, "about:blank")
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	b.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "DevToolsActivePort")); err == nil {
			if port, _, ok := strings.Cut(string(data), "\n"); ok && port != "" {
				return "http://127.0.0.1:" + port
			}
		}
		if time.Now().After(deadline) {
			b.Fatal("the benchmark's Chromium wrote no DevToolsActivePort in 30 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// BenchmarkProviderOverhead: the same verbs, whole CLI process each, on a
// profile of the built-in browser (chromium) and on a profile of provider
// cdp (a Chromium the benchmark started, reached by its endpoint),
// interleaved in one run on the same page; it reports both medians and
// the ratio cdp / built-in per verb.
func BenchmarkProviderOverhead(b *testing.B) {
	e := newEnv(b)
	e.serve()
	site := newSite(b)
	page := site.URL + "/big"
	endpoint := theirChromium(b)
	e.OK("ours", "new", "ours")
	e.OK("ours", "use", "ours")
	e.OK("cdp", "new", "theirs", "--provider", "cdp", "--endpoint", endpoint)
	e.OK("cdp", "use", "theirs")
	sessions := []string{"ours", "cdp"}
	for _, s := range sessions { // cold starts and connects, outside the measurement
		e.OK(s, "open", page)
	}
	refOf := map[string]string{}
	refs := func() {
		for _, s := range sessions {
			refOf[s] = ref(b, e.snapshot(s, "-i"), "push button", "Increment")
		}
	}
	type verb struct {
		name string
		args func(s string) []string
	}
	fixed := func(args ...string) func(string) []string { return func(string) []string { return args } }
	verbs := []verb{
		{"open_warm", fixed("open", page)},
		{"snapshot_i", fixed("snapshot", "-i")},
		{"click", func(s string) []string { return []string{"click", refOf[s], "--no-verify"} }},
		{"eval", fixed("eval", "document.title")},
		{"get_title", fixed("get", "title")},
	}
	for _, v := range verbs {
		b.Run(v.name, func(b *testing.B) {
			if v.name == "click" {
				refs()
			}
			got := map[string][]time.Duration{}
			for b.Loop() {
				for _, s := range sessions {
					t0 := time.Now()
					e.OK(s, v.args(s)...)
					got[s] = append(got[s], time.Since(t0))
				}
			}
			ours, theirs := medianMS(got["ours"]), medianMS(got["cdp"])
			b.ReportMetric(ours, "builtin-median-ms")
			b.ReportMetric(theirs, "cdp-median-ms")
			if ours > 0 {
				b.ReportMetric(theirs/ours, "cdp/builtin")
			}
			b.Logf("%-10s built-in %7.2f ms  cdp %7.2f ms  ratio %.2f  (n=%d each)", v.name, ours, theirs, theirs/ours, len(got["ours"]))
		})
	}
}
