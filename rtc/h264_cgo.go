//go:build cgo && !vibespace_noh264

package rtc

/*
#cgo pkg-config: openh264
#include <stdlib.h>
#include <string.h>
#include <wels/codec_api.h>

// vs_h264 is one openh264 encoder and its last output.
typedef struct {
	ISVCEncoder *enc;
	SFrameBSInfo info;
	int w, h;
} vs_h264;

static int vs_h264_open(vs_h264 *e, int w, int h, int bps, float fps, unsigned int idr) {
	int rv = WelsCreateSVCEncoder(&e->enc);
	if (rv != 0 || e->enc == NULL) return rv ? rv : -1;
	int quiet = WELS_LOG_QUIET;
	(*e->enc)->SetOption(e->enc, ENCODER_OPTION_TRACE_LEVEL, &quiet);
	SEncParamExt p;
	memset(&p, 0, sizeof p);
	(*e->enc)->GetDefaultParams(e->enc, &p);
	p.iUsageType = SCREEN_CONTENT_REAL_TIME;
	p.iPicWidth = w;
	p.iPicHeight = h;
	p.iTargetBitrate = bps;
	p.iMaxBitrate = UNSPECIFIED_BIT_RATE;
	p.iRCMode = RC_BITRATE_MODE;
	p.fMaxFrameRate = fps;
	p.iTemporalLayerNum = 1;
	p.iSpatialLayerNum = 1;
	p.iComplexityMode = LOW_COMPLEXITY;
	p.uiIntraPeriod = idr;
	p.iNumRefFrame = 1;
	p.eSpsPpsIdStrategy = CONSTANT_ID;   // every IDR repeats the same SPS/PPS
	p.bPrefixNalAddingCtrl = false;
	p.bEnableSSEI = false;
	p.iEntropyCodingModeFlag = 0;        // CAVLC: constrained baseline
	// Without frame skipping the rate control cannot go below its highest
	// QP: fresh text everywhere then costs 20 Mbit/s whatever the target.
	// A skipped picture is answered by the pipeline (the source delivers
	// again), and a forced IDR that was skipped is forced again (Encode).
	p.bEnableFrameSkip = true;
	p.iMultipleThreadIdc = 1;            // one thread (notes/live-view.md, trap 3)
	p.bEnableDenoise = false;
	p.bEnableBackgroundDetection = true;
	p.bEnableAdaptiveQuant = true;
	p.bEnableSceneChangeDetect = false;  // keyframes on request (and every uiIntraPeriod) only
	p.bEnableLongTermReference = false;
	p.iLoopFilterDisableIdc = 0;
	SSpatialLayerConfig *l = &p.sSpatialLayers[0];
	l->iVideoWidth = w;
	l->iVideoHeight = h;
	l->fFrameRate = fps;
	l->iSpatialBitrate = bps;
	l->iMaxSpatialBitrate = UNSPECIFIED_BIT_RATE;
	l->uiProfileIdc = PRO_BASELINE;
	l->uiLevelIdc = LEVEL_UNKNOWN;
	l->sSliceArgument.uiSliceMode = SM_SINGLE_SLICE;
	l->sSliceArgument.uiSliceNum = 1;
	rv = (*e->enc)->InitializeExt(e->enc, &p);
	if (rv != 0) {
		WelsDestroySVCEncoder(e->enc);
		e->enc = NULL;
		return rv;
	}
	int format = videoFormatI420;
	(*e->enc)->SetOption(e->enc, ENCODER_OPTION_DATAFORMAT, &format);
	e->w = w;
	e->h = h;
	return 0;
}

static int vs_h264_bitrate(vs_h264 *e, int bps) {
	SBitrateInfo b;
	b.iLayer = SPATIAL_LAYER_ALL;
	b.iBitrate = bps;
	return (*e->enc)->SetOption(e->enc, ENCODER_OPTION_BITRATE, &b);
}

// vs_h264_encode encodes one picture whose planes the caller lends for the
// length of the call. The output stays in e->info until the next call.
static int vs_h264_encode(vs_h264 *e, unsigned char *y, unsigned char *u, unsigned char *v,
		int sy, int sc, long long ms, int force) {
	if (force) (*e->enc)->ForceIntraFrame(e->enc, true);
	SSourcePicture pic;
	memset(&pic, 0, sizeof pic);
	pic.iColorFormat = videoFormatI420;
	pic.iPicWidth = e->w;
	pic.iPicHeight = e->h;
	pic.iStride[0] = sy;
	pic.iStride[1] = sc;
	pic.iStride[2] = sc;
	pic.pData[0] = y;
	pic.pData[1] = u;
	pic.pData[2] = v;
	pic.uiTimeStamp = ms;
	memset(&e->info, 0, sizeof e->info);
	return (*e->enc)->EncodeFrame(e->enc, &pic, &e->info);
}

// vs_h264_size is the byte length of the last output (Annex B NAL units,
// back to back in each layer's buffer).
static int vs_h264_size(vs_h264 *e) {
	if (e->info.eFrameType == videoFrameTypeSkip || e->info.eFrameType == videoFrameTypeInvalid) return 0;
	int n = 0;
	for (int i = 0; i < e->info.iLayerNum; i++) {
		SLayerBSInfo *l = &e->info.sLayerInfo[i];
		for (int j = 0; j < l->iNalCount; j++) n += l->pNalLengthInByte[j];
	}
	return n;
}

// vs_h264_copy copies the last output into out (vs_h264_size bytes).
static void vs_h264_copy(vs_h264 *e, unsigned char *out) {
	for (int i = 0; i < e->info.iLayerNum; i++) {
		SLayerBSInfo *l = &e->info.sLayerInfo[i];
		int n = 0;
		for (int j = 0; j < l->iNalCount; j++) n += l->pNalLengthInByte[j];
		memcpy(out, l->pBsBuf, n);
		out += n;
	}
}

static int vs_h264_key(vs_h264 *e) { return e->info.eFrameType == videoFrameTypeIDR; }

static void vs_h264_close(vs_h264 *e) {
	if (e->enc == NULL) return;
	(*e->enc)->Uninitialize(e->enc);
	WelsDestroySVCEncoder(e->enc);
	e->enc = NULL;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"time"
	"unsafe"
)

// H264Available reports whether this build carries the H.264 encoder
// (openh264 through cgo; the vibespace_noh264 build tag leaves it out).
// This one does.
func H264Available() bool { return true }

// h264 is an openh264 encoder in screen-content real-time mode.
type h264 struct {
	e       *C.vs_h264
	w, h    int  // of the pictures given
	pad     I420 // a picture of odd size, grown to even (H.264 4:2:0 has no odd sizes)
	lastPTS int64
	keyDue  bool // a keyframe was asked for and not made yet (skipped)
	closed  bool
}

// NewH264 makes an openh264 encoder tuned for screen pictures:
// SCREEN_CONTENT_REAL_TIME, bitrate rate control at o.Bitrate, one thread,
// one slice, CAVLC (constrained baseline, what profile-level-id 42e01f
// promises), IDR frames on request. It holds its bitrate by skipping
// pictures (Encode then returns no Data). Its output is an Annex B access
// unit per picture; every IDR carries its SPS and PPS. A picture of odd
// width or height is sent one column or row larger (its last one
// repeated): H.264's 4:2:0 cannot say an odd size.
func NewH264(o EncoderOptions) (Encoder, error) {
	if o.Width <= 0 || o.Height <= 0 || o.Width > 8192 || o.Height > 8192 {
		return nil, fmt.Errorf("rtc: H.264 cannot encode %dx%d", o.Width, o.Height)
	}
	fps := o.FPS
	if fps <= 0 {
		fps = 15
	}
	fps = min(fps, 60)
	kf := o.KeyframeInterval
	if kf <= 0 {
		kf = 10 * fps
	}
	e := (*C.vs_h264)(C.calloc(1, C.sizeof_vs_h264))
	if e == nil {
		return nil, errors.New("rtc: out of memory for an H.264 encoder")
	}
	if rv := C.vs_h264_open(e, C.int(o.Width+o.Width%2), C.int(o.Height+o.Height%2), C.int(max(o.Bitrate, 10_000)), C.float(fps), C.uint(kf)); rv != 0 {
		C.free(unsafe.Pointer(e))
		return nil, fmt.Errorf("rtc: openh264 init %dx%d failed (%d)", o.Width, o.Height, int(rv))
	}
	return &h264{e: e, w: o.Width, h: o.Height, lastPTS: -1}, nil
}

func (v *h264) Encode(img *I420, pts time.Duration, force bool) (Encoded, error) {
	if v.closed {
		return Encoded{}, errors.New("rtc: H.264 encoder closed")
	}
	if img.Width != v.w || img.Height != v.h {
		return Encoded{}, fmt.Errorf("rtc: H.264 encoder is %dx%d, picture %dx%d", v.w, v.h, img.Width, img.Height)
	}
	ms := max(pts.Milliseconds(), v.lastPTS+1)
	v.lastPTS = ms
	if img.Width%2 != 0 || img.Height%2 != 0 {
		img = v.pad.padEven(img)
	}
	v.keyDue = v.keyDue || force
	f := C.int(0)
	if v.keyDue {
		f = 1
	}
	if rv := C.vs_h264_encode(v.e, (*C.uchar)(&img.Y[0]), (*C.uchar)(&img.U[0]), (*C.uchar)(&img.V[0]),
		C.int(img.StrideY), C.int(img.StrideC), C.longlong(ms), f); rv != 0 {
		return Encoded{}, fmt.Errorf("rtc: openh264 encode failed (%d)", int(rv))
	}
	n := int(C.vs_h264_size(v.e))
	if n == 0 {
		return Encoded{}, nil
	}
	out := Encoded{Data: make([]byte, n), Key: C.vs_h264_key(v.e) != 0}
	C.vs_h264_copy(v.e, (*C.uchar)(&out.Data[0]))
	if out.Key {
		v.keyDue = false
	}
	return out, nil
}

func (v *h264) SetBitrate(bps int) error {
	if v.closed {
		return errors.New("rtc: H.264 encoder closed")
	}
	if rv := C.vs_h264_bitrate(v.e, C.int(max(bps, 10_000))); rv != 0 {
		return fmt.Errorf("rtc: openh264 bitrate %d failed (%d)", bps, int(rv))
	}
	return nil
}

func (v *h264) Close() error {
	if v.closed {
		return nil
	}
	v.closed = true
	C.vs_h264_close(v.e)
	C.free(unsafe.Pointer(v.e))
	v.e = nil
	return nil
}
