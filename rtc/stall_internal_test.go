package rtc

import (
	"testing"
	"time"

	"github.com/pion/rtcp"
)

// rr is a receiver report of ssrc acknowledging seq with lost packets lost.
func rr(ssrc uint32, seq uint32, lost uint32) []rtcp.Packet {
	return []rtcp.Packet{&rtcp.ReceiverReport{SSRC: 1, Reports: []rtcp.ReceptionReport{{SSRC: ssrc, LastSequenceNumber: seq, TotalLost: lost}}}}
}

// TestStallProbe: a picture request is a stall probe only when the viewer
// was sent nothing for stallQuiet and its report acknowledges the last
// packet with no loss since the burst began; every other request (loss,
// a report not yet covering the picture, a busy stream, no report) is one
// to answer.
func TestStallProbe(t *testing.T) {
	const ssrc = 42
	t0 := time.Unix(1000, 0)
	quiet := t0.Add(stallQuiet + time.Millisecond)
	newLog := func() *sendLog { return &sendLog{bound: true, ssrc: ssrc} }
	send := func(l *sendLog, from, to uint16, at time.Time) {
		for s := from; s != to+1; s++ {
			l.wrote(s, at)
		}
	}
	cases := []struct {
		name  string
		setup func(l *sendLog)
		at    time.Time
		probe bool
	}{
		{"nothing sent", func(*sendLog) {}, quiet, false},
		{"sent, no report yet", func(l *sendLog) { send(l, 1, 10, t0) }, quiet, false},
		{"every packet acknowledged, quiet", func(l *sendLog) {
			send(l, 1, 10, t0)
			l.received(rr(ssrc, 10, 0))
		}, quiet, true},
		{"acknowledged but sent just now", func(l *sendLog) {
			send(l, 1, 10, t0)
			l.received(rr(ssrc, 10, 0))
		}, t0.Add(stallQuiet - time.Millisecond), false},
		{"the last packets not acknowledged", func(l *sendLog) {
			send(l, 1, 10, t0)
			l.received(rr(ssrc, 8, 0))
		}, quiet, false},
		{"a packet of the burst lost", func(l *sendLog) {
			send(l, 1, 10, t0)
			l.received(rr(ssrc, 10, 1))
		}, quiet, false},
		{"an old loss, before the burst", func(l *sendLog) {
			send(l, 1, 10, t0.Add(-10*time.Second))
			l.received(rr(ssrc, 10, 3)) // lost earlier, never recovered, then answered by a keyframe
			send(l, 11, 20, t0)
			l.received(rr(ssrc, 20, 3))
		}, quiet, true},
		{"a loss in this burst after an old one", func(l *sendLog) {
			send(l, 1, 10, t0.Add(-10*time.Second))
			l.received(rr(ssrc, 10, 3))
			send(l, 11, 20, t0)
			l.received(rr(ssrc, 20, 4))
		}, quiet, false},
		{"a report of another stream", func(l *sendLog) {
			send(l, 1, 10, t0)
			l.received(rr(ssrc+1, 10, 0))
		}, quiet, false},
		{"a report from before the burst", func(l *sendLog) {
			send(l, 1, 10, t0.Add(-10*time.Second))
			l.received(rr(ssrc, 10, 0))
			send(l, 11, 20, t0)
		}, quiet, false},
		{"sequence numbers wrapped", func(l *sendLog) {
			send(l, 65530, 3, t0)
			l.received(rr(ssrc, 1<<16|3, 0))
		}, quiet, true},
		{"wrapped, the last not acknowledged", func(l *sendLog) {
			send(l, 65530, 3, t0)
			l.received(rr(ssrc, 65535, 0))
		}, quiet, false},
	}
	for _, c := range cases {
		l := newLog()
		c.setup(l)
		if got := l.stallProbe(c.at); got != c.probe {
			t.Errorf("%s: stallProbe = %v, want %v", c.name, got, c.probe)
		}
	}
}
