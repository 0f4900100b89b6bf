#!/usr/bin/env python3
"""ASTC HDR side by side (issue #54): texpipe (`texpipe encode-blocks --format astc-4x4-hdr` /
`astc-6x6-hdr`, one core) and Arm's astcenc command line 4.2 (`-ch … -fast|-medium|-thorough -j 1`:
HDR colour, LDR alpha, what `-hdr` names) on the HDR images bc6h.py uses: 13 corpus textures made
HDR (sRGB decoded to linear, × 8) and the sample sky. Both are decoded by the astcenc command line
(`-dh`) and measured in log-RGB PSNR (docs/hdr.md: log2 of each channel clamped to
[2^-14, 65504], peak 30).

  Benchmarks/encoders/astc-hdr.sh [--limit N]

Prints per block size and preset: MP/s per core for each (texpipe by its own clock around the
encoder; astcenc by the "Coding time" it prints), mean log-RGB PSNR for each, and how many images'
blocks are byte-identical.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [os.path.join(os.path.dirname(HERE), g) for g in ("images", "encoders", "runs", "gates")]
from bc6h import images, log_psnr  # noqa: E402

import numpy as np  # noqa: E402
import OpenEXR  # noqa: E402

TEXPIPE = os.path.join(ROOT, ".build", "release", "texpipe")


def write_exr(rgba, path):
    header = {"compression": OpenEXR.ZIP_COMPRESSION, "type": OpenEXR.scanlineimage}
    with OpenEXR.File(header, {"RGB": rgba[..., :3].astype(np.float16)}) as f:
        f.write(path)


def decode(astc, tmp):
    out = os.path.join(tmp, "decoded.exr")
    subprocess.run(["astcenc", "-dh", astc, out], check=True, capture_output=True)
    with OpenEXR.File(out) as f:
        ch = f.channels()
        rgba = ch["RGBA"].pixels if "RGBA" in ch else np.dstack([ch[c].pixels for c in "RGBA"])
    return rgba.astype(np.float32)


def astc_file(blocks, side, w, h):
    header = bytes([0x13, 0xAB, 0xA1, 0x5C, side, side, 1])
    for v in (w, h, 1):
        header += bytes([v & 0xFF, (v >> 8) & 0xFF, (v >> 16) & 0xFF])
    return header + blocks


def texpipe(rgba, side, preset, tmp):
    h, w = rgba.shape[:2]
    src = os.path.join(tmp, "in.f32")
    dst = os.path.join(tmp, "out.bin")
    rgba.astype(np.float32).tofile(src)
    out = subprocess.run(
        [TEXPIPE, "encode-blocks", "--format", f"astc-{side}x{side}-hdr", "--quality", preset, src, str(w),
         str(h), dst], check=True, capture_output=True, text=True)
    path = os.path.join(tmp, "ours.astc")
    open(path, "wb").write(astc_file(open(dst, "rb").read(), side, w, h))
    return float(out.stdout.strip()), path


def cli(exr, side, preset, tmp):
    path = os.path.join(tmp, "theirs.astc")
    out = subprocess.run(["astcenc", "-ch", exr, path, f"{side}x{side}", f"-{preset}", "-j", "1"],
                         check=True, capture_output=True, text=True).stdout
    return float(re.search(r"Coding time:\s+([0-9.]+) s", out).group(1)), path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=13)
    args = ap.parse_args()
    work = []
    for name, rgba in images(args.limit):
        # What an .exr holds: half floats, alpha 1 (both encoders see the same values).
        rgba = rgba.astype(np.float16).astype(np.float32)
        rgba[..., 3] = 1
        work.append((name, rgba))
    mp = sum(r.shape[0] * r.shape[1] for _, r in work) / 1e6
    print(f"{len(work)} HDR images, {mp:.2f} MP; one core each; log-RGB PSNR of astcenc -dh's decode")
    print(f"{'block':<7}{'preset':<10}{'texpipe MP/s':>13}{'astcenc MP/s':>13}{'speed':>7}"
          f"{'texpipe dB':>12}{'astcenc dB':>12}{'same blocks':>13}")
    with tempfile.TemporaryDirectory() as tmp:
        exrs = []
        for k, (_, rgba) in enumerate(work):
            path = os.path.join(tmp, f"src{k}.exr")
            write_exr(rgba, path)
            exrs.append(path)
        for side in (4, 6):
            for preset in ("fast", "medium", "thorough"):
                t_ours = t_theirs = 0.0
                ours_db, theirs_db, same = [], [], 0
                for (_, rgba), exr in zip(work, exrs):
                    s, ours = texpipe(rgba, side, preset, tmp)
                    t_ours += s
                    ours_bytes = open(ours, "rb").read()
                    ours_db.append(log_psnr(rgba, decode(ours, tmp)))
                    s, theirs = cli(exr, side, preset, tmp)
                    t_theirs += s
                    theirs_db.append(log_psnr(rgba, decode(theirs, tmp)))
                    same += ours_bytes == open(theirs, "rb").read()
                print(f"{side}x{side:<5}{preset:<10}{mp / t_ours:>13.3f}{mp / t_theirs:>13.3f}"
                      f"{t_theirs / t_ours:>6.2f}×{np.mean(ours_db):>12.2f}{np.mean(theirs_db):>12.2f}"
                      f"{same:>8}/{len(work)}", flush=True)


if __name__ == "__main__":
    main()
