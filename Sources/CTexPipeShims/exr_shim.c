// OpenEXR files through OpenEXRCore (C, error codes): texpipe's HDR input and output.
// docs/hdr.md. Hostile input: the data window is checked against the pixel limit before any
// pixel memory, every library error becomes the call's one-line message.
#include <OpenEXR/openexr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp_exr.h"

typedef struct {
    const uint8_t *data;
    size_t size;
    char *err;
    size_t errlen;
    int failed;
} tp_exr_reader;

typedef struct {
    uint8_t *bytes;
    size_t size;
    size_t capacity;
    int failed;
    char *err;
    size_t errlen;
} tp_exr_writer;

static void reader_error(exr_const_context_t ctxt, exr_result_t code, const char *msg) {
    void *ud = NULL;
    if (exr_get_user_data(ctxt, &ud) != EXR_ERR_SUCCESS || !ud) return;
    tp_exr_reader *r = (tp_exr_reader *)ud;
    if (r->failed) return;  // the first message is the cause
    r->failed = 1;
    snprintf(r->err, r->errlen, "EXR: %s", msg ? msg : exr_get_default_error_message(code));
}

static void writer_error(exr_const_context_t ctxt, exr_result_t code, const char *msg) {
    void *ud = NULL;
    if (exr_get_user_data(ctxt, &ud) != EXR_ERR_SUCCESS || !ud) return;
    tp_exr_writer *w = (tp_exr_writer *)ud;
    if (w->failed) return;
    w->failed = 1;
    snprintf(w->err, w->errlen, "EXR encoder: %s", msg ? msg : exr_get_default_error_message(code));
}

static int64_t mem_read(exr_const_context_t ctxt, void *ud, void *buffer, uint64_t sz, uint64_t offset,
                        exr_stream_error_func_ptr_t error_cb) {
    (void)ctxt;
    (void)error_cb;
    tp_exr_reader *r = (tp_exr_reader *)ud;
    if (offset >= r->size) return 0;
    uint64_t n = r->size - offset;
    if (n > sz) n = sz;
    memcpy(buffer, r->data + offset, (size_t)n);
    return (int64_t)n;
}

static int64_t mem_size(exr_const_context_t ctxt, void *ud) {
    (void)ctxt;
    return (int64_t)((tp_exr_reader *)ud)->size;
}

static int64_t mem_write(exr_const_context_t ctxt, void *ud, const void *buffer, uint64_t sz, uint64_t offset,
                         exr_stream_error_func_ptr_t error_cb) {
    (void)ctxt;
    (void)error_cb;
    tp_exr_writer *w = (tp_exr_writer *)ud;
    uint64_t end = offset + sz;
    if (end > w->capacity) {
        size_t cap = w->capacity ? w->capacity : 65536;
        while (cap < end) cap *= 2;
        uint8_t *grown = realloc(w->bytes, cap);
        if (!grown) return -1;
        memset(grown + w->capacity, 0, cap - w->capacity);
        w->bytes = grown;
        w->capacity = cap;
    }
    memcpy(w->bytes + offset, buffer, (size_t)sz);
    if (end > w->size) w->size = (size_t)end;
    return (int64_t)sz;
}

static int fail(char *err, size_t errlen, const char *msg) {
    snprintf(err, errlen, "%s", msg);
    return -1;
}

// The library's message when its handler left one, else the code's own.
static int failed_with(tp_exr_reader *r, exr_result_t code) {
    if (!r->failed) snprintf(r->err, r->errlen, "EXR: %s", exr_get_default_error_message(code));
    return -1;
}

// Which RGBA slot a channel name fills: 0–3, 4 for Y (luminance: R, G and B), -1 for none.
static int slot_of(const char *name) {
    if (!strcmp(name, "R")) return 0;
    if (!strcmp(name, "G")) return 1;
    if (!strcmp(name, "B")) return 2;
    if (!strcmp(name, "A")) return 3;
    if (!strcmp(name, "Y")) return 4;
    return -1;
}

static int open_file(const uint8_t *data, size_t size, tp_exr_reader *r, exr_context_t *ctxt, tp_exr_info *info) {
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    init.user_data = r;
    init.read_fn = mem_read;
    init.size_fn = mem_size;
    init.error_handler_fn = reader_error;
    init.flags = EXR_CONTEXT_FLAG_DISABLE_CHUNK_RECONSTRUCTION;
    if (size < 8 || data[0] != 0x76 || data[1] != 0x2f || data[2] != 0x31 || data[3] != 0x01)
        return fail(r->err, r->errlen, "not an OpenEXR file (bad signature)");
    exr_result_t rv = exr_start_read(ctxt, "image.exr", &init);
    if (rv != EXR_ERR_SUCCESS) return failed_with(r, rv);
    exr_storage_t storage;
    if ((rv = exr_get_storage(*ctxt, 0, &storage)) != EXR_ERR_SUCCESS) return failed_with(r, rv);
    if (storage != EXR_STORAGE_SCANLINE && storage != EXR_STORAGE_TILED)
        return fail(r->err, r->errlen, "EXR: deep images are not supported (flatten them first)");
    exr_attr_box2i_t dw;
    if ((rv = exr_get_data_window(*ctxt, 0, &dw)) != EXR_ERR_SUCCESS) return failed_with(r, rv);
    int64_t w = (int64_t)dw.max.x - dw.min.x + 1, h = (int64_t)dw.max.y - dw.min.y + 1;
    if (w <= 0 || h <= 0 || w > INT32_MAX || h > INT32_MAX) return fail(r->err, r->errlen, "EXR: empty data window");
    const exr_attr_chlist_t *chlist = NULL;
    if ((rv = exr_get_channels(*ctxt, 0, &chlist)) != EXR_ERR_SUCCESS) return failed_with(r, rv);
    exr_compression_t comp = EXR_COMPRESSION_NONE;
    exr_get_compression(*ctxt, 0, &comp);
    memset(info, 0, sizeof *info);
    info->width = (int32_t)w;
    info->height = (int32_t)h;
    info->tiled = storage == EXR_STORAGE_TILED;
    info->compression = (int)comp;
    info->channels = chlist->num_channels;
    info->half = 1;
    int colour = 0;
    for (int c = 0; c < chlist->num_channels; c++) {
        const exr_attr_chlist_entry_t *e = &chlist->entries[c];
        int s = slot_of(e->name.str);
        if (s < 0) continue;
        colour = 1;
        if (s == 3) info->has_alpha = 1;
        if (e->pixel_type != EXR_PIXEL_HALF) info->half = 0;
        if (e->x_sampling != 1 || e->y_sampling != 1)
            return fail(r->err, r->errlen, "EXR: subsampled channels are not supported");
    }
    if (!colour) return fail(r->err, r->errlen, "EXR: no R, G, B, A or Y channel");
    return 0;
}

int tp_exr_info_read(const uint8_t *data, size_t size, tp_exr_info *info, char *err, size_t errlen) {
    tp_exr_reader r = {data, size, err, errlen, 0};
    exr_context_t ctxt = NULL;
    int status = open_file(data, size, &r, &ctxt, info);
    if (ctxt) exr_finish(&ctxt);
    return status;
}

// Decodes one chunk (a band of scanlines or a tile at x0, y0 of the image) into the RGBA floats.
// Each channel goes to a plane of its own in `scratch` first: OpenEXRCore 3.1's fast path for four
// interleaved half channels writes them in the file's order (A, B, G, R) whatever the pointers say.
// A channel texpipe does not read still gets a plane (after the five it reads): the library's
// fast paths write through every channel's pointer, a NULL one included (a fuzzed file with an
// unknown channel name crashed it so).
static int decode_chunk(exr_context_t ctxt, const exr_chunk_info_t *cinfo, int32_t x0, int32_t y0,
                        exr_decode_pipeline_t *dec, int *initialised, float *pixels, int32_t width,
                        float **scratch, size_t *scratch_count, tp_exr_reader *r) {
    exr_result_t rv;
    if (!*initialised) {
        if ((rv = exr_decoding_initialize(ctxt, 0, cinfo, dec)) != EXR_ERR_SUCCESS) return failed_with(r, rv);
        *initialised = 1;
    } else if ((rv = exr_decoding_update(ctxt, 0, cinfo, dec)) != EXR_ERR_SUCCESS) {
        return failed_with(r, rv);
    }
    size_t plane = (size_t)cinfo->width * cinfo->height;
    if (plane == 0) return 0;
    size_t planes = 5 + (size_t)(dec->channel_count > 0 ? dec->channel_count : 0);
    if (*scratch_count < plane * planes) {
        float *grown = realloc(*scratch, plane * planes * sizeof(float));
        if (!grown) return fail(r->err, r->errlen, "EXR: out of memory");
        *scratch = grown;
        *scratch_count = plane * planes;
    }
    int used[5] = {0, 0, 0, 0, 0};
    for (int c = 0; c < dec->channel_count; c++) {
        exr_coding_channel_info_t *ch = &dec->channels[c];
        int s = slot_of(ch->channel_name);
        ch->user_data_type = EXR_PIXEL_FLOAT;
        ch->user_bytes_per_element = 4;
        ch->user_pixel_stride = 4;
        ch->user_line_stride = cinfo->width * 4;
        if (s < 0 || used[s]) {
            ch->decode_to_ptr = (uint8_t *)(*scratch + plane * (5 + (size_t)c));  // read, then dropped
            continue;
        }
        used[s] = 1;
        ch->decode_to_ptr = (uint8_t *)(*scratch + plane * s);
    }
    if ((rv = exr_decoding_choose_default_routines(ctxt, 0, dec)) != EXR_ERR_SUCCESS) return failed_with(r, rv);
    if ((rv = exr_decoding_run(ctxt, 0, dec)) != EXR_ERR_SUCCESS) return failed_with(r, rv);
    for (int s = 0; s < 5; s++) {
        // Y fills R, G and B only in a luminance-only file.
        if (!used[s] || (s == 4 && (used[0] || used[1] || used[2]))) continue;
        const float *src = *scratch + plane * s;
        for (int32_t y = 0; y < cinfo->height; y++) {
            float *row = pixels + ((size_t)(y0 + y) * width + x0) * 4;
            for (int32_t x = 0; x < cinfo->width; x++) {
                float v = src[(size_t)y * cinfo->width + x];
                if (s == 4) {
                    row[4 * x] = row[4 * x + 1] = row[4 * x + 2] = v;
                } else {
                    row[4 * x + s] = v;
                }
            }
        }
    }
    return 0;
}

int tp_exr_decode(const uint8_t *data, size_t size, uint64_t max_pixels, float *pixels, size_t capacity,
                  tp_exr_info *info, char *err, size_t errlen) {
    tp_exr_reader r = {data, size, err, errlen, 0};
    exr_context_t ctxt = NULL;
    exr_decode_pipeline_t dec = EXR_DECODE_PIPELINE_INITIALIZER;
    int initialised = 0;
    float *scratch = NULL;
    size_t scratch_count = 0;
    int status = open_file(data, size, &r, &ctxt, info);
    if (status == 0) {
        uint64_t w = (uint64_t)info->width, h = (uint64_t)info->height;
        if (w * h > max_pixels) {
            snprintf(err, errlen, "EXR: %llu×%llu is over the pixel limit (%llu)", (unsigned long long)w,
                     (unsigned long long)h, (unsigned long long)max_pixels);
            status = -1;
        } else if (w * h * 4 > capacity) {
            status = fail(err, errlen, "EXR: buffer too small");
        }
    }
    if (status == 0) {
        size_t n = (size_t)info->width * info->height;
        for (size_t i = 0; i < n; i++) {
            pixels[4 * i] = pixels[4 * i + 1] = pixels[4 * i + 2] = 0;
            pixels[4 * i + 3] = 1;
        }
        exr_attr_box2i_t dw;
        exr_get_data_window(ctxt, 0, &dw);
        if (!info->tiled) {
            int32_t lines = 1;
            exr_result_t rv = exr_get_scanlines_per_chunk(ctxt, 0, &lines);
            if (rv != EXR_ERR_SUCCESS || lines < 1) status = failed_with(&r, rv ? rv : EXR_ERR_CORRUPT_CHUNK);
            for (int64_t y = dw.min.y; status == 0 && y <= dw.max.y; y += lines) {
                exr_chunk_info_t cinfo;
                rv = exr_read_scanline_chunk_info(ctxt, 0, (int)y, &cinfo);
                if (rv != EXR_ERR_SUCCESS) {
                    status = failed_with(&r, rv);
                    break;
                }
                // A chunk starts at or above y (its first line is a multiple of `lines` from the top).
                int32_t top = cinfo.start_y - dw.min.y;
                if (top < 0 || top + cinfo.height > info->height) {
                    status = fail(err, errlen, "EXR: a chunk lies outside the data window");
                    break;
                }
                status = decode_chunk(ctxt, &cinfo, 0, top, &dec, &initialised, pixels, info->width, &scratch, &scratch_count, &r);
            }
        } else {
            int32_t tw = 0, th = 0;
            exr_result_t rv = exr_get_tile_sizes(ctxt, 0, 0, 0, &tw, &th);
            if (rv != EXR_ERR_SUCCESS || tw < 1 || th < 1) status = failed_with(&r, rv ? rv : EXR_ERR_INVALID_ATTR);
            int64_t across = status == 0 ? ((int64_t)info->width + tw - 1) / tw : 0;
            int64_t down = status == 0 ? ((int64_t)info->height + th - 1) / th : 0;
            for (int64_t ty = 0; status == 0 && ty < down; ty++) {
                for (int64_t tx = 0; status == 0 && tx < across; tx++) {
                    exr_chunk_info_t cinfo;
                    rv = exr_read_tile_chunk_info(ctxt, 0, (int)tx, (int)ty, 0, 0, &cinfo);
                    if (rv != EXR_ERR_SUCCESS) {
                        status = failed_with(&r, rv);
                        break;
                    }
                    int32_t x0 = (int32_t)(tx * tw), y0 = (int32_t)(ty * th);
                    if (cinfo.width < 0 || cinfo.height < 0 || x0 + cinfo.width > info->width ||
                        y0 + cinfo.height > info->height) {
                        status = fail(err, errlen, "EXR: a tile lies outside the data window");
                        break;
                    }
                    status = decode_chunk(ctxt, &cinfo, x0, y0, &dec, &initialised, pixels, info->width, &scratch,
                                          &scratch_count, &r);
                }
            }
        }
    }
    free(scratch);
    if (initialised) exr_decoding_destroy(ctxt, &dec);
    if (ctxt) exr_finish(&ctxt);
    return status;
}

int tp_exr_encode(const uint16_t *half_rgba, int32_t width, int32_t height, int with_alpha, int zip,
                  uint8_t **out, size_t *out_size, char *err, size_t errlen) {
    tp_exr_writer w = {NULL, 0, 0, 0, err, errlen};
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    init.user_data = &w;
    init.write_fn = mem_write;
    init.error_handler_fn = writer_error;
    exr_context_t ctxt = NULL;
    exr_encode_pipeline_t enc = EXR_ENCODE_PIPELINE_INITIALIZER;
    int initialised = 0, part = 0;
    uint16_t *scratch = NULL;
    size_t scratch_count = 0;
    exr_result_t rv = exr_start_write(&ctxt, "image.exr", EXR_WRITE_FILE_DIRECTLY, &init);
    if (rv == EXR_ERR_SUCCESS) rv = exr_add_part(ctxt, "main", EXR_STORAGE_SCANLINE, &part);
    if (rv == EXR_ERR_SUCCESS) rv = exr_initialize_required_attr_simple(ctxt, part, width, height, zip ? EXR_COMPRESSION_ZIP : EXR_COMPRESSION_NONE);
    // Channels in the file's (alphabetical) order; each reads its place in the RGBA texels.
    const char *names[4] = {"A", "B", "G", "R"};
    for (int c = with_alpha ? 0 : 1; rv == EXR_ERR_SUCCESS && c < 4; c++)
        rv = exr_add_channel(ctxt, part, names[c], EXR_PIXEL_HALF, EXR_PERCEPTUALLY_LOGARITHMIC, 1, 1);
    if (rv == EXR_ERR_SUCCESS) rv = exr_write_header(ctxt);
    int32_t lines = 1;
    if (rv == EXR_ERR_SUCCESS) rv = exr_get_scanlines_per_chunk(ctxt, part, &lines);
    for (int32_t y = 0; rv == EXR_ERR_SUCCESS && y < height; y += lines) {
        exr_chunk_info_t cinfo;
        rv = exr_write_scanline_chunk_info(ctxt, part, y, &cinfo);
        if (rv != EXR_ERR_SUCCESS) break;
        rv = initialised ? exr_encoding_update(ctxt, part, &cinfo, &enc)
                         : exr_encoding_initialize(ctxt, part, &cinfo, &enc);
        if (rv != EXR_ERR_SUCCESS) break;
        initialised = 1;
        // Planes, one per channel (as decoding: the interleaved fast paths assume the file's order).
        size_t plane = (size_t)cinfo.width * cinfo.height;
        if (plane * 4 > scratch_count) {
            uint16_t *grown = realloc(scratch, plane * 4 * sizeof(uint16_t));
            if (!grown) {
                rv = EXR_ERR_OUT_OF_MEMORY;
                break;
            }
            scratch = grown;
            scratch_count = plane * 4;
        }
        for (int c = 0; c < enc.channel_count; c++) {
            exr_coding_channel_info_t *ch = &enc.channels[c];
            int s = slot_of(ch->channel_name);
            uint16_t *dst = scratch + plane * s;
            for (size_t i = 0; i < plane; i++) dst[i] = half_rgba[((size_t)y * width) * 4 + i * 4 + s];
            ch->user_data_type = EXR_PIXEL_HALF;
            ch->user_bytes_per_element = 2;
            ch->user_pixel_stride = 2;
            ch->user_line_stride = cinfo.width * 2;
            ch->encode_from_ptr = (const uint8_t *)dst;
        }
        rv = exr_encoding_choose_default_routines(ctxt, part, &enc);
        if (rv == EXR_ERR_SUCCESS) rv = exr_encoding_run(ctxt, part, &enc);
    }
    free(scratch);
    if (initialised) exr_encoding_destroy(ctxt, &enc);
    exr_result_t fin = ctxt ? exr_finish(&ctxt) : EXR_ERR_SUCCESS;
    if (rv == EXR_ERR_SUCCESS) rv = fin;
    if (rv != EXR_ERR_SUCCESS || w.failed) {
        if (!w.failed) snprintf(err, errlen, "EXR encoder: %s", exr_get_default_error_message(rv));
        free(w.bytes);
        return -1;
    }
    *out = w.bytes;
    *out_size = w.size;
    return 0;
}
