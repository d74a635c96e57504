// Package capture turns one target's pixels into a stream of frames for the
// live view.
//
// A Source delivers frames of one target at a fixed rate (Next). Frames
// whose pixels did not change since the last delivered frame are skipped,
// so a still window costs a capture and a hash per tick and nothing
// downstream; RequestKeyframe makes the next tick deliver a frame even if
// nothing changed, so an encoder asked for a keyframe always gets a picture
// to encode.
//
// Window is the Source of one X11 window of our display, read through
// x11.Display.Capture (MIT-SHM when the server allows it), clipped to the
// screen.
//
// Tab is the Source of one browser tab, read through a CDP screencast
// (cdp.Tab.StartScreencast: Page.startScreencast, every frame acknowledged)
// and decoded from JPEG (or PNG) to RGBA, at most FPS frames a second. The
// browser sends a picture only when the page changes, so a keyframe
// request on a still page delivers the last picture again; a tab that
// closes ends the stream with tab_gone.
package capture
