package daemon

import (
	"context"

	"github.com/vibespace/vibespace/capture"
	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/rtc"
	"github.com/vibespace/vibespace/target"
)

// liveResolveTab is the WHEP resolution of a tab: its pixels come from a
// CDP screencast of the tab (capture.Tab).
func (d *Daemon) liveResolveTab(id target.ID) (string, rtc.OpenFunc, error) {
	if _, err := d.liveTab(id); err != nil {
		return "", nil, err
	}
	open := func(ctx context.Context) (capture.Source, error) {
		tab, err := d.liveTab(id) // again: it may have closed meanwhile
		if err != nil {
			return nil, err
		}
		return capture.NewTab(tab, capture.TabOptions{FPS: d.cfg.LiveFPS})
	}
	return string(id), open, nil
}

// tabInput injects one viewer event into a tab through CDP Input. The
// picture's pixels are taken as the viewport's CSS pixels.
func (d *Daemon) tabInput(ctx context.Context, viewerID string, id target.ID, ev rtc.InputEvent) error {
	tab, err := d.liveTab(id)
	if err != nil {
		return err
	}
	at := cdp.Point{X: ev.X, Y: ev.Y}
	if ev.Type != rtc.InputMove && ev.Type != rtc.InputKey && ev.Type != rtc.InputText {
		if at, err = d.tabPoint(ctx, tab, id, ev); err != nil {
			return err
		}
	}
	switch ev.Type {
	case rtc.InputMove:
		return nil
	case rtc.InputDown:
		d.livePress(viewerID, ev.Button, id)
		return nil
	case rtc.InputUp:
		if !d.liveRelease(viewerID, ev.Button, id) || ev.Button != 1 {
			return nil
		}
		return tab.ClickAt(ctx, at)
	case rtc.InputClick:
		if ev.Button != 1 {
			return target.Refuse(target.CodeBadRequest, "only the left button clicks in a tab from the live view")
		}
		return tab.ClickAt(ctx, at)
	case rtc.InputWheel:
		return tab.Scroll(ctx, ev.DX*100, ev.DY*100, &at)
	case rtc.InputKey:
		chord, err := target.ParseChord(ev.Chord)
		if err != nil {
			return err
		}
		return tab.Key(ctx, chord)
	case rtc.InputText:
		return tab.Session().Call(ctx, "Input.insertText", map[string]string{"text": ev.Text}, nil)
	}
	return target.Refuse(target.CodeBadRequest, "unknown input event %q", ev.Type)
}

// tabPoint maps a point of the tab's picture (the screencast's pixels) to
// the viewport's CSS pixels: the picture is the viewport scaled by the
// device pixel ratio, or down to the screencast's bounds.
func (d *Daemon) tabPoint(ctx context.Context, tab *cdp.Tab, id target.ID, ev rtc.InputEvent) (cdp.Point, error) {
	at := cdp.Point{X: ev.X, Y: ev.Y}
	hub := d.liveHub()
	if hub == nil {
		return at, nil
	}
	st, ok := hub.Stats(string(id))
	if !ok || st.Width <= 0 || st.Height <= 0 {
		return at, nil
	}
	var vp struct{ W, H float64 }
	if err := tab.EvalInto(ctx, "({W: window.innerWidth, H: window.innerHeight})", &vp); err != nil {
		return at, err
	}
	if vp.W <= 0 || vp.H <= 0 {
		return at, nil
	}
	if ev.X < 0 || ev.Y < 0 || ev.X >= float64(st.Width) || ev.Y >= float64(st.Height) {
		return at, target.Refuse(target.CodeOutsideWindow, "%g,%g is outside the picture of %s (%dx%d)", ev.X, ev.Y, id, st.Width, st.Height)
	}
	return cdp.Point{X: (ev.X + 0.5) * vp.W / float64(st.Width), Y: (ev.Y + 0.5) * vp.H / float64(st.Height)}, nil
}
