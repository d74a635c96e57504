package x11_test

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/x11"
)

// An X server without XInput cannot be made of Xvfb (it always has it), so
// this one is a fake that speaks the X11 wire protocol: it answers the
// connection setup with one 640x480 screen, and QueryExtension with "not
// present".
func TestWatchInputNoXInput(t *testing.T) {
	var l net.Listener
	var n int
	for n = 6000 + os.Getpid()%2000; ; n++ {
		if _, err := os.Stat("/tmp/.X11-unix/X" + strconv.Itoa(n)); err == nil {
			continue
		}
		var err error
		if l, err = net.Listen("unix", "@/tmp/.X11-unix/X"+strconv.Itoa(n)); err == nil {
			break
		}
	}
	defer l.Close()
	served := make(chan error, 1)
	go func() { served <- serveNoXInput(l) }()

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	w, err := x11.WatchInput(ctx, ":"+strconv.Itoa(n), x11.Options{}, func(x11.Touch) {})
	if err == nil {
		w.Close()
		t.Fatal("WatchInput started on a server without XInput")
	}
	if !strings.Contains(err.Error(), "no XInput") {
		t.Errorf("WatchInput: %v, want it to say the server has no XInput", err)
	}
	l.Close()
	if err := <-served; err != nil {
		t.Errorf("the fake server: %v", err)
	}
}

func serveNoXInput(l net.Listener) error {
	c, err := l.Accept()
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	le := binary.LittleEndian
	req := make([]byte, 12)
	if _, err := io.ReadFull(c, req); err != nil {
		return err
	}
	skip := (int(le.Uint16(req[6:]))+3)&^3 + (int(le.Uint16(req[8:]))+3)&^3
	if _, err := io.ReadFull(c, make([]byte, skip)); err != nil {
		return err
	}
	// Success, 11.0; 32 bytes of fixed fields, no vendor, no formats, one
	// screen of 40 bytes with no depths.
	setup := make([]byte, 8+32+40)
	setup[0] = 1
	le.PutUint16(setup[2:], 11)
	le.PutUint16(setup[6:], (32+40)/4)
	f := setup[8:]
	le.PutUint32(f[4:], 0x00200000) // resource id base
	le.PutUint32(f[8:], 0x001fffff) // mask
	le.PutUint16(f[18:], 0xffff)    // maximum request length
	f[20] = 1                       // screens
	f[26], f[27] = 8, 255           // keycodes
	s := setup[40:]
	le.PutUint32(s, 0x100) // root
	le.PutUint16(s[20:], 640)
	le.PutUint16(s[22:], 480)
	s[38] = 24
	if _, err := c.Write(setup); err != nil {
		return err
	}
	for seq := uint16(1); ; seq++ {
		head := make([]byte, 4)
		if _, err := io.ReadFull(c, head); err != nil {
			return nil // the client hung up
		}
		if _, err := io.ReadFull(c, make([]byte, 4*int(le.Uint16(head[2:]))-4)); err != nil {
			return nil
		}
		reply := make([]byte, 32)
		reply[0] = 1
		le.PutUint16(reply[2:], seq)
		switch head[0] {
		case 98: // QueryExtension: not present
		case 43: // GetInputFocus (xgb's round trip on Close)
		default:
			continue // a request without a reply
		}
		if _, err := c.Write(reply); err != nil {
			return nil
		}
	}
}
