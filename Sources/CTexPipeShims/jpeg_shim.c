// libjpeg-turbo calls for texpipe. error_exit longjmps back into the entry point that
// armed it; warnings (corrupt or truncated data) are recorded and turn into an error,
// so a damaged JPEG never decodes silently to gray. See tp_shims.h.
#include "tp_shims.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>

#define TP_MAX_SCANS 1000

typedef struct {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    char *err;
    size_t errlen;
    int warned;
    char warning[JMSG_LENGTH_MAX];
} jpeg_ctx;

static void put_err(char *err, size_t errlen, const char *msg) {
    if (err && errlen) snprintf(err, errlen, "%s", msg);
}

static void on_error_exit(j_common_ptr cinfo) {
    jpeg_ctx *ctx = (jpeg_ctx *)cinfo->err;
    char buffer[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, buffer);
    put_err(ctx->err, ctx->errlen, buffer);
    longjmp(ctx->jump, 1);
}

static void on_emit_message(j_common_ptr cinfo, int level) {
    jpeg_ctx *ctx = (jpeg_ctx *)cinfo->err;
    if (level < 0 && !ctx->warned) {
        ctx->warned = 1;
        (*cinfo->err->format_message)(cinfo, ctx->warning);
    }
}

static void on_output_message(j_common_ptr cinfo) { (void)cinfo; }

// A hostile progressive file can hold thousands of tiny scans; refuse past a bound.
static void on_progress(j_common_ptr cinfo) {
    if (cinfo->is_decompressor) {
        j_decompress_ptr d = (j_decompress_ptr)cinfo;
        if (d->input_scan_number > TP_MAX_SCANS) {
            jpeg_ctx *ctx = (jpeg_ctx *)cinfo->err;
            put_err(ctx->err, ctx->errlen, "too many progressive scans");
            longjmp(ctx->jump, 1);
        }
    }
}

static void setup_errors(struct jpeg_error_mgr *pub) {
    jpeg_std_error(pub);
    pub->error_exit = on_error_exit;
    pub->emit_message = on_emit_message;
    pub->output_message = on_output_message;
}

static void fill_info(j_decompress_ptr cinfo, tp_info *info) {
    memset(info, 0, sizeof *info);
    info->format = TP_FORMAT_JPEG;
    info->width = cinfo->image_width;
    info->height = cinfo->image_height;
    info->out_depth = 8;
    info->jpeg_components = cinfo->num_components;
    info->jpeg_color_space = cinfo->jpeg_color_space;
    info->jpeg_progressive = jpeg_has_multiple_scans(cinfo) ? 1 : 0;
}

static int check_signature(const uint8_t *data, size_t size, char *err, size_t errlen) {
    if (size < 3 || data[0] != 0xFF || data[1] != 0xD8 || data[2] != 0xFF) {
        put_err(err, errlen, "not a JPEG file (bad signature)");
        return -1;
    }
    return 0;
}

// The one read path: the header only (pixels == NULL), or the whole decode into `pixels`.
static int jpeg_read(const uint8_t *data, size_t size, uint64_t max_pixels, void *pixels,
                     size_t capacity, tp_info *info, char *err, size_t errlen) {
    if (check_signature(data, size, err, errlen) != 0) return -1;
    struct jpeg_decompress_struct cinfo;
    struct jpeg_progress_mgr progress;
    jpeg_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.err = err;
    ctx.errlen = errlen;
    cinfo.err = &ctx.pub;
    setup_errors(&ctx.pub);
    if (setjmp(ctx.jump)) {
        jpeg_destroy_decompress(&cinfo);
        return -1;
    }
    jpeg_create_decompress(&cinfo);
    progress.progress_monitor = on_progress;
    cinfo.progress = &progress;
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    fill_info(&cinfo, info);
    const char *refusal = NULL;
    char msg[200];
    uint64_t w = info->width, h = info->height;
    size_t stride = (size_t)w * 4;
    if (!pixels) {
        // header only
    } else if (w == 0 || h == 0) {
        refusal = "zero image size";
    } else if (w * h > max_pixels) {
        snprintf(msg, sizeof msg, "image is %llux%llu (%llu pixels), over the limit of %llu (--max-pixels)",
                 (unsigned long long)w, (unsigned long long)h, (unsigned long long)(w * h),
                 (unsigned long long)max_pixels);
        refusal = msg;
    } else if (cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK) {
        refusal = "CMYK JPEG is not supported (convert it to RGB first)";
    } else if (capacity != stride * (size_t)h) {
        refusal = "pixel buffer has the wrong size";
    }
    if (!pixels || refusal) {
        if (refusal) put_err(err, errlen, refusal);
        jpeg_destroy_decompress(&cinfo);
        return refusal ? -1 : 0;
    }
    cinfo.out_color_space = JCS_EXT_RGBA;
    jpeg_start_decompress(&cinfo);
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = (JSAMPROW)((uint8_t *)pixels + (size_t)cinfo.output_scanline * stride);
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    if (ctx.warned) {
        put_err(err, errlen, ctx.warning);
        return -1;
    }
    return 0;
}

int tp_jpeg_info(const uint8_t *data, size_t size, tp_info *info, char *err, size_t errlen) {
    return jpeg_read(data, size, 0, NULL, 0, info, err, errlen);
}

int tp_jpeg_decode(const uint8_t *data, size_t size, uint64_t max_pixels,
                   void *pixels, size_t capacity, tp_info *info, char *err, size_t errlen) {
    if (!pixels) {
        put_err(err, errlen, "no pixel buffer");
        return -1;
    }
    return jpeg_read(data, size, max_pixels, pixels, capacity, info, err, errlen);
}

int tp_jpeg_encode(const uint8_t *samples, uint32_t width, uint32_t height, size_t stride,
                   int components, int quality, int progressive,
                   uint8_t **out, size_t *out_size, char *err, size_t errlen) {
    struct jpeg_compress_struct cinfo;
    jpeg_ctx ctx;
    unsigned char *volatile buffer = NULL;
    unsigned long buffer_size = 0;
    memset(&ctx, 0, sizeof ctx);
    ctx.err = err;
    ctx.errlen = errlen;
    cinfo.err = &ctx.pub;
    setup_errors(&ctx.pub);
    *out = NULL;
    *out_size = 0;
    if (setjmp(ctx.jump)) {
        jpeg_destroy_compress(&cinfo);
        free(buffer);
        return -1;
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, (unsigned char **)&buffer, &buffer_size);
    cinfo.image_width = width;
    cinfo.image_height = height;
    cinfo.input_components = components == 1 ? 1 : 3;
    cinfo.in_color_space = components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    if (progressive) jpeg_simple_progression(&cinfo);
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(samples + (size_t)cinfo.next_scanline * stride);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    *out = buffer;
    *out_size = buffer_size;
    return 0;
}
