package livebench

import (
	"bytes"
	"context"
	"io"
	"net"
	"testing"
	"time"
)

// The TCP side of the emulated link loses nothing and keeps order, both
// ways, even when the sender is far faster than the link.
func TestShapedProxyCarriesEveryByte(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() { // an echo server
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		_, _ = io.Copy(c, c)
	}()
	p, err := newShapedProxy(ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c, err := net.DialTimeout("tcp", p.Addr(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	want := make([]byte, 100<<10) // 0.8 s at 1 Mbit/s, three times the queue
	for i := range want {
		want[i] = byte(i * 7)
	}
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	go func() { _, _ = c.Write(want) }()
	got := make([]byte, len(want))
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("the bytes that came back differ from those sent")
	}
}

// The UDP side drops the tail of a burst larger than its queue, as a
// router does, and delivers the rest in order.
func TestShapedPacketConnDropsTail(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	rx, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer rx.Close()
	inner, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := newShapedPacketConn(inner)
	defer c.Close()
	const n, size = 200, 1000 // 200 KB at once, six times the queue (numbered in one byte: n ≤ 256)
	for i := range n {
		p := make([]byte, size)
		p[0] = byte(i)
		if _, err := c.WriteTo(p, rx.LocalAddr()); err != nil {
			t.Fatal(err)
		}
	}
	if c.dropped() == 0 {
		t.Fatalf("a %d-byte burst into a %d-byte queue dropped nothing", n*size, linkQueue)
	}
	want := n - int(c.dropped())
	last := -1
	buf := make([]byte, 2000)
	delivered := map[int]bool{}
	for got := 0; got < want; got++ {
		dl, _ := ctx.Deadline()
		_ = rx.SetReadDeadline(dl)
		m, _, err := rx.ReadFrom(buf)
		if err != nil {
			t.Fatalf("after %d of %d packets: %v", got, want, err)
		}
		if m != size || int(buf[0]) <= last {
			t.Fatalf("packet %d: %d bytes, number %d after %d", got, m, buf[0], last)
		}
		last = int(buf[0])
		delivered[last] = true
	}
	// Tail drop: a packet is dropped only when it finds the queue full,
	// never one already queued. The queue starts empty, so the first
	// packets that fit in it are all delivered, however fast the burst
	// was written (a slow writer lets the link drain meanwhile, so which
	// later packets are dropped depends on timing; these never do).
	for i := range linkQueue / size {
		if !delivered[i] {
			t.Fatalf("packet %d, queued into an empty queue, was dropped (delivered: %d of %d)", i, want, n)
		}
	}
}
