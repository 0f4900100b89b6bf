// libpng calls for texpipe. setjmp is armed in every entry point; the error callback
// copies libpng's message into the per-call context and longjmps back here, where
// everything is freed and -1 returned. See tp_shims.h.
#include "tp_shims.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    jmp_buf jump;
    char *err;
    size_t errlen;
    const uint8_t *data;
    size_t size;
    size_t pos;
    // encode output
    uint8_t *out;
    size_t out_size;
    size_t out_cap;
    int out_failed;
    // A warning that means the file is damaged or hostile (see on_warning).
    char damage[160];
} png_ctx;

static void put_err(char *err, size_t errlen, const char *msg) {
    if (err && errlen) {
        snprintf(err, errlen, "%s", msg);
    }
}

static void on_error(png_structp png, png_const_charp msg) {
    png_ctx *ctx = (png_ctx *)png_get_error_ptr(png);
    put_err(ctx->err, ctx->errlen, msg);
    longjmp(ctx->jump, 1);
}

// Most warnings (an ancillary chunk's CRC, an unknown sRGB intent) do not fail the decode. Those
// that mean the pixel data itself is wrong do: palette indices past the palette, and compressed
// data beyond what the image needs (a zlib bomb). They are recorded and turned into an error once
// libpng returns, so the longjmp discipline stays the same.
static void on_warning(png_structp png, png_const_charp msg) {
    png_ctx *ctx = (png_ctx *)png_get_error_ptr(png);
    if (ctx->damage[0]) return;
    if (strstr(msg, "palette index") || strstr(msg, "Too much image data") || strstr(msg, "Extra compressed data")) {
        snprintf(ctx->damage, sizeof ctx->damage, "%s", msg);
    }
}

static void read_bytes(png_structp png, png_bytep dst, png_size_t n) {
    png_ctx *ctx = (png_ctx *)png_get_io_ptr(png);
    if (n > ctx->size - ctx->pos) {
        png_error(png, "truncated data");
    }
    memcpy(dst, ctx->data + ctx->pos, n);
    ctx->pos += n;
}

static void fill_info(png_structp png, png_infop info, tp_info *out) {
    memset(out, 0, sizeof *out);
    out->format = TP_FORMAT_PNG;
    out->width = png_get_image_width(png, info);
    out->height = png_get_image_height(png, info);
    out->png_color_type = png_get_color_type(png, info);
    out->png_bit_depth = png_get_bit_depth(png, info);
    out->interlaced = png_get_interlace_type(png, info) == PNG_INTERLACE_ADAM7;
    out->has_trns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
    out->has_srgb = png_get_valid(png, info, PNG_INFO_sRGB) != 0;
    out->has_iccp = png_get_valid(png, info, PNG_INFO_iCCP) != 0;
    double gamma = 0;
    if (png_get_valid(png, info, PNG_INFO_gAMA) && png_get_gAMA(png, info, &gamma)) {
        out->has_gamma = 1;
        out->gamma = gamma;
    }
    out->out_depth = out->png_bit_depth == 16 ? 16 : 8;
}

static int check_signature(const uint8_t *data, size_t size, char *err, size_t errlen) {
    if (size < 8 || png_sig_cmp((png_const_bytep)data, 0, 8) != 0) {
        put_err(err, errlen, "not a PNG file (bad signature)");
        return -1;
    }
    return 0;
}

// The one read path: the header only (pixels == NULL), or the whole decode into `pixels`.
static int png_read(const uint8_t *data, size_t size, uint64_t max_pixels, void *pixels,
                    size_t capacity, tp_info *info, char *err, size_t errlen) {
    if (check_signature(data, size, err, errlen) != 0) return -1;
    png_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.err = err;
    ctx.errlen = errlen;
    ctx.data = data;
    ctx.size = size;
    png_bytep *volatile rows = NULL;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &ctx, on_error, on_warning);
    if (!png) {
        put_err(err, errlen, "out of memory");
        return -1;
    }
    png_infop pinfo = png_create_info_struct(png);
    if (!pinfo) {
        png_destroy_read_struct(&png, NULL, NULL);
        put_err(err, errlen, "out of memory");
        return -1;
    }
    if (setjmp(ctx.jump)) {
        free(rows);
        png_destroy_read_struct(&png, &pinfo, NULL);
        return -1;
    }
    png_set_read_fn(png, &ctx, read_bytes);
    png_set_check_for_invalid_index(png, 1);
    png_read_info(png, pinfo);
    fill_info(png, pinfo, info);
    if (!pixels) {
        png_destroy_read_struct(&png, &pinfo, NULL);
        return 0;
    }

    uint64_t w = info->width, h = info->height;
    if (w == 0 || h == 0) png_error(png, "zero image size");
    if (w * h > max_pixels) {
        char msg[160];
        snprintf(msg, sizeof msg, "image is %llux%llu (%llu pixels), over the limit of %llu (--max-pixels)",
                 (unsigned long long)w, (unsigned long long)h, (unsigned long long)(w * h),
                 (unsigned long long)max_pixels);
        png_error(png, msg);
    }
    size_t bpc = info->out_depth / 8;
    size_t stride = (size_t)w * 4 * bpc;
    if (capacity != stride * (size_t)h) png_error(png, "pixel buffer has the wrong size");

    int ct = info->png_color_type;
    // Palette images are read as one index per byte and expanded here, so an index past the
    // palette is an error rather than a silent black pixel.
    int palette = ct == PNG_COLOR_TYPE_PALETTE;
    if (palette) {
        png_set_packing(png);
    } else {
        if (ct == PNG_COLOR_TYPE_GRAY && info->png_bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
        if (info->has_trns) png_set_tRNS_to_alpha(png);
        if (ct == PNG_COLOR_TYPE_GRAY || ct == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
        if (!(ct & PNG_COLOR_MASK_ALPHA) && !info->has_trns) {
            png_set_filler(png, bpc == 2 ? 0xffff : 0xff, PNG_FILLER_AFTER);
        }
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        if (bpc == 2) png_set_swap(png);
#endif
    }
    png_set_interlace_handling(png);
    png_read_update_info(png, pinfo);
    if (png_get_rowbytes(png, pinfo) != (palette ? (size_t)w : stride)) {
        png_error(png, "unexpected row size after expansion");
    }

    rows = (png_bytep *)malloc(sizeof(png_bytep) * (size_t)h);
    if (!rows) png_error(png, "out of memory");
    for (size_t y = 0; y < h; y++) rows[y] = (png_bytep)pixels + y * stride;
    png_read_image(png, rows);
    png_read_end(png, NULL);
    if (palette) {
        png_colorp plte = NULL;
        int n_plte = 0;
        png_bytep trns = NULL;
        int n_trns = 0;
        png_get_PLTE(png, pinfo, &plte, &n_plte);
        if (info->has_trns) png_get_tRNS(png, pinfo, &trns, &n_trns, NULL);
        for (size_t y = 0; y < h; y++) {
            uint8_t *row = rows[y];
            // Backwards, so the 4 bytes written at 4x never overwrite an index not yet read.
            for (size_t x = (size_t)w; x-- > 0;) {
                int k = row[x];
                if (k >= n_plte) png_error(png, "palette index out of range");
                row[4 * x] = plte[k].red;
                row[4 * x + 1] = plte[k].green;
                row[4 * x + 2] = plte[k].blue;
                row[4 * x + 3] = k < n_trns ? trns[k] : 255;
            }
        }
    }
    free(rows);
    rows = NULL;
    png_destroy_read_struct(&png, &pinfo, NULL);
    if (ctx.damage[0]) {
        put_err(err, errlen, ctx.damage);
        return -1;
    }
    return 0;
}

int tp_png_info(const uint8_t *data, size_t size, tp_info *info, char *err, size_t errlen) {
    return png_read(data, size, 0, NULL, 0, info, err, errlen);
}

int tp_png_decode(const uint8_t *data, size_t size, uint64_t max_pixels,
                  void *pixels, size_t capacity, tp_info *info, char *err, size_t errlen) {
    if (!pixels) {
        put_err(err, errlen, "no pixel buffer");
        return -1;
    }
    return png_read(data, size, max_pixels, pixels, capacity, info, err, errlen);
}

static void write_bytes(png_structp png, png_bytep src, png_size_t n) {
    png_ctx *ctx = (png_ctx *)png_get_io_ptr(png);
    if (ctx->out_size + n > ctx->out_cap) {
        size_t cap = ctx->out_cap ? ctx->out_cap : 65536;
        while (cap < ctx->out_size + n) cap *= 2;
        uint8_t *grown = (uint8_t *)realloc(ctx->out, cap);
        if (!grown) png_error(png, "out of memory");
        ctx->out = grown;
        ctx->out_cap = cap;
    }
    memcpy(ctx->out + ctx->out_size, src, n);
    ctx->out_size += n;
}

static void flush_bytes(png_structp png) { (void)png; }

int tp_png_encode(const void *pixels, uint32_t width, uint32_t height, size_t stride,
                  const tp_png_params *params, uint8_t **out, size_t *out_size,
                  char *err, size_t errlen) {
    *out = NULL;
    *out_size = 0;
    png_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.err = err;
    ctx.errlen = errlen;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &ctx, on_error, on_warning);
    if (!png) {
        put_err(err, errlen, "out of memory");
        return -1;
    }
    png_infop pinfo = png_create_info_struct(png);
    if (!pinfo) {
        png_destroy_write_struct(&png, NULL);
        put_err(err, errlen, "out of memory");
        return -1;
    }
    if (setjmp(ctx.jump)) {
        free(ctx.out);
        png_destroy_write_struct(&png, &pinfo);
        return -1;
    }
    png_set_write_fn(png, &ctx, write_bytes, flush_bytes);
    png_set_IHDR(png, pinfo, width, height, params->bit_depth, params->color_type,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (params->color_type == PNG_COLOR_TYPE_PALETTE) {
        png_color plte[256];
        for (int i = 0; i < params->n_palette && i < 256; i++) {
            plte[i].red = params->palette[3 * i];
            plte[i].green = params->palette[3 * i + 1];
            plte[i].blue = params->palette[3 * i + 2];
        }
        png_set_PLTE(png, pinfo, plte, params->n_palette);
        if (params->n_trns > 0) {
            png_set_tRNS(png, pinfo, (png_bytep)params->trns, params->n_trns, NULL);
        }
    }
    png_set_compression_level(png, params->level);
    int filters = PNG_ALL_FILTERS;
    switch (params->filter) {
        case 0: filters = PNG_FILTER_NONE; break;
        case 1: filters = PNG_FILTER_SUB; break;
        case 2: filters = PNG_FILTER_UP; break;
        case 3: filters = PNG_FILTER_AVG; break;
        case 4: filters = PNG_FILTER_PAETH; break;
        default: break;
    }
    if (params->color_type == PNG_COLOR_TYPE_PALETTE && params->filter < 0) {
        filters = PNG_FILTER_NONE;  // the PNG spec's advice for palette images
    }
    png_set_filter(png, PNG_FILTER_TYPE_BASE, filters);
    png_write_info(png, pinfo);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (params->bit_depth == 16) png_set_swap(png);
#endif
    for (uint32_t y = 0; y < height; y++) {
        png_write_row(png, (png_const_bytep)pixels + (size_t)y * stride);
    }
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &pinfo);
    *out = ctx.out;
    *out_size = ctx.out_size;
    return 0;
}

void tp_free(void *p) { free(p); }
