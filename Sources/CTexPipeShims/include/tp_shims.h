// texpipe's only C code. Every entry point arms its own setjmp, keeps all state in a
// per-call context, frees everything on the error path and returns 0 (ok) or -1 with
// a one-line message in the caller's buffer. No longjmp ever crosses a Swift frame.
#ifndef TP_SHIMS_H
#define TP_SHIMS_H

#include <stddef.h>
#include <stdint.h>

#include "tp_exr.h"
#include "tp_web.h"

#define TP_FORMAT_PNG 1
#define TP_FORMAT_JPEG 2

typedef struct {
    uint32_t width;
    uint32_t height;
    int format;            // TP_FORMAT_*
    int out_depth;         // 8 or 16: what tp_*_decode writes (RGBA, native-endian 16-bit)
    // PNG header facts (for inspect)
    int png_color_type;    // PNG_COLOR_TYPE_* as in the file
    int png_bit_depth;     // 1, 2, 4, 8, 16 as in the file
    int interlaced;        // Adam7
    int has_trns;
    int has_gamma;
    double gamma;          // file gamma (gAMA value / 100000)
    int has_srgb;
    int has_iccp;
    // JPEG header facts
    int jpeg_components;
    int jpeg_color_space;  // J_COLOR_SPACE of the file
    int jpeg_progressive;
} tp_info;

// Reads the header only. Never allocates pixel memory.
int tp_png_info(const uint8_t *data, size_t size, tp_info *info, char *err, size_t errlen);
int tp_jpeg_info(const uint8_t *data, size_t size, tp_info *info, char *err, size_t errlen);

// Decodes to RGBA at info->out_depth into `pixels` (capacity in bytes). Refuses images over
// max_pixels before any allocation; `capacity` must be width * height * 4 * (depth / 8).
int tp_png_decode(const uint8_t *data, size_t size, uint64_t max_pixels,
                  void *pixels, size_t capacity, tp_info *info, char *err, size_t errlen);
int tp_jpeg_decode(const uint8_t *data, size_t size, uint64_t max_pixels,
                   void *pixels, size_t capacity, tp_info *info, char *err, size_t errlen);

typedef struct {
    int color_type;        // 0 gray, 2 RGB, 3 palette, 4 gray+alpha, 6 RGBA (PNG numbering)
    int bit_depth;         // 8 or 16 (samples native-endian when 16)
    int level;             // zlib level 0...9
    int filter;            // -1 adaptive (all five), or 0 none 1 sub 2 up 3 average 4 paeth
    const uint8_t *palette;    // color_type 3: n_palette RGB triples
    const uint8_t *trns;       // color_type 3: n_trns alpha values
    int n_palette;
    int n_trns;
} tp_png_params;

// Encodes rows of packed samples. On success *out is malloc'ed (free with tp_free).
int tp_png_encode(const void *pixels, uint32_t width, uint32_t height, size_t stride,
                  const tp_png_params *params, uint8_t **out, size_t *out_size,
                  char *err, size_t errlen);

// Encodes 8-bit rows (stride bytes apart) of `components` samples (3 RGB, 1 gray) as JPEG
// at quality 1...100, baseline or progressive.
int tp_jpeg_encode(const uint8_t *samples, uint32_t width, uint32_t height, size_t stride,
                   int components, int quality, int progressive,
                   uint8_t **out, size_t *out_size, char *err, size_t errlen);

void tp_free(void *p);

// Sets the calling thread's SSE mode to flush denormal floats to zero (inputs and results) and
// returns the mode before, for tp_fp_restore. A no-op returning 0 off x86.
unsigned tp_fp_flush_denormals(void);
void tp_fp_restore(unsigned previous);

// The instruction set the binary's Swift code was built for: "x86-64, haswell" (the wide build, which
// refuses to start on a CPU without it), "x86-64", "arm64" (see cpu_shim.c).
const char *tp_cpu_built_for(void);

// Allocator policy for a process that runs many image-sized jobs (see Allocator.swift): serve
// blocks up to 32 MiB from the threads' arenas and do not trim freed memory below 1 GiB.
// Returns 0 when the C library has no such settings.
int tp_keep_large_buffers(void);
// The opposite, for a process under a memory limit: blocks from 128 KiB mapped on their own and
// given back when freed, a fixed threshold (glibc would otherwise raise it as blocks are freed).
int tp_give_back_large_buffers(void);
// Gives the pages of every freed block back to the system now (glibc's malloc_trim(0), which also
// releases free pages inside the arenas): for a job that frees a large working set block by block
// while it builds its output (a volume's slices). A no-op elsewhere.
void tp_give_back_freed(void);
// 1 when `bytes` of address space can be mapped now (mapped untouched and unmapped at once).
int tp_can_reserve(size_t bytes);

// --- Text (FreeType + fontconfig). No longjmp here: both report by return codes. ---

// Resolves a fontconfig pattern ("DejaVu Sans:bold") to a font file. Returns -1 with a message
// when fontconfig could only offer a fallback of another family (the font is not installed).
// Serialised internally: fontconfig's configuration is process-wide.
int tp_font_find(const char *pattern, char *path, size_t pathlen, int *face_index,
                 char *family, size_t familylen, char *err, size_t errlen);

typedef struct {
    int32_t width, height;  // of both coverage bitmaps
    int32_t left, top;      // the bitmaps' top-left corner relative to the pen's start on the
                            // baseline, in pixels, y down
    uint8_t *fill;          // width * height coverage 0...255 (free with tp_free)
    uint8_t *outline;       // the same for the outline ring + fill, or NULL without an outline
} tp_text_bitmap;

// Lays out UTF-8 `text` in one line with the font's advances and kerning at `size_px` pixels
// per em (unhinted, fractional pen positions) and renders anti-aliased coverage. With
// outline_px > 0 also renders each glyph's outside border stroked outline_px wide.
int tp_text_render(const char *font_path, int face_index, double size_px, const char *text,
                   double outline_px, tp_text_bitmap *out, char *err, size_t errlen);

#endif
