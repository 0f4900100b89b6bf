// OpenEXR through OpenEXRCore's C API: no exceptions, no longjmp; every call keeps its state in
// a per-call context and returns 0 (ok) or -1 with a one-line message in the caller's buffer.
#ifndef TP_EXR_H
#define TP_EXR_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    int32_t width;        // data window
    int32_t height;
    int tiled;            // 1: tiled storage (level 0 is read)
    int compression;      // EXR_COMPRESSION_* of the file
    int has_alpha;        // an A channel
    int channels;         // how many channels the file has
    int half;             // 1: every R/G/B/A/Y channel is half; 0: some are float or uint
} tp_exr_info;

// Header only: refuses deep and multi-resolution-only oddities it cannot read. Never allocates pixels.
int tp_exr_info_read(const uint8_t *data, size_t size, tp_exr_info *info, char *err, size_t errlen);

// Decodes part 0 (level 0 when tiled) to linear Float RGBA, width * height * 4 floats in `pixels`
// (capacity in floats). R, G, B, A channels by name; Y alone fills R, G and B; a missing colour
// channel is 0, a missing A is 1. Refuses over max_pixels before allocating.
int tp_exr_decode(const uint8_t *data, size_t size, uint64_t max_pixels, float *pixels, size_t capacity,
                  tp_exr_info *info, char *err, size_t errlen);

// Encodes half-float RGBA (width * height * 4 half bit patterns, rows top first) as a scanline
// EXR with ZIP compression (zip != 0) or none; channels A (when with_alpha), B, G, R. *out is
// malloc'ed (tp_free).
int tp_exr_encode(const uint16_t *half_rgba, int32_t width, int32_t height, int with_alpha, int zip,
                  uint8_t **out, size_t *out_size, char *err, size_t errlen);

#endif
