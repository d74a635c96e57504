package daemoncall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"syscall"

	"github.com/vibespace/vibespace/cmd/internal/sshroad"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// livePortRoad is one port of another host's live view that watch forwards
// here: the page (HTTP, its API and signalling) or the video (ICE-TCP).
type livePortRoad struct {
	road string // "page" or "video"
	what string // how a sentence names it
	port int
}

// forwardLive forwards, over h's master, the ports of the live view a
// watch answer (resp) names to the same ports on this side's 127.0.0.1:
// the page's (in its address) and the video's ICE-TCP road (the fact
// ice_tcp_port). Each port is first proven free here (bound and closed at
// once) unless the master itself already listens on it (an earlier
// watch's forward); a port taken by anything else is refused
// live_view_unavailable, naming it, before anything is forwarded. The
// answer's fact forwarded says what now travels the tunnel.
func forwardLive(ctx context.Context, h *sshroad.Host, resp wire.Response) wire.Response {
	page, ok := livePort(resp.URL)
	if !ok {
		return resp
	}
	roads := []livePortRoad{{"page", "page", page}}
	if v, ok := factPort(resp.Facts["ice_tcp_port"]); ok {
		roads = append(roads, livePortRoad{"video", "video (ICE-TCP)", v})
	}
	fresh := make([]bool, len(roads)) // not yet forwarded by this master
	for i, r := range roads {
		err := portFree(r.port)
		if err == nil {
			fresh[i] = true
			continue
		}
		if held, herr := h.Holds(ctx, r.port); herr == nil && held {
			continue // the master's own forward, from an earlier watch
		}
		return takenHere(h, r, err)
	}
	var said []string
	for i, r := range roads {
		if fresh[i] {
			// A failure here (the port taken since the test bind, ssh
			// refusing) leaves the roads before it forwarded: a watch
			// again finds them the master's.
			if err := h.Forward(ctx, r.port); err != nil {
				var f *sshroad.Failure
				if !errors.As(err, &f) {
					f = &sshroad.Failure{Code: target.CodeLiveViewUnavailable, Message: err.Error()}
				}
				out := f.Response(h.Name)
				out.Facts["port"], out.Facts["road"] = r.port, r.road
				return out
			}
		}
		said = append(said, fmt.Sprintf("%s 127.0.0.1:%d here → 127.0.0.1:%d on %s", r.what, r.port, r.port, h.Name))
	}
	if resp.Facts == nil {
		resp.Facts = map[string]any{}
	}
	f := strings.Join(said, ", ") + ", over ssh"
	if len(roads) == 1 {
		f += "; the video is not (the daemon there offers no ICE-TCP road: it is older than this command)"
	}
	resp.Facts["forwarded"] = f
	return resp
}

// takenHere is the refusal of a live view port r that is taken on this
// side, so that the tunnel cannot end there.
func takenHere(h *sshroad.Host, r livePortRoad, err error) wire.Response {
	r2 := target.Refuse(target.CodeLiveViewUnavailable,
		"the live view's %s port 127.0.0.1:%d is taken on this side (%v), so %s's cannot be forwarded to it: free it here, or watch from a browser on %s",
		r.what, r.port, err, h.Name, h.Name).With("port", r.port).With("road", r.road).With("host", h.Name)
	return wire.Response{V: wire.ProtocolVersion, Code: r2.Code, Message: r2.Message, Facts: r2.Facts}
}

// factPort reads a port out of an answer's fact: a JSON number.
func factPort(v any) (int, bool) {
	var p int
	switch n := v.(type) {
	case float64:
		p = int(n)
		if float64(p) != n {
			return 0, false
		}
	case int:
		p = n
	case json.Number:
		i, err := n.Int64()
		if err != nil {
			return 0, false
		}
		p = int(i)
	default:
		return 0, false
	}
	return p, p > 0 && p < 65536
}

// portFree proves 127.0.0.1:port free on this side: a TCP socket is bound
// to it and listens, as ssh's forward would (SO_REUSEADDR, as ssh sets:
// a port only in TIME_WAIT is free), and is closed at once. Package
// syscall, not net: a command line links no net (deps_test.go).
func portFree(port int) error {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1); err != nil {
		return err
	}
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return err
	}
	return syscall.Listen(fd, 1)
}
