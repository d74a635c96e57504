//go:build !cgo || vibespace_nojpeg

package capture

import (
	"bytes"
	"image/jpeg"
)

// JPEGBuiltIn reports whether this build decodes screencast JPEGs with
// libjpeg-turbo (else image/jpeg, as this one: no cgo, or the
// vibespace_nojpeg tag).
const JPEGBuiltIn = false

// decodeJPEG decodes a JPEG picture into a new RGBA frame with image/jpeg.
func decodeJPEG(data []byte) (Frame, error) {
	img, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil {
		return Frame{}, err
	}
	return rgbaFrame(img), nil
}
