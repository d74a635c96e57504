package testenv

import (
	"context"
	"embed"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
)

// The fixtures' scripts: the GTK3 fixture (fixture.py), the toolkit
// fixtures (gtk4.py, qt5.py, tk.py), the GTK 4 keypad (keypad.py), the
// names fixture (names4.py), the multi-window fixtures (multiwin.py,
// multiwin_qt5.py), the file chooser (filechooser.py), the log they all
// write (fixturelog.py) and the start-up the GTK 4 and the Qt 5 ones share
// (gtk4app.py, qt5app.py).
//
//go:embed fixture/*.py
var scripts embed.FS

// FixturePython is the interpreter that runs the fixture apps: Debian's,
// which has python3-gi, PyQt5 and tkinter (a python3 earlier on PATH may be
// another build without them).
const FixturePython = "/usr/bin/python3"

// Fixture is one of the project's own applications: it logs every event it
// receives, so a test can check an effect without trusting the tool under
// test.
type Fixture struct {
	*App
	Log *FixtureLog
}

var fixtureSeq atomic.Int64

// Script writes the fixture script name ("fixture", "gtk4", "qt5", "tk",
// "keypad", "names4", "multiwin", "multiwin_qt5", "filechooser") and the
// modules the fixtures import (fixturelog, gtk4app, qt5app) into the
// desktop's dir (once) and returns the script's path.
func Script(d *Desktop, name string) (string, error) {
	path := filepath.Join(d.Dir, name+".py")
	for _, n := range []string{"fixturelog", "gtk4app", "qt5app", name} {
		if err := writeOnce(d.Dir, n+".py"); err != nil {
			return "", err
		}
	}
	return path, nil
}

// writeOnce copies an embedded script into dir unless it is there:
// written aside and renamed, so that a fixture started meanwhile never
// reads half a script.
func writeOnce(dir, file string) error {
	final := filepath.Join(dir, file)
	if _, err := os.Stat(final); err == nil {
		return nil
	}
	src, err := scripts.ReadFile("fixture/" + file)
	if err != nil {
		return fmt.Errorf("testenv: no fixture script %s: %w", file, err)
	}
	tmp, err := os.CreateTemp(dir, file+"-*.tmp")
	if err != nil {
		return err
	}
	_, err = tmp.Write(src)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), final)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// LaunchFixture starts the GTK3 fixture app on d logging to a fresh file
// under the desktop's dir, and waits for its window and its "ready" line.
func LaunchFixture(ctx context.Context, d *Desktop, args ...string) (*Fixture, error) {
	return launchScript(ctx, d, "fixture", args)
}

// LaunchQt5Fixture starts testenv/fixture/qt5.py (PyQt5, on X through
// QT_QPA_PLATFORM=xcb) on d. Qt registers on the accessibility bus by
// itself: the desktop's session bus says org.a11y.Status IsEnabled.
func LaunchQt5Fixture(ctx context.Context, d *Desktop, args ...string) (*Fixture, error) {
	return launchScript(ctx, d, "qt5", args)
}

// LaunchGTK4Fixture starts testenv/fixture/gtk4.py (GTK 4 through gi, on
// X) on d.
func LaunchGTK4Fixture(ctx context.Context, d *Desktop, args ...string) (*Fixture, error) {
	return launchScript(ctx, d, "gtk4", args)
}

// LaunchKeypadFixture starts testenv/fixture/keypad.py (GTK 4 through gi,
// on X) on d: a keypad whose keys change its display, and a button whose
// effect comes 900 ms late.
func LaunchKeypadFixture(ctx context.Context, d *Desktop) (*Fixture, error) {
	return launchScript(ctx, d, "keypad", nil)
}

// LaunchNamesFixture starts testenv/fixture/names4.py (a GTK 4 window
// whose widgets GTK 4.8 names badly: a calculator's mnemonic keys, icon
// buttons, an empty text view) on d.
func LaunchNamesFixture(ctx context.Context, d *Desktop) (*Fixture, error) {
	return launchScript(ctx, d, "names4", nil)
}

// LaunchTkFixture starts testenv/fixture/tk.py (no _NET_WM_PID, no tree)
// on d.
func LaunchTkFixture(ctx context.Context, d *Desktop) (*Fixture, error) {
	return launchScript(ctx, d, "tk", nil)
}

// LaunchXClientFixture starts the plain X client fixture (XClientBinary)
// on d.
func LaunchXClientFixture(ctx context.Context, d *Desktop) (*Fixture, error) {
	bin, err := XClientBinary()
	if err != nil {
		return nil, err
	}
	return launch(ctx, d, "xclient", []string{bin}, nil)
}

func launchScript(ctx context.Context, d *Desktop, name string, args []string) (*Fixture, error) {
	script, err := Script(d, name)
	if err != nil {
		return nil, err
	}
	return launch(ctx, d, name, []string{FixturePython, script}, args)
}

// launch starts argv --log <a fresh file under the desktop's dir> args…
// and waits for its window and its "ready" line.
func launch(ctx context.Context, d *Desktop, name string, argv, args []string) (*Fixture, error) {
	logPath := filepath.Join(d.Dir, name+"-"+strconv.FormatInt(fixtureSeq.Add(1), 10)+".jsonl")
	argv = append(append(argv, "--log", logPath), args...)
	app, err := d.Launch(ctx, argv...)
	if err != nil {
		return nil, err
	}
	f := &Fixture{App: app, Log: OpenFixtureLog(logPath)}
	if _, err := f.Log.WaitFrom(ctx, 0, func(e Event) bool { return e.Type == "ready" }); err != nil {
		app.Stop()
		return nil, fmt.Errorf("testenv: the %s fixture never logged ready: %w", name, err)
	}
	return f, nil
}
