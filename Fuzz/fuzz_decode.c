/* libFuzzer target over texpipe's decode path: the same tp_* shim functions the Swift code
   calls, with the same two-phase protocol (header, bounded allocation, decode). Any crash,
   leak or sanitizer report is a bug in the shim or in how it drives libpng / libjpeg.
   Built and run by Scripts/fuzz. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tp_shims.h"

#define MAX_PIXELS (1u << 22)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    tp_info info;
    char err[256];
    int is_png = size >= 8 && data[0] == 0x89 && data[1] == 'P';
    int ok = is_png ? tp_png_info(data, size, &info, err, sizeof err)
                    : tp_jpeg_info(data, size, &info, err, sizeof err);
    if (ok != 0) return 0;
    uint64_t pixels = (uint64_t)info.width * info.height;
    if (pixels == 0 || pixels > MAX_PIXELS) return 0;  /* the Swift side refuses these too */
    size_t capacity = (size_t)pixels * 4 * (info.out_depth / 8);
    void *buffer = malloc(capacity);
    if (!buffer) return 0;
    if (is_png) {
        tp_png_decode(data, size, MAX_PIXELS, buffer, capacity, &info, err, sizeof err);
    } else {
        tp_jpeg_decode(data, size, MAX_PIXELS, buffer, capacity, &info, err, sizeof err);
    }
    err[sizeof err - 1] = 0;
    free(buffer);
    return 0;
}
