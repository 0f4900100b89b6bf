// texpipe's C interface to Arm's astcenc (a C++ library): everything that includes astcenc.h
// lives in tp_astc.cpp, and nothing leaves it but plain C types and error text.
#ifndef TP_ASTC_H
#define TP_ASTC_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tp_astc_context tp_astc_context;

/// A context for `threads` concurrent callers of tp_astc_compress, block size bx × by, `profile`
/// 0 LDR, 1 LDR sRGB, 2 HDR (HDR colour, LDR alpha: astcenc's -hdr), `quality` an astcenc preset
/// value (10 fast, 60 medium, 98 thorough). NULL on failure, with the reason in `error`.
tp_astc_context *tp_astc_context_alloc(unsigned bx, unsigned by, int profile, float quality, unsigned threads,
                                       int decompress_only, char *error, size_t error_len);
void tp_astc_context_free(tp_astc_context *context);

/// Compresses one image (w × h RGBA, tightly packed: 8-bit, or 32-bit floats with `is_float`) into
/// `out` (blocks_x × blocks_y × 16 bytes).
/// Every one of the context's `threads` callers calls this with its own thread_index; all return
/// when the image is done. Returns 0, or nonzero with the reason in `error`.
int tp_astc_compress(tp_astc_context *context, const void *rgba, int is_float, unsigned w, unsigned h,
                     uint8_t *out, size_t out_len, unsigned thread_index, char *error, size_t error_len);

/// Must be called (by one thread) between images.
int tp_astc_reset(tp_astc_context *context);

/// Decompresses blocks into w × h RGBA (8-bit, or 32-bit floats with `is_float`). Returns 0, or
/// nonzero with the reason in `error`.
int tp_astc_decompress(tp_astc_context *context, const uint8_t *data, size_t len, unsigned w, unsigned h,
                       void *rgba, int is_float, char *error, size_t error_len);

#ifdef __cplusplus
}
#endif
#endif
