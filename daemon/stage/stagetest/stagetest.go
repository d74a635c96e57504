// Package stagetest has a double of the target a verb reached, as a
// registered stage sees it (stage.Target), and as a watch looks at it
// (stage.Sight), for the stages' own tests. Only tests import it.
package stagetest

import (
	"context"
	"fmt"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/stage"
	"time"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/target"
)

// Target is a stage.Target whose answers are its fields.
type Target struct {
	TargetID target.ID
	// Win is its box; Nodes the boxes of refs as its last snapshot placed
	// them (Bounds answers ok false for a ref not there).
	Win   target.Rect
	Nodes map[string]target.Rect
	// Mine, Pixels: a window of the user's desktop, and its pixels grant.
	Mine, Pixels bool
	// PNG is its picture; Shots counts the pictures taken.
	PNG   []byte
	Shots int
}

// Of is a target of handle id with no node, picture or box.
func Of(id target.ID) *Target { return &Target{TargetID: id} }

func (t *Target) ID() target.ID             { return t.TargetID }
func (t *Target) NodeKey(ref string) string { return "" }

func (t *Target) Bounds(ref string) (win, node target.Rect, ok bool) {
	node, ok = t.Nodes[ref]
	return t.Win, node, ok
}

func (t *Target) Desktop() (mine, pixels bool) { return t.Mine, t.Pixels }

func (t *Target) Screenshot(context.Context) ([]byte, error) {
	t.Shots++
	return t.PNG, nil
}

// Sight is a stage.Sight whose looks answer its fields and count
// themselves: a watch's double of the target. Its funcs are asked at
// every look, so a test may change what the target shows after it acted.
type Sight struct {
	*Target
	NounWord string
	// NodeFacts answers a look's node (Observe; nil: the target reads no
	// node's facts); NodeReads counts its reads.
	NodeFacts func(kind.Node) (*target.Node, error)
	NodeReads int
	// Look answers Info: title, address, gone, err (nil: "", "", false,
	// nil).
	Look func() (title, url string, gone bool, err error)
	// Targets answers Seen (the same map for every session); Sessions
	// records the sessions asked.
	Targets  func() map[target.ID]string
	Sessions []string
	// Digest answers a look's digest (Observe; nil: the target offers no
	// digest).
	Digest func() (string, error)
	// Change answers WaitChange (nil: the target cannot tell).
	Change func(d time.Duration) (bool, error)
	// Told answers Changes, and a look's mark (nil: the target tells
	// none): since 0 marks.
	Told func(since uint64, d time.Duration) (kind.Changes, error)
	// LookTells: a look answers its question to the target's word too
	// (kind.LookFor.Told, through Told with no wait), as a kind.Looker
	// does; LookTolds counts those answers.
	LookTells bool
	LookTolds int
	// Rescans, Settles count those calls.
	Rescans, Settles int
}

// SightOf is a sight of a target of handle id that shows nothing.
func SightOf(id target.ID) *Sight { return &Sight{Target: Of(id), NounWord: "window"} }

func (s *Sight) Noun() string { return s.NounWord }

// Observe answers a look from NodeFacts, Digest and Told (since 0; and
// since a mark with LookTells), each where set and asked.
func (s *Sight) Observe(_ context.Context, f kind.LookFor) kind.Look {
	var out kind.Look
	if s.NodeFacts != nil && f.Node != nil {
		s.NodeReads++
		out.NodeOK = true
		out.Node, out.NodeErr = s.NodeFacts(*f.Node)
	}
	if s.Digest != nil && f.Digest {
		out.DigestOK = true
		out.Digest, out.DigestErr = s.Digest()
	}
	if s.Told != nil && f.Arm {
		out.ChangesOK = true
		out.Changes, out.ChangesErr = s.Told(0, 0)
	}
	if s.Told != nil && s.LookTells && f.Told != 0 {
		s.LookTolds++
		out.ToldOK = true
		out.Told, out.ToldErr = s.Told(f.Told, 0)
	}
	return out
}

func (s *Sight) Info(context.Context) (title, url string, gone bool, err error) {
	if s.Look == nil {
		return "", "", false, nil
	}
	return s.Look()
}

func (s *Sight) Rescan(context.Context) { s.Rescans++ }

func (s *Sight) Seen(session string) map[target.ID]string {
	s.Sessions = append(s.Sessions, session)
	if s.Targets == nil {
		return map[target.ID]string{}
	}
	return s.Targets()
}

func (s *Sight) WaitChange(_ context.Context, d time.Duration) (bool, bool, error) {
	if s.Change == nil {
		return false, false, nil
	}
	changed, err := s.Change(d)
	return changed, true, err
}

func (s *Sight) Changes(_ context.Context, since uint64, d time.Duration) (kind.Changes, bool, error) {
	if s.Told == nil {
		return kind.Changes{}, false, nil
	}
	ch, err := s.Told(since, d)
	return ch, true, err
}

func (s *Sight) Settle(context.Context) { s.Settles++ }

// Decoded is c with its verb's arguments decoded from its request (as the
// core decodes them before any stage sees the call); it panics on
// arguments that are not the verb's, a test's own mistake.
func Decoded(c *stage.Call) *stage.Call {
	a, ok, err := args.Decode(c.Req.Verb, c.Req.Args)
	if err != nil {
		panic(fmt.Sprintf("stagetest: the arguments of %s: %v", c.Req.Verb, err))
	}
	if !ok {
		a = args.Empty{}
	}
	c.Args = a
	return c
}
