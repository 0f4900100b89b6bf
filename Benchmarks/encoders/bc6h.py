#!/usr/bin/env python3
"""BC6H side by side (issue #28): texpipe's encoder (`texpipe encode-blocks --format bc6h`, one
core) and Intel's ISPC Texture Compressor (PyPI `ispc-texcomp`, profiles veryfast, fast, basic,
slow) on the same HDR images: 13 corpus textures made HDR (sRGB decoded to linear, × 8, as the
issue measured ISPC) and the sample sky (Samples/hdr/sky.exr). Every result is decoded by
texpipe's BC6H decoder (checked against Pillow's in the tests) and measured in log-RGB PSNR
(docs/hdr.md: log2 of each channel clamped to [2^-14, 65504], peak 30).

  Benchmarks/encoders/bc6h.sh [--limit N]

Prints per encoder and effort: MP/s per core, mean and worst log-RGB PSNR. ISPC is timed
in-process around the wheel's call; texpipe by its own clock around the encoder alone.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [os.path.join(os.path.dirname(HERE), g) for g in ("images", "encoders", "runs", "gates")]
import compare_peers  # noqa: E402
from compare_encoders import read_png_rgba, crop4  # noqa: E402

import numpy as np  # noqa: E402
import ispc_texcomp  # noqa: E402
import OpenEXR  # noqa: E402

TEXPIPE = os.path.join(ROOT, ".build", "release", "texpipe")


def srgb_to_linear(v):
    v = v / 255.0
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


def images(limit):
    files = compare_peers.corpus()
    step = max(1, len(files) // 13)
    out = []
    for path in files[::step][:limit]:
        w, h, px = crop4(*read_png_rgba(path))
        a = np.frombuffer(px, dtype=np.uint8).reshape(h, w, 4).astype(np.float32)
        rgba = np.ones((h, w, 4), dtype=np.float32)
        rgba[..., :3] = srgb_to_linear(a[..., :3]) * 8
        out.append((os.path.basename(path), rgba))
    with OpenEXR.File(os.path.join(ROOT, "Samples", "hdr", "sky.exr")) as f:
        rgb = f.channels()["RGB"].pixels.astype(np.float32)
    h, w = rgb.shape[:2]
    sky = np.ones((h // 4 * 4, w // 4 * 4, 4), dtype=np.float32)
    sky[..., :3] = rgb[: h // 4 * 4, : w // 4 * 4]
    out.append(("sky.exr", sky))
    return out


def log_psnr(a, b):
    """log-RGB PSNR (docs/hdr.md)."""
    la = np.log2(np.clip(np.nan_to_num(a[..., :3], nan=0.0), 2.0**-14, 65504.0))
    lb = np.log2(np.clip(np.nan_to_num(b[..., :3], nan=0.0), 2.0**-14, 65504.0))
    mse = float(np.mean((la.astype(np.float64) - lb) ** 2))
    return 99.0 if mse == 0 else min(99.0, 10 * np.log10(30 * 30 / mse))


def decode(blocks, w, h, tmp):
    src = os.path.join(tmp, "blocks.bin")
    dst = os.path.join(tmp, "decoded.f32")
    open(src, "wb").write(blocks)
    subprocess.run([TEXPIPE, "encode-blocks", "--format", "bc6h", "--decode", src, str(w), str(h), dst], check=True)
    return np.fromfile(dst, dtype=np.float32).reshape(h, w, 4)


def texpipe(rgba, quality, tmp):
    h, w = rgba.shape[:2]
    src = os.path.join(tmp, "in.f32")
    dst = os.path.join(tmp, "out.bin")
    rgba.astype(np.float32).tofile(src)
    out = subprocess.run(
        [TEXPIPE, "encode-blocks", "--format", "bc6h", "--quality", quality, src, str(w), str(h), dst],
        check=True, capture_output=True, text=True)
    return float(out.stdout.strip()), open(dst, "rb").read()


def ispc(rgba, profile):
    h, w = rgba.shape[:2]
    half = np.ascontiguousarray(rgba.astype(np.float16))
    surface = ispc_texcomp.RGBASurface(half.tobytes(), w, h, w * 8)
    settings = ispc_texcomp.BC6HEncSettings.from_profile(profile)
    t = time.perf_counter()
    blocks = ispc_texcomp.compress_blocks_bc6h(surface, settings)
    return time.perf_counter() - t, blocks


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=13)
    args = ap.parse_args()
    work = images(args.limit)
    mp = sum(r.shape[0] * r.shape[1] for _, r in work) / 1e6
    print(f"{len(work)} HDR images, {mp:.2f} MP; one core each; log-RGB PSNR (texpipe's decoder)")
    rows = [("texpipe", q) for q in ("fast", "medium", "thorough")] + [
        ("ispc", p) for p in ("veryfast", "fast", "basic", "slow")]
    print(f"{'encoder':<10}{'effort':<10}{'MP/s':>8}{'mean dB':>10}{'worst dB':>10}")
    with tempfile.TemporaryDirectory() as tmp:
        for who, effort in rows:
            seconds = 0.0
            scores = []
            for _, rgba in work:
                h, w = rgba.shape[:2]
                s, blocks = texpipe(rgba, effort, tmp) if who == "texpipe" else ispc(rgba, effort)
                seconds += s
                scores.append(log_psnr(rgba, decode(blocks, w, h, tmp)))
            print(f"{who:<10}{effort:<10}{mp / seconds:>8.2f}{np.mean(scores):>10.2f}{min(scores):>10.2f}",
                  flush=True)


if __name__ == "__main__":
    main()
