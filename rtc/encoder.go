package rtc

import "time"

// Encoder compresses I420 pictures into a video bitstream. It is used from
// one goroutine at a time.
type Encoder interface {
	// Encode compresses img, shown at pts from the start of the stream
	// (strictly increasing). force asks for a keyframe. An empty Data means
	// the encoder dropped the picture.
	Encode(img *I420, pts time.Duration, force bool) (Encoded, error)
	// SetBitrate changes the target bitrate (bits per second) from the next
	// picture on.
	SetBitrate(bps int) error
	Close() error
}

// Encoded is one compressed picture.
type Encoded struct {
	Data []byte
	Key  bool
}

// EncoderOptions describe the stream an Encoder is made for.
type EncoderOptions struct {
	Width, Height int
	// Bitrate is the initial target in bits per second.
	Bitrate int
	// FPS is the nominal frame rate (it sizes the rate control's window).
	FPS int
	// KeyframeInterval is the longest run of pictures without a keyframe;
	// 0 means 10 s worth of pictures. Keyframes are otherwise made on request
	// (a viewer's PLI or FIR).
	KeyframeInterval int
}

// NewEncoderFunc makes an Encoder; Options.NewEncoder lets a caller choose.
type NewEncoderFunc func(EncoderOptions) (Encoder, error)
