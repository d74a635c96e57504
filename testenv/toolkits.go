package testenv

import (
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
)

// TkLayout is where the Tk fixture's widgets are, in its window's pixels
// (testenv/fixture/tk.py places them there): "press" is the push button
// "Press me", "name" the entry beside the label "Name". Tk exposes no tree:
// these are the points a test clicks.
var TkLayout = map[string]image.Rectangle{
	"press": image.Rect(20, 20, 160, 56),
	"name":  image.Rect(80, 80, 300, 108),
}

var xclient struct {
	once sync.Once
	path string
	err  error
}

// XClientBinary builds the plain X client fixture (testenv/fixture/xclient)
// once per test process and returns the program's path. It is built with
// the go command into a directory of this user's under the temp dir, and
// renamed into place, so test processes that build it at once do not
// trip over each other.
func XClientBinary() (string, error) {
	xclient.once.Do(func() {
		_, self, _, ok := runtime.Caller(0)
		if !ok {
			xclient.err = fmt.Errorf("testenv: cannot tell where the xclient fixture's source is")
			return
		}
		dir := filepath.Join(os.TempDir(), "vibespace-xclient-"+strconv.Itoa(os.Getuid()))
		if err := os.MkdirAll(dir, 0o700); err != nil {
			xclient.err = err
			return
		}
		final := filepath.Join(dir, "xclient")
		tmp := fmt.Sprintf("%s.%d", final, os.Getpid())
		cmd := exec.Command("go", "build", "-o", tmp, "./fixture/xclient")
		cmd.Dir = filepath.Dir(self)
		if out, err := cmd.CombinedOutput(); err != nil {
			xclient.err = fmt.Errorf("testenv: build the xclient fixture: %v\n%s", err, out)
			return
		}
		if err := os.Rename(tmp, final); err != nil {
			os.Remove(tmp)
			xclient.err = err
			return
		}
		xclient.path = final
	})
	return xclient.path, xclient.err
}
