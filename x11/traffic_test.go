package x11

import (
	"encoding/binary"
	"testing"
)

// The counts of a stream do not depend on where reads and writes cut it.
func TestStreamCountAcrossCuts(t *testing.T) {
	le := binary.LittleEndian
	// Requests: a 4-byte one (GetInputFocus), a 12-byte one, a
	// BIG-REQUESTS one of 3 units (8 header bytes and 4 more).
	var out []byte
	out = append(out, 43, 0, 1, 0)
	req := make([]byte, 12)
	le.PutUint16(req[2:], 3)
	out = append(out, req...)
	big := make([]byte, 12)
	le.PutUint32(big[4:], 3)
	out = append(out, big...)
	// Replies: a reply with 2 more units, an event, an error, a generic
	// event with 1 more unit, a reply of 32 bytes.
	var in []byte
	r := make([]byte, 40)
	r[0] = 1
	le.PutUint32(r[4:], 2)
	in = append(in, r...)
	ev := make([]byte, 32)
	ev[0] = 2 | 0x80
	in = append(in, ev...)
	in = append(in, make([]byte, 32)...) // an error: type 0
	g := make([]byte, 36)
	g[0] = 35
	le.PutUint32(g[4:], 1)
	in = append(in, g...)
	r2 := make([]byte, 32)
	r2[0] = 1
	in = append(in, r2...)
	for _, cut := range []int{1, 2, 3, 5, 7, 31, 33, 1000} {
		var o, i streamCount
		reqs, reps := 0, 0
		for p := out; len(p) > 0; {
			k := min(cut, len(p))
			reqs += o.requests(p[:k])
			p = p[k:]
		}
		for p := in; len(p) > 0; {
			k := min(cut, len(p))
			reps += i.replies(p[:k])
			p = p[k:]
		}
		if reqs != 3 || reps != 2 {
			t.Errorf("cut every %d bytes: %d requests and %d replies, want 3 and 2", cut, reqs, reps)
		}
	}
}
