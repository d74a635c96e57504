// Package headers is the stage that says an answer's header once: an
// answer about the same target, lease, title, mode and profile as the
// session's previous answer is marked Said (wire.Response), and the
// command lines and the MCP server leave its header line out — it was on
// the answer before, and it was a quarter to a half of every answer's
// bytes. Anything the header line names that changed (the lease, the
// title after a click that navigated, the mode, the profile, a person
// attached) makes it said again. A --json answer keeps every field and is
// never marked; it leaves the next text answer's header said in full (its
// reader may be a program, not the agent's context). A refusal always
// prints its header line (among its facts, on stderr), and the answer
// after it says its own in full.
package headers

import (
	"encoding/json"
	"sync"

	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/daemon/wire"
)

// Name names the stage.
const Name = "headers"

// maxSessions bounds the sessions whose last header is kept; past it they
// are all forgotten (each says its next header in full).
const maxSessions = 4096

// Stage keeps each session's last header said.
type Stage struct {
	mu   sync.Mutex
	last map[string]string // session → Key of its last text answer's header ("" none)
}

// New makes the stage (stage.Registration.New).
func New(stage.Env) (stage.Stage, error) { return &Stage{last: map[string]string{}}, nil }

func (s *Stage) Name() string { return Name }

// Finish marks a text answer Said when its header is the session's
// previous answer's, and keeps its header as the session's last (none for
// a --json answer or a refusal).
func (s *Stage) Finish(c *stage.Call, a *stage.Answer) {
	key := ""
	if !c.Req.JSON && a.Resp.OK {
		key = Key(a.Resp)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if key != "" && s.last[c.Req.Session] == key {
		a.Resp.Said = true
	}
	if len(s.last) >= maxSessions {
		clear(s.last)
	}
	s.last[c.Req.Session] = key
}

// Key is what an answer's header line says, as one string ("" when the
// answer names no target and no profile): every fact of its target and
// profile the answer carries, but a listing's (capabilities, not
// answering), those the line never prints (the program or address, pid,
// origin, exposure, CDP id) and the profile's running when a tab of it is
// named (the line leaves it out). More facts than the line prints only
// make it said more often, never less.
func Key(r wire.Response) string {
	if r.Target == nil && r.Profile == nil {
		return ""
	}
	var h struct {
		T *wire.TargetInfo  `json:"t,omitempty"`
		P *wire.ProfileInfo `json:"p,omitempty"`
	}
	if r.Target != nil {
		t := *r.Target
		t.Capabilities, t.NotAnswering = nil, ""                         // a listing's
		t.App, t.PID, t.Origin, t.Exposure, t.CDPID = "", 0, "", nil, "" // never on the line (a tab's address is the body's)
		h.T = &t
	}
	if r.Profile != nil {
		p := *r.Profile
		if r.Target != nil {
			p.Running = false
		}
		h.P = &p
	}
	b, _ := json.Marshal(h) // plain fields: nothing of them fails to marshal
	return string(b)
}
