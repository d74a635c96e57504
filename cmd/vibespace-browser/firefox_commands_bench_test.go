package main_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/args"
	browserpool "github.com/vibespace/vibespace/daemon/chromium"
	"github.com/vibespace/vibespace/daemon/firefox"
	"github.com/vibespace/vibespace/provider"
)

// bidiCommands counts the BiDi commands each row of
// BenchmarkFirefoxBesideChromium costs a Firefox tab on page, as
// cdpCommands counts Chromium's: the same verbs through a daemon of this
// process whose Firefox pool counts what it sends (package
// daemon/firefox's Options.Calls), the session on a profile of provider
// firefox.
func bidiCommands(b *testing.B, page string) map[string]int {
	b.Helper()
	var n atomic.Int64
	ff := firefox.NewPool(firefox.Options{StartTimeout: 2 * time.Minute, Calls: func(string) { n.Add(1) }})
	br := firefox.Beside(browserpool.New(browserpool.Options{Binary: chromium, StartTimeout: time.Minute}), ff)
	defer br.Close()
	return countCommands(b, page, "BiDi", br, &n, func(call func(daemon.Request) (daemon.Response, int)) {
		resp, _ := call(daemon.Request{Verb: "new"}.With(args.New{Label: "count", Provider: provider.Firefox}))
		call(daemon.Request{Verb: "use"}.With(args.Use{Label: resp.Profile.ID}))
	})
}
