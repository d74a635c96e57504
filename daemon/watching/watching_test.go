package watching

import (
	"context"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/stage/stagetest"
	"testing"

	"github.com/vibespace/vibespace/daemon/displays"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// hands is a core with one target on no display (a tab) and, when live,
// a live view at a fixed address.
type hands struct{ live bool }

func (h hands) Reach(context.Context, *stage.Call) (*displays.Display, error) { return nil, nil }
func (h hands) Live() bool                                                    { return h.live }
func (h hands) LiveAddress() (string, int, error) {
	return "http://127.0.0.1:1/#token=t", 7, nil
}

func answer(t *testing.T, h Host, req wire.Request) (wire.Response, error) {
	t.Helper()
	s := &Stage{}
	if h != nil {
		s.Bind(h)
	}
	return s.Answer(t.Context(), stagetest.Decoded(&stage.Call{Req: req}))
}

// TestWatch: watch answers the live view's address (a target's pane with
// its handle), with the ICE-TCP port as a fact; with no live view, or
// with --xpra where no xpra client can attach, it is refused, saying why.
func TestWatch(t *testing.T) {
	resp, err := answer(t, hands{live: true}, wire.Request{Verb: "watch", Session: "a", Target: "tab:1"})
	if err != nil || resp.URL != "http://127.0.0.1:1/#token=t&target=tab%3A1" || resp.Facts["ice_tcp_port"] != 7 {
		t.Fatalf("watch tab:1: %+v, %v", resp, err)
	}
	for _, c := range []struct {
		h    Host
		req  wire.Request
		code target.Code
	}{
		{hands{}, wire.Request{Verb: "watch", Session: "a"}, target.CodeLiveViewUnavailable},
		{hands{live: true}, wire.Request{Verb: "watch", Session: "a"}.With(args.Watch{Xpra: true}), target.CodeBadRequest},
		{hands{live: true}, wire.Request{Verb: "watch", Session: "a", Target: "tab:1"}.With(args.Watch{Xpra: true}), target.CodeNoAttach},
		{nil, wire.Request{Verb: "watch", Session: "a"}, target.CodeInternal},
	} {
		if _, err := answer(t, c.h, c.req); target.CodeOf(err) != c.code {
			t.Errorf("%+v: %v, want %s", c.req, err, c.code)
		}
	}
}
