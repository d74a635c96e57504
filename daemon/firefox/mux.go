package firefox

import (
	"context"
	"encoding/json"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/target"
)

// Beside is the daemon's browser backend with Firefox beside another (the
// daemon's Chromium): a key whose provider is firefox is ff's, every other
// ch's. What ch also does (the live view's strip, desktop apps) it still
// does through the result.
func Beside(ch kind.Browser, ff *Pool) kind.Browser { return &mux{ch: ch, ff: ff} }

type mux struct {
	ch kind.Browser
	ff *Pool
}

var (
	_ kind.BrowserUsage = (*mux)(nil)
	_ kind.AppRunner    = (*mux)(nil)
)

func (m *mux) of(key kind.BrowserKey) kind.Browser {
	if key.Provider == Provider {
		return m.ff
	}
	return m.ch
}

func (m *mux) Context(ctx context.Context, key kind.BrowserKey) (kind.BrowserContext, func(), error) {
	return m.of(key).Context(ctx, key)
}

func (m *mux) Release(ctx context.Context, key kind.BrowserKey) error {
	return m.of(key).Release(ctx, key)
}

func (m *mux) Running(profile string) bool { return m.ch.Running(profile) || m.ff.Running(profile) }

func (m *mux) Observe(f func()) {
	m.ch.Observe(f)
	m.ff.Observe(f)
}

// muxRecord is the record of both: an earlier daemon's record that is not
// one (a Chromium's alone, written before Firefox was beside it) is
// Chromium's whole.
type muxRecord struct {
	Chromium json.RawMessage `json:"chromium,omitempty"`
	Firefox  json.RawMessage `json:"firefox,omitempty"`
}

func (m *mux) Record() json.RawMessage {
	ff := m.ff.Record()
	if string(ff) == "null" || len(ff) == 0 {
		return m.ch.Record() // as Chromium's alone
	}
	data, _ := json.Marshal(muxRecord{Chromium: m.ch.Record(), Firefox: ff})
	return data
}

func (m *mux) Reap(ctx context.Context, record json.RawMessage) {
	var r muxRecord
	if json.Unmarshal(record, &r) != nil || r.Firefox == nil {
		m.ch.Reap(ctx, record)
		return
	}
	if len(r.Chromium) > 0 {
		m.ch.Reap(ctx, r.Chromium)
	}
	m.ff.Reap(ctx, r.Firefox)
}

func (m *mux) Doctor(ctx context.Context) []kind.Check {
	return append(m.ch.Doctor(ctx), m.ff.Doctor(ctx)...)
}

func (m *mux) Close() error {
	err := m.ch.Close()
	if ferr := m.ff.Close(); err == nil {
		err = ferr
	}
	return err
}

func (m *mux) Usage() kind.Usage {
	if u, ok := m.ch.(kind.BrowserUsage); ok {
		return u.Usage()
	}
	return kind.Usage{}
}

func (m *mux) Stop(ctx context.Context, profile string) error {
	if u, ok := m.ch.(kind.BrowserUsage); ok {
		return u.Stop(ctx, profile)
	}
	return target.Refuse(target.CodeBadRequest, "this daemon's browser cannot be stopped from the live view")
}

func (m *mux) apps() (kind.AppRunner, error) {
	if a, ok := m.ch.(kind.AppRunner); ok {
		return a, nil
	}
	return nil, target.Refuse(target.CodeNoBrowser, "this daemon's browser runs no desktop apps (new <label> --backend desktop-app); see doctor")
}

func (m *mux) AppDisplay() string {
	if a, err := m.apps(); err == nil {
		return a.AppDisplay()
	}
	return ""
}

func (m *mux) CheckApp(url, size string) (kind.App, error) {
	a, err := m.apps()
	if err != nil {
		return kind.App{}, err
	}
	return a.CheckApp(url, size)
}

func (m *mux) AppArgv(dir string, app kind.App) []string {
	if a, err := m.apps(); err == nil {
		return a.AppArgv(dir, app)
	}
	return nil
}

func (m *mux) AppURL(app kind.App) string {
	if a, err := m.apps(); err == nil {
		return a.AppURL(app)
	}
	return ""
}
