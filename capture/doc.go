// Package capture turns one target's pixels into a stream of frames for the
// live view.
//
// A Source delivers frames of one target at most at a fixed rate (Next).
// Frames whose pixels did not change since the last delivered frame are
// skipped, so nothing downstream works for a still picture;
// RequestKeyframe makes the next read deliver a frame even if nothing
// changed, so an encoder asked for a keyframe always gets a picture to
// encode.
//
// Window is the Source of one X11 window of our display, read through
// x11.Display.Capture (MIT-SHM when the server allows it), clipped to the
// screen. Its reads are driven by the window's damage (X DAMAGE,
// x11.Display.WatchDamage): a window is read only after the server said
// its pixels changed, or a keyframe was asked for, at most once a period,
// so a still window costs no read at all; the hash still drops a damage
// that left the pixels as they were. A reader without that road (or a
// watch that failed: DamageError) is read on every tick, a capture and a
// hash each. SetFPS changes the rate at any time; Captures counts reads.
// WindowOptions.Crop delivers one part of the window only (a headed
// browser's tab is its window less the browser's bar: daemon/chromium's
// window road), its pixels shared with the read.
//
// Tab is the Source of one browser tab, read through a CDP screencast
// (cdp.Tab.StartScreencast: Page.startScreencast, every frame acknowledged)
// and decoded from JPEG (by libjpeg-turbo, libjpeg-dev, in a cgo build;
// image/jpeg under the vibespace_nojpeg tag or without cgo) or PNG to
// RGBA, at most FPS frames a second. The browser sends a picture only
// when the page changes, so a keyframe request on a still page delivers
// the last picture again; a tab that closes ends the stream with tab_gone.
//
// Shots is the Source of a target read one picture at a time through a
// Shooter (a Firefox tab: WebDriver BiDi's browsingContext.captureScreenshot,
// since BiDi has no screencast), paced: at most FPS pictures a second,
// fewer while they stay the same (the wait doubles up to Idle), and at
// once after Wake (input went in) or a keyframe request.
package capture
