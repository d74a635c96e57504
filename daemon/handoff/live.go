package handoff

import (
	"encoding/json"
	"net/http"

	"github.com/vibespace/vibespace/target"
)

// viewerHeader names the page's viewer (its pane's), as the live view's
// takeover reads it.
const viewerHeader = "X-Vibespace-Viewer"

// Routes are the hand-off's part of the live view's API
// (live.Options.Routes), behind its viewer token:
//
//	POST /api/handoff/decline/{target}   the person will not do it: the agent is told handoff_declined
//
// A target nobody asks about is refused 409 not_attached.
func (d *Desk) Routes() map[string]http.Handler {
	return map[string]http.Handler{
		"POST /api/handoff/decline/{target}": http.HandlerFunc(d.apiDecline),
	}
}

func (d *Desk) apiDecline(w http.ResponseWriter, r *http.Request) {
	id, err := target.ParseID(r.PathValue("target"))
	if err == nil {
		err = d.Decline(id, pageUser(r))
	}
	w.Header().Set("Content-Type", "application/json")
	if err != nil {
		rf, ok := target.AsRefusal(err)
		if !ok {
			rf = target.Refuse(target.CodeInternal, "%v", err)
		}
		w.WriteHeader(http.StatusConflict)
		_ = json.NewEncoder(w).Encode(map[string]any{"ok": false, "code": rf.Code, "message": rf.Message})
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "did": "declined: its agent is told"})
}

// pageUser is the person a page's request is from: "viewer-<id>" of its
// viewer (the user its takeover is made as), else "viewer".
func pageUser(r *http.Request) string {
	vid := r.Header.Get(viewerHeader)
	if vid == "" {
		return "viewer"
	}
	if len(vid) > 8 {
		vid = vid[:8]
	}
	return "viewer-" + vid
}
