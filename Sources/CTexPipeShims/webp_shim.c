// libwebp calls for texpipe: the header, the decoder (an animation's first frame through
// libwebpdemux's animation decoder) and the encoder, single-threaded. See tp_web.h.
#include "tp_web.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <webp/decode.h>
#include <webp/demux.h>
#include <webp/encode.h>

static int fail(char *err, size_t errlen, const char *msg) {
    if (err && errlen) snprintf(err, errlen, "%s", msg);
    return -1;
}

static const char *status_text(VP8StatusCode s) {
    switch (s) {
    case VP8_STATUS_OUT_OF_MEMORY: return "out of memory";
    case VP8_STATUS_INVALID_PARAM: return "invalid parameter";
    case VP8_STATUS_BITSTREAM_ERROR: return "corrupt WebP data";
    case VP8_STATUS_UNSUPPORTED_FEATURE: return "unsupported WebP feature";
    case VP8_STATUS_SUSPENDED: return "WebP decoding suspended";
    case VP8_STATUS_USER_ABORT: return "WebP decoding aborted";
    case VP8_STATUS_NOT_ENOUGH_DATA: return "truncated WebP data";
    default: return "WebP error";
    }
}

int tp_webp_info(const uint8_t *data, size_t size, tp_web_info *info, char *err, size_t errlen) {
    memset(info, 0, sizeof *info);
    WebPBitstreamFeatures f;
    VP8StatusCode s = WebPGetFeatures(data, size, &f);
    if (s != VP8_STATUS_OK) return fail(err, errlen, status_text(s));
    if (f.width <= 0 || f.height <= 0) return fail(err, errlen, "zero-sized WebP");
    info->width = (uint32_t)f.width;
    info->height = (uint32_t)f.height;
    info->out_depth = 8;
    info->has_alpha = f.has_alpha != 0;
    info->webp_format = f.format;
    info->bit_depth = 8;
    info->frames = 1;
    // The chunks: the frame count of an animation and the ICC profile's size (for inspect).
    WebPData d = {data, size};
    WebPDemuxer *demux = WebPDemux(&d);
    if (!demux) return fail(err, errlen, f.has_animation ? "corrupt WebP animation" : "corrupt WebP data");
    if (f.has_animation) info->frames = (int)WebPDemuxGetI(demux, WEBP_FF_FRAME_COUNT);
    if (WebPDemuxGetI(demux, WEBP_FF_FORMAT_FLAGS) & ICCP_FLAG) {
        WebPChunkIterator it;
        if (WebPDemuxGetChunk(demux, "ICCP", 1, &it)) {
            info->icc_size = it.chunk.size;
            WebPDemuxReleaseChunkIterator(&it);
        }
    }
    WebPDemuxDelete(demux);
    if (info->frames < 1) return fail(err, errlen, "WebP animation without frames");
    info->has_animation = f.has_animation != 0;
    return 0;
}

static int first_frame(const uint8_t *data, size_t size, uint8_t *pixels, size_t capacity,
                       const tp_web_info *info, char *err, size_t errlen) {
    WebPAnimDecoderOptions options;
    if (!WebPAnimDecoderOptionsInit(&options)) return fail(err, errlen, "libwebp version mismatch");
    options.color_mode = MODE_RGBA;
    options.use_threads = 0;
    WebPData d = {data, size};
    WebPAnimDecoder *dec = WebPAnimDecoderNew(&d, &options);
    if (!dec) return fail(err, errlen, "corrupt WebP animation");
    uint8_t *frame = NULL;
    int timestamp = 0;
    int ok = WebPAnimDecoderHasMoreFrames(dec) && WebPAnimDecoderGetNext(dec, &frame, &timestamp) && frame;
    if (ok) {
        WebPAnimInfo anim;
        ok = WebPAnimDecoderGetInfo(dec, &anim) && anim.canvas_width == info->width &&
             anim.canvas_height == info->height;
    }
    if (ok) memcpy(pixels, frame, capacity);
    WebPAnimDecoderDelete(dec);
    return ok ? 0 : fail(err, errlen, "corrupt WebP animation frame");
}

int tp_webp_decode(const uint8_t *data, size_t size, uint64_t max_pixels,
                   void *pixels, size_t capacity, tp_web_info *info, char *err, size_t errlen) {
    if (tp_webp_info(data, size, info, err, errlen) != 0) return -1;
    if ((uint64_t)info->width * info->height > max_pixels) return fail(err, errlen, "image over the pixel limit");
    size_t stride = (size_t)info->width * 4;
    if (capacity != stride * info->height) return fail(err, errlen, "buffer size mismatch");
    if (info->has_animation) return first_frame(data, size, pixels, capacity, info, err, errlen);
    if (!WebPDecodeRGBAInto(data, size, pixels, capacity, (int)stride)) {
        WebPBitstreamFeatures f;
        VP8StatusCode s = WebPGetFeatures(data, size, &f);
        return fail(err, errlen, s == VP8_STATUS_OK ? "corrupt WebP data" : status_text(s));
    }
    return 0;
}

static const char *encode_text(WebPEncodingError e) {
    switch (e) {
    case VP8_ENC_ERROR_OUT_OF_MEMORY: return "out of memory";
    case VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY: return "out of memory for the bitstream";
    case VP8_ENC_ERROR_BAD_DIMENSION: return "WebP takes at most 16383 pixels a side";
    case VP8_ENC_ERROR_PARTITION0_OVERFLOW: return "partition 0 overflow (lower the quality)";
    case VP8_ENC_ERROR_FILE_TOO_BIG: return "the file would exceed 4 GiB";
    default: return "libwebp failed";
    }
}

int tp_webp_encode(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride,
                   const tp_webp_params *params, uint8_t **out, size_t *out_size,
                   char *err, size_t errlen) {
    *out = NULL;
    *out_size = 0;
    if (width < 1 || height < 1 || width > WEBP_MAX_DIMENSION || height > WEBP_MAX_DIMENSION)
        return fail(err, errlen, "WebP takes 1 to 16383 pixels a side");
    WebPConfig config;
    if (!WebPConfigInit(&config)) return fail(err, errlen, "libwebp version mismatch");
    config.quality = params->quality;
    config.lossless = params->lossless;
    config.method = params->method;
    config.alpha_quality = params->alpha_quality;
    config.exact = params->lossless;
    config.thread_level = 0;
    if (!WebPValidateConfig(&config)) return fail(err, errlen, "invalid WebP settings");
    WebPPicture picture;
    if (!WebPPictureInit(&picture)) return fail(err, errlen, "libwebp version mismatch");
    picture.width = (int)width;
    picture.height = (int)height;
    picture.use_argb = params->lossless;
    if (!WebPPictureImportRGBA(&picture, rgba, (int)stride)) {
        WebPPictureFree(&picture);
        return fail(err, errlen, "out of memory");
    }
    WebPMemoryWriter writer;
    WebPMemoryWriterInit(&writer);
    picture.writer = WebPMemoryWrite;
    picture.custom_ptr = &writer;
    int ok = WebPEncode(&config, &picture);
    WebPEncodingError code = picture.error_code;
    WebPPictureFree(&picture);
    if (!ok) {
        WebPMemoryWriterClear(&writer);
        return fail(err, errlen, encode_text(code));
    }
    uint8_t *copy = malloc(writer.size ? writer.size : 1);
    if (!copy) {
        WebPMemoryWriterClear(&writer);
        return fail(err, errlen, "out of memory");
    }
    memcpy(copy, writer.mem, writer.size);
    *out = copy;
    *out_size = writer.size;
    WebPMemoryWriterClear(&writer);
    return 0;
}
