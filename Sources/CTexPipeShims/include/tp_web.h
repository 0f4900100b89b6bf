// WebP (libwebp) and AVIF (libavif over libaom and dav1d) for texpipe. Both libraries report by
// return codes: no longjmp here. Every entry point frees what it made on the error path and returns
// 0 (ok) or -1 with a one-line message in the caller's buffer. See tp_shims.h.
#ifndef TP_WEB_H
#define TP_WEB_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t width;        // the canvas, for an animation
    uint32_t height;
    int out_depth;         // 8 or 16: what tp_*_decode writes (RGBA, native-endian 16-bit)
    int has_alpha;
    int frames;            // 1 for a still image
    int has_animation;     // WebP: an animation (of one frame or more)
    // WebP
    int webp_format;       // 0 undefined/mixed (an animation), 1 lossy (VP8), 2 lossless (VP8L)
    // AVIF
    int bit_depth;         // 8, 10 or 12
    int yuv_format;        // avifPixelFormat: 1 4:4:4, 2 4:2:2, 3 4:2:0, 4 4:0:0
    int primaries;         // CICP, as the file says (2: unspecified)
    int transfer;
    int matrix;
    int full_range;
    int alpha_premultiplied;
    size_t icc_size;
} tp_web_info;

// Reads the header only (WebP: its chunks; AVIF: its boxes, no AV1 decoding). Never allocates
// pixel memory.
int tp_webp_info(const uint8_t *data, size_t size, tp_web_info *info, char *err, size_t errlen);
int tp_avif_info(const uint8_t *data, size_t size, tp_web_info *info, char *err, size_t errlen);

// Decodes to straight RGBA at info->out_depth into `pixels` (capacity in bytes). Refuses images
// over max_pixels before any allocation. WebP: 8-bit; an animation's first frame, composed on its
// canvas. AVIF: out_depth 16 when `want16` or the file is deeper than 8 bits, else 8; the YUV → RGB
// conversion is libavif's own (not libyuv's), so the pixels are the same on every CPU.
int tp_webp_decode(const uint8_t *data, size_t size, uint64_t max_pixels,
                   void *pixels, size_t capacity, tp_web_info *info, char *err, size_t errlen);
int tp_avif_decode(const uint8_t *data, size_t size, uint64_t max_pixels, int want16,
                   void *pixels, size_t capacity, tp_web_info *info, char *err, size_t errlen);

typedef struct {
    float quality;         // 0...100 (lossless: effort)
    int lossless;          // 1: VP8L, RGB under transparent pixels kept exactly
    int method;            // 0...6
    int alpha_quality;     // 0...100
} tp_webp_params;

// Encodes 8-bit RGBA rows (stride bytes apart). Single-threaded: the same bytes on every run.
// On success *out is malloc'ed (free with tp_free).
int tp_webp_encode(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride,
                   const tp_webp_params *params, uint8_t **out, size_t *out_size,
                   char *err, size_t errlen);

typedef struct {
    int quantizer;         // 0...63, min = max
    int alpha_quantizer;   // 0...63
    int speed;             // 0...10
    int depth;             // 8, 10 or 12
    int yuv420;            // 0: 4:4:4, 1: 4:2:0
    int has_alpha;         // write an alpha plane
} tp_avif_params;

// Encodes RGBA rows of `in_depth` (8, or 16 native-endian) bits through libaom, one thread,
// CICP 1/13/6 (BT.709 primaries, sRGB transfer, BT.601 matrix), full range, libavif's own RGB → YUV.
int tp_avif_encode(const void *rgba, uint32_t width, uint32_t height, int in_depth, size_t stride,
                   const tp_avif_params *params, uint8_t **out, size_t *out_size,
                   char *err, size_t errlen);

#endif
