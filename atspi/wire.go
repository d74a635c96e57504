package atspi

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/godbus/dbus/v5"
)

// This file is the D-Bus wire format, as much of it as an AT-SPI client
// needs: method calls with integer and string arguments out, and replies
// read field by field with no reflection. It exists for speed: a walk
// exchanges thousands of small messages, and godbus spends more CPU per
// message (a goroutine and a context per call, reflection both ways) than
// the application does answering it. godbus still carries everything that
// is not a walk's traffic (the registry, the bus daemon).

// Message types and header fields (D-Bus specification, "Message Format").
const (
	msgMethodCall   = 1
	msgMethodReturn = 2
	msgError        = 3

	fieldPath        = 1
	fieldInterface   = 2
	fieldMember      = 3
	fieldErrorName   = 4
	fieldReplySerial = 5
	fieldDestination = 6
	fieldSignature   = 8
)

// errShortBody is a reply whose body ended before its signature did.
var errShortBody = errors.New("atspi: reply body too short")

// appendCall encodes a method call, little-endian. Arguments may be
// uint32 (u), int32 (i) or string (s); another type is an error.
func appendCall(b []byte, serial uint32, dest, path, iface, member string, args []any) ([]byte, error) {
	var sig []byte
	for _, a := range args {
		switch a.(type) {
		case uint32:
			sig = append(sig, 'u')
		case int32:
			sig = append(sig, 'i')
		case string:
			sig = append(sig, 's')
		default:
			return b, fmt.Errorf("atspi: cannot encode a %T argument", a)
		}
	}
	start := len(b)
	b = append(b, 'l', msgMethodCall, 0, 1)
	b = append(b, 0, 0, 0, 0) // body length, patched below
	b = binary.LittleEndian.AppendUint32(b, serial)
	b = append(b, 0, 0, 0, 0) // header fields length, patched below
	fields := len(b)
	b = appendField(b, start, fieldPath, 'o', path)
	b = appendField(b, start, fieldInterface, 's', iface)
	b = appendField(b, start, fieldMember, 's', member)
	if dest != "" {
		b = appendField(b, start, fieldDestination, 's', dest)
	}
	if len(sig) > 0 {
		b = appendField(b, start, fieldSignature, 'g', string(sig))
	}
	binary.LittleEndian.PutUint32(b[start+12:], uint32(len(b)-fields))
	b = pad(b, start, 8)
	body := len(b)
	for _, a := range args {
		switch v := a.(type) {
		case uint32:
			b = pad(b, body, 4)
			b = binary.LittleEndian.AppendUint32(b, v)
		case int32:
			b = pad(b, body, 4)
			b = binary.LittleEndian.AppendUint32(b, uint32(v))
		case string:
			b = appendString(b, body, v)
		}
	}
	binary.LittleEndian.PutUint32(b[start+4:], uint32(len(b)-body))
	return b, nil
}

// appendField appends one header field (yv): code, signature, value.
func appendField(b []byte, start int, code byte, typ byte, v string) []byte {
	b = pad(b, start, 8)
	b = append(b, code, 1, typ, 0)
	if typ == 'g' {
		b = append(b, byte(len(v)))
		b = append(b, v...)
		return append(b, 0)
	}
	return appendString(b, start, v)
}

func appendString(b []byte, start int, s string) []byte {
	b = pad(b, start, 4)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
	b = append(b, s...)
	return append(b, 0)
}

// pad zero-fills b up to a multiple of n bytes from start.
func pad(b []byte, start, n int) []byte {
	for (len(b)-start)%n != 0 {
		b = append(b, 0)
	}
	return b
}

// body reads a message body. Offsets are from the body's start, which the
// format aligns to 8 bytes, so alignment is computed on them directly.
type body struct {
	b     []byte
	off   int
	order binary.ByteOrder
	err   error
}

func (r *body) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

func (r *body) align(n int) {
	if m := r.off % n; m != 0 {
		r.off += n - m
	}
}

func (r *body) need(n int) bool {
	if r.err != nil {
		return false
	}
	if n < 0 || r.off+n > len(r.b) {
		r.fail(errShortBody)
		return false
	}
	return true
}

func (r *body) u32() uint32 {
	r.align(4)
	if !r.need(4) {
		return 0
	}
	v := r.order.Uint32(r.b[r.off:])
	r.off += 4
	return v
}

func (r *body) i32() int32 { return int32(r.u32()) }

func (r *body) byte1() byte {
	if !r.need(1) {
		return 0
	}
	v := r.b[r.off]
	r.off++
	return v
}

// str reads s or o.
func (r *body) str() string {
	n := r.u32()
	if n > math.MaxInt32 || !r.need(int(n)+1) {
		return ""
	}
	s := string(r.b[r.off : r.off+int(n)])
	r.off += int(n) + 1
	return s
}

// sig reads g.
func (r *body) sig() string {
	n := int(r.byte1())
	if !r.need(n + 1) {
		return ""
	}
	s := string(r.b[r.off : r.off+n])
	r.off += n + 1
	return s
}

// array reads an array whose elements align to elemAlign, calling each
// for every element.
func (r *body) array(elemAlign int, each func()) {
	n := r.u32()
	r.align(elemAlign)
	if r.err != nil || !r.need(int(n)) {
		return
	}
	end := r.off + int(n)
	for r.off < end && r.err == nil {
		each()
	}
}

// objRef reads (so).
func (r *body) objRef() Object {
	r.align(8)
	name := r.str()
	return Object{Name: name, Path: dbus.ObjectPath(r.str())}
}

// variant reads v: its signature and, for the types AT-SPI properties use,
// its value (string, int32, uint32, bool, float64 or Object); other values are
// skipped and returned as nil.
func (r *body) variant() any {
	s := r.sig()
	switch s {
	case "s", "o":
		return r.str()
	case "i":
		return r.i32()
	case "u":
		return r.u32()
	case "b":
		return r.u32() != 0
	case "d":
		r.align(8)
		if !r.need(8) {
			return nil
		}
		v := math.Float64frombits(r.order.Uint64(r.b[r.off:]))
		r.off += 8
		return v
	case "(so)":
		return r.objRef()
	}
	r.skip(s)
	return nil
}

// skip reads past one value of each complete type in signature s.
func (r *body) skip(s string) {
	for len(s) > 0 && r.err == nil {
		s = r.skipOne(s)
	}
}

// skipOne reads past the value of the first complete type of s and returns
// the rest of s.
func (r *body) skipOne(s string) string {
	switch s[0] {
	case 'y':
		r.byte1()
	case 'n', 'q':
		r.align(2)
		if r.need(2) {
			r.off += 2
		}
	case 'b', 'i', 'u', 'h':
		r.u32()
	case 'x', 't', 'd':
		r.align(8)
		if r.need(8) {
			r.off += 8
		}
	case 's', 'o':
		r.str()
	case 'g':
		r.sig()
	case 'v':
		r.skip(r.sig())
	case 'a':
		elem := s[1:]
		rest := typeEnd(elem)
		et := elem[:len(elem)-len(rest)]
		r.array(alignOf(et[0]), func() { r.skip(et) })
		return rest
	case '(', '{':
		r.align(8)
		inner := s[1:]
		for len(inner) > 0 && inner[0] != ')' && inner[0] != '}' && r.err == nil {
			inner = r.skipOne(inner)
		}
		if len(inner) > 0 {
			return inner[1:]
		}
		return inner
	default:
		r.fail(fmt.Errorf("atspi: unknown type %q in signature", s[0]))
		return ""
	}
	return s[1:]
}

// typeEnd returns s after its first complete type.
func typeEnd(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case 'a':
		return typeEnd(s[1:])
	case '(', '{':
		depth := 0
		for i := 0; i < len(s); i++ {
			switch s[i] {
			case '(', '{':
				depth++
			case ')', '}':
				if depth--; depth == 0 {
					return s[i+1:]
				}
			}
		}
		return ""
	}
	return s[1:]
}

func alignOf(c byte) int {
	switch c {
	case 'y', 'g', 'v':
		return 1
	case 'n', 'q':
		return 2
	case 'x', 't', 'd', '(', '{':
		return 8
	}
	return 4
}
