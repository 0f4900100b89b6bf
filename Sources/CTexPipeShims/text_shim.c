// Text for composite's text layers: fontconfig finds the file, FreeType lays out one line
// (advances + kerning, fractional pen positions) and renders anti-aliased coverage.
#include "tp_shims.h"

#include <ft2build.h>
#include FT_FREETYPE_H
#include FT_GLYPH_H
#include FT_STROKER_H
#include <fontconfig/fontconfig.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t fc_lock = PTHREAD_MUTEX_INITIALIZER;

// Family names compared as fontconfig does: ignoring case and blanks.
static int same_family(const char *a, const char *b) {
    for (;;) {
        while (*a == ' ') a++;
        while (*b == ' ') b++;
        char x = (*a >= 'A' && *a <= 'Z') ? (char)(*a + 32) : *a;
        char y = (*b >= 'A' && *b <= 'Z') ? (char)(*b + 32) : *b;
        if (x != y) return 0;
        if (!x) return 1;
        a++;
        b++;
    }
}

int tp_font_find(const char *pattern, char *path, size_t pathlen, int *face_index,
                 char *family, size_t familylen, char *err, size_t errlen) {
    int status = -1;
    pthread_mutex_lock(&fc_lock);
    FcPattern *pat = FcNameParse((const FcChar8 *)pattern);
    FcPattern *match = NULL;
    if (!pat) {
        snprintf(err, errlen, "not a fontconfig pattern");
        goto done;
    }
    if (!FcConfigSubstitute(NULL, pat, FcMatchPattern)) {
        snprintf(err, errlen, "fontconfig could not be initialised");
        goto done;
    }
    FcDefaultSubstitute(pat);
    FcResult result;
    match = FcFontMatch(NULL, pat, &result);
    if (!match || result != FcResultMatch) {
        snprintf(err, errlen, "no font matches");
        goto done;
    }
    // FcFontMatch always offers something; the font is missing when none of the matched
    // font's families is the first family asked for (compared as fontconfig does).
    FcPattern *asked = FcNameParse((const FcChar8 *)pattern);
    FcChar8 *want = NULL;
    int wanted = asked && FcPatternGetString(asked, FC_FAMILY, 0, &want) == FcResultMatch;
    FcChar8 *got = NULL;
    int found = !wanted;
    for (int i = 0; wanted && FcPatternGetString(match, FC_FAMILY, i, &got) == FcResultMatch; i++) {
        if (same_family((const char *)want, (const char *)got)) found = 1;
    }
    FcChar8 *first = NULL;
    FcPatternGetString(match, FC_FAMILY, 0, &first);
    snprintf(family, familylen, "%s", first ? (const char *)first : "");
    if (!found) {
        snprintf(err, errlen, "fontconfig has no family \"%s\" (it would fall back to \"%s\")",
                 (const char *)want, first ? (const char *)first : "?");
        if (asked) FcPatternDestroy(asked);
        goto done;
    }
    if (asked) FcPatternDestroy(asked);
    FcChar8 *file = NULL;
    if (FcPatternGetString(match, FC_FILE, 0, &file) != FcResultMatch) {
        snprintf(err, errlen, "fontconfig matched a font without a file");
        goto done;
    }
    int index = 0;
    FcPatternGetInteger(match, FC_INDEX, 0, &index);
    snprintf(path, pathlen, "%s", (const char *)file);
    *face_index = index;
    status = 0;
done:
    if (match) FcPatternDestroy(match);
    if (pat) FcPatternDestroy(pat);
    pthread_mutex_unlock(&fc_lock);
    return status;
}

// Next code point of UTF-8 `s` at *i; -1 on a malformed sequence.
static int32_t next_code_point(const unsigned char *s, size_t *i) {
    unsigned c = s[*i];
    int extra = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : -1;
    if (extra < 0) return -1;
    int32_t cp = extra == 0 ? (int32_t)c : (int32_t)(c & (0x3F >> extra));
    for (int k = 1; k <= extra; k++) {
        unsigned d = s[*i + k];
        if ((d & 0xC0) != 0x80) return -1;
        cp = (cp << 6) | (int32_t)(d & 0x3F);
    }
    *i += 1 + extra;
    return cp;
}

typedef struct {
    FT_Library library;
    FT_Face face;
    FT_Stroker stroker;
    FT_Glyph *fills;
    FT_Glyph *outlines;
    int32_t *pens;  // each glyph's whole-pixel pen position
    size_t count;
} text_context;

static void release(text_context *c) {
    for (size_t i = 0; i < c->count; i++) {
        if (c->fills && c->fills[i]) FT_Done_Glyph(c->fills[i]);
        if (c->outlines && c->outlines[i]) FT_Done_Glyph(c->outlines[i]);
    }
    free(c->fills);
    free(c->outlines);
    free(c->pens);
    if (c->stroker) FT_Stroker_Done(c->stroker);
    if (c->face) FT_Done_Face(c->face);
    if (c->library) FT_Done_FreeType(c->library);
}

// Adds a rendered glyph into `dst` (saturating), its top-left at (x, y) in dst's frame.
static void blit(uint8_t *dst, int32_t w, FT_BitmapGlyph g, int32_t x, int32_t y) {
    for (unsigned r = 0; r < g->bitmap.rows; r++) {
        const uint8_t *src = g->bitmap.buffer + (ptrdiff_t)r * g->bitmap.pitch;
        uint8_t *row = dst + (size_t)(y + (int32_t)r) * (size_t)w + (size_t)x;
        for (unsigned k = 0; k < g->bitmap.width; k++) {
            unsigned v = row[k] + src[k];
            row[k] = (uint8_t)(v > 255 ? 255 : v);
        }
    }
}

int tp_text_render(const char *font_path, int face_index, double size_px, const char *text,
                   double outline_px, tp_text_bitmap *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    text_context c = {0};
    size_t len = strlen(text);
    FT_Error e;
    if ((e = FT_Init_FreeType(&c.library))) {
        snprintf(err, errlen, "FreeType could not start (error %d)", e);
        goto fail;
    }
    if ((e = FT_New_Face(c.library, font_path, face_index, &c.face))) {
        snprintf(err, errlen, "FreeType cannot read the font %s (error %d)", font_path, e);
        goto fail;
    }
    if (!FT_IS_SCALABLE(c.face)) {
        snprintf(err, errlen, "the font %s is a bitmap font; texpipe needs an outline font", font_path);
        goto fail;
    }
    if ((e = FT_Set_Char_Size(c.face, 0, (FT_F26Dot6)(size_px * 64 + 0.5), 72, 72))) {
        snprintf(err, errlen, "FreeType cannot size the font to %g px (error %d)", size_px, e);
        goto fail;
    }
    if (outline_px > 0) {
        if ((e = FT_Stroker_New(c.library, &c.stroker))) {
            snprintf(err, errlen, "FreeType stroker failed (error %d)", e);
            goto fail;
        }
        FT_Stroker_Set(c.stroker, (FT_Fixed)(outline_px * 64 + 0.5), FT_STROKER_LINECAP_ROUND,
                       FT_STROKER_LINEJOIN_ROUND, 0);
    }
    c.fills = calloc(len + 1, sizeof(FT_Glyph));
    c.outlines = calloc(len + 1, sizeof(FT_Glyph));
    c.pens = calloc(len + 1, sizeof(int32_t));
    if (!c.fills || !c.outlines || !c.pens) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    FT_Pos pen = 0;  // 26.6
    FT_UInt previous = 0;
    int use_kerning = FT_HAS_KERNING(c.face);
    int32_t x0 = INT32_MAX, y0 = INT32_MAX, x1 = INT32_MIN, y1 = INT32_MIN;
    size_t i = 0;
    while (i < len) {
        int32_t cp = next_code_point((const unsigned char *)text, &i);
        if (cp < 0) {
            snprintf(err, errlen, "the text is not valid UTF-8");
            goto fail;
        }
        FT_UInt gi = FT_Get_Char_Index(c.face, (FT_ULong)cp);
        if (gi == 0) {
            snprintf(err, errlen, "the font %s has no glyph for U+%04X", font_path, (unsigned)cp);
            goto fail;
        }
        if (use_kerning && previous) {
            FT_Vector k;
            if (!FT_Get_Kerning(c.face, previous, gi, FT_KERNING_UNFITTED, &k)) pen += k.x;
        }
        if ((e = FT_Load_Glyph(c.face, gi, FT_LOAD_NO_HINTING | FT_LOAD_NO_BITMAP))) {
            snprintf(err, errlen, "FreeType cannot load glyph U+%04X (error %d)", (unsigned)cp, e);
            goto fail;
        }
        size_t n = c.count++;
        if ((e = FT_Get_Glyph(c.face->glyph, &c.fills[n]))) {
            snprintf(err, errlen, "FreeType cannot copy glyph U+%04X (error %d)", (unsigned)cp, e);
            goto fail;
        }
        FT_Vector origin = {pen & 63, 0};
        FT_Pos whole = pen >> 6;
        c.pens[n] = (int32_t)whole;
        FT_Glyph *targets[2] = {&c.fills[n], c.stroker ? &c.outlines[n] : NULL};
        if (c.stroker) {
            if ((e = FT_Glyph_Copy(c.fills[n], &c.outlines[n])) ||
                (e = FT_Glyph_StrokeBorder(&c.outlines[n], c.stroker, 0, 1))) {
                snprintf(err, errlen, "FreeType cannot stroke glyph U+%04X (error %d)", (unsigned)cp, e);
                goto fail;
            }
        }
        for (int t = 0; t < 2; t++) {
            if (!targets[t]) continue;
            if ((e = FT_Glyph_To_Bitmap(targets[t], FT_RENDER_MODE_NORMAL, &origin, 1))) {
                snprintf(err, errlen, "FreeType cannot render glyph U+%04X (error %d)", (unsigned)cp, e);
                goto fail;
            }
            FT_BitmapGlyph b = (FT_BitmapGlyph)*targets[t];
            if (b->bitmap.width == 0 || b->bitmap.rows == 0) continue;
            int32_t left = (int32_t)whole + b->left, top = -b->top;
            if (left < x0) x0 = left;
            if (top < y0) y0 = top;
            if (left + (int32_t)b->bitmap.width > x1) x1 = left + (int32_t)b->bitmap.width;
            if (top + (int32_t)b->bitmap.rows > y1) y1 = top + (int32_t)b->bitmap.rows;
        }
        pen += c.face->glyph->advance.x;
        previous = gi;
    }
    if (x0 >= x1 || y0 >= y1) {  // only spaces, or empty: nothing to draw
        release(&c);
        return 0;
    }
    out->width = x1 - x0;
    out->height = y1 - y0;
    out->left = x0;
    out->top = y0;
    size_t area = (size_t)out->width * (size_t)out->height;
    out->fill = calloc(area, 1);
    out->outline = c.stroker ? calloc(area, 1) : NULL;
    if (!out->fill || (c.stroker && !out->outline)) {
        free(out->fill);
        free(out->outline);
        memset(out, 0, sizeof *out);
        snprintf(err, errlen, "out of memory for a %dx%d text bitmap", x1 - x0, y1 - y0);
        goto fail;
    }
    for (size_t n = 0; n < c.count; n++) {
        FT_BitmapGlyph f = (FT_BitmapGlyph)c.fills[n];
        blit(out->fill, out->width, f, c.pens[n] + f->left - x0, -f->top - y0);
        if (c.stroker) {
            FT_BitmapGlyph o = (FT_BitmapGlyph)c.outlines[n];
            blit(out->outline, out->width, o, c.pens[n] + o->left - x0, -o->top - y0);
        }
    }
    release(&c);
    return 0;
fail:
    release(&c);
    return -1;
}
