#!/usr/bin/env python3
"""UASTC (docs/gpu-textures.md "UASTC"): texpipe's encoder at each effort beside basisu's own
(PyPI's alktx2, `quality` 100 — its default 50 costs ~13 dB —, effort 0 and 2), on the corpus of
compare_encoders.py, each encoder alone on one core (texpipe's `encode-blocks` timed by itself,
basisu timed around the wheel's call with one thread).

Every result is decoded by the Basis Universal transcoder (PyPI's opengl-basisu, what web
engines run; texpipe's blocks wrapped in a minimal KTX2 here): RGBA8 — the UASTC decode, equal to
the ASTC 4×4 transcode —, and BC7 and ETC2 transcodes decoded by texture2ddecoder. Per row: MP/s,
mean and worst RGB PSNR of the UASTC decode, mean PSNR after the BC7 and ETC2 transcodes, and
zstd-19 bytes of the blocks. Then texpipe `medium` on two cores against one, on the images of
1 MP or more.

  Benchmarks/encoders/uastc.sh [--limit N] [--qualities fast,medium]
"""
import argparse
import math
import os
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [os.path.join(os.path.dirname(HERE), g) for g in ("images", "encoders", "runs", "gates")]
import alktx2  # noqa: E402
import compare_encoders as ce  # noqa: E402
import numpy as np  # noqa: E402
import opengl_basisu  # noqa: E402
import texture2ddecoder  # noqa: E402
import zstandard  # noqa: E402


def ktx2(blocks, w, h):
    """A one-level KTX2 of UASTC blocks (vkFormat 0, DFD colour model UASTC, linear, RGBA)."""
    dfd = struct.pack("<IIIIIII", 44, 0, 2 | 40 << 16, 166 | 1 << 8 | 1 << 16, 3 | 3 << 8, 16, 0)
    dfd += struct.pack("<IIII", 127 << 16 | 3 << 24, 0, 0, 0xFFFFFFFF)
    data_at = 160
    head = b"\xabKTX 20\xbb\r\n\x1a\n" + struct.pack("<IIIIIIIII", 0, 1, w, h, 0, 0, 1, 1, 0)
    head += struct.pack("<IIIIQQ", 104, len(dfd), 0, 0, 0, 0)
    head += struct.pack("<QQQ", data_at, len(blocks), len(blocks))
    out = head + dfd
    return out + b"\0" * (data_at - len(out)) + blocks


def psnr(bgra_or_rgba, rgba, bgra):
    d = np.frombuffer(bgra_or_rgba, dtype=np.uint8).reshape(-1, 4).astype(np.int64)
    if bgra:
        d = d[:, [2, 1, 0, 3]]
    s = np.frombuffer(rgba, dtype=np.uint8).reshape(-1, 4).astype(np.int64)
    se = int(((d[:, :3] - s[:, :3]) ** 2).sum())
    return 99.0 if se == 0 else 10 * math.log10(255 * 255 / (se / (len(s) * 3)))


def transcoded(file, w, h, px):
    """PSNR of the UASTC decode, of the BC7 transcode and of the ETC2 transcode."""
    t = opengl_basisu.open(file)
    rgba = t.transcode("rgba8", level=0).data.tobytes()
    bc7 = t.transcode("bc7", level=0).data.tobytes()
    etc2 = t.transcode("etc2", level=0).data.tobytes()
    pw, ph = (w + 3) // 4 * 4, (h + 3) // 4 * 4
    assert pw == w and ph == h
    etc = texture2ddecoder.decode_etc2a8(etc2, w, h) if len(etc2) == w * h else texture2ddecoder.decode_etc2(etc2, w, h)
    return (psnr(rgba, px, False), psnr(texture2ddecoder.decode_bc7(bc7, w, h), px, True), psnr(etc, px, True))


def level0(k):
    scheme = struct.unpack_from("<I", k, 44)[0]
    offset, length = struct.unpack_from("<QQ", k, 80)
    data = k[offset:offset + length]
    return zstandard.ZstdDecompressor().decompress(data) if scheme == 2 else data


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--texpipe", default=os.path.join(ROOT, ".build", "release", "texpipe"))
    ap.add_argument("--qualities", default="fast,medium,thorough")
    ap.add_argument("--efforts", default="0,2")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--rdo", action="store_true",
                    help="rate-distortion rows instead: texpipe medium with rdo λ 2, 8, 32, 128 and maxLoss 1, "
                         "basisu effort 2 with uastc_rdo_lambda 0.5, 1, 2, 4 (none with --efforts '')")
    args = ap.parse_args()
    images, mp = ce.corpus_images(args.limit)
    print(f"{len(images)} images, {mp:.1f} MP, one core\n")
    print("| encoder | MP/s (1 core) | mean PSNR | worst PSNR | BC7 transcode mean | ETC2 transcode mean | zstd-19 bytes |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    z = zstandard.ZstdCompressor(level=19)
    rows = [("basisu effort " + e, "basisu", int(e)) for e in args.efforts.split(",") if e]
    rows += [("texpipe " + q, "texpipe", q) for q in args.qualities.split(",") if q]
    extra = {}
    if args.rdo:
        rows = [("basisu effort 2", "basisu", 2)] + [(f"basisu effort 2, rdo λ {l:g}", "basisu", 2) for l in (0.5, 1, 2, 4)]
        rows = rows if args.efforts else []
        rows += [("texpipe medium", "texpipe", "medium")] + [
            (f"texpipe medium, rdo {n}", "texpipe", "medium") for n in ("λ 2", "λ 8", "λ 32", "λ 128", "maxLoss 1")]
        for name, _, _ in rows:
            if ", rdo λ " in name and name.startswith("basisu"):
                extra[name] = {"uastc_rdo_lambda": float(name.split("λ ")[1])}
            elif ", rdo " in name:
                setting = name.split(", rdo ")[1]
                extra[name] = (["--rdo-lambda", setting[2:]] if setting.startswith("λ")
                               else ["--rdo-max-loss", setting.split()[1]])
    with tempfile.TemporaryDirectory() as tmp:
        for name, kind, setting in rows:
            seconds = 0.0
            scores = []
            zs = 0
            for k, (w, h, px) in enumerate(images):
                if kind == "texpipe":
                    raw = os.path.join(tmp, "in.rgba")
                    open(raw, "wb").write(px)
                    out = os.path.join(tmp, "out.bin")
                    r = subprocess.run([args.texpipe, "encode-blocks", "--format", "uastc", "--quality", setting]
                                       + extra.get(name, []) + [raw, str(w), str(h), out],
                                       capture_output=True, text=True, check=True)
                    seconds += float(r.stdout.strip())
                    blocks = open(out, "rb").read()
                    file = ktx2(blocks, w, h)
                else:
                    t = time.perf_counter()
                    file = alktx2.encode_raw_rgba_to_ktx2(px, w, h, codec="uastc", quality=100, effort=setting,
                                                          srgb=False, linear=True, threads=1,
                                                          check_for_alpha=False, force_alpha=True,
                                                          **extra.get(name, {}))
                    seconds += time.perf_counter() - t
                    blocks = level0(file)
                scores.append(transcoded(file, w, h, px))
                zs += len(z.compress(blocks))
            own = [s[0] for s in scores]
            print(f"| {name} | {mp / seconds:.2f} | {sum(own) / len(own):.2f} | {min(own):.2f} | "
                  f"{sum(s[1] for s in scores) / len(scores):.2f} | {sum(s[2] for s in scores) / len(scores):.2f} | "
                  f"{zs:,} |", flush=True)
        if not args.rdo:
            two_cores(args, images, tmp)


def two_cores(args, images, tmp):
    """texpipe `medium` on one core and on two (`encode-blocks --cores 2`: the rows of blocks split
    as the engine splits one large job's), alternating, over the images of 1 MP or more (smaller
    ones the engine keeps in one band); the bytes must be equal."""
    big = [(w, h, px) for w, h, px in images if w * h >= 1 << 20]
    if not big:
        return
    total = [0.0, 0.0]
    for rep in range(3):
        for w, h, px in big:
            raw = os.path.join(tmp, "in.rgba")
            open(raw, "wb").write(px)
            outs = []
            for cores in ((1, 2) if rep % 2 == 0 else (2, 1)):
                out = os.path.join(tmp, f"out{cores}.bin")
                cpus = "0" if cores == 1 else "0,1"
                r = subprocess.run(["taskset", "-c", cpus, args.texpipe, "encode-blocks", "--format", "uastc",
                                    "--quality", "medium", "--cores", str(cores), raw, str(w), str(h), out],
                                   capture_output=True, text=True, check=True)
                total[cores - 1] += float(r.stdout.strip())
                outs.append(open(out, "rb").read())
            assert outs[0] == outs[1], "the bytes depend on the cores"
    print(f"\ntexpipe `medium` on two cores: {total[0] / total[1]:.2f}× one core "
          f"({len(big)} images of 1 MP or more, three rounds alternating; {total[0]:.2f} s against {total[1]:.2f} s)")


if __name__ == "__main__":
    main()
