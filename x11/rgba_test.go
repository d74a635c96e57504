package x11

import "testing"

func TestToRGBA(t *testing.T) {
	lsb := toRGBA([]byte{1, 2, 3, 0, 10, 20, 30, 0}, 2, 1, false) // B G R X
	if got := lsb.Pix; string(got) != string([]byte{3, 2, 1, 255, 30, 20, 10, 255}) {
		t.Errorf("LSB-first: %v", got)
	}
	msb := toRGBA([]byte{0, 3, 2, 1}, 1, 1, true) // X R G B
	if got := msb.Pix; string(got) != string([]byte{3, 2, 1, 255}) {
		t.Errorf("MSB-first: %v", got)
	}
}

func TestToBGRX(t *testing.T) {
	data := []byte{1, 2, 3, 0, 10, 20, 30, 0}
	lsb := toBGRX(data, 2, 1, false) // B G R X: copied as is
	if string(lsb) != string(data) {
		t.Errorf("LSB-first: %v", lsb)
	}
	if data[0] = 99; lsb[0] == 99 {
		t.Error("LSB-first: the pixels are not a copy")
	}
	msb := toBGRX([]byte{0, 3, 2, 1, 7, 30, 20, 10}, 2, 1, true) // X R G B
	if string(msb) != string([]byte{1, 2, 3, 0, 10, 20, 30, 7}) {
		t.Errorf("MSB-first: %v", msb)
	}
}

func TestClip(t *testing.T) {
	screen := Geometry{0, 0, 100, 50}
	for _, tt := range []struct{ in, want Geometry }{
		{Geometry{10, 10, 20, 20}, Geometry{10, 10, 20, 20}},
		{Geometry{90, 40, 20, 20}, Geometry{90, 40, 10, 10}},
		{Geometry{-5, -5, 10, 10}, Geometry{0, 0, 5, 5}},
		{Geometry{200, 0, 10, 10}, Geometry{200, 0, 0, 10}},
	} {
		got := clip(tt.in, screen)
		if (got.Width > 0 && got.Height > 0) != (tt.want.Width > 0 && tt.want.Height > 0) ||
			(got.Width > 0 && got != tt.want) {
			t.Errorf("clip(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func BenchmarkToRGBA(b *testing.B) {
	data := make([]byte, 900*700*4)
	for b.Loop() {
		toRGBA(data, 900, 700, false)
	}
}

func BenchmarkToBGRX(b *testing.B) {
	data := make([]byte, 900*700*4)
	for b.Loop() {
		toBGRX(data, 900, 700, false)
	}
}
