package browsing

import (
	"context"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/stage/stagetest"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/daemon/verb"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/provider"
	"github.com/vibespace/vibespace/target"
)

// host is the core's hands as the stage sees them: the provider table, a
// key store of one map, and a record of the tabs the stage asked to close.
// Methods the tests do not need are the embedded nil Host's (a call to one
// fails the test by panicking).
type host struct {
	Host
	rows   []provider.Row
	keys   map[string]string
	closed []kind.BrowserKey
}

func (h *host) Rows() []provider.Row { return h.rows }

func (h *host) Key(scope string) (string, bool, error) {
	v, ok := h.keys[scope]
	return v, ok, nil
}

func (h *host) Browser() kind.Browser { return nil }

func (h *host) AppWindow(string) (target.ID, bool) { return "", false }

func (h *host) CloseTabs(_ context.Context, _ string, key kind.BrowserKey) {
	h.closed = append(h.closed, key)
}

func newStage(t *testing.T) (*Stage, *host) {
	t.Helper()
	now := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	h := &host{rows: provider.All(), keys: map[string]string{}}
	st, err := New(stage.Env{StateDir: t.TempDir(), Now: func() time.Time { return now }, Hands: h})
	if err != nil {
		t.Fatal(err)
	}
	s := st.(*Stage)
	return s, h
}

func answer(t *testing.T, s *Stage, req wire.Request) wire.Response {
	t.Helper()
	resp, err := s.Answer(context.Background(), stagetest.Decoded(&stage.Call{Req: req}))
	if err != nil {
		t.Fatalf("%s: %v", req.Verb, err)
	}
	return resp
}

// A session with nothing attached acts in its own ephemeral context, on
// the chromium row.
func TestChooseOwnContext(t *testing.T) {
	s, _ := newStage(t)
	sel, err := s.Choose(wire.Request{Verb: "browser.snapshot", Session: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	if want := (kind.BrowserKey{Session: "s1", Owner: "s1"}); sel.Key != want {
		t.Errorf("key = %+v, want %+v", sel.Key, want)
	}
	if !sel.Prof.Ephemeral || sel.Prof.ID != "" || sel.App {
		t.Errorf("profile = %+v, want the session's own ephemeral context", sel.Prof)
	}
	if sel.Row.Name != provider.Chromium {
		t.Errorf("row = %q, want %q", sel.Row.Name, provider.Chromium)
	}
}

// use attaches a registered profile: the next choice of the session is its
// context (its own directory under the state directory), another session
// is untouched, and detach closes the session's tabs in exactly that
// context and leaves it with its own context again.
func TestUseChooseDetach(t *testing.T) {
	s, h := newStage(t)
	reg, err := s.Registry()
	if err != nil {
		t.Fatal(err)
	}
	p, err := reg.New("work")
	if err != nil {
		t.Fatal(err)
	}
	resp := answer(t, s, wire.Request{Verb: "browser.use", Session: "s1"}.With(args.Use{Label: p.ID}))
	if resp.Profile == nil || resp.Profile.ID != p.ID || len(resp.Attachments) != 1 {
		t.Fatalf("use answered %+v", resp)
	}
	if !strings.Contains(resp.Did, "attached profile \"work\"") {
		t.Errorf("use did = %q", resp.Did)
	}
	sel, err := s.Choose(wire.Request{Verb: "browser.snapshot", Session: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	dir, err := reg.Dir(p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if sel.Key.Profile != p.ID || sel.Key.Dir != dir || sel.Key.Owner != "" || sel.Prof.Ephemeral {
		t.Errorf("after use, selection = %+v (dir %q)", sel, dir)
	}
	if other, err := s.Choose(wire.Request{Verb: "browser.snapshot", Session: "s2"}); err != nil || other.Key.Profile != "" {
		t.Errorf("another session's choice = %+v, %v: want its own context", other.Key, err)
	}

	resp = answer(t, s, wire.Request{Verb: "browser.detach", Session: "s1"})
	if len(resp.Attachments) != 0 || !strings.Contains(resp.Did, "detached") {
		t.Errorf("detach answered %+v", resp)
	}
	if len(h.closed) != 1 || h.closed[0].Profile != p.ID || h.closed[0].Session != "s1" {
		t.Errorf("tabs closed in %+v, want one close in profile %s of s1", h.closed, p.ID)
	}
	if got := reg.Attachments("s1"); len(got) != 0 {
		t.Errorf("registry keeps %+v after detach", got)
	}
}

// --for acts on another session's set and says so; the operator's own set
// is untouched.
func TestUseForAnotherSession(t *testing.T) {
	s, _ := newStage(t)
	reg, _ := s.Registry()
	p, err := reg.New("shared")
	if err != nil {
		t.Fatal(err)
	}
	resp := answer(t, s, wire.Request{Verb: "browser.use", Session: "op", For: "agent"}.With(args.Use{Label: p.ID}))
	if !strings.Contains(resp.Did, "to session agent") {
		t.Errorf("use --for did = %q", resp.Did)
	}
	if got := reg.Attachments("agent"); len(got) != 1 || got[0].ProfileID != p.ID {
		t.Errorf("agent's attachments = %+v", got)
	}
	if got := reg.Attachments("op"); len(got) != 0 {
		t.Errorf("the operator's own attachments = %+v, want none", got)
	}
}

// pin needs a handle or --none.
func TestPinNeedsAHandle(t *testing.T) {
	s, _ := newStage(t)
	_, err := s.Answer(context.Background(), stagetest.Decoded(&stage.Call{Req: wire.Request{Verb: "browser.pin", Session: "s1"}}))
	if target.CodeOf(err) != target.CodeBadRequest {
		t.Errorf("pin with no handle: %v, want %s", err, target.CodeBadRequest)
	}
}

// The gate of a keyed remote row: no key set is no_key, named by the
// provider; with the key, the context is dialled at a URL built from it,
// and --headed is refused on a browser that is not ours.
func TestGateRemoteRow(t *testing.T) {
	s, h := newStage(t)
	reg, _ := s.Registry()
	row, ok := provider.Lookup(provider.Browserless)
	if !ok {
		t.Fatal("no browserless row")
	}
	p, err := reg.NewRemote("cloud", row.Name, "")
	if err != nil {
		t.Fatal(err)
	}
	answer(t, s, wire.Request{Verb: "browser.use", Session: "s1"}.With(args.Use{Label: p.ID}))
	req := wire.Request{Verb: "browser.snapshot", Session: "s1"}
	sel, err := s.Choose(req)
	if err != nil {
		t.Fatal(err)
	}
	if sel.Row.Name != row.Name {
		t.Fatalf("row = %q, want %q", sel.Row.Name, row.Name)
	}
	if err := s.Gate(req, nil, &sel); target.CodeOf(err) != target.CodeNoKey {
		t.Errorf("gate with no key: %v, want %s", err, target.CodeNoKey)
	}
	h.keys[row.KeyScope] = "k-123"
	if err := s.Gate(req, nil, &sel); err != nil {
		t.Fatalf("gate with a key: %v", err)
	}
	if !strings.Contains(sel.Key.Connect, "k-123") {
		t.Errorf("connect URL %q does not carry the key", sel.Key.Connect)
	}
	headed := wire.Request{Verb: "browser.snapshot", Session: "s1", Headed: true}
	sel, _ = s.Choose(headed)
	if err := s.Gate(headed, nil, &sel); target.CodeOf(err) != target.CodeNotOnThisProvider {
		t.Errorf("--headed on %s: %v, want %s", row.Name, err, target.CodeNotOnThisProvider)
	}
}

// A verb the answerer does not know is an internal refusal, not a panic.
func TestAnswerUnknownVerb(t *testing.T) {
	s, _ := newStage(t)
	_, err := s.Answer(context.Background(), stagetest.Decoded(&stage.Call{Req: wire.Request{Verb: "browser.nothing", Session: "s1"}}))
	if target.CodeOf(err) != target.CodeInternal {
		t.Errorf("unknown verb: %v, want %s", err, target.CodeInternal)
	}
}

// The stage's verbs are profile words that reach no tab and act on none,
// as the verb table says: the core never runs them on a target.
func TestVerbsReachNoTab(t *testing.T) {
	s, _ := newStage(t)
	for _, v := range s.Verbs() {
		f, ok := verb.Of(v)
		if !ok {
			t.Errorf("verb %q is not in the verb table", v)
			continue
		}
		if f.Reach != verb.None || f.Acts {
			t.Errorf("verb %q: reach %v, acts %v; want no target and no act", v, f.Reach, f.Acts)
		}
	}
}
