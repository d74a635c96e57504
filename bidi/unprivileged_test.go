package bidi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vibespace/vibespace/bidi"
)

// childEnv makes the test binary, run again, launch one browser as
// whoever runs it, load a page it serves, and print what it saw (JSON).
const childEnv = "VIBESPACE_BIDI_CHILD"

type childReport struct {
	UID   int    `json:"uid"`
	Title string `json:"title"`
	Req   string `json:"req"`
	Relay int    `json:"relay"`
	Err   string `json:"err"`
}

func childLaunch() int {
	r := childReport{UID: os.Getuid()}
	defer func() { json.NewEncoder(os.Stdout).Encode(r) }()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b, err := bidi.Launch(ctx, bidi.Options{Headless: true})
	if err != nil {
		r.Err = err.Error()
		return 1
	}
	defer b.Close()
	r.Relay = b.PID()
	s := &site{hit: make(chan struct{}, 100)}
	s.Server = newSiteServer(s, map[string]string{"/who": `<title>unprivileged</title>`})
	defer s.Close()
	tab, err := b.Conn().CreateTab(ctx, "")
	if err == nil {
		_, err = b.Conn().Navigate(ctx, tab, s.URL+"/who", bidi.ReadyComplete)
	}
	if err != nil {
		r.Err = err.Error()
		return 1
	}
	v, err := b.Conn().Evaluate(ctx, bidi.Target{Context: tab}, "document.title")
	if err != nil {
		r.Err = err.Error()
		return 1
	}
	r.Title, _ = v.String()
	if reqs := s.requests(); len(reqs) > 0 {
		r.Req = reqs[0]
	}
	return 0
}

// TestLaunchUnprivileged: a launcher that is not root (user nobody: the
// test binary run again as nobody) gets its browser all the same, in
// namespaces of its own (user namespaces need no privilege here), loads a
// page it serves, and leaves no process of nobody's behind.
func TestLaunchUnprivileged(t *testing.T) {
	needFirefox(t)
	if os.Getuid() != 0 {
		t.Fatal("running the test binary as user nobody needs root")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// A copy nobody may read and run (the test binary's own directory is
	// the build's, closed to others).
	dir, err := os.MkdirTemp("", "vibespace-bidi-child-*")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	bin := filepath.Join(dir, "bidi.test")
	if err := copyFile(self, bin); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = []string{childEnv + "=1", "PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/nonexistent"}
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}}
	cmd.WaitDelay = 5 * time.Second
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, runErr := cmd.Output()
	var r childReport
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("the child: %v, %q: %v; stderr: %s", runErr, out, err, stderr.String())
	}
	if runErr != nil || r.Err != "" {
		t.Fatalf("the child as nobody: %v: %s", runErr, r.Err)
	}
	if r.UID != 65534 || r.Title != "unprivileged" || !strings.HasPrefix(r.Req, "GET /who") {
		t.Errorf("the child's report: %+v", r)
	}
	if left := firefoxesOf(65534); len(left) > 0 {
		t.Errorf("firefox processes of nobody outlived the child: %v", left)
	}
}

// firefoxesOf is the live firefox processes of uid.
func firefoxesOf(uid int) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		var pid int
		if _, err := fmt.Sscan(e.Name(), &pid); err != nil {
			continue
		}
		comm, _ := os.ReadFile("/proc/" + e.Name() + "/comm")
		st, err := os.Stat("/proc/" + e.Name())
		if err != nil || !strings.HasPrefix(string(comm), "firefox") {
			continue
		}
		if s, ok := st.Sys().(*syscall.Stat_t); ok && int(s.Uid) == uid {
			pids = append(pids, pid)
		}
	}
	return alive(pids)
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
