package rtc_test

import (
	"testing"
	"time"

	"github.com/vibespace/vibespace/capture"
	"github.com/vibespace/vibespace/rtc"
)

func TestConvertI420(t *testing.T) {
	// A 3×3 picture: odd sizes have ceil(w/2) × ceil(h/2) chroma samples.
	f := capture.Frame{Format: capture.FormatRGBA, Width: 3, Height: 3, Stride: 12, Pix: make([]byte, 36)}
	for i := 0; i < 36; i += 4 { // white
		f.Pix[i], f.Pix[i+1], f.Pix[i+2], f.Pix[i+3] = 255, 255, 255, 255
	}
	copy(f.Pix[0:4], []byte{255, 0, 0, 255}) // one red pixel
	var p rtc.I420
	if err := p.Convert(f); err != nil {
		t.Fatal(err)
	}
	if len(p.Y) != 9 || len(p.U) != 4 || len(p.V) != 4 || p.StrideC != 2 {
		t.Fatalf("planes %d/%d/%d, chroma stride %d", len(p.Y), len(p.U), len(p.V), p.StrideC)
	}
	// BT.601 limited range: white is Y 235, U = V = 128; red is Y 82.
	if p.Y[1] != 235 || p.Y[0] != 82 || p.U[3] != 128 || p.V[3] != 128 {
		t.Fatalf("Y %v U %v V %v", p.Y, p.U, p.V)
	}
	if p.V[0] <= 128 { // the block with the red pixel leans red
		t.Fatalf("V of the red block = %d", p.V[0])
	}
	// BGRX gives the same picture.
	g := f
	g.Format, g.Pix = capture.FormatBGRX, append([]byte(nil), f.Pix...)
	for i := 0; i < 36; i += 4 {
		g.Pix[i], g.Pix[i+2] = g.Pix[i+2], g.Pix[i]
	}
	var q rtc.I420
	if err := q.Convert(g); err != nil {
		t.Fatal(err)
	}
	if string(q.Y) != string(p.Y) || string(q.U) != string(p.U) || string(q.V) != string(p.V) {
		t.Fatal("BGRX and RGBA conversions differ")
	}
	if err := q.Convert(capture.Frame{Format: capture.FormatRGBA, Width: 4, Height: 4, Stride: 16, Pix: make([]byte, 10)}); err == nil {
		t.Fatal("a short buffer was accepted")
	}
}

func TestVP8Encoder(t *testing.T) {
	needVP8(t)
	src := newSynth(161, 91, 30, false) // odd sizes on purpose
	defer src.Close()
	enc, err := rtc.NewVP8(rtc.EncoderOptions{Width: 161, Height: 91, Bitrate: 300_000, FPS: 30})
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	var pic rtc.I420
	keys := 0
	for i := range 20 {
		if err := pic.Convert(src.paint()); err != nil {
			t.Fatal(err)
		}
		src.n++
		force := i == 10
		if i == 5 {
			if err := enc.SetBitrate(150_000); err != nil {
				t.Fatal(err)
			}
		}
		out, err := enc.Encode(&pic, time.Duration(i)*33*time.Millisecond, force)
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Data) == 0 {
			t.Fatalf("frame %d: nothing encoded", i)
		}
		if (i == 0 || force) && !out.Key {
			t.Fatalf("frame %d: want a keyframe", i)
		}
		// A VP8 frame tag's lowest bit is 0 for a keyframe.
		if out.Key != (out.Data[0]&1 == 0) {
			t.Fatalf("frame %d: Key=%v but frame tag %08b", i, out.Key, out.Data[0])
		}
		if out.Key {
			keys++
		}
	}
	if keys != 2 {
		t.Fatalf("%d keyframes in 20 frames, want 2 (first and forced)", keys)
	}
	if _, err := enc.Encode(&rtc.I420{Width: 10, Height: 10}, time.Second, false); err == nil {
		t.Fatal("a picture of the wrong size was accepted")
	}
}

// BenchmarkConvertI420 is the pure-Go RGBA → I420 conversion of a 1280×720
// picture (notes/live-view.md measured libyuv at 0.15–0.4 ms for the same).
func BenchmarkConvertI420(b *testing.B) {
	f := newSynth(1280, 720, 30, false).paint()
	var p rtc.I420
	for b.Loop() {
		if err := p.Convert(f); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVP8Encode encodes 1280×720 pictures with a moving bar over a
// text-like texture, at 1.5 Mbit/s.
func BenchmarkVP8Encode(b *testing.B) {
	if !rtc.VP8Available() {
		b.Skip("SKIP: this build has no VP8 encoder")
	}
	src := newSynth(1280, 720, 30, false)
	enc, err := rtc.NewVP8(rtc.EncoderOptions{Width: 1280, Height: 720, Bitrate: 1_500_000, FPS: 30})
	if err != nil {
		b.Fatal(err)
	}
	defer enc.Close()
	pics := make([]rtc.I420, 8)
	for i := range pics {
		src.n = i
		if err := pics[i].Convert(src.paint()); err != nil {
			b.Fatal(err)
		}
	}
	var bytes int
	i := 0
	for b.Loop() {
		out, err := enc.Encode(&pics[i%len(pics)], time.Duration(i)*33*time.Millisecond, false)
		if err != nil {
			b.Fatal(err)
		}
		bytes += len(out.Data)
		i++
	}
	b.ReportMetric(float64(bytes)/float64(i), "bytes/frame")
}
