package reach

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// ByVerb is a HandOff that asks the daemon's own hand-off verb through
// the verb path, as the asking session: Verb on a window (its handle),
// browser.<Verb> on a tab (the session's current tab, which the ladder
// made it), with the arguments {"reason": …}. The hand-off itself (issue
// 40's item 5, its own stage) answers it; with no such verb in the verb
// table, a reach that gets to rung 5 is refused as the core refuses any
// unknown verb. Registration lends it the verb path.
type ByVerb struct {
	Verb string
	host Host
}

// handOffArgs are the hand-off verb's arguments the ladder gives.
type handOffArgs struct {
	Reason string `json:"reason"`
}

// HandOff sends the hand-off verb for id.
func (b *ByVerb) HandOff(ctx context.Context, session string, id target.ID, reason string) (wire.Response, error) {
	if b.host == nil {
		return wire.Response{}, target.Refuse(target.CodeInternal, "the ladder's hand-off was lent no verb path")
	}
	raw, _ := json.Marshal(handOffArgs{Reason: reason})
	req := wire.Request{Verb: b.Verb, Session: session, Target: string(id), Args: raw}
	if strings.HasPrefix(string(id), "tab:") {
		req.Verb, req.Target = "browser."+b.Verb, ""
	}
	resp := b.host.Handle(ctx, req)
	if !resp.OK {
		return wire.Response{}, fromResponse(resp)
	}
	return resp, nil
}
