package rtc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"strings"

	"github.com/vibespace/vibespace/target"
)

// Resolver maps a WHEP request to the target it asks to watch: the key its
// pipeline is shared under and how to open its source. A refusal
// (unknown_target, window_gone, …) is sent back to the viewer.
type Resolver func(r *http.Request) (key string, open OpenFunc, err error)

// maxOffer bounds an offer's size.
const maxOffer = 64 << 10

// WHEP is the signalling endpoint, WHEP-style: a POST of an SDP offer
// (Content-Type application/sdp) is answered 201 with the complete SDP
// answer and a Location naming the viewer's resource; a DELETE of that
// resource drops the viewer. The POST's ?tier=thumb asks for the thumbnail
// tier (absent or "full": the full tier; anything else is refused 400
// bad_request). The caller mounts it, on 127.0.0.1 and behind
// its own token check.
func (h *Hub) WHEP(resolve Resolver) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodPost:
			h.whepOffer(w, r, resolve)
		case http.MethodDelete:
			if !h.Leave(path.Base(r.URL.Path)) {
				http.Error(w, "no such viewer", http.StatusNotFound)
				return
			}
			w.WriteHeader(http.StatusOK)
		default:
			w.Header().Set("Allow", "POST, DELETE")
			http.Error(w, "POST an SDP offer, or DELETE a viewer", http.StatusMethodNotAllowed)
		}
	})
}

func (h *Hub) whepOffer(w http.ResponseWriter, r *http.Request, resolve Resolver) {
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/sdp") {
		refuse(w, target.Refuse(target.CodeBadRequest, "the offer must be sent as application/sdp, not %q", ct))
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxOffer+1))
	if err != nil {
		refuse(w, target.Refuse(target.CodeBadRequest, "reading the offer: %v", err))
		return
	}
	if len(body) > maxOffer {
		refuse(w, target.Refuse(target.CodeBadRequest, "the offer is larger than %d bytes", maxOffer))
		return
	}
	tier, err := ParseTier(r.URL.Query().Get("tier"))
	if err != nil {
		refuse(w, err)
		return
	}
	key, open, err := resolve(r)
	if err != nil {
		refuse(w, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.o.GatherTimeout+h.o.ConnectTimeout)
	defer cancel()
	a, err := h.OfferTier(ctx, key, tier, open, string(body))
	if err != nil {
		refuse(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/sdp")
	w.Header().Set("Location", strings.TrimSuffix(r.URL.Path, "/")+"/"+a.ViewerID)
	w.WriteHeader(http.StatusCreated)
	_, _ = io.WriteString(w, a.SDP)
}

// refuse answers a failed offer: a refusal as "refused: <sentence> [code]"
// with a status that fits its code.
func refuse(w http.ResponseWriter, err error) {
	status := http.StatusInternalServerError
	var rf *target.Refusal
	if errors.As(err, &rf) {
		switch rf.Code {
		case target.CodeBadRequest:
			status = http.StatusBadRequest
		case target.CodeUnknownTarget, target.CodeWindowGone, target.CodeTabGone:
			status = http.StatusNotFound
		case target.CodeLiveViewUnavailable, target.CodeWindowNotVisible:
			status = http.StatusServiceUnavailable
		case target.CodeTimeout:
			status = http.StatusGatewayTimeout
		}
		w.Header().Set("X-Vibespace-Code", string(rf.Code))
		http.Error(w, fmt.Sprintf("refused: %s [%s]", rf.Message, rf.Code), status)
		return
	}
	http.Error(w, "live view: "+err.Error(), status)
}
