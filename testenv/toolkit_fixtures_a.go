package testenv

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// The Qt 5 and GTK 4 fixtures of the toolkit fixture contract: the same
// widgets (a "Press me" button, a "Name" entry, a "Maybe" check box that
// starts mixed) and the same log vocabulary as every toolkit fixture.
var (
	//go:embed fixture/qt5.py
	qt5FixtureSource []byte
	//go:embed fixture/gtk4.py
	gtk4FixtureSource []byte
)

// LaunchQt5Fixture starts testenv/fixture/qt5.py (PyQt5, on X through
// QT_QPA_PLATFORM=xcb) on d and waits for its window and its "ready" line.
// Qt registers on the accessibility bus by itself: the desktop's session
// bus says org.a11y.Status IsEnabled.
func LaunchQt5Fixture(ctx context.Context, d *Desktop, args ...string) (*Fixture, error) {
	return launchScript(ctx, d, "qt5", qt5FixtureSource, args)
}

// LaunchGTK4Fixture starts testenv/fixture/gtk4.py (GTK 4 through gi, on X)
// on d and waits for its window and its "ready" line.
func LaunchGTK4Fixture(ctx context.Context, d *Desktop, args ...string) (*Fixture, error) {
	return launchScript(ctx, d, "gtk4", gtk4FixtureSource, args)
}

// launchScript writes an embedded fixture script into the desktop's dir
// (once) and runs it as LaunchFixture runs the GTK3 one.
func launchScript(ctx context.Context, d *Desktop, name string, src []byte, args []string) (*Fixture, error) {
	script := filepath.Join(d.Dir, name+".py")
	if _, err := os.Stat(script); err != nil {
		// Written aside and renamed: a fixture started meanwhile never
		// reads half a script.
		tmp, err := os.CreateTemp(d.Dir, name+"-*.py.tmp")
		if err != nil {
			return nil, err
		}
		_, err = tmp.Write(src)
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp.Name(), script)
		}
		if err != nil {
			os.Remove(tmp.Name())
			return nil, err
		}
	}
	logPath := filepath.Join(d.Dir, name+"-"+strconv.FormatInt(fixtureSeq.Add(1), 10)+".jsonl")
	argv := append([]string{FixturePython, script, "--log", logPath}, args...)
	app, err := d.Launch(ctx, argv...)
	if err != nil {
		return nil, err
	}
	f := &Fixture{App: app, Log: OpenFixtureLog(logPath)}
	if _, err := f.Log.WaitFrom(ctx, 0, func(e Event) bool { return e.Type == "ready" }); err != nil {
		app.Stop()
		return nil, fmt.Errorf("testenv: %s fixture never logged ready: %w", name, err)
	}
	return f, nil
}
