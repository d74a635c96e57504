package rtc

import (
	"github.com/pion/webrtc/v4"
)

// acceptDataChannels takes the viewer's input channels ("pointer" and
// "input"); any other channel is closed. Each message is checked and handed
// to the Hub's InputHandler, which decides whether this viewer may drive.
func (h *Hub) acceptDataChannels(v *viewer) {
	v.pc.OnDataChannel(func(dc *webrtc.DataChannel) {
		label := dc.Label()
		if label != ChannelPointer && label != ChannelInput {
			h.o.Logger.Debug("live view: unknown data channel closed", "viewer", v.id, "label", label)
			_ = dc.Close()
			return
		}
		dc.OnMessage(func(m webrtc.DataChannelMessage) {
			ev, err := ParseInput(m.Data)
			if err == nil && label == ChannelPointer && ev.Type != InputMove {
				err = errPointerOnly
			}
			if err != nil {
				h.inputBad.Add(1)
				h.o.Logger.Debug("live view: input dropped", "viewer", v.id, "channel", label, "err", err)
				return
			}
			ev.Channel = label
			if f := h.onInput.Load(); f != nil {
				(*f)(v.id, v.p.key, ev)
			}
		})
	})
}

// errPointerOnly: the unreliable channel carries moves only, so that a
// button or key event is never lost.
var errPointerOnly = inputError("the pointer channel carries moves only")

type inputError string

func (e inputError) Error() string { return string(e) }
