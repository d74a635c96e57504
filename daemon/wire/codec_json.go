//go:build wirejson

package wire

// The client's side of the line through encoding/json alone: built with
// -tags wirejson so that one benchmark compares it with the hand-written
// codec (codec.go) in the same run.

import "encoding/json"

// appendRequest appends req as json.Marshal encodes it.
func appendRequest(b []byte, r *Request) []byte {
	j, err := json.Marshal(r)
	if err != nil {
		panic(err) // a Request holds nothing json.Marshal refuses
	}
	return append(b, j...)
}

// decodeResponse decodes one answer line with json.Unmarshal.
func decodeResponse(line []byte, resp *Response) error { return json.Unmarshal(line, resp) }
