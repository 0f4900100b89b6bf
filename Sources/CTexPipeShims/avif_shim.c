// libavif calls for texpipe: the header (boxes only), the decoder (dav1d or libaom, one thread)
// with libavif's own YUV → RGB, and the encoder (libaom, one thread) with libavif's own RGB → YUV:
// libyuv's SIMD conversions are not promised to match its C ones, libavif's own code is the same on
// every CPU. See tp_web.h.
#include "tp_web.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <avif/avif.h>

static int fail(char *err, size_t errlen, const char *msg) {
    if (err && errlen) snprintf(err, errlen, "%s", msg);
    return -1;
}

// "what: libavif's result (its diagnostic)", one line.
static int fail_result(char *err, size_t errlen, const char *what, avifResult r, const avifDiagnostics *diag) {
    if (err && errlen) {
        if (diag && diag->error[0])
            snprintf(err, errlen, "%s: %s (%s)", what, avifResultToString(r), diag->error);
        else
            snprintf(err, errlen, "%s: %s", what, avifResultToString(r));
        for (char *c = err; *c; c++)
            if (*c == '\n' || *c == '\r') *c = ' ';
    }
    return -1;
}

static avifDecoder *open_decoder(const uint8_t *data, size_t size, uint64_t max_pixels, tp_web_info *info,
                                 char *err, size_t errlen) {
    memset(info, 0, sizeof *info);
    avifDecoder *dec = avifDecoderCreate();
    if (!dec) {
        fail(err, errlen, "out of memory");
        return NULL;
    }
    dec->maxThreads = 1;
    dec->ignoreExif = AVIF_TRUE;
    dec->ignoreXMP = AVIF_TRUE;
    if (max_pixels < dec->imageSizeLimit) dec->imageSizeLimit = max_pixels ? (uint32_t)max_pixels : 1;
    avifResult r = avifDecoderSetIOMemory(dec, data, size);
    if (r == AVIF_RESULT_OK) r = avifDecoderParse(dec);
    if (r != AVIF_RESULT_OK) {
        fail_result(err, errlen, "not a readable AVIF", r, &dec->diag);
        avifDecoderDestroy(dec);
        return NULL;
    }
    const avifImage *im = dec->image;
    if (im->width == 0 || im->height == 0) {
        fail(err, errlen, "zero-sized AVIF");
        avifDecoderDestroy(dec);
        return NULL;
    }
    info->width = im->width;
    info->height = im->height;
    info->bit_depth = (int)im->depth;
    info->out_depth = im->depth > 8 ? 16 : 8;
    info->has_alpha = dec->alphaPresent != 0;
    info->frames = dec->imageCount;
    info->yuv_format = (int)im->yuvFormat;
    info->primaries = (int)im->colorPrimaries;
    info->transfer = (int)im->transferCharacteristics;
    info->matrix = (int)im->matrixCoefficients;
    info->full_range = im->yuvRange == AVIF_RANGE_FULL;
    info->alpha_premultiplied = im->alphaPremultiplied != 0;
    info->icc_size = im->icc.size;
    return dec;
}

int tp_avif_info(const uint8_t *data, size_t size, tp_web_info *info, char *err, size_t errlen) {
    avifDecoder *dec = open_decoder(data, size, UINT32_MAX, info, err, errlen);
    if (!dec) return -1;
    avifDecoderDestroy(dec);
    return 0;
}

int tp_avif_decode(const uint8_t *data, size_t size, uint64_t max_pixels, int want16,
                   void *pixels, size_t capacity, tp_web_info *info, char *err, size_t errlen) {
    avifDecoder *dec = open_decoder(data, size, max_pixels, info, err, errlen);
    if (!dec) return -1;
    if ((uint64_t)info->width * info->height > max_pixels) {
        avifDecoderDestroy(dec);
        return fail(err, errlen, "image over the pixel limit");
    }
    if (want16) info->out_depth = 16;
    size_t stride = (size_t)info->width * 4 * (size_t)(info->out_depth / 8);
    if (capacity != stride * info->height) {
        avifDecoderDestroy(dec);
        return fail(err, errlen, "buffer size mismatch");
    }
    avifResult r = avifDecoderNextImage(dec);
    if (r != AVIF_RESULT_OK) {
        fail_result(err, errlen, "corrupt AVIF", r, &dec->diag);
        avifDecoderDestroy(dec);
        return -1;
    }
    // The AV1 payload may disagree with the container's header: only the header's size was checked.
    if (dec->image->width != info->width || dec->image->height != info->height) {
        avifDecoderDestroy(dec);
        return fail(err, errlen, "corrupt AVIF: the image's size differs from its header's");
    }
    avifRGBImage rgb;
    avifRGBImageSetDefaults(&rgb, dec->image);
    rgb.format = AVIF_RGB_FORMAT_RGBA;
    rgb.depth = (uint32_t)info->out_depth;
    rgb.avoidLibYUV = AVIF_TRUE;
    rgb.chromaUpsampling = AVIF_CHROMA_UPSAMPLING_BILINEAR;
    rgb.alphaPremultiplied = AVIF_FALSE;
    rgb.pixels = pixels;
    rgb.rowBytes = (uint32_t)stride;
    r = avifImageYUVToRGB(dec->image, &rgb);
    if (r != AVIF_RESULT_OK) {
        fail_result(err, errlen, "AVIF colour conversion", r, NULL);
        avifDecoderDestroy(dec);
        return -1;
    }
    avifDecoderDestroy(dec);
    return 0;
}

int tp_avif_encode(const void *rgba, uint32_t width, uint32_t height, int in_depth, size_t stride,
                   const tp_avif_params *params, uint8_t **out, size_t *out_size,
                   char *err, size_t errlen) {
    *out = NULL;
    *out_size = 0;
    if (!avifCodecName(AVIF_CODEC_CHOICE_AOM, AVIF_CODEC_FLAG_CAN_ENCODE))
        return fail(err, errlen, "this libavif has no libaom encoder");
    avifImage *image = avifImageCreate(width, height, (uint32_t)params->depth,
                                       params->yuv420 ? AVIF_PIXEL_FORMAT_YUV420 : AVIF_PIXEL_FORMAT_YUV444);
    if (!image) return fail(err, errlen, "out of memory");
    image->colorPrimaries = AVIF_COLOR_PRIMARIES_BT709;
    image->transferCharacteristics = AVIF_TRANSFER_CHARACTERISTICS_SRGB;
    image->matrixCoefficients = AVIF_MATRIX_COEFFICIENTS_BT601;
    image->yuvRange = AVIF_RANGE_FULL;
    avifRGBImage rgb;
    avifRGBImageSetDefaults(&rgb, image);
    rgb.depth = (uint32_t)in_depth;
    rgb.format = AVIF_RGB_FORMAT_RGBA;
    rgb.ignoreAlpha = params->has_alpha ? AVIF_FALSE : AVIF_TRUE;
    rgb.avoidLibYUV = AVIF_TRUE;
    rgb.chromaDownsampling = AVIF_CHROMA_DOWNSAMPLING_AVERAGE;
    rgb.pixels = (uint8_t *)rgba;
    rgb.rowBytes = (uint32_t)stride;
    avifResult r = avifImageRGBToYUV(image, &rgb);
    if (r != AVIF_RESULT_OK) {
        avifImageDestroy(image);
        return fail_result(err, errlen, "AVIF colour conversion", r, NULL);
    }
    avifEncoder *enc = avifEncoderCreate();
    if (!enc) {
        avifImageDestroy(image);
        return fail(err, errlen, "out of memory");
    }
    enc->codecChoice = AVIF_CODEC_CHOICE_AOM;
    enc->maxThreads = 1;
    enc->speed = params->speed;
    enc->minQuantizer = enc->maxQuantizer = params->quantizer;
    enc->minQuantizerAlpha = enc->maxQuantizerAlpha = params->alpha_quantizer;
    avifRWData output = AVIF_DATA_EMPTY;
    r = avifEncoderWrite(enc, image, &output);
    int status = 0;
    if (r != AVIF_RESULT_OK) {
        status = fail_result(err, errlen, "libavif", r, &enc->diag);
    } else {
        uint8_t *copy = malloc(output.size ? output.size : 1);
        if (!copy) {
            status = fail(err, errlen, "out of memory");
        } else {
            memcpy(copy, output.data, output.size);
            *out = copy;
            *out_size = output.size;
        }
    }
    avifRWDataFree(&output);
    avifEncoderDestroy(enc);
    avifImageDestroy(image);
    return status;
}
