//go:build cgo && !vibespace_nopipewire

package capture

// The cgo surface is one C struct (vs_pw) and three calls: vs_pw_open
// connects a consumer stream to a node on a pw_thread_loop of its own,
// vs_pw_take copies the newest frame out under the loop's lock, and
// vs_pw_close stops the loop and destroys every object. The loop thread
// copies each frame out of its buffer (MemPtr, or MemFd mapped by
// PW_STREAM_FLAG_MAP_BUFFERS; DmaBuf is never offered) into the struct's
// own memory while it holds the loop lock, and writes a byte to a
// non-blocking pipe so that the Go side can wait with a deadline.

/*
#cgo pkg-config: libpipewire-0.3
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pipewire/pipewire.h>
#include <spa/param/video/format-utils.h>
#include <spa/param/buffers.h>
#include <spa/utils/result.h>

typedef struct vs_pw {
	struct pw_thread_loop *loop;
	struct pw_context *context;
	struct pw_core *core;
	struct spa_hook core_listener;
	struct pw_stream *stream;
	struct spa_hook stream_listener;
	int notify_fd;

	// Negotiated format (0 until param_changed).
	uint32_t format, width, height;

	// The newest frame: fw×fh, rows of fw*4 bytes, cut from the buffer
	// at (fx, fy) by the buffer's SPA_META_VideoCrop (fcrop set), else the
	// whole buffer.
	uint8_t *pix;
	size_t cap;
	uint32_t fw, fh, fformat;
	int32_t fx, fy;
	int fcrop;
	uint64_t seq;
	int64_t time_ns;

	int failed;
	char err[256];
} vs_pw;

static void vs_notify(vs_pw *s) {
	char c = 1;
	ssize_t n = write(s->notify_fd, &c, 1); // EAGAIN: a wake-up is pending
	(void)n;
}

static void vs_fail(vs_pw *s, const char *what, const char *msg) {
	if (!s->failed) {
		s->failed = 1;
		snprintf(s->err, sizeof s->err, "%s: %s", what, msg ? msg : "?");
	}
	vs_notify(s);
}

static void on_core_error(void *data, uint32_t id, int seq, int res, const char *message) {
	if (id == PW_ID_CORE)
		vs_fail((vs_pw *)data, "pipewire core error", message);
}

static const struct pw_core_events core_events = {
	PW_VERSION_CORE_EVENTS,
	.error = on_core_error,
};

static void on_state_changed(void *data, enum pw_stream_state old, enum pw_stream_state state, const char *error) {
	vs_pw *s = data;
	if (state == PW_STREAM_STATE_ERROR)
		vs_fail(s, "pipewire stream error", error);
	else if (state == PW_STREAM_STATE_UNCONNECTED && old != PW_STREAM_STATE_UNCONNECTED)
		vs_fail(s, "pipewire stream", "disconnected (the node is gone)");
}

static void on_param_changed(void *data, uint32_t id, const struct spa_pod *param) {
	vs_pw *s = data;
	uint32_t mt, mst;
	struct spa_video_info_raw info;
	if (param == NULL || id != SPA_PARAM_Format)
		return;
	if (spa_format_parse(param, &mt, &mst) < 0 || mt != SPA_MEDIA_TYPE_video || mst != SPA_MEDIA_SUBTYPE_raw)
		return;
	if (spa_format_video_raw_parse(param, &info) < 0)
		return;
	s->format = info.format;
	s->width = info.size.width;
	s->height = info.size.height;

	uint8_t buf[512];
	struct spa_pod_builder b = SPA_POD_BUILDER_INIT(buf, sizeof buf);
	const struct spa_pod *params[2];
	params[0] = spa_pod_builder_add_object(&b,
		SPA_TYPE_OBJECT_ParamBuffers, SPA_PARAM_Buffers,
		SPA_PARAM_BUFFERS_dataType, SPA_POD_CHOICE_FLAGS_Int((1 << SPA_DATA_MemPtr) | (1 << SPA_DATA_MemFd)));
	// The part of each buffer that holds the picture: mutter casts a
	// window into a buffer the size of its monitor and says where the
	// window is in it.
	params[1] = spa_pod_builder_add_object(&b,
		SPA_TYPE_OBJECT_ParamMeta, SPA_PARAM_Meta,
		SPA_PARAM_META_type, SPA_POD_Id(SPA_META_VideoCrop),
		SPA_PARAM_META_size, SPA_POD_Int(sizeof(struct spa_meta_region)));
	pw_stream_update_params(s->stream, params, 2);
	vs_notify(s);
}

static void on_process(void *data) {
	vs_pw *s = data;
	struct pw_buffer *b = NULL, *n;
	// Keep only the newest buffer; hand older ones straight back.
	while ((n = pw_stream_dequeue_buffer(s->stream)) != NULL) {
		if (b)
			pw_stream_queue_buffer(s->stream, b);
		b = n;
	}
	if (b == NULL)
		return;
	struct spa_data *d = &b->buffer->datas[0];
	uint32_t bw = s->width, bh = s->height;
	if (b->buffer->n_datas < 1 || d->data == NULL || d->chunk == NULL || d->chunk->size == 0 ||
	    (d->chunk->flags & SPA_CHUNK_FLAG_CORRUPTED) || bw == 0 || bh == 0)
		goto done;
	int32_t stride = d->chunk->stride;
	if (stride < (int32_t)(bw * 4))
		stride = bw * 4;
	size_t off = d->chunk->offset % d->maxsize;
	if (off + (size_t)stride * (bh - 1) + (size_t)bw * 4 > d->maxsize)
		goto done;
	// The crop, kept inside the buffer; none (or an empty one): all of it.
	int32_t x0 = 0, y0 = 0;
	uint32_t w = bw, h = bh;
	int cropped = 0;
	struct spa_meta_region *crop = spa_buffer_find_meta_data(b->buffer, SPA_META_VideoCrop, sizeof *crop);
	if (crop != NULL && spa_meta_region_is_valid(crop)) {
		int64_t cx = SPA_CLAMP((int64_t)crop->region.position.x, 0, (int64_t)bw - 1);
		int64_t cy = SPA_CLAMP((int64_t)crop->region.position.y, 0, (int64_t)bh - 1);
		x0 = (int32_t)cx;
		y0 = (int32_t)cy;
		w = SPA_MIN(crop->region.size.width, bw - (uint32_t)cx);
		h = SPA_MIN(crop->region.size.height, bh - (uint32_t)cy);
		cropped = 1;
	}
	size_t need = (size_t)w * h * 4;
	if (s->cap < need) {
		uint8_t *p = realloc(s->pix, need);
		if (p == NULL)
			goto done;
		s->pix = p;
		s->cap = need;
	}
	const uint8_t *src = (const uint8_t *)d->data + off + (size_t)y0 * stride + (size_t)x0 * 4;
	for (uint32_t y = 0; y < h; y++)
		memcpy(s->pix + (size_t)y * w * 4, src + (size_t)y * stride, (size_t)w * 4);
	if (s->format == SPA_VIDEO_FORMAT_RGBx)
		for (size_t i = 3; i < need; i += 4)
			s->pix[i] = 0xff;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	s->time_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	s->fw = w;
	s->fh = h;
	s->fx = x0;
	s->fy = y0;
	s->fcrop = cropped;
	s->fformat = s->format;
	s->seq++;
	vs_notify(s);
done:
	pw_stream_queue_buffer(s->stream, b);
}

static const struct pw_stream_events stream_events = {
	PW_VERSION_STREAM_EVENTS,
	.state_changed = on_state_changed,
	.param_changed = on_param_changed,
	.process = on_process,
};

static void vs_pw_close(vs_pw *s) {
	if (s->loop)
		pw_thread_loop_stop(s->loop);
	if (s->stream)
		pw_stream_destroy(s->stream);
	if (s->core) {
		spa_hook_remove(&s->core_listener);
		pw_core_disconnect(s->core);
	}
	if (s->context)
		pw_context_destroy(s->context);
	if (s->loop)
		pw_thread_loop_destroy(s->loop);
	free(s->pix);
	free(s);
}

// vs_pw_open connects a stream to node over the connection fd (taken:
// pipewire closes it). On failure it returns NULL with err set.
static vs_pw *vs_pw_open(int fd, uint32_t node, int notify_fd, char *err, size_t errlen) {
	vs_pw *s = calloc(1, sizeof *s);
	if (s == NULL) {
		close(fd);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->notify_fd = notify_fd;
	s->loop = pw_thread_loop_new("vibespace-pw", NULL);
	if (s->loop == NULL) {
		close(fd);
		snprintf(err, errlen, "pw_thread_loop_new: %s", strerror(errno));
		goto fail;
	}
	s->context = pw_context_new(pw_thread_loop_get_loop(s->loop), NULL, 0);
	if (s->context == NULL) {
		close(fd);
		snprintf(err, errlen, "pw_context_new: %s", strerror(errno));
		goto fail;
	}
	if (pw_thread_loop_start(s->loop) < 0) {
		close(fd);
		snprintf(err, errlen, "pw_thread_loop_start: %s", strerror(errno));
		goto fail;
	}
	pw_thread_loop_lock(s->loop);
	s->core = pw_context_connect_fd(s->context, fd, NULL, 0);
	if (s->core == NULL) {
		snprintf(err, errlen, "pw_context_connect_fd: %s", strerror(errno));
		pw_thread_loop_unlock(s->loop);
		goto fail;
	}
	pw_core_add_listener(s->core, &s->core_listener, &core_events, s);
	s->stream = pw_stream_new(s->core, "vibespace-capture",
		pw_properties_new(PW_KEY_MEDIA_TYPE, "Video", PW_KEY_MEDIA_CATEGORY, "Capture",
			PW_KEY_MEDIA_ROLE, "Screen", NULL));
	if (s->stream == NULL) {
		snprintf(err, errlen, "pw_stream_new: %s", strerror(errno));
		pw_thread_loop_unlock(s->loop);
		goto fail;
	}
	pw_stream_add_listener(s->stream, &s->stream_listener, &stream_events, s);

	uint8_t buf[1024];
	struct spa_pod_builder b = SPA_POD_BUILDER_INIT(buf, sizeof buf);
	const struct spa_pod *params[1];
	params[0] = spa_pod_builder_add_object(&b,
		SPA_TYPE_OBJECT_Format, SPA_PARAM_EnumFormat,
		SPA_FORMAT_mediaType, SPA_POD_Id(SPA_MEDIA_TYPE_video),
		SPA_FORMAT_mediaSubtype, SPA_POD_Id(SPA_MEDIA_SUBTYPE_raw),
		SPA_FORMAT_VIDEO_format, SPA_POD_CHOICE_ENUM_Id(5,
			SPA_VIDEO_FORMAT_BGRx, SPA_VIDEO_FORMAT_BGRx, SPA_VIDEO_FORMAT_RGBx,
			SPA_VIDEO_FORMAT_BGRA, SPA_VIDEO_FORMAT_RGBA),
		SPA_FORMAT_VIDEO_size, SPA_POD_CHOICE_RANGE_Rectangle(
			&SPA_RECTANGLE(1280, 720), &SPA_RECTANGLE(1, 1), &SPA_RECTANGLE(16384, 16384)),
		SPA_FORMAT_VIDEO_framerate, SPA_POD_CHOICE_RANGE_Fraction(
			&SPA_FRACTION(30, 1), &SPA_FRACTION(0, 1), &SPA_FRACTION(1000, 1)));
	int res = pw_stream_connect(s->stream, PW_DIRECTION_INPUT, node,
		PW_STREAM_FLAG_AUTOCONNECT | PW_STREAM_FLAG_MAP_BUFFERS, params, 1);
	pw_thread_loop_unlock(s->loop);
	if (res < 0) {
		snprintf(err, errlen, "pw_stream_connect: %s", spa_strerror(res));
		goto fail;
	}
	return s;
fail:
	vs_pw_close(s);
	return NULL;
}

// vs_frame is what vs_pw_take reports.
typedef struct vs_frame {
	uint32_t width, height, format;
	int32_t x, y;
	int cropped;
	uint64_t seq;
	int64_t time_ns;
	int failed;
} vs_frame;

// vs_pw_take copies the newest frame into dst (cap bytes) if its seq is
// not have (or force), under the loop lock. It fills f in any case.
static int vs_pw_take(vs_pw *s, uint64_t have, int force, uint8_t *dst, size_t cap, vs_frame *f, char *err, size_t errlen) {
	int copied = 0;
	pw_thread_loop_lock(s->loop);
	f->width = s->fw;
	f->height = s->fh;
	f->x = s->fx;
	f->y = s->fy;
	f->cropped = s->fcrop;
	f->format = s->fformat;
	f->seq = s->seq;
	f->time_ns = s->time_ns;
	f->failed = s->failed;
	if (s->failed)
		snprintf(err, errlen, "%s", s->err);
	size_t n = (size_t)s->fw * s->fh * 4;
	if (s->seq != 0 && (s->seq != have || force) && dst != NULL && cap >= n) {
		memcpy(dst, s->pix, n);
		copied = 1;
	}
	pw_thread_loop_unlock(s->loop);
	return copied;
}

static void vs_pw_size(vs_pw *s, uint32_t *w, uint32_t *h) {
	pw_thread_loop_lock(s->loop);
	*w = s->width;
	*h = s->height;
	pw_thread_loop_unlock(s->loop);
}

static void vs_pw_init(void) { pw_init(NULL, NULL); }
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// pwInit runs pw_init once per process. pw_deinit is never called: other
// users of libpipewire in the process (another stream) may still need it,
// and a stream's Close frees every object it made.
var pwInit sync.Once

// PipeWireStream is the Source of one PipeWire video node (a portal's or
// mutter's screen-cast stream), consumed as raw BGRx/RGBx/BGRA/RGBA
// video. Next delivers the newest frame, as soon as one arrives after the
// last delivered (PipeWire sends a frame when the screen changes, so a
// still screen delivers nothing until RequestKeyframe).
type PipeWireStream struct {
	mu     sync.Mutex // guards c against Close
	c      *C.vs_pw
	notify *os.File // read end of the pipe the loop thread writes to
	wfd    int      // its write end, the loop thread's

	keyframe atomic.Bool
	closed   chan struct{}
	once     sync.Once

	// Used by Next only.
	last uint64 // seq of the last delivered C frame
	seq  uint64

	crop atomic.Pointer[Crop] // the last delivered frame's
}

// Crop is where a delivered frame was cut from its stream's buffer: the
// buffer's SPA_META_VideoCrop, the part of it that holds the picture
// (mutter casts a window into a buffer the size of its monitor, and says
// there where the window's frame is). X, Y is the frame's top left in the
// buffer's pixels; Cropped is false where the buffer said nothing (the
// frame is the whole buffer, X, Y 0, 0).
type Crop struct {
	X, Y    int
	Cropped bool
}

// Crop is the newest delivered frame's (the zero Crop before the first).
func (s *PipeWireStream) Crop() Crop {
	if c := s.crop.Load(); c != nil {
		return *c
	}
	return Crop{}
}

// PipeWireBuiltIn reports whether this build reads pixels over PipeWire.
const PipeWireBuiltIn = true

// OpenPipeWire connects to PipeWire — over remote (the fd a portal's
// ScreenCast.OpenPipeWireRemote gave; it is duplicated, the caller keeps
// and closes its own), or when remote is nil over the pipewire-0 socket in
// runtimeDir — and consumes node. It returns once the video format is
// negotiated, or ctx's end, or PipeWire's error.
func OpenPipeWire(ctx context.Context, remote *os.File, runtimeDir string, node uint32) (*PipeWireStream, error) {
	pwInit.Do(func() { C.vs_pw_init() })
	fd, err := pipeWireConn(ctx, remote, runtimeDir)
	if err != nil {
		return nil, err
	}
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_NONBLOCK|syscall.O_CLOEXEC); err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("capture: pipewire: pipe: %w", err)
	}
	var cerr [256]C.char
	c := C.vs_pw_open(C.int(fd), C.uint32_t(node), C.int(p[1]), &cerr[0], C.size_t(len(cerr)))
	if c == nil {
		syscall.Close(p[0])
		syscall.Close(p[1])
		return nil, fmt.Errorf("capture: pipewire: %s", C.GoString(&cerr[0]))
	}
	s := &PipeWireStream{c: c, notify: os.NewFile(uintptr(p[0]), "pipewire-notify"), wfd: p[1], closed: make(chan struct{})}
	s.keyframe.Store(true)
	for {
		if w, h := s.Size(); w > 0 && h > 0 {
			return s, nil
		}
		if _, err := s.take(false, nil); err != nil {
			s.Close()
			return nil, err
		}
		if err := s.wait(ctx); err != nil {
			s.Close()
			return nil, fmt.Errorf("capture: pipewire: node %d negotiated no format: %w", node, err)
		}
	}
}

// pipeWireConn is a connection fd for pipewire_context_connect_fd: a
// duplicate of remote's, or a fresh one to runtimeDir's pipewire-0.
func pipeWireConn(ctx context.Context, remote *os.File, runtimeDir string) (int, error) {
	if remote != nil {
		sc, err := remote.SyscallConn()
		if err != nil {
			return -1, fmt.Errorf("capture: pipewire remote: %w", err)
		}
		fd := -1
		var derr error
		if err := sc.Control(func(f uintptr) {
			fd, derr = syscall.Dup(int(f))
		}); err != nil {
			return -1, err
		}
		if derr != nil {
			return -1, fmt.Errorf("capture: pipewire remote: dup: %w", derr)
		}
		syscall.CloseOnExec(fd)
		return fd, nil
	}
	if runtimeDir == "" {
		return -1, errors.New("capture: pipewire: no remote and no runtime dir")
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", filepath.Join(runtimeDir, "pipewire-0"))
	if err != nil {
		return -1, fmt.Errorf("capture: pipewire: %w", err)
	}
	defer conn.Close()
	f, err := conn.(*net.UnixConn).File() // a blocking duplicate
	if err != nil {
		return -1, fmt.Errorf("capture: pipewire: %w", err)
	}
	fd, err := syscall.Dup(int(f.Fd()))
	f.Close()
	if err != nil {
		return -1, fmt.Errorf("capture: pipewire: dup: %w", err)
	}
	syscall.CloseOnExec(fd)
	return fd, nil
}

// Size is the negotiated video size (0, 0 before negotiation or after
// Close).
func (s *PipeWireStream) Size() (width, height int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.c == nil {
		return 0, 0
	}
	var w, h C.uint32_t
	C.vs_pw_size(s.c, &w, &h)
	return int(w), int(h)
}

// RequestKeyframe makes the next Next deliver the newest frame again even
// if it was delivered already.
func (s *PipeWireStream) RequestKeyframe() { s.keyframe.Store(true) }

// Next returns the newest frame not yet delivered (or, after
// RequestKeyframe, the newest one), waiting for one until ctx ends. Its
// Pix is the receiver's: BGRx/BGRA arrive as FormatBGRX, RGBx/RGBA as
// FormatRGBA (RGBx with its alpha set opaque), rows packed (Stride is
// Width*4).
func (s *PipeWireStream) Next(ctx context.Context) (Frame, error) {
	var buf []byte
	for {
		select {
		case <-s.closed:
			return Frame{}, ErrClosed
		default:
		}
		force := s.keyframe.Load()
		if w, h := s.Size(); len(buf) != w*h*4 {
			buf = make([]byte, w*h*4)
		}
		f, err := s.take(force, buf)
		if err != nil {
			return Frame{}, err
		}
		if f.Pix != nil {
			if force {
				s.keyframe.Store(false)
			}
			return f, nil
		}
		if err := s.wait(ctx); err != nil {
			return Frame{}, err
		}
	}
}

// take copies the newest frame into buf if it is new (or force). f.Pix is
// nil when nothing was copied (nothing new, or buf too small for a frame
// whose size changed: the next call sizes it anew).
func (s *PipeWireStream) take(force bool, buf []byte) (Frame, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.c == nil {
		return Frame{}, ErrClosed
	}
	var cf C.vs_frame
	var cerr [256]C.char
	var dst *C.uint8_t
	if len(buf) > 0 {
		dst = (*C.uint8_t)(unsafe.Pointer(&buf[0]))
	}
	f := 0
	if force {
		f = 1
	}
	copied := C.vs_pw_take(s.c, C.uint64_t(s.last), C.int(f), dst, C.size_t(len(buf)), &cf, &cerr[0], C.size_t(len(cerr)))
	if cf.failed != 0 {
		return Frame{}, fmt.Errorf("capture: %s", C.GoString(&cerr[0]))
	}
	if copied == 0 {
		return Frame{}, nil
	}
	wd, ht := int(cf.width), int(cf.height)
	format := FormatBGRX
	if cf.format == C.SPA_VIDEO_FORMAT_RGBx || cf.format == C.SPA_VIDEO_FORMAT_RGBA {
		format = FormatRGBA
	}
	changed := uint64(cf.seq) != s.last
	s.crop.Store(&Crop{X: int(cf.x), Y: int(cf.y), Cropped: cf.cropped != 0})
	s.last = uint64(cf.seq)
	s.seq++
	return Frame{
		Format: format,
		Width:  wd,
		Height: ht,
		Stride: wd * 4,
		Pix:    buf[:wd*ht*4],
		Time:   time.Unix(0, int64(cf.time_ns)),
		Seq:    s.seq,
		Forced: force && !changed,
	}, nil
}

// wait blocks until the loop thread writes to the pipe (a frame, a format,
// an error), ctx ends, or Close; it rereads at least every 100 ms.
func (s *PipeWireStream) wait(ctx context.Context) error {
	deadline := time.Now().Add(100 * time.Millisecond)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	_ = s.notify.SetReadDeadline(deadline)
	var b [64]byte
	_, err := s.notify.Read(b[:])
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, os.ErrClosed):
		return ErrClosed
	}
	return nil
}

// Close disconnects the stream and frees every PipeWire object it made
// (the loop thread is stopped first). A Next in progress returns
// ErrClosed. It is safe to call more than once.
func (s *PipeWireStream) Close() error {
	s.once.Do(func() {
		close(s.closed)
		s.mu.Lock()
		C.vs_pw_close(s.c)
		s.c = nil
		s.mu.Unlock()
		syscall.Close(s.wfd)
		s.notify.Close()
	})
	return nil
}
