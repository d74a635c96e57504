package main_test

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cmd/vibespace-daemon/stages"
	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/args"
	browserpool "github.com/vibespace/vibespace/daemon/chromium"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/target"
)

// cdpCommands counts the CDP commands each row of
// BenchmarkVersusAgentBrowser costs on page: the same verbs, sent as the
// command line sends them to a daemon of this process whose browser pool
// counts what it sends (package daemon/chromium's Options.Calls), after the same warm-up
// (the tab open, the refs of a -i snapshot known). The benchmark's own
// daemon is another process, whose commands no one counts.
func cdpCommands(b *testing.B, page string) map[string]int {
	b.Helper()
	var n atomic.Int64
	pool := browserpool.New(browserpool.Options{Binary: chromium, StartTimeout: time.Minute, Calls: func(string) { n.Add(1) }})
	defer pool.Close()
	return countCommands(b, page, "CDP", pool, &n, nil)
}

// countCommands counts the commands (of the protocol proto) each verb
// costs on page through a daemon of this process whose browser br counts
// them into n; prepare (nil: none) readies the session "count" first,
// uncounted.
func countCommands(b *testing.B, page, proto string, br kind.Browser, n *atomic.Int64, prepare func(call func(daemon.Request) (daemon.Response, int))) map[string]int {
	b.Helper()
	ctx, cancel := context.WithTimeout(b.Context(), 4*time.Minute)
	defer cancel()
	dir := b.TempDir()
	sock := filepath.Join(dir, "run", "d.sock")
	d, err := daemon.New(ctx, daemon.Config{StateDir: dir, SocketPath: sock, Browser: br, Stages: stages.All(),
		VerbTimeout: 3 * time.Minute, IdleHandback: -1})
	if err != nil {
		b.Fatal(err)
	}
	if err := d.Listen(); err != nil {
		d.Close()
		b.Fatal(err)
	}
	served := make(chan struct{})
	go func() { defer close(served); _ = d.Serve(context.WithoutCancel(ctx)) }()
	defer func() { d.Close(); <-served }()
	call := func(req daemon.Request) (daemon.Response, int) {
		b.Helper()
		req.Verb, req.Session = "browser."+req.Verb, "count"
		c, err := daemon.Dial(ctx, sock)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		before := n.Load()
		resp, err := c.Call(ctx, req)
		if err != nil {
			b.Fatal(err)
		}
		if !resp.OK {
			b.Fatalf("%s refused %s: %s", req.Verb, resp.Code, resp.Message)
		}
		return resp, int(n.Load() - before)
	}
	if prepare != nil {
		prepare(call)
	}
	open := daemon.Request{Verb: "open"}.With(args.OpenURL{URL: page})
	call(open)
	out := map[string]int{}
	_, out["open_warm"] = call(open)
	_, out["snapshot"] = call(daemon.Request{Verb: "snapshot"})
	si := daemon.Request{Verb: "snapshot", JSON: true}.With(args.Snapshot{Observe: args.Observe{Interactive: true}})
	resp, k := call(si)
	out["snapshot_i"] = k
	name, inc := ref(b, resp.Snapshot, "entry", "Name"), ref(b, resp.Snapshot, "push button", "Increment")
	// Each ref's first use resolves it: not what the benchmark's rows
	// pay, whose refs are used again and again.
	call(daemon.Request{Verb: "click"}.With(args.Click{Ref: inc, NoVerify: true}))
	call(daemon.Request{Verb: "fill"}.With(args.Fill{Ref: name, Text: "x", NoVerify: true}))
	_, out["click"] = call(daemon.Request{Verb: "click"}.With(args.Click{Ref: inc, NoVerify: true}))
	_, out["fill"] = call(daemon.Request{Verb: "fill"}.With(args.Fill{Ref: name, Text: "hello", NoVerify: true}))
	resp, out["click_checked"] = call(daemon.Request{Verb: "click"}.With(args.Click{Ref: inc}))
	if resp.Effect == nil || resp.Effect.Word != target.EffectConfirmed { // the count it changed, named (issue 38)
		b.Fatalf("the counted click saw %+v", resp.Effect)
	}
	resp, out["fill_checked"] = call(daemon.Request{Verb: "fill"}.With(args.Fill{Ref: name, Text: "world"}))
	if resp.Effect == nil || resp.Effect.Word != target.EffectConfirmed {
		b.Fatalf("the counted fill saw %+v", resp.Effect)
	}
	_, out["screenshot"] = call(daemon.Request{Verb: "screenshot"})
	_, out["get_title"] = call(daemon.Request{Verb: "get"}.With(args.Get{What: "title"}))
	_, out["type"] = call(daemon.Request{Verb: "type"}.With(args.Type{Ref: name, Text: "abc", NoVerify: true}))
	_, out["key"] = call(daemon.Request{Verb: "key"}.With(args.Key{Chord: "Tab", NoVerify: true}))
	_, out["scroll"] = call(daemon.Request{Verb: "scroll"}.With(args.Scroll{Direction: "down", NoVerify: true}))
	_, out["find"] = call(daemon.Request{Verb: "find"}.With(args.Find{Text: "Increment"}))
	_, out["wait"] = call(daemon.Request{Verb: "wait"}.With(args.Wait{Text: "Increment"}))
	_, out["eval"] = call(daemon.Request{Verb: "eval"}.With(args.Eval{Expr: "1+1"}))
	b.Logf("%s commands per verb on %s: %v", proto, page, out)
	return out
}
