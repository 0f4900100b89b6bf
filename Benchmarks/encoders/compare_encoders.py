#!/usr/bin/env python3
"""Block encoders side by side (issue #14): texpipe's (`texpipe encode-blocks`, one core) and the
references through their PyPI wheels — etcpak, bc7enc_rdo through bc7enc-py (rgbcx for BC1,
BC3's color and BC5; bc7enc for BC7), and Intel's ISPC Texture Compressor through ispc-texcomp (its
SSE4/AVX/AVX2 kernels chosen at run time: BC1, BC3, and BC7's alpha_veryfast, alpha_fast and
alpha_basic profiles) — on the same corpus: every image of
`compare_peers.corpus()` cropped to a multiple of 4. Every result is decoded by texture2ddecoder
(none of the encoders' own code) — EAC R11/RG11 by `eac11` below, from the 11-bit values a GPU
samples — and PSNR is taken per image: RGB for BC1/BC3/BC7, alpha on its own
for BC3/BC7, R for BC4, R and G for BC5.

  Benchmarks/encoders/compare-encoders.sh [--formats bc4,bc5] [--limit N]

Prints per format and effort: MP/s per core, mean and worst PSNR, and texpipe − the better
reference in dB. References are timed in-process around the wheel's call (one core: etcpak's own
threads are switched off). texpipe is one process per image, timed around its encode: cold (the
encoder's one-time tables in the time) unless `--warm`, which times a second encode after an
untimed one (`encode-blocks --warmup 1`), as the references' calls after the first are timed.
"""
import argparse
import math
import os
import struct
import subprocess
import sys
import tempfile
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [os.path.join(os.path.dirname(HERE), g) for g in ("images", "encoders", "runs", "gates")]
import compare_peers  # noqa: E402

import numpy as np  # noqa: E402
import etcpak  # noqa: E402
import bc7enc  # noqa: E402
import texture2ddecoder  # noqa: E402
import ispc_texcomp  # noqa: E402


def read_png_rgba(path):
    """An 8-bit RGBA, non-interlaced PNG (what the corpus holds) as (w, h, bytes)."""
    data = open(path, "rb").read()
    pos = 8
    idat = b""
    w = h = 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype == 6 and interlace == 0, path
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * 4
    out = bytearray(h * stride)
    prev = bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - 4] if i >= 4 else 0
            b = prev[i]
            c = prev[i - 4] if i >= 4 else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out[y * stride:(y + 1) * stride] = line
        prev = line
    return w, h, bytes(out)


def crop4(w, h, px):
    cw, ch = w // 4 * 4, h // 4 * 4
    if cw == w and ch == h:
        return w, h, px
    return cw, ch, b"".join(px[y * w * 4:y * w * 4 + cw * 4] for y in range(ch))


CHANNELS = {"bc1": ([0, 1, 2], None), "bc3": ([0, 1, 2], 3), "bc4": ([0], None), "bc5": ([0, 1], None),
            "bc7": ([0, 1, 2], 3), "etc2-rgb": ([0, 1, 2], None), "etc2-rgba": ([0, 1, 2], 3),
            "eac-r11": ([0], None), "eac-rg11": ([0, 1], None)}
# texture2ddecoder's decoder per format (EAC's 11-bit values come out as v >> 3, for every encoder alike).
DECODERS = {"etc2-rgb": "decode_etc2", "etc2-rgba": "decode_etc2a8", "eac-r11": "decode_eacr",
            "eac-rg11": "decode_eacrg"}
# etcpak's entry per ETC format.
ETCPAK = {"etc2-rgb": "compress_etc2_rgb", "etc2-rgba": "compress_etc2_rgba", "eac-r11": "compress_eac_r",
          "eac-rg11": "compress_eac_rg"}


def etcpak_etc(fmt, px, w, h):
    """etcpak 0.9.15's ETC and EAC entries read RGBA but swap red and blue in the caller's buffer
    as they go (so a second call on the same bytes reads BGRA): each call gets a copy of its own,
    made outside the timed call."""
    global ETCPAK_SECONDS
    data = bytes(bytearray(px))
    t = time.perf_counter()
    blocks = getattr(etcpak, ETCPAK[fmt])(data, w, h)
    ETCPAK_SECONDS += time.perf_counter() - t
    return blocks


ETCPAK_SECONDS = 0.0


EAC_TABLES = np.array([
    [-3, -6, -9, -15, 2, 5, 8, 14], [-3, -7, -10, -13, 2, 6, 9, 12], [-2, -5, -8, -13, 1, 4, 7, 12],
    [-2, -4, -6, -13, 1, 3, 5, 12], [-3, -6, -8, -12, 2, 5, 7, 11], [-3, -7, -9, -11, 2, 6, 8, 10],
    [-4, -7, -8, -11, 3, 6, 7, 10], [-3, -5, -8, -11, 2, 4, 7, 10], [-2, -6, -8, -10, 1, 5, 7, 9],
    [-2, -5, -8, -10, 1, 4, 7, 9], [-2, -4, -8, -10, 1, 3, 7, 9], [-2, -5, -7, -10, 1, 4, 6, 9],
    [-3, -4, -7, -10, 2, 3, 6, 9], [-1, -2, -3, -10, 0, 1, 2, 9], [-4, -6, -8, -9, 3, 5, 7, 8],
    [-3, -5, -7, -9, 2, 4, 6, 8]], dtype=np.int64)


def eac11(blocks, w, h, channels):
    """Unsigned R11/RG11 blocks decoded to their 11-bit values (Khronos Data Format Specification:
    base · 8 + 4 + modifier · multiplier · 8, a multiplier of 0 meaning 1/8; texel x, y at index
    x · 4 + y), as an (h, w, channels) array. texture2ddecoder returns these values shifted right
    by 3 — a truncation that moves every value down by up to 7/2047 — so the EAC rows measure
    what a GPU samples, v / 2047, against the image's v / 255."""
    # etcpak 0.9.15's compress_eac_r returns twice the bytes, the second half zeros: the level's are read.
    size = (h // 4) * (w // 4) * 8 * channels
    words = np.frombuffer(blocks[:size], dtype=">u8").astype(np.uint64).reshape(h // 4, w // 4, channels)
    base = ((words >> np.uint64(56)) & np.uint64(255)).astype(np.int64)
    mult = ((words >> np.uint64(52)) & np.uint64(15)).astype(np.int64)
    table = ((words >> np.uint64(48)) & np.uint64(15)).astype(np.int64)
    out = np.zeros((h, w, channels), dtype=np.int64)
    for x in range(4):
        for y in range(4):
            k = x * 4 + y
            index = ((words >> np.uint64(45 - 3 * k)) & np.uint64(7)).astype(np.int64)
            m = EAC_TABLES[table, index]
            v = np.where(mult == 0, base * 8 + 4 + m, base * 8 + 4 + m * mult * 8)
            out[y::4, x::4, :] = np.clip(v, 0, 2047)
    return out


def eac_psnr(blocks, w, h, rgba, channels):
    v = eac11(blocks, w, h, len(channels)).astype(np.float64) * (255 / 2047)
    s = np.frombuffer(rgba, dtype=np.uint8).reshape(h, w, 4)[:, :, channels].astype(np.float64)
    mse = ((v - s) ** 2).mean()
    return 99.0 if mse < 1e-12 else 10 * math.log10(255 * 255 / mse)


def score(fmt, blocks, w, h, px, channels):
    """Mean-squared-error PSNR of `blocks` against the image: EAC from its 11-bit values, the
    rest from texture2ddecoder's 8-bit texels."""
    if fmt in ("eac-r11", "eac-rg11"):
        return eac_psnr(blocks, w, h, px, channels)
    return psnr(decode(fmt, blocks, w, h), px, channels)


def decode(fmt, blocks, w, h):
    return getattr(texture2ddecoder, DECODERS.get(fmt, "decode_" + fmt))(blocks, w, h)


def psnr(decoded_bgra, rgba, channels):
    bgra = {0: 2, 1: 1, 2: 0, 3: 3}
    d = np.frombuffer(decoded_bgra, dtype=np.uint8).reshape(-1, 4).astype(np.int64)
    s = np.frombuffer(rgba, dtype=np.uint8).reshape(-1, 4).astype(np.int64)
    se = sum(int(((d[:, bgra[c]] - s[:, c]) ** 2).sum()) for c in channels)
    n = len(s) * len(channels)
    return 99.0 if se == 0 else 10 * math.log10(255 * 255 / (se / n))


def load(path):
    """The corpus image as cropped RGBA, decoded once and kept in .build-bench/corpus-rgba."""
    cache = os.path.join(os.path.dirname(path) + "-rgba", os.path.basename(path) + ".rgba")
    meta = cache + ".size"
    if os.path.exists(meta):
        w, h = map(int, open(meta).read().split())
        return w, h, open(cache, "rb").read()
    w, h, px = crop4(*read_png_rgba(path))
    os.makedirs(os.path.dirname(cache), exist_ok=True)
    open(cache, "wb").write(px)
    open(meta, "w").write(f"{w} {h}")
    return w, h, px


def corpus_images(limit=0):
    """The corpus's first `limit` images (0: all), loaded, and their megapixels."""
    files = compare_peers.corpus()
    if limit:
        files = files[:limit]
    images = [load(f) for f in files]
    return images, sum(w * h for w, h, _ in images) / 1e6


def references(fmt):
    """name → function(rgba, w, h) → blocks."""
    out = {}
    if fmt in ("bc1", "bc3", "bc4", "bc5", "bc7"):
        out["etcpak"] = lambda px, w, h: getattr(etcpak, "compress_" + fmt)(px, w, h)
    if fmt in ETCPAK:
        out["etcpak"] = lambda px, w, h: etcpak_etc(fmt, px, w, h)
    dds = {"bc1": "DXT1", "bc3": "DXT5", "bc5": "BC5", "bc7": "BC7"}.get(fmt)
    if dds:
        out["bc7enc_rdo"] = lambda px, w, h: bc7enc.pack_dds(px, w, h, dds)
    if fmt in ("bc1", "bc3"):
        compress = getattr(ispc_texcomp, "compress_blocks_" + fmt)
        out["ispc"] = lambda px, w, h: compress(ispc_texcomp.RGBASurface(px, w, h, w * 4))
    if fmt == "bc7":
        for profile in ("alpha_veryfast", "alpha_fast", "alpha_basic"):
            settings = ispc_texcomp.BC7EncSettings.from_profile(profile)
            out["ispc " + profile] = lambda px, w, h, s=settings: ispc_texcomp.compress_blocks_bc7(
                ispc_texcomp.RGBASurface(px, w, h, w * 4), s)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--texpipe", default=os.path.join(ROOT, ".build", "release", "texpipe"))
    ap.add_argument("--formats", default="bc1,bc3,bc4,bc5,bc7,etc2-rgb,etc2-rgba,eac-r11,eac-rg11")
    ap.add_argument("--qualities", default="fast,medium,thorough")
    ap.add_argument("--limit", type=int, default=0, help="only the first N images (0: all)")
    ap.add_argument("--warm", action="store_true", help="time texpipe's encode after an untimed one")
    args = ap.parse_args()
    try:
        etcpak.set_use_heuristics(True)
    except Exception:
        pass
    os.environ["OMP_NUM_THREADS"] = "1"
    images = [i for i in corpus_images(args.limit)[0] if i[0] >= 4 and i[1] >= 4]
    mp = sum(w * h for w, h, _ in images) / 1e6
    print(f"{len(images)} images, {mp:.1f} MP, each cropped to a multiple of 4\n")
    print("| format | encoder | MP/s (1 core) | mean PSNR | worst PSNR | alpha mean | texpipe − better ref "
          "| worst image vs its better ref |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    tmp = tempfile.mkdtemp()
    for fmt in args.formats.split(","):
        channels, alpha = CHANNELS[fmt]
        rows = {}
        for name, fn in references(fmt).items():
            global ETCPAK_SECONDS
            ETCPAK_SECONDS = 0.0
            seconds = 0.0
            scores, alphas = [], []
            for w, h, px in images:
                t = time.perf_counter()
                blocks = fn(px, w, h)
                seconds += time.perf_counter() - t
                scores.append(score(fmt, blocks, w, h, px, channels))
                if alpha is not None:
                    alphas.append(psnr(decode(fmt, blocks, w, h), px, [alpha]))
            if name == "etcpak" and fmt in ETCPAK:
                seconds = ETCPAK_SECONDS  # the encode alone: see etcpak_etc
            rows[name] = (mp / seconds, scores, alphas)
        better = max(sum(r[1]) / len(r[1]) for r in rows.values()) if rows else None
        # Per image, the better reference's PSNR there.
        per_image = [max(r[1][i] for r in rows.values()) for i in range(len(images))] if rows else None
        for q in args.qualities.split(","):
            seconds = 0.0
            scores, alphas = [], []
            for k, (w, h, px) in enumerate(images):
                src = os.path.join(tmp, "in.rgba")
                dst = os.path.join(tmp, "out.bin")
                open(src, "wb").write(px)
                cmd = [args.texpipe, "encode-blocks", "--format", fmt, "--quality", q, src, str(w), str(h), dst]
                if args.warm:
                    cmd[2:2] = ["--warmup", "1"]
                seconds += float(subprocess.check_output(cmd).decode().strip())
                blocks = open(dst, "rb").read()
                scores.append(score(fmt, blocks, w, h, px, channels))
                if alpha is not None:
                    alphas.append(psnr(decode(fmt, blocks, w, h), px, [alpha]))
            rows["texpipe " + q] = (mp / seconds, scores, alphas)
        for name, (speed, scores, alphas) in rows.items():
            mean = sum(scores) / len(scores)
            ours = name.startswith("texpipe") and better is not None
            delta = f"{mean - better:+.2f} dB" if ours else ""
            worst = f"{min(s - r for s, r in zip(scores, per_image)):+.2f} dB" if ours else ""
            amean = f"{sum(alphas) / len(alphas):.2f}" if alphas else "—"
            print(f"| {fmt} | {name} | {speed:.1f} | {mean:.2f} | {min(scores):.2f} | {amean} | {delta} | {worst} |")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
