// The only code that sees astcenc.h. astcenc reports errors by return codes; anything thrown
// (std::bad_alloc) is caught here and becomes error text, never crossing into Swift.
#define ASTCENC_DYNAMIC_LIBRARY 1
#include <astcenc.h>

#include <cstdio>
#include <cstring>
#include <mutex>
#include <new>

#include "tp_astc.h"

struct tp_astc_context {
    astcenc_context *context;
    unsigned bx, by;
};

static void say(char *error, size_t len, const char *what, astcenc_error code) {
    if (error && len) std::snprintf(error, len, "%s: %s", what, astcenc_get_error_string(code));
}

static void say(char *error, size_t len, const char *what) {
    if (error && len) std::snprintf(error, len, "%s", what);
}

// astcenc 4.2 keeps `1 / tune_refinement_mse_overshoot` in a function-local static of its block
// compressor, initialised by the first block compressed in the process (upstream issue #537): every
// later context runs with the first one's value, so a texture's blocks would depend on which
// texture the process compressed first. texpipe pins it: every compression context uses
// kRefinementOvershoot, and before the first one a one-block warm-up with that value initialises
// the static. Blocks are then a function of the image and settings alone, in any order, in any
// process.
static const float kRefinementOvershoot = 3.0f;

// One 2D RGBA image over `slice` (which must outlive the call that uses the image): 8-bit
// texels, or 32-bit floats with `is_float`.
static astcenc_image image_of(unsigned w, unsigned h, void **slice, int is_float = 0) {
    astcenc_image image;
    image.dim_x = w;
    image.dim_y = h;
    image.dim_z = 1;
    image.data_type = is_float ? ASTCENC_TYPE_F32 : ASTCENC_TYPE_U8;
    image.data = slice;
    return image;
}

// texpipe's profile numbers (tp_astc.h) as astcenc's. HDR is astcenc's HDR colour with LDR alpha,
// what its command line's -hdr selects.
static astcenc_profile profile_of(int profile) {
    switch (profile) {
    case 1: return ASTCENC_PRF_LDR_SRGB;
    case 2: return ASTCENC_PRF_HDR_RGB_LDR_A;
    default: return ASTCENC_PRF_LDR;
    }
}

static astcenc_swizzle rgba() { return astcenc_swizzle{ASTCENC_SWZ_R, ASTCENC_SWZ_G, ASTCENC_SWZ_B, ASTCENC_SWZ_A}; }

static void warm_up() {
    astcenc_config config;
    if (astcenc_config_init(ASTCENC_PRF_LDR, 4, 4, 1, ASTCENC_PRE_MEDIUM, 0, &config) != ASTCENC_SUCCESS) return;
    config.tune_refinement_mse_overshoot = kRefinementOvershoot;
    astcenc_context *context = nullptr;
    if (astcenc_context_alloc(&config, 1, &context) != ASTCENC_SUCCESS) return;
    // A block that is not constant (a constant block returns before the static is reached).
    uint8_t texels[4 * 4 * 4];
    for (int i = 0; i < 64; i++) texels[i] = (uint8_t)(i * 37 + 11);
    void *slice = texels;
    astcenc_image image = image_of(4, 4, &slice);
    astcenc_swizzle swizzle = rgba();
    uint8_t block[16];
    astcenc_compress_image(context, &image, &swizzle, block, sizeof block, 0);
    astcenc_context_free(context);
}

extern "C" tp_astc_context *tp_astc_context_alloc(unsigned bx, unsigned by, int profile, float quality,
                                                  unsigned threads, int decompress_only, char *error,
                                                  size_t error_len) {
    try {
        astcenc_config config;
        unsigned flags = decompress_only ? ASTCENC_FLG_DECOMPRESS_ONLY : ASTCENC_FLG_SELF_DECOMPRESS_ONLY;
        astcenc_error status = astcenc_config_init(profile_of(profile), bx, by, 1,
                                                   quality, flags, &config);
        if (status != ASTCENC_SUCCESS) {
            say(error, error_len, "astcenc configuration", status);
            return nullptr;
        }
        if (!decompress_only) {
            static std::once_flag once;
            std::call_once(once, warm_up);
            config.tune_refinement_mse_overshoot = kRefinementOvershoot;
        }
        astcenc_context *context = nullptr;
        status = astcenc_context_alloc(&config, threads ? threads : 1, &context);
        if (status != ASTCENC_SUCCESS) {
            say(error, error_len, "astcenc context", status);
            return nullptr;
        }
        tp_astc_context *out = new tp_astc_context{context, bx, by};
        return out;
    } catch (...) {
        say(error, error_len, "astcenc: out of memory");
        return nullptr;
    }
}

extern "C" void tp_astc_context_free(tp_astc_context *context) {
    if (!context) return;
    astcenc_context_free(context->context);
    delete context;
}

extern "C" int tp_astc_compress(tp_astc_context *context, const void *pixels, int is_float, unsigned w,
                                unsigned h, uint8_t *out, size_t out_len, unsigned thread_index, char *error,
                                size_t error_len) {
    try {
        void *slice = const_cast<void *>(pixels);
        astcenc_image image = image_of(w, h, &slice, is_float);
        astcenc_swizzle swizzle = rgba();
        astcenc_error status = astcenc_compress_image(context->context, &image, &swizzle, out, out_len, thread_index);
        if (status != ASTCENC_SUCCESS) {
            say(error, error_len, "astcenc compression", status);
            return 1;
        }
        return 0;
    } catch (...) {
        say(error, error_len, "astcenc compression failed");
        return 1;
    }
}

extern "C" int tp_astc_reset(tp_astc_context *context) {
    return astcenc_compress_reset(context->context) == ASTCENC_SUCCESS ? 0 : 1;
}

extern "C" int tp_astc_decompress(tp_astc_context *context, const uint8_t *data, size_t len, unsigned w, unsigned h,
                                  void *pixels, int is_float, char *error, size_t error_len) {
    try {
        void *slice = pixels;
        astcenc_image image = image_of(w, h, &slice, is_float);
        astcenc_swizzle swizzle = rgba();
        astcenc_error status = astcenc_decompress_image(context->context, data, len, &image, &swizzle, 0);
        astcenc_decompress_reset(context->context);
        if (status != ASTCENC_SUCCESS) {
            say(error, error_len, "astcenc decompression", status);
            return 1;
        }
        return 0;
    } catch (...) {
        say(error, error_len, "astcenc decompression failed");
        return 1;
    }
}
