/* The codec floor: decode each PNG with libpng and re-encode it with libpng at the given zlib
   level (adaptive filters), writing the same number of output pixels as the operation under test.
   Usage: png_floor LEVEL OUTDIR FILE...   Built by Benchmarks/compare-peers.sh. */
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int copy(const char *in, const char *out, int level) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&image, in)) return 1;
    image.format = PNG_FORMAT_RGBA;
    png_bytep buffer = malloc(PNG_IMAGE_SIZE(image));
    if (!buffer || !png_image_finish_read(&image, NULL, buffer, 0, NULL)) return 1;
    FILE *f = fopen(out, "wb");
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    if (setjmp(png_jmpbuf(png))) return 1;
    png_init_io(png, f);
    png_set_IHDR(png, info, image.width, image.height, 8, PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, level);
    png_write_info(png, info);
    for (png_uint_32 y = 0; y < image.height; y++) png_write_row(png, buffer + (size_t)y * image.width * 4);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    fclose(f);
    free(buffer);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 4) return 2;
    int level = atoi(argv[1]);
    int failed = 0;
    for (int i = 3; i < argc; i++) {
        const char *name = strrchr(argv[i], '/');
        char out[4096];
        snprintf(out, sizeof out, "%s/%s", argv[2], name ? name + 1 : argv[i]);
        failed |= copy(argv[i], out, level);
    }
    return failed;
}
