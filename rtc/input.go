package rtc

import (
	"encoding/json"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/vibespace/vibespace/target"
)

// The DataChannels a viewer page opens beside its video: moves go over the
// unordered, unreliable "pointer" channel (a late move is worthless), every
// other event over the reliable, ordered "input" channel.
const (
	ChannelPointer = "pointer"
	ChannelInput   = "input"
)

// The kinds of input events.
const (
	InputMove  = "move"
	InputDown  = "down"
	InputUp    = "up"
	InputClick = "click"
	InputWheel = "wheel"
	InputKey   = "key"
	InputText  = "text"
)

// Bounds of one input message.
const (
	maxInputMessage = 4 << 10 // bytes of one message
	maxInputText    = 256     // characters of one text event
)

// InputEvent is one message of a viewer's input, in the pixels of the
// picture the viewer is shown (the page scales from the video element's box
// to the video's own size): (0,0) is the picture's top left.
type InputEvent struct {
	Type   string  `json:"t"`
	X      float64 `json:"x,omitempty"`
	Y      float64 `json:"y,omitempty"`
	Button int     `json:"button,omitempty"` // 1 left, 2 middle, 3 right
	Count  int     `json:"count,omitempty"`  // click: 1 or 2
	DX     float64 `json:"dx,omitempty"`     // wheel: steps right (negative: left)
	DY     float64 `json:"dy,omitempty"`     // wheel: steps down (negative: up)
	Chord  string  `json:"chord,omitempty"`  // key: a chord target.ParseChord reads
	Text   string  `json:"text,omitempty"`   // text: characters typed
	// Channel is the DataChannel the event came over (set by the Hub).
	Channel string `json:"-"`
}

// InputHandler receives the input events of every viewer: which viewer,
// which target (its pipeline key) and the event. It is called on the
// viewer's DataChannel goroutine, one event at a time per channel; the
// receiver decides whether the viewer may drive.
type InputHandler func(viewerID, key string, ev InputEvent)

// OnInput sets the receiver of viewers' input; nil drops it all.
func (h *Hub) OnInput(f InputHandler) {
	if f == nil {
		h.onInput.Store(nil)
		return
	}
	h.onInput.Store(&f)
}

// InputRejected counts the messages that were not valid input events
// (malformed, too large, a non-move on the pointer channel) and dropped.
func (h *Hub) InputRejected() uint64 { return h.inputBad.Load() }

// ViewerKey is the target key the viewer watches; false if no such viewer
// is connected or connecting.
func (h *Hub) ViewerKey(viewerID string) (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	v := h.viewers[viewerID]
	if v == nil {
		return "", false
	}
	return v.p.key, true
}

// ParseInput decodes and checks one input message.
func ParseInput(b []byte) (InputEvent, error) {
	var ev InputEvent
	if len(b) > maxInputMessage {
		return ev, target.Refuse(target.CodeBadRequest, "an input message of %d bytes is over the limit of %d", len(b), maxInputMessage)
	}
	if err := json.Unmarshal(b, &ev); err != nil {
		return ev, target.Refuse(target.CodeBadRequest, "an input message is not JSON: %v", err)
	}
	finite := func(fs ...float64) bool {
		for _, f := range fs {
			if math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > 1<<20 {
				return false
			}
		}
		return true
	}
	if !finite(ev.X, ev.Y, ev.DX, ev.DY) {
		return ev, target.Refuse(target.CodeBadRequest, "an input event's numbers are out of range")
	}
	switch ev.Type {
	case InputMove:
	case InputDown, InputUp, InputClick:
		if ev.Button == 0 {
			ev.Button = 1
		}
		if ev.Button < 1 || ev.Button > 3 {
			return ev, target.Refuse(target.CodeBadRequest, "button %d: use 1 (left), 2 (middle) or 3 (right)", ev.Button)
		}
		if ev.Type == InputClick {
			ev.Count = min(max(ev.Count, 1), 2)
		}
	case InputWheel:
		if ev.DX == 0 && ev.DY == 0 {
			return ev, target.Refuse(target.CodeBadRequest, "a wheel event that moves nothing")
		}
	case InputKey:
		if ev.Chord == "" {
			return ev, target.Refuse(target.CodeBadRequest, "a key event needs a chord")
		}
	case InputText:
		n := utf8.RuneCountInString(ev.Text)
		if n == 0 || n > maxInputText || !utf8.ValidString(ev.Text) {
			return ev, target.Refuse(target.CodeBadRequest, "a text event needs 1 to %d characters of valid UTF-8", maxInputText)
		}
	default:
		return ev, target.Refuse(target.CodeBadRequest, "unknown input event %q", ev.Type)
	}
	return ev, nil
}

// String names the event for logs without its text (what a user types may
// be a password).
func (ev InputEvent) String() string {
	switch ev.Type {
	case InputText:
		return fmt.Sprintf("text (%d characters)", utf8.RuneCountInString(ev.Text))
	case InputKey:
		return "key " + ev.Chord
	case InputWheel:
		return fmt.Sprintf("wheel %+g,%+g at %g,%g", ev.DX, ev.DY, ev.X, ev.Y)
	}
	return fmt.Sprintf("%s %d at %g,%g", ev.Type, ev.Button, ev.X, ev.Y)
}
