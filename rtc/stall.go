package rtc

import (
	"sync"
	"time"

	"github.com/pion/interceptor"
	"github.com/pion/rtcp"
	"github.com/pion/rtp"
)

// stallQuiet is how long a viewer must have been sent nothing for its
// picture request to be taken for a stall probe (see sendLog.stallProbe).
// Chromium asks 3 s after its last decoded frame; a receiver that lost a
// packet asks long before (its NACKs fail within a round trip or two, an
// incomplete keyframe is asked again every 200 ms).
const stallQuiet = 2 * time.Second

// burstGap is the silence after which a packet starts a new burst: the loss
// a viewer reports is measured from the report it had sent before the
// burst began.
const burstGap = time.Second

// sendLog is what one viewer's peer connection was sent and what the
// viewer says it received: the last original RTP packet written to it
// (retransmissions are made below this interceptor and are not seen), and
// its latest receiver report on that stream. It lets the viewer tell a
// picture request made because the picture was lost from one made because
// nothing came for a while.
//
// Chromium asks for a keyframe (PLI) whenever it has decoded nothing for
// 3 s while packets came in the last 5 s. A target that stands still sends
// nothing after its picture, so each keyframe answering such a request
// brings the next one 3 s later: a still pane would cost a keyframe every
// 3 s for ever. Such a request is a stall probe: the viewer has every
// packet we sent (its report acknowledges the last one, with no loss
// since the burst began) and nothing was sent for stallQuiet. It is not
// answered; 5 s after the last packet Chromium stops asking.
type sendLog struct {
	mu       sync.Mutex
	ssrc     uint32
	bound    bool
	sent     bool      // a packet was written
	lastAt   time.Time // when the last one was
	lastSeq  uint16
	burstAt  time.Time // when the current burst began
	lost0    uint32    // the reported cumulative loss when it began
	lastRR   rtcp.ReceptionReport
	reported bool // lastRR was received after the burst began
}

// wrote records an original packet sent at now.
func (l *sendLog) wrote(seq uint16, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.sent || now.Sub(l.lastAt) >= burstGap {
		l.burstAt = now
		l.lost0 = l.lastRR.TotalLost
		l.reported = false
	}
	l.sent, l.lastAt, l.lastSeq = true, now, seq
}

// received takes the viewer's receiver reports from an RTCP compound.
func (l *sendLog) received(pkts []rtcp.Packet) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.bound {
		return
	}
	for _, p := range pkts {
		var rs []rtcp.ReceptionReport
		switch r := p.(type) {
		case *rtcp.ReceiverReport:
			rs = r.Reports
		case *rtcp.SenderReport:
			rs = r.Reports
		}
		for _, r := range rs {
			if r.SSRC != l.ssrc {
				continue
			}
			l.lastRR, l.reported = r, l.sent
		}
	}
}

// stallProbe reports whether a picture request arriving at now is a stall
// probe rather than a loss: nothing was sent for stallQuiet, and the
// viewer's latest report acknowledges the last packet sent with no more
// loss than when its burst began.
func (l *sendLog) stallProbe(now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.sent || !l.reported || now.Sub(l.lastAt) < stallQuiet {
		return false
	}
	acked := int16(uint16(l.lastRR.LastSequenceNumber)-l.lastSeq) >= 0
	return acked && l.lastRR.TotalLost <= l.lost0
}

// sendLogFactory hands one viewer's sendLog to its peer connection's
// interceptor chain.
type sendLogFactory struct{ l *sendLog }

func (f sendLogFactory) NewInterceptor(string) (interceptor.Interceptor, error) {
	return &sendLogInterceptor{l: f.l}, nil
}

type sendLogInterceptor struct {
	interceptor.NoOp
	l *sendLog
}

func (s *sendLogInterceptor) BindLocalStream(info *interceptor.StreamInfo, w interceptor.RTPWriter) interceptor.RTPWriter {
	s.l.mu.Lock()
	if s.l.bound { // one video stream per viewer; a second is not watched
		s.l.mu.Unlock()
		return w
	}
	s.l.bound, s.l.ssrc = true, info.SSRC
	s.l.mu.Unlock()
	ssrc := info.SSRC
	return interceptor.RTPWriterFunc(func(h *rtp.Header, payload []byte, a interceptor.Attributes) (int, error) {
		if h.SSRC == ssrc {
			s.l.wrote(h.SequenceNumber, time.Now())
		}
		return w.Write(h, payload, a)
	})
}
