package testenv

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
)

//go:embed fixture/fixture.py
var fixtureSource []byte

// FixturePython is the interpreter that runs the fixture app: Debian's, which
// has python3-gi (a python3 earlier on PATH may be another build without it).
const FixturePython = "/usr/bin/python3"

// Fixture is the project's own GTK3 application: it logs every event it
// receives, so a test can check an effect without trusting the tool under
// test.
type Fixture struct {
	*App
	Log *FixtureLog
}

var fixtureSeq atomic.Int64

// FixtureScript writes the fixture app's source into the desktop's dir (once)
// and returns its path.
func FixtureScript(d *Desktop) (string, error) {
	path := filepath.Join(d.Dir, "fixture.py")
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	if err := os.WriteFile(path, fixtureSource, 0o600); err != nil {
		return "", err
	}
	return path, nil
}

// LaunchFixture starts a fixture app on d logging to a fresh file under the
// desktop's dir, and waits for its window and its "ready" line.
func LaunchFixture(ctx context.Context, d *Desktop, args ...string) (*Fixture, error) {
	script, err := FixtureScript(d)
	if err != nil {
		return nil, err
	}
	logPath := filepath.Join(d.Dir, "fixture-"+strconv.FormatInt(fixtureSeq.Add(1), 10)+".jsonl")
	argv := append([]string{FixturePython, script, "--log", logPath}, args...)
	app, err := d.Launch(ctx, argv...)
	if err != nil {
		return nil, err
	}
	f := &Fixture{App: app, Log: OpenFixtureLog(logPath)}
	if _, err := f.Log.WaitFrom(ctx, 0, func(e Event) bool { return e.Type == "ready" }); err != nil {
		app.Stop()
		return nil, fmt.Errorf("testenv: fixture never logged ready: %w", err)
	}
	return f, nil
}
