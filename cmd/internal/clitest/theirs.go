package clitest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TheirChromium starts a headless Chromium of the test's own with DevTools
// on 127.0.0.1 (port 0: the one it chose is in DevToolsActivePort), killed
// and reaped when the test ends. It answers the http base of its endpoint:
// somebody else's browser, to the daemon (provider cdp).
func TheirChromium(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(Chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
		"--disable-background-networking", "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
		"--user-data-dir="+dir, "about:blank")
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Errorf("the test's Chromium (pid %d) was not reaped in 10 s", cmd.Process.Pid)
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
			t.Fatal("the test's Chromium wrote no DevToolsActivePort in 30 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
