package daemoncall

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// A desktop of the pool that lives on another host (vibespace-daemon
// --pool-remote) is borrowed through this host's daemon, but its verbs go
// to that host: an open --on it is refused elsewhere here, naming the
// host and the desktop's name there, and Call sends it again to that host
// (as --host would) with the display rewritten. The handles that host
// answers carry it — win:3@ssh://user@host:port — and a verb on such a
// handle goes to that host with the bare handle. So the command lines and
// MCP follow a remote desktop without the agent naming its host.

// hostMark joins a handle to the host it lives on.
const hostMark = "@ssh://"

// routeHandle is req sent to the host its handle names (ctx carrying that
// host, the handle bare), and that host's spec; "" when it names none.
func routeHandle(ctx context.Context, req wire.Request) (context.Context, wire.Request, string) {
	i := strings.Index(req.Target, hostMark)
	if i <= 0 {
		return ctx, req, ""
	}
	spec := req.Target[i+1:]
	req.Target = req.Target[:i]
	return WithHost(ctx, spec), req, spec
}

// markHandle makes the target of an answer from host spec carry it.
func markHandle(resp wire.Response, spec string) wire.Response {
	if spec != "" && resp.Target != nil && resp.Target.ID != "" && !strings.Contains(string(resp.Target.ID), hostMark) {
		t := *resp.Target
		t.ID = target.ID(string(t.ID) + "@" + spec)
		resp.Target = &t
	}
	return resp
}

// elsewhere is the request an elsewhere refusal asks for, and the host it
// goes to: the same verb with its display rewritten to the desktop's name
// there. ok is false for any other answer, or one that names no host.
func elsewhere(req wire.Request, resp wire.Response) (wire.Request, string, bool) {
	if resp.OK || resp.Code != target.CodeElsewhere {
		return req, "", false
	}
	spec, _ := resp.Facts["host"].(string)
	if !strings.HasPrefix(spec, "ssh://") {
		return req, "", false
	}
	if there, _ := resp.Facts["display"].(string); there != "" && len(req.Args) > 0 {
		var a map[string]any
		if json.Unmarshal(req.Args, &a) != nil {
			return req, "", false
		}
		if _, ok := a["display"]; ok {
			a["display"] = there
			b, err := json.Marshal(a)
			if err != nil {
				return req, "", false
			}
			req.Args = b
		}
	}
	return req, spec, true
}
