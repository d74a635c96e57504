//go:build cgo && !vibespace_novpx

package rtc

/*
#cgo pkg-config: vpx
#include <stdlib.h>
#include <vpx/vpx_encoder.h>
#include <vpx/vp8cx.h>

// vs_vp8 is one libvpx VP8 encoder and the iterator over its output.
typedef struct {
	vpx_codec_ctx_t codec;
	vpx_codec_enc_cfg_t cfg;
	vpx_codec_iter_t iter;
} vs_vp8;

static vpx_codec_err_t vs_vp8_open(vs_vp8 *e, int w, int h, int kbps, int kfmax, int cpu) {
	vpx_codec_err_t err = vpx_codec_enc_config_default(vpx_codec_vp8_cx(), &e->cfg, 0);
	if (err != VPX_CODEC_OK) return err;
	e->cfg.g_w = w;
	e->cfg.g_h = h;
	e->cfg.g_threads = 1;            // two threads spin on a loaded 2-core box
	e->cfg.g_timebase.num = 1;       // pts in milliseconds
	e->cfg.g_timebase.den = 1000;
	e->cfg.g_lag_in_frames = 0;
	e->cfg.g_pass = VPX_RC_ONE_PASS;
	e->cfg.g_error_resilient = VPX_ERROR_RESILIENT_DEFAULT;
	e->cfg.rc_end_usage = VPX_CBR;
	e->cfg.rc_target_bitrate = kbps;
	e->cfg.rc_min_quantizer = 2;
	e->cfg.rc_max_quantizer = 56;
	e->cfg.rc_undershoot_pct = 50;
	e->cfg.rc_overshoot_pct = 50;
	e->cfg.rc_buf_sz = 1000;
	e->cfg.rc_buf_initial_sz = 500;
	e->cfg.rc_buf_optimal_sz = 600;
	e->cfg.rc_dropframe_thresh = 0;
	e->cfg.kf_mode = VPX_KF_AUTO;
	e->cfg.kf_min_dist = 0;
	e->cfg.kf_max_dist = kfmax;
	err = vpx_codec_enc_init(&e->codec, vpx_codec_vp8_cx(), &e->cfg, 0);
	if (err != VPX_CODEC_OK) return err;
	vpx_codec_control(&e->codec, VP8E_SET_CPUUSED, cpu);
	vpx_codec_control(&e->codec, VP8E_SET_NOISE_SENSITIVITY, 0);
	vpx_codec_control(&e->codec, VP8E_SET_MAX_INTRA_BITRATE_PCT, 300);
	return VPX_CODEC_OK;
}

static vpx_codec_err_t vs_vp8_bitrate(vs_vp8 *e, int kbps) {
	e->cfg.rc_target_bitrate = kbps;
	return vpx_codec_enc_config_set(&e->codec, &e->cfg);
}

// vs_vp8_encode encodes one picture whose planes the caller lends for the
// length of the call (libvpx copies the picture into its own buffers).
static vpx_codec_err_t vs_vp8_encode(vs_vp8 *e, unsigned char *y, unsigned char *u, unsigned char *v,
		int sy, int sc, long long pts, unsigned long dur, int force) {
	vpx_image_t img;
	vpx_img_wrap(&img, VPX_IMG_FMT_I420, e->cfg.g_w, e->cfg.g_h, 1, y);
	img.planes[VPX_PLANE_Y] = y;
	img.planes[VPX_PLANE_U] = u;
	img.planes[VPX_PLANE_V] = v;
	img.stride[VPX_PLANE_Y] = sy;
	img.stride[VPX_PLANE_U] = sc;
	img.stride[VPX_PLANE_V] = sc;
	e->iter = NULL;
	return vpx_codec_encode(&e->codec, &img, pts, dur, force ? VPX_EFLAG_FORCE_KF : 0, VPX_DL_REALTIME);
}

// vs_vp8_next yields the next compressed frame of the last encode, or 0.
static int vs_vp8_next(vs_vp8 *e, void **buf, size_t *size, int *key) {
	const vpx_codec_cx_pkt_t *pkt;
	while ((pkt = vpx_codec_get_cx_data(&e->codec, &e->iter)) != NULL) {
		if (pkt->kind != VPX_CODEC_CX_FRAME_PKT) continue;
		*buf = pkt->data.frame.buf;
		*size = pkt->data.frame.sz;
		*key = (pkt->data.frame.flags & VPX_FRAME_IS_KEY) != 0;
		return 1;
	}
	return 0;
}

static const char *vs_vp8_error(vs_vp8 *e) { return vpx_codec_error_detail(&e->codec) ? vpx_codec_error_detail(&e->codec) : vpx_codec_error(&e->codec); }
*/
import "C"

import (
	"errors"
	"fmt"
	"time"
	"unsafe"
)

// VP8Available reports whether this build carries the VP8 encoder (libvpx
// through cgo). This one does.
func VP8Available() bool { return true }

// vp8 is a libvpx VP8 encoder: realtime, one thread, CBR.
type vp8 struct {
	e       *C.vs_vp8
	w, h    int
	lastPTS int64
	closed  bool
}

// NewVP8 makes a libvpx VP8 encoder tuned for live screen pictures:
// realtime deadline, fastest speed (cpu-used −16), one thread, CBR at
// o.Bitrate, no lookahead, keyframes on request.
func NewVP8(o EncoderOptions) (Encoder, error) {
	if o.Width <= 0 || o.Height <= 0 || o.Width > 16383 || o.Height > 16383 {
		return nil, fmt.Errorf("rtc: VP8 cannot encode %dx%d", o.Width, o.Height)
	}
	fps := o.FPS
	if fps <= 0 {
		fps = 15
	}
	kf := o.KeyframeInterval
	if kf <= 0 {
		kf = 10 * fps
	}
	e := (*C.vs_vp8)(C.calloc(1, C.sizeof_vs_vp8))
	if e == nil {
		return nil, errors.New("rtc: out of memory for a VP8 encoder")
	}
	if err := C.vs_vp8_open(e, C.int(o.Width), C.int(o.Height), C.int(kbps(o.Bitrate)), C.int(kf), -16); err != C.VPX_CODEC_OK {
		msg := C.GoString(C.vpx_codec_err_to_string(err))
		C.free(unsafe.Pointer(e))
		return nil, fmt.Errorf("rtc: libvpx VP8 init %dx%d: %s", o.Width, o.Height, msg)
	}
	return &vp8{e: e, w: o.Width, h: o.Height, lastPTS: -1}, nil
}

func kbps(bps int) int { return max(bps/1000, 10) }

func (v *vp8) Encode(img *I420, pts time.Duration, force bool) (Encoded, error) {
	if v.closed {
		return Encoded{}, errors.New("rtc: VP8 encoder closed")
	}
	if img.Width != v.w || img.Height != v.h {
		return Encoded{}, fmt.Errorf("rtc: VP8 encoder is %dx%d, picture %dx%d", v.w, v.h, img.Width, img.Height)
	}
	ms := max(pts.Milliseconds(), v.lastPTS+1)
	dur := C.ulong(1)
	if v.lastPTS >= 0 {
		dur = C.ulong(ms - v.lastPTS)
	}
	v.lastPTS = ms
	f := C.int(0)
	if force {
		f = 1
	}
	if err := C.vs_vp8_encode(v.e, (*C.uchar)(&img.Y[0]), (*C.uchar)(&img.U[0]), (*C.uchar)(&img.V[0]),
		C.int(img.StrideY), C.int(img.StrideC), C.longlong(ms), dur, f); err != C.VPX_CODEC_OK {
		return Encoded{}, fmt.Errorf("rtc: libvpx VP8 encode: %s", C.GoString(C.vs_vp8_error(v.e)))
	}
	var out Encoded
	var buf unsafe.Pointer
	var size C.size_t
	var key C.int
	for C.vs_vp8_next(v.e, &buf, &size, &key) != 0 {
		out.Data = append(out.Data, unsafe.Slice((*byte)(buf), int(size))...)
		out.Key = out.Key || key != 0
	}
	return out, nil
}

func (v *vp8) SetBitrate(bps int) error {
	if v.closed {
		return errors.New("rtc: VP8 encoder closed")
	}
	if err := C.vs_vp8_bitrate(v.e, C.int(kbps(bps))); err != C.VPX_CODEC_OK {
		return fmt.Errorf("rtc: libvpx VP8 bitrate %d: %s", bps, C.GoString(C.vs_vp8_error(v.e)))
	}
	return nil
}

func (v *vp8) Close() error {
	if v.closed {
		return nil
	}
	v.closed = true
	C.vpx_codec_destroy(&v.e.codec)
	C.free(unsafe.Pointer(v.e))
	v.e = nil
	return nil
}
