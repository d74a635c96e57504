package x11

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/shm"
	"github.com/jezek/xgb/xproto"
	"golang.org/x/sys/unix"
)

// shmState is the MIT-SHM segment captures share with the server. It is
// created on the first capture, grown when a larger one needs it, and
// detached at Close. If the server cannot attach it (a remote server,
// another IPC namespace) captures use plain GetImage from then on.
type shmState struct {
	mu     sync.Mutex
	probed bool  // the extension and a first attach were tried
	broken error // why MIT-SHM is not used, if it is not
	seg    shm.Seg
	mem    []byte
	// busy counts reads of mem still running: a read that outlived its
	// deadline must not find mem unmapped under it, so detach leaks the
	// mapping instead (it was marked for removal; the kernel frees it at exit).
	busy atomic.Int32
}

// xgb keeps the decoders of extension events and errors in process-wide
// maps that every connection's reader goroutine reads, and an extension's
// Init writes them: an Init on one connection while another reads an event
// or an error is a data race (Go may abort on it: "concurrent map read and
// map write"). Of the extensions we use only MIT-SHM registers any (its
// Completion event and BadSeg error), so they are registered once per
// process, from the first connection Open makes (before any other
// connection of ours exists, under registry's lock), and every connection
// learns the extension's opcode by itself (useShm), writing nothing
// global.
var registry struct {
	mu   sync.Mutex
	done bool
	// ok: the decoders were registered, for the first event and error
	// numbers below (a server that numbers MIT-SHM's otherwise cannot have
	// its errors decoded: its captures use GetImage).
	ok                     bool
	firstEvent, firstError byte
}

// registerShm registers MIT-SHM's event and error decoders once per
// process, as shm.Init would, from c: the first connection. It asks c the
// extension's numbers under ctx and is not retried (a later registration
// could race with live readers): a server that did not answer, or has no
// MIT-SHM, leaves them undecoded, and captures there use GetImage anyway.
func registerShm(ctx context.Context, c *xgb.Conn) {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if registry.done {
		return
	}
	registry.done = true
	ch := make(chan *xproto.QueryExtensionReply, 1)
	go func() {
		r, err := xproto.QueryExtension(c, 7, "MIT-SHM").Reply()
		if err != nil {
			r = nil
		}
		ch <- r
	}()
	select {
	case r := <-ch:
		if r == nil || !r.Present {
			return
		}
		for n, f := range xgb.NewExtEventFuncs["MIT-SHM"] {
			xgb.NewEventFuncs[int(r.FirstEvent)+n] = f
		}
		for n, f := range xgb.NewExtErrorFuncs["MIT-SHM"] {
			xgb.NewErrorFuncs[int(r.FirstError)+n] = f
		}
		registry.ok, registry.firstEvent, registry.firstError = true, r.FirstEvent, r.FirstError
	case <-ctx.Done():
	}
}

// useShm records MIT-SHM's opcode on c (what shm.Init does for the one
// connection, without its process-wide writes). A server whose MIT-SHM is
// numbered otherwise than the registered one's is not used for it: an
// error of its (BadShmSeg) would not be decoded, and its cookie never
// answered.
func useShm(c *xgb.Conn) error {
	r, err := xproto.QueryExtension(c, 7, "MIT-SHM").Reply()
	switch {
	case err != nil:
		return err
	case !r.Present:
		return fmt.Errorf("x11: the X server offers no MIT-SHM extension")
	}
	registry.mu.Lock()
	same := registry.ok && registry.firstEvent == r.FirstEvent && registry.firstError == r.FirstError
	registry.mu.Unlock()
	if !same {
		return fmt.Errorf("x11: this server numbers MIT-SHM's events and errors otherwise than the first one this process met (xgb decodes them process-wide)")
	}
	c.ExtLock.Lock()
	c.Extensions["MIT-SHM"] = r.MajorOpcode
	c.ExtLock.Unlock()
	return nil
}

// shmGetImage reads a ZPixmap rectangle of drawable through the shared
// segment and hands the pixels to convert while the segment is still ours.
// ok is false if MIT-SHM cannot be used; the caller falls back to GetImage.
func shmGetImage[T any](ctx context.Context, d *Display, dr xproto.Drawable, x, y, w, h int, convert func([]byte) T) (img T, ok bool, err error) {
	s := &d.ext.shm
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.probed {
		s.probed = true
		_, s.broken = call(ctx, d, "MIT-SHM QueryExtension", func() (struct{}, error) {
			return struct{}{}, useShm(d.conn)
		})
	}
	if s.broken != nil {
		return img, false, nil
	}
	size := w * h * 4
	if len(s.mem) < size {
		if err := d.growShm(ctx, size); err != nil {
			s.broken = err
			return img, false, nil
		}
	}
	s.busy.Add(1)
	// The closure may outlive ctx (call returns at the deadline and lets it
	// finish): it must not read s's fields, which a later grow or detach
	// rewrites under s.mu.
	mem, seg := s.mem, s.seg
	img, err = call(ctx, d, "MIT-SHM GetImage", func() (T, error) {
		defer s.busy.Add(-1)
		var none T
		r, err := shm.GetImage(d.conn, dr, int16(x), int16(y), uint16(w), uint16(h), ^uint32(0),
			xproto.ImageFormatZPixmap, seg, 0).Reply()
		if err != nil {
			return none, err
		}
		if int(r.Size) > len(mem) || int(r.Size) < w*h*4 {
			return none, fmt.Errorf("x11: MIT-SHM image of %d bytes for %dx%d in a %d byte segment", r.Size, w, h, len(mem))
		}
		return convert(mem[:r.Size]), nil
	})
	return img, err == nil, err
}

// growShm replaces the segment by one of at least size bytes. The caller
// holds s.mu.
func (d *Display) growShm(ctx context.Context, size int) error {
	s := &d.ext.shm
	d.detachShm(ctx)
	size = (size + 1<<20 - 1) &^ (1<<20 - 1) // whole MiB: fewer regrowths
	id, err := unix.SysvShmGet(unix.IPC_PRIVATE, size, unix.IPC_CREAT|0o600)
	if err != nil {
		return fmt.Errorf("x11: shmget %d bytes: %w", size, err)
	}
	// Marked for removal now: it disappears when both we and the server
	// have detached, even if we crash.
	defer func() { _, _ = unix.SysvShmCtl(id, unix.IPC_RMID, nil) }()
	mem, err := unix.SysvShmAttach(id, 0, 0)
	if err != nil {
		return fmt.Errorf("x11: shmat: %w", err)
	}
	seg, err := call(ctx, d, "MIT-SHM Attach", func() (shm.Seg, error) {
		seg, err := shm.NewSegId(d.conn)
		if err != nil {
			return 0, err
		}
		return seg, shm.AttachChecked(d.conn, seg, uint32(id), false).Check()
	})
	if err != nil {
		_ = unix.SysvShmDetach(mem)
		return fmt.Errorf("x11: the server did not attach our segment: %w", err)
	}
	s.seg, s.mem = seg, mem
	return nil
}

// detachShm detaches the current segment from the server and from us. The
// caller holds s.mu.
func (d *Display) detachShm(ctx context.Context) {
	s := &d.ext.shm
	if s.mem == nil {
		return
	}
	seg := s.seg
	_, _ = call(ctx, d, "MIT-SHM Detach", func() (struct{}, error) {
		return struct{}{}, shm.DetachChecked(d.conn, seg).Check()
	})
	if s.busy.Load() == 0 {
		_ = unix.SysvShmDetach(s.mem)
	}
	s.mem = nil
}

// closeShm detaches the segment before the connection closes.
func (d *Display) closeShm() {
	ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
	defer cancel()
	d.ext.shm.mu.Lock()
	d.detachShm(ctx)
	d.ext.shm.mu.Unlock()
}
