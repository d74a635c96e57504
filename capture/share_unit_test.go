package capture_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vibespace/vibespace/capture"
	"github.com/vibespace/vibespace/target"
)

// onChange is a source as mutter's streams are: it sends the pictures it
// is given (pics), each once, and nothing while none comes.
type onChange struct {
	pics   chan capture.Frame
	closed chan struct{}
	once   sync.Once
}

func newOnChange() *onChange {
	return &onChange{pics: make(chan capture.Frame, 8), closed: make(chan struct{})}
}

func (s *onChange) Next(ctx context.Context) (capture.Frame, error) {
	select {
	case f := <-s.pics:
		return f, nil
	case <-s.closed:
		return capture.Frame{}, capture.ErrClosed
	case <-ctx.Done():
		return capture.Frame{}, ctx.Err()
	}
}
func (s *onChange) RequestKeyframe() {}
func (s *onChange) Close() error     { s.once.Do(func() { close(s.closed) }); return nil }

func (s *onChange) isClosed() bool {
	select {
	case <-s.closed:
		return true
	default:
		return false
	}
}

func pic(b byte) capture.Frame {
	return capture.Frame{Format: capture.FormatBGRX, Width: 1, Height: 1, Stride: 4, Pix: []byte{b, b, b, 0xff}}
}

// TestShareLateReader: a reader that joins a source whose only picture
// was sent before it came is given that picture (its own copy), a
// keyframe request gives it again (Forced), the next picture goes to
// both, and the source is opened once and closed with its last reader.
func TestShareLateReader(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	var sh capture.Share
	var opens atomic.Int32
	src := newOnChange()
	open := func(context.Context) (capture.Source, error) { opens.Add(1); return src, nil }
	a, err := sh.Open(ctx, "k", "the test source", open)
	if err != nil {
		t.Fatal(err)
	}
	src.pics <- pic(1)
	if f, err := a.Next(ctx); err != nil || f.Pix[0] != 1 || f.Seq != 1 || f.Forced {
		t.Fatalf("first reader: %+v %v", f, err)
	}
	b, err := sh.Open(ctx, "k", "the test source", open)
	if err != nil {
		t.Fatal(err)
	}
	fb, err := b.Next(ctx)
	if err != nil || fb.Pix[0] != 1 {
		t.Fatalf("the late reader was not given the picture sent before it came: %+v %v", fb, err)
	}
	fb.Pix[0] = 9 // the receiver's own: no other reader sees it
	b.RequestKeyframe()
	if f, err := b.Next(ctx); err != nil || f.Pix[0] != 1 || !f.Forced || f.Seq != 2 {
		t.Fatalf("a keyframe request: %+v %v", f, err)
	}
	// A Next waiting for a picture that does not come (nothing changes)
	// gives the newest at once when a keyframe is asked.
	got := make(chan capture.Frame, 1)
	go func() {
		f, err := a.Next(ctx)
		if err != nil {
			t.Error(err)
		}
		got <- f
	}()
	time.Sleep(20 * time.Millisecond) // let it wait (the test passes either way)
	a.RequestKeyframe()
	if f := <-got; f.Pix == nil || f.Pix[0] != 1 || !f.Forced {
		t.Fatalf("a keyframe request while Next waited: %+v", f)
	}
	src.pics <- pic(2)
	for _, r := range []capture.Source{a, b} {
		if f, err := r.Next(ctx); err != nil || f.Pix[0] != 2 || f.Forced {
			t.Fatalf("the next picture: %+v %v", f, err)
		}
	}
	if n := opens.Load(); n != 1 || sh.Sources() != 1 {
		t.Fatalf("opened %d times, %d sources", n, sh.Sources())
	}
	a.Close()
	if src.isClosed() {
		t.Fatal("the source was closed with a reader left")
	}
	b.Close()
	if !src.isClosed() || sh.Sources() != 0 {
		t.Fatalf("the last reader left: source closed %v, %d sources", src.isClosed(), sh.Sources())
	}
	if _, err := b.Next(ctx); !errors.Is(err, capture.ErrClosed) {
		t.Fatalf("Next after Close: %v", err)
	}
}

// TestShareOpensOnce: readers that come while the source is being opened
// wait for it and join it, rather than open a second connection.
func TestShareOpensOnce(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	var sh capture.Share
	var opens atomic.Int32
	release := make(chan struct{})
	src := newOnChange()
	open := func(context.Context) (capture.Source, error) {
		opens.Add(1)
		<-release
		return src, nil
	}
	readers := make(chan capture.Source, 3)
	for range 3 {
		go func() {
			r, err := sh.Open(ctx, "k", "the test source", open)
			if err != nil {
				t.Error(err)
			}
			readers <- r
		}()
	}
	for opens.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	close(release)
	src.pics <- pic(3)
	for range 3 {
		r := <-readers
		if f, err := r.Next(ctx); err != nil || f.Pix[0] != 3 {
			t.Fatalf("%+v %v", f, err)
		}
		defer r.Close()
	}
	if n := opens.Load(); n != 1 {
		t.Fatalf("opened %d times", n)
	}
}

// TestShareNoFirstPicture: a source that sends no first picture is opened
// anew (a connection of its own), and a reader given the picture of the
// new one; one that never sends any ends every reader no_capture, naming
// the source; the next Open opens it anew.
func TestShareNoFirstPicture(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	sh := capture.Share{FirstWait: 50 * time.Millisecond, Reopens: 2}
	var srcs []*onChange
	var mu sync.Mutex
	open := func(send bool) func(context.Context) (capture.Source, error) {
		return func(context.Context) (capture.Source, error) {
			mu.Lock()
			defer mu.Unlock()
			s := newOnChange()
			if send && len(srcs) == 1 { // the second connection sends
				s.pics <- pic(4)
			}
			srcs = append(srcs, s)
			return s, nil
		}
	}
	r, err := sh.Open(ctx, "k", "the test source", open(true))
	if err != nil {
		t.Fatal(err)
	}
	if f, err := r.Next(ctx); err != nil || f.Pix[0] != 4 {
		t.Fatalf("%+v %v", f, err)
	}
	mu.Lock()
	if len(srcs) != 2 || !srcs[0].isClosed() || srcs[1].isClosed() {
		t.Fatalf("%d connections, the first closed %v", len(srcs), srcs[0].isClosed())
	}
	mu.Unlock()
	r.Close()

	srcs = nil
	r, err = sh.Open(ctx, "k", "the test source", open(false))
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Next(ctx)
	if target.CodeOf(err) != target.CodeNoCapture || !strings.Contains(err.Error(), "the test source sent no picture") || !strings.Contains(err.Error(), "3 times connected") {
		t.Fatalf("a source that never sends: %v", err)
	}
	r.Close()
	mu.Lock()
	defer mu.Unlock()
	for i, s := range srcs {
		if !s.isClosed() {
			t.Fatalf("connection %d left open", i)
		}
	}
	if sh.Sources() != 0 {
		t.Fatalf("%d sources left", sh.Sources())
	}
}
