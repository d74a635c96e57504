package rtc

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/pion/interceptor/pkg/cc"
	"github.com/pion/rtcp"
	"github.com/pion/webrtc/v4"
)

// viewer is one peer connection watching one pipeline.
type viewer struct {
	id     string
	p      *Pipeline
	pc     *webrtc.PeerConnection
	sender *webrtc.RTPSender

	estMu sync.Mutex
	est   cc.BandwidthEstimator // nil until the peer connection has one

	sent sendLog // what it was sent and says it received

	connected atomic.Bool
	closeOnce sync.Once

	timerMu sync.Mutex
	timer   *time.Timer // drops the viewer if it never connects
	closed  bool
}

// watchConnect calls drop if v has not connected after d.
func (v *viewer) watchConnect(d time.Duration, drop func()) {
	v.timerMu.Lock()
	defer v.timerMu.Unlock()
	if v.closed {
		return
	}
	v.timer = time.AfterFunc(d, func() {
		if !v.connected.Load() {
			drop()
		}
	})
}

func (v *viewer) setEstimator(e cc.BandwidthEstimator) {
	v.estMu.Lock()
	v.est = e
	v.estMu.Unlock()
}

// targetBitrate is the congestion controller's target for this viewer, or
// 0 when it has none yet.
func (v *viewer) targetBitrate() int {
	v.estMu.Lock()
	e := v.est
	v.estMu.Unlock()
	if e == nil || !v.connected.Load() {
		return 0
	}
	return e.GetTargetBitrate()
}

// readRTCP turns the viewer's PLI and FIR into keyframe requests, but for
// a PLI that is a stall probe (stall.go: the viewer has every packet of a
// still picture and asks only because nothing came for 3 s). It ends when
// the peer connection closes.
func (v *viewer) readRTCP() {
	for {
		pkts, _, err := v.sender.ReadRTCP()
		if err != nil {
			return
		}
		v.sent.received(pkts)
		for _, pkt := range pkts {
			switch pkt.(type) {
			case *rtcp.PictureLossIndication:
				if v.sent.stallProbe(time.Now()) {
					v.p.probes.Add(1)
					v.p.hub.o.Logger.Debug("live view: still picture already shown, keyframe request not answered", "viewer", v.id, "by", "PLI")
					continue
				}
				v.p.hub.o.Logger.Debug("live view: keyframe requested", "viewer", v.id, "by", "PLI")
				v.p.asked.Add(1)
				v.p.requestKeyframe()
			case *rtcp.FullIntraRequest:
				v.p.hub.o.Logger.Debug("live view: keyframe requested", "viewer", v.id, "by", "FIR")
				v.p.asked.Add(1)
				v.p.requestKeyframe()
			}
		}
	}
}

// close tears the peer connection down once.
func (v *viewer) close() {
	v.closeOnce.Do(func() {
		v.timerMu.Lock()
		v.closed = true
		if v.timer != nil {
			v.timer.Stop()
		}
		v.timerMu.Unlock()
		_ = v.pc.Close()
	})
}
