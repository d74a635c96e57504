package livebench

import (
	"bytes"
	"context"
	"image"
	"image/jpeg"
	"net"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsutil"

	"github.com/vibespace/vibespace/capture"
	"github.com/vibespace/vibespace/rtc"
	"github.com/vibespace/vibespace/x11"
)

// jpegWS is the naive baseline for a window: every captured frame is
// encoded as a JPEG at quality 80 and sent as one binary WebSocket message,
// latest-wins per client (a frame made while the previous one is still
// being written replaces the one waiting). Capture runs while a client is
// connected, as agent-browser's screencast does. The client's text
// messages are input events in our input channel's JSON.
type jpegWS struct {
	open    func() capture.Source
	input   func(rtc.InputEvent) // the client's input events, as our input channel carries them
	encoded atomic.Int64         // frames encoded
}

func (j *jpegWS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	conn, _, _, err := ws.UpgradeHTTP(r, w)
	if err != nil {
		return
	}
	defer conn.Close()
	// A small send buffer, so that latest-wins works on a slow link: with
	// loopback's autotuned one (its 64 KB segments let it grow to MBs),
	// frames would queue in the kernel for seconds.
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(32 << 10)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { // read input (and answer control frames) until the client goes
		defer cancel()
		for {
			msg, op, err := wsutil.ReadClientData(conn)
			if err != nil {
				return
			}
			if op != ws.OpText || j.input == nil {
				continue
			}
			if ev, err := rtc.ParseInput(msg); err == nil {
				j.input(ev)
			}
		}
	}()

	var (
		mu     sync.Mutex
		latest []byte
		ready  = make(chan struct{}, 1)
	)
	src := j.open()
	defer src.Close()
	go func() {
		defer cancel()
		var buf bytes.Buffer
		for {
			f, err := src.Next(ctx)
			if err != nil {
				return
			}
			img := &image.RGBA{Pix: f.Pix, Stride: f.Stride, Rect: image.Rect(0, 0, f.Width, f.Height)}
			if f.Format != capture.FormatRGBA {
				img = bgrxToRGBA(f)
			}
			buf.Reset()
			if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 80}); err != nil {
				return
			}
			j.encoded.Add(1)
			mu.Lock()
			latest = append(latest[:0:0], buf.Bytes()...)
			mu.Unlock()
			select {
			case ready <- struct{}{}:
			default:
			}
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ready:
		}
		mu.Lock()
		msg := latest
		latest = nil
		mu.Unlock()
		if msg == nil {
			continue
		}
		if err := wsutil.WriteServerBinary(conn, msg); err != nil {
			return
		}
	}
}

// rgbaReader is a display read as RGBA (x11.Display.Capture), with its
// damage, but not as BGRX: a capture.Window through it delivers RGBA.
type rgbaReader struct{ d *x11.Display }

func (r rgbaReader) Capture(ctx context.Context, id x11.WindowID) (*x11.Capture, error) {
	return r.d.Capture(ctx, id)
}

func (r rgbaReader) WatchDamage(ctx context.Context, id x11.WindowID) (*x11.Damage, error) {
	return r.d.WatchDamage(ctx, id)
}

func bgrxToRGBA(f capture.Frame) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, f.Width, f.Height))
	for y := range f.Height {
		s, d := f.Pix[y*f.Stride:], img.Pix[y*img.Stride:]
		for x := range f.Width {
			d[4*x], d[4*x+1], d[4*x+2], d[4*x+3] = s[4*x+2], s[4*x+1], s[4*x], 255
		}
	}
	return img
}
