//go:build cgo && !vibespace_nojpeg

package capture

// A screencast picture is decoded by libjpeg-turbo (SIMD IDCT and colour
// conversion) straight into RGBA rows: about 4 ms for a 1280×720 picture
// at quality 85 where image/jpeg and the conversion of its YCbCr to RGBA
// took 35-40 ms on this project's reference machine. The cgo surface is
// two calls, vs_jpeg_size (the header only) and vs_jpeg_decode (into a
// buffer the Go side allocated); a corrupt picture longjmps out of
// libjpeg into the call's own error return, never across Go frames.

/*
#cgo LDFLAGS: -ljpeg
#include <stdio.h>
#include <stdlib.h>
#include <setjmp.h>
#include <jpeglib.h>

typedef struct vs_jpeg_err {
	struct jpeg_error_mgr mgr;
	jmp_buf jump;
} vs_jpeg_err;

static void vs_jpeg_error_exit(j_common_ptr c) {
	vs_jpeg_err *e = (vs_jpeg_err *)c->err;
	longjmp(e->jump, 1);
}

// vs_jpeg_warn counts warnings (a truncated or corrupt picture is one, and
// libjpeg would go on with grey) and prints nothing.
static void vs_jpeg_warn(j_common_ptr c, int level) {
	if (level < 0) c->err->num_warnings++;
}

// vs_jpeg_size reads the header of the picture: 0 and its size, or -1.
static int vs_jpeg_size(const unsigned char *data, unsigned long len, int *w, int *h) {
	struct jpeg_decompress_struct d;
	vs_jpeg_err e;
	d.err = jpeg_std_error(&e.mgr);
	e.mgr.error_exit = vs_jpeg_error_exit;
	e.mgr.emit_message = vs_jpeg_warn;
	if (setjmp(e.jump)) {
		jpeg_destroy_decompress(&d);
		return -1;
	}
	jpeg_create_decompress(&d);
	jpeg_mem_src(&d, data, len);
	jpeg_read_header(&d, TRUE);
	*w = (int)d.image_width;
	*h = (int)d.image_height;
	jpeg_destroy_decompress(&d);
	return 0;
}

// vs_jpeg_decode decodes the picture into w×h RGBA rows of stride bytes
// (alpha 255): 0, or -1 when it is corrupt, truncated or not w×h.
static int vs_jpeg_decode(const unsigned char *data, unsigned long len, unsigned char *out, int stride, int w, int h) {
	struct jpeg_decompress_struct d;
	vs_jpeg_err e;
	d.err = jpeg_std_error(&e.mgr);
	e.mgr.error_exit = vs_jpeg_error_exit;
	e.mgr.emit_message = vs_jpeg_warn;
	if (setjmp(e.jump)) {
		jpeg_destroy_decompress(&d);
		return -1;
	}
	jpeg_create_decompress(&d);
	jpeg_mem_src(&d, data, len);
	jpeg_read_header(&d, TRUE);
	if ((int)d.image_width != w || (int)d.image_height != h) {
		jpeg_destroy_decompress(&d);
		return -1;
	}
	d.out_color_space = JCS_EXT_RGBA;
	d.dct_method = JDCT_ISLOW;
	// Chroma replicated, not interpolated: image/jpeg's upsampling (the
	// same pixels as the build without cgo) and libjpeg's cheapest.
	d.do_fancy_upsampling = FALSE;
	jpeg_start_decompress(&d);
	while (d.output_scanline < d.output_height) {
		JSAMPROW row = out + (size_t)d.output_scanline * (size_t)stride;
		jpeg_read_scanlines(&d, &row, 1);
	}
	jpeg_finish_decompress(&d);
	long warned = e.mgr.num_warnings;
	jpeg_destroy_decompress(&d);
	return warned > 0 ? -1 : 0;
}
*/
import "C"

import (
	"errors"
	"unsafe"
)

// JPEGBuiltIn reports whether this build decodes screencast JPEGs with
// libjpeg-turbo (else image/jpeg).
const JPEGBuiltIn = true

var errCorruptJPEG = errors.New("corrupt or truncated JPEG")

// decodeJPEG decodes a JPEG picture into a new RGBA frame.
func decodeJPEG(data []byte) (Frame, error) {
	if len(data) == 0 {
		return Frame{}, errCorruptJPEG
	}
	src := (*C.uchar)(unsafe.Pointer(&data[0]))
	var w, h C.int
	if C.vs_jpeg_size(src, C.ulong(len(data)), &w, &h) != 0 || w <= 0 || h <= 0 || w > 1<<14 || h > 1<<14 {
		return Frame{}, errCorruptJPEG
	}
	stride := 4 * int(w)
	pix := make([]byte, stride*int(h))
	if C.vs_jpeg_decode(src, C.ulong(len(data)), (*C.uchar)(unsafe.Pointer(&pix[0])), C.int(stride), w, h) != 0 {
		return Frame{}, errCorruptJPEG
	}
	return Frame{Format: FormatRGBA, Width: int(w), Height: int(h), Stride: stride, Pix: pix}, nil
}
