//go:build wirejsonenc && !wirejson

package wire

// -tags wirejsonenc: the request through json.Marshal, the answer through
// the hand-written decoder (codec.go), for BenchmarkCLICodec.

import "encoding/json"

// appendRequest appends req as json.Marshal encodes it.
func appendRequest(b []byte, r *Request) []byte {
	j, err := json.Marshal(r)
	if err != nil {
		panic(err) // a Request holds nothing json.Marshal refuses
	}
	return append(b, j...)
}
