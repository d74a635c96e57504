package main_test

import (
	"testing"

	"github.com/vibespace/vibespace/cmd/vibespace-browser/internal/browsertest"
)

func TestMain(m *testing.M) { browsertest.Main(m) }

// chromium is the browser the daemon under test starts.
const chromium = browsertest.Chromium

// env is one isolated vibespace driven through vibespace-browser
// (browsertest.Env); this package's helpers are its methods.
type env struct{ *browsertest.Env }

func newEnv(t testing.TB) *env {
	t.Helper()
	return &env{browsertest.New(t)}
}

// sharedEnv is an env on the package's one daemon (browsertest.Shared):
// for a test that neither stops the daemon nor needs its state alone (tab
// handles and profiles are the daemon's, every session's).
func sharedEnv(t testing.TB) *env {
	t.Helper()
	return &env{browsertest.Shared(t)}
}

// What every package of the command's tests shares: the readers of
// answers, and the server of the test pages (browsertest.Site).
var (
	ref       = browsertest.Ref
	textRef   = browsertest.TextRef
	waitCtx   = browsertest.WaitCtx
	newSite   = browsertest.NewSite
	servePage = browsertest.ServePage
)

// What the test pages report, and the inbox that collects what they post.
type (
	report       = browsertest.Report
	inbox[T any] = browsertest.Inbox[T]
)
