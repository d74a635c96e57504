package rtc

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pion/webrtc/v4/pkg/media"

	"github.com/vibespace/vibespace/capture"
)

// Pipeline is one watched target: its capture source, one encoder and one
// track, shared by every viewer of the target. The Hub starts it with the
// first viewer and stops it when the last one leaves.
type Pipeline struct {
	id    uint64
	key   string
	codec Codec
	tier  Tier
	hub   *Hub
	src   capture.Source
	track *keyedTrack

	newEncoder NewEncoderFunc // of codec

	cancel context.CancelFunc
	done   chan struct{}

	keyReq atomic.Bool // a viewer asked for a keyframe not yet made

	// viewers is guarded by hub.mu.
	viewers map[string]*viewer

	started   time.Time
	frames    atomic.Uint64
	keyframes atomic.Uint64
	bytes     atomic.Uint64
	encoders  atomic.Uint64
	width     atomic.Int64
	height    atomic.Int64
	bitrate   atomic.Int64 // the encoder's current target, bits per second
	asked     atomic.Uint64
	probes    atomic.Uint64

	errMu sync.Mutex
	err   error
}

// PipelineStats is a snapshot of a pipeline.
type PipelineStats struct {
	ID            uint64 // unique within its Hub
	Key           string
	Codec         Codec
	Tier          Tier
	Viewers       int
	Width, Height int    // of the last encoded picture
	Frames        uint64 // pictures encoded and sent
	Keyframes     uint64
	Bytes         uint64 // of encoded video
	Encoders      uint64 // encoders made (one more at each size change)
	Bitrate       int    // the encoder's target, bits per second
	Asked         uint64 // keyframe requests of viewers (PLI, FIR) answered
	Probes        uint64 // and not answered: stall probes of a still picture (stall.go)
	Started       time.Time
	Err           error // why it ended, if it ended by itself
}

// Stats snapshots the pipeline. The viewer count is filled by the Hub.
func (p *Pipeline) stats(viewers int) PipelineStats {
	p.errMu.Lock()
	err := p.err
	p.errMu.Unlock()
	return PipelineStats{
		ID: p.id, Key: p.key, Codec: p.codec, Tier: p.tier, Viewers: viewers,
		Width: int(p.width.Load()), Height: int(p.height.Load()),
		Frames: p.frames.Load(), Keyframes: p.keyframes.Load(), Bytes: p.bytes.Load(),
		Encoders: p.encoders.Load(), Bitrate: int(p.bitrate.Load()), Asked: p.asked.Load(), Probes: p.probes.Load(),
		Started: p.started, Err: err,
	}
}

// requestKeyframe asks for a keyframe (a viewer's PLI or FIR, or a new
// viewer). The source is asked for a picture so that a still target
// answers too.
func (p *Pipeline) requestKeyframe() {
	p.keyReq.Store(true)
	p.src.RequestKeyframe()
}

// maxResends bounds how many times in a row the source is asked for a
// picture again because the encoder skipped the last one: a still target
// whose picture the encoder keeps skipping is not re-encoded forever.
const maxResends = 8

// run is the pipeline's loop: next frame, convert (and scale, for a
// thumbnail), encode, write. It ends when ctx ends or the source or
// encoder fails.
func (p *Pipeline) run(ctx context.Context) {
	var (
		full    I420 // the converted frame
		thumb   I420 // scaled, for a thumbnail
		pic     *I420
		skips   int // pictures skipped by the encoder in a row
		enc     Encoder
		encW    int
		encH    int
		curRate int
		lastKey time.Time
		prev    time.Time
		start   time.Time
		err     error
	)
	period := defaultPeriod
	if ps, ok := p.src.(interface{ Period() time.Duration }); ok {
		period = ps.Period()
	}
	fps := max(int(time.Second/period), 1)
	o := p.hub.o
	defer func() {
		if enc != nil {
			_ = enc.Close()
		}
		_ = p.src.Close()
		if err != nil && ctx.Err() == nil {
			p.errMu.Lock()
			p.err = err
			p.errMu.Unlock()
			o.Logger.Info("live view: pipeline ended", "target", p.key, "err", err)
		}
		close(p.done)
		p.hub.pipelineEnded(p)
	}()
	for {
		if ctx.Err() != nil { // stopped: whatever the source does
			return
		}
		var f capture.Frame
		f, err = p.src.Next(ctx)
		if err != nil {
			return
		}
		if err = convertFrame(&full, f); err != nil { // libyuv when built in (codec_yuv_cgo.go)
			return
		}
		pic = &full
		if p.tier == TierThumb {
			if tw, th, ok := thumbSize(full.Width, full.Height, o.ThumbWidth); ok {
				thumb.Width, thumb.Height = tw, th
				if err = scaleI420(&thumb, &full); err != nil { // libyuv when built in
					return
				}
				pic = &thumb
			}
		}
		force := false
		if enc == nil || encW != pic.Width || encH != pic.Height {
			if enc != nil {
				_ = enc.Close()
			}
			curRate = p.hub.targetBitrate(p)
			enc, err = p.newEncoder(EncoderOptions{Width: pic.Width, Height: pic.Height, Bitrate: curRate, FPS: fps})
			if err != nil {
				enc = nil
				return
			}
			encW, encH = pic.Width, pic.Height
			p.encoders.Add(1)
			p.bitrate.Store(int64(curRate))
			p.width.Store(int64(encW))
			p.height.Store(int64(encH))
			start, prev = f.Time.Add(-period), f.Time.Add(-period)
			force = true
		} else if r := p.hub.targetBitrate(p); changed(r, curRate) {
			if err = enc.SetBitrate(r); err != nil {
				return
			}
			curRate = r
			p.bitrate.Store(int64(r))
		}
		if p.keyReq.Load() && !force {
			wait := o.KeyframeMinInterval - time.Since(lastKey)
			switch {
			case wait <= 0:
				force = true
			case f.Forced:
				// A still picture delivered only to answer the request:
				// it becomes the keyframe once the interval is over (sent
				// now as a delta it would be one more frame of a target
				// that did not change, and another asked for each tick).
				select {
				case <-time.After(wait):
				case <-ctx.Done():
					return
				}
				force = true
			default:
				p.src.RequestKeyframe() // a changed picture goes now; the keyframe at the end of the interval
			}
		}
		if force {
			p.keyReq.Store(false)
		}
		var out Encoded
		out, err = enc.Encode(pic, f.Time.Sub(start), force)
		if err != nil {
			return
		}
		if len(out.Data) == 0 {
			// The encoder skipped the picture to hold its bitrate: have the
			// source deliver again even if unchanged, so a target that stops
			// changing is still shown as it last was; a bounded number of
			// times, not forever.
			if skips++; skips <= maxResends {
				p.src.RequestKeyframe()
			}
			continue
		}
		skips = 0
		if out.Key {
			lastKey = time.Now()
			p.keyframes.Add(1)
		}
		dur := f.Time.Sub(prev)
		if dur <= 0 {
			dur = period
		}
		prev = f.Time
		if err = p.track.WriteSample(media.Sample{Data: out.Data, Duration: dur}); err != nil && !errors.Is(err, context.Canceled) {
			return
		}
		err = nil
		if p.frames.Add(1) == 1 {
			p.hub.sent(p.key)
		}
		p.bytes.Add(uint64(len(out.Data)))
	}
}

// changed reports whether the bitrate moved by more than 5 %: smaller
// steps are not worth a rate-control reset.
func changed(want, cur int) bool {
	d := want - cur
	return d*20 > cur || -d*20 > cur
}

// stop ends the loop and waits for it.
func (p *Pipeline) stop() {
	p.cancel()
	<-p.done
}
