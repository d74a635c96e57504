package main_test

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cmd/internal/clitest"
	"github.com/vibespace/vibespace/daemon/wire"
)

// rpcAnswer is one JSON-RPC message the server wrote on its stdout.
type rpcAnswer struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"` // a notification of the server's
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	line string
}

// TestBadInputIsAnswered: the real server, over its real stdin, answers
// each line that is no JSON-RPC message as JSON-RPC 2.0 says — one that is
// not JSON -32700, a batch or an object that is no Request -32600, with id
// null (or the line's own id) — and serves on: a tools/call in flight at
// the daemon while the bad lines come is answered when the daemon answers,
// a tools/list after them is answered, none of a batch's messages is run,
// and stdin's end ends the server with 0.
func TestBadInputIsAnswered(t *testing.T) {
	e := clitest.New(t, bin)
	vars := map[string]string{"VIBESPACE_HOME": e.Home, "XDG_RUNTIME_DIR": e.Run}
	release, ctx := make(chan struct{}), t.Context()
	asked := clitest.FakeDaemon(t, func(k string) string { return vars[k] }, func(req wire.Request) wire.Response {
		select { // the call stays in flight until the test lets it go (or ends)
		case <-release:
		case <-ctx.Done():
		}
		return wire.Response{OK: true, Targets: []wire.TargetInfo{{ID: "win:1", Title: "Held", Lease: "yours", Input: "agent"}}}
	})

	cmd := exec.Command(e.Bin, "--session", "s1")
	cmd.Env = e.Environ("s1")
	cmd.Stderr = &logWriter{t: t, prefix: "vibespace-mcp: "}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	t.Cleanup(func() {
		close(stop)
		if cmd.ProcessState == nil { // a failure left it running: end it, by its PID, and reap it
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	answers := make(chan rpcAnswer)
	go func() {
		defer close(answers) // the end of its stdout
		br := bufio.NewReader(stdout)
		for {
			l, err := br.ReadString('\n')
			if l != "" {
				a := rpcAnswer{line: strings.TrimSpace(l)}
				if json.Unmarshal([]byte(l), &a) != nil {
					a = rpcAnswer{line: "NOT JSON: " + a.line}
				}
				select {
				case answers <- a:
				case <-stop:
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatalf("write %s: %v", line, err)
		}
	}
	// next is the server's next answer (its notifications skipped).
	next := func(after string) rpcAnswer {
		t.Helper()
		deadline := time.After(time.Minute)
		for {
			select {
			case a, ok := <-answers:
				if !ok {
					t.Fatalf("after %s: the server's stdout ended (it exited) with no answer", after)
				}
				if a.Method == "" {
					return a
				}
			case <-deadline:
				t.Fatalf("after %s: no answer in a minute", after)
			}
		}
	}
	// refused checks the answer to a bad line: an error of code with id.
	refused := func(line string, code int, id string) {
		t.Helper()
		send(line)
		a := next(line)
		if a.Error == nil || a.Error.Code != code || string(a.ID) != id || a.Result != nil {
			t.Fatalf("%s: want the error %d with id %s, got\n%s", line, code, id, a.line)
		}
	}
	// answered checks the answer to a request: a result with id.
	answered := func(id, what string) rpcAnswer {
		t.Helper()
		a := next(what)
		if string(a.ID) != id || a.Error != nil || a.Result == nil {
			t.Fatalf("%s: want a result with id %s, got\n%s", what, id, a.line)
		}
		return a
	}

	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"vibespace-test","version":"0"}}}`)
	answered("1", "initialize")
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"window_list","arguments":{}}}`)
	select { // the call is at the daemon, in flight, while the bad lines come
	case req := <-asked:
		if req.Verb != "list" {
			t.Fatalf("window_list asked the daemon %+v", req)
		}
	case <-time.After(time.Minute):
		t.Fatal("window_list never reached the daemon")
	}

	refused(`{not json`, -32700, "null")
	refused(`[{"jsonrpc":"2.0","id":9,"method":"tools/list"}]`, -32600, "null") // a batch: none of it is run
	refused(`{"jsonrpc":"2.0","params":{}}`, -32600, "null")                    // no method, no id
	refused(`{"jsonrpc":"2.0","id":5}`, -32600, "5")                            // no method, its id
	refused(`{"jsonrpc":"1.0","id":"six","method":"tools/list"}`, -32600, `"six"`)
	refused(`{"jsonrpc":"2.0","id":7,"method":["tools/list"]}`, -32600, "7")

	send(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	list := answered("3", "tools/list after the bad lines")
	if !strings.Contains(string(list.Result), `"window_list"`) {
		t.Fatalf("tools/list after the bad lines lists no window_list:\n%s", list.line)
	}
	if syscall.Kill(cmd.Process.Pid, 0) != nil || clitest.Exited(cmd.Process.Pid) {
		t.Fatal("the server is not running after the bad lines")
	}

	close(release) // the daemon answers the call that was in flight
	call := answered("2", "the window_list in flight during the bad lines")
	var res struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(call.Result, &res); err != nil || res.IsError || len(res.Content) == 0 || !strings.Contains(res.Content[0].Text, "win:1") {
		t.Fatalf("the window_list in flight during the bad lines: want its list, got\n%s", call.line)
	}

	// stdin's end ends the server, with 0; nothing of the batch ever ran.
	if err := stdin.Close(); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(time.Minute)
	for done := false; !done; {
		select {
		case a, ok := <-answers:
			if !ok {
				done = true
			} else if a.Method == "" {
				t.Errorf("an answer nothing asked for: %s", a.line)
			}
		case <-deadline:
			t.Fatal("the server did not end on its stdin's end in a minute")
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the server did not exit 0 on its stdin's end: %v", err)
	}
}
