package bidi

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strconv"
	"time"
)

// serveSocks serves SOCKS5 (CONNECT, no authentication) on l, a listener
// in the browser's network namespace, dialing out from the relay's other
// threads, which are in the launcher's network: the browser's road to the
// pages it loads. Only the browser is in that namespace to connect to it.
func serveSocks(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go socksConn(c)
	}
}

func socksConn(c net.Conn) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(socksTimeout))
	target, err := socksRequest(c)
	if err != nil {
		return
	}
	up, err := net.DialTimeout("tcp", target, socksTimeout)
	if err != nil {
		rep := byte(5) // connection refused
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			rep = 4 // host unreachable
		}
		c.Write([]byte{5, rep, 0, 1, 0, 0, 0, 0, 0, 0})
		return
	}
	defer up.Close()
	if _, err := c.Write([]byte{5, 0, 0, 1, 0, 0, 0, 0, 0, 0}); err != nil {
		return
	}
	c.SetDeadline(time.Time{})
	done := make(chan struct{}, 2)
	go func() { io.Copy(up, c); closeWrite(up); done <- struct{}{} }()
	go func() { io.Copy(c, up); closeWrite(c); done <- struct{}{} }()
	<-done
	<-done
}

func closeWrite(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		tc.CloseWrite()
	}
}

// socksRequest reads the greeting and a CONNECT request and returns its
// "host:port".
func socksRequest(c net.Conn) (string, error) {
	var h [2]byte
	if _, err := io.ReadFull(c, h[:]); err != nil {
		return "", err
	}
	if h[0] != 5 {
		return "", errors.New("not SOCKS5")
	}
	methods := make([]byte, h[1])
	if _, err := io.ReadFull(c, methods); err != nil {
		return "", err
	}
	if _, err := c.Write([]byte{5, 0}); err != nil { // no authentication
		return "", err
	}
	var req [4]byte
	if _, err := io.ReadFull(c, req[:]); err != nil {
		return "", err
	}
	if req[0] != 5 || req[1] != 1 { // CONNECT only
		c.Write([]byte{5, 7, 0, 1, 0, 0, 0, 0, 0, 0})
		return "", errors.New("not CONNECT")
	}
	var host string
	switch req[3] {
	case 1:
		var a [4]byte
		if _, err := io.ReadFull(c, a[:]); err != nil {
			return "", err
		}
		host = net.IP(a[:]).String()
	case 4:
		var a [16]byte
		if _, err := io.ReadFull(c, a[:]); err != nil {
			return "", err
		}
		host = net.IP(a[:]).String()
	case 3:
		var n [1]byte
		if _, err := io.ReadFull(c, n[:]); err != nil {
			return "", err
		}
		name := make([]byte, n[0])
		if _, err := io.ReadFull(c, name); err != nil {
			return "", err
		}
		host = string(name)
	default:
		c.Write([]byte{5, 8, 0, 1, 0, 0, 0, 0, 0, 0})
		return "", errors.New("address type")
	}
	var p [2]byte
	if _, err := io.ReadFull(c, p[:]); err != nil {
		return "", err
	}
	return net.JoinHostPort(host, strconv.Itoa(int(binary.BigEndian.Uint16(p[:])))), nil
}
