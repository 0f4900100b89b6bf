#!/usr/bin/env python3
"""ETC1S (docs/gpu-textures.md "ETC1S"): texpipe's encoder at each quality and several `qlevel`s
beside basisu's own (PyPI's alktx2, which wraps basisu 2.x: ETC1S at several `quality` levels,
effort 2 and 4), on the corpus of compare_encoders.py, each encoder alone on one core
(texpipe's `encode-blocks` timed by itself, basisu timed around the wheel's call, one thread).

Every file is decoded by the Basis Universal transcoder (PyPI's opengl-basisu, what web engines
run) to RGBA8. Per row: MP/s, bits per texel of the whole file (every byte of the KTX2), mean
RGB PSNR. Then, per texpipe row, basisu's PSNR interpolated at texpipe's bits per texel on the
effort-2 (and effort-4) curve, and the difference: the rate–distortion comparison the targets
name. `--two-cores` adds texpipe `medium` on two cores against one. `--per-image` compares per
image instead (what a user sees): each texpipe row's PSNR on each image against basisu's effort-2
curve of that image at the same bits per texel, averaged by size class (the larger side: 128 and
under, 256, 512, 1024, 2048 and over), with the worst image and how many fell inside basisu's
range of rates; then curve against curve (`by_curve`): per image, texpipe's qlevels as one curve
against basisu's qualities as another, over the rates both reach.

  Benchmarks/encoders/etc1s.sh [--limit N] [--qlevels 64,128,255] [--basisu 25,50,100] [--plot FILE.png]
  Benchmarks/encoders/etc1s.sh --per-image --qualities medium --efforts 2 --qlevels 16,32,64,128,200,255
  Benchmarks/encoders/etc1s.sh --per-image ... --files A.png B.png   (these RGBA PNGs, not the corpus:
      the corpus has no texture of 2048² or more; SuperTuxKart's own do, outside its every-k-th pick)
"""
import argparse
import math
import os
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


def psnr(rgba, px):
    d = np.frombuffer(rgba, dtype=np.uint8).reshape(-1, 4).astype(np.int64)
    s = np.frombuffer(px, dtype=np.uint8).reshape(-1, 4).astype(np.int64)
    se = int(((d[:, :3] - s[:, :3]) ** 2).sum())
    return 99.0 if se == 0 else 10 * math.log10(255 * 255 / (se / (len(s) * 3)))


def measure(file, w, h, px):
    t = opengl_basisu.open(bytes(file))
    assert t.codec == 0, "not ETC1S"
    return psnr(t.transcode("rgba8", level=0).data.tobytes(), px), len(file) * 8 / (w * h)


def texpipe(args, tmp, px, w, h, quality, qlevel, cores=1):
    raw = os.path.join(tmp, "in.rgba")
    open(raw, "wb").write(px)
    out = os.path.join(tmp, "out.ktx2")
    cmd = [args.texpipe, "encode-blocks", "--format", "etc1s", "--quality", quality, "--qlevel", str(qlevel),
           "--cores", str(cores), raw, str(w), str(h), out]
    if cores == 1:
        cmd = ["taskset", "-c", "0"] + cmd
    r = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return float(r.stdout.strip()), open(out, "rb").read()


def basisu(px, w, h, quality, effort):
    t = time.perf_counter()
    file = alktx2.encode_raw_rgba_to_ktx2(px, w, h, codec="etc1s", quality=quality, effort=effort, threads=1,
                                          srgb=True, check_for_alpha=True)
    return time.perf_counter() - t, file


def interpolate(curve, bpp):
    """PSNR on a (bpp, psnr) curve at `bpp`, linear between its points (clamped at its ends)."""
    pts = sorted(curve)
    if bpp <= pts[0][0]:
        return pts[0][1], "below"
    if bpp >= pts[-1][0]:
        return pts[-1][1], "above"
    for (b0, p0), (b1, p1) in zip(pts, pts[1:]):
        if b0 <= bpp <= b1:
            return p0 + (p1 - p0) * (bpp - b0) / (b1 - b0), ""
    return pts[-1][1], ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--texpipe", default=os.path.join(ROOT, ".build", "release", "texpipe"))
    ap.add_argument("--qualities", default="fast,medium,thorough")
    ap.add_argument("--qlevels", default="64,128,255")
    ap.add_argument("--basisu", default="10,25,50,75,100", help="basisu quality levels")
    ap.add_argument("--efforts", default="2,4")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--two-cores", action="store_true")
    ap.add_argument("--plot", default="")
    ap.add_argument("--per-image", action="store_true")
    ap.add_argument("--files", nargs="*", default=[],
                    help="8-bit RGBA PNGs to compare on instead of the corpus (e.g. textures larger than it holds)")
    args = ap.parse_args()
    if args.files:
        images = [ce.crop4(*ce.read_png_rgba(f)) for f in args.files]
        mp = sum(w * h for w, h, _ in images) / 1e6
    else:
        images, mp = ce.corpus_images(args.limit)
    print(f"{len(images)} images, {mp:.1f} MP, one core\n")
    print("| encoder | MP/s (1 core) | bits per texel | mean RGB PSNR |")
    print("| --- | --- | --- | --- |")
    rows = [(f"basisu effort {e}, quality {q}", "basisu", (int(q), int(e)))
            for e in args.efforts.split(",") if e for q in args.basisu.split(",") if q]
    rows += [(f"texpipe {q}, qlevel {l}", "texpipe", (q, int(l)))
             for q in args.qualities.split(",") if q for l in args.qlevels.split(",") if l]
    results = {}
    per_image = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, kind, setting in rows:
            seconds, scores, bits, texels = 0.0, [], 0.0, 0
            for w, h, px in images:
                if kind == "texpipe":
                    s, file = texpipe(args, tmp, px, w, h, *setting)
                else:
                    s, file = basisu(px, w, h, *setting)
                seconds += s
                p, bpp = measure(file, w, h, px)
                per_image.setdefault(name, []).append((bpp, p))
                scores.append(p)
                bits += bpp * w * h
                texels += w * h
            results[name] = (mp / seconds, bits / texels, sum(scores) / len(scores))
            print(f"| {name} | {mp / seconds:.2f} | {bits / texels:.3f} | {sum(scores) / len(scores):.2f} |",
                  flush=True)
        print("\n| texpipe | bits per texel | PSNR | basisu effort 2 at that rate | Δ dB | speed × effort 2 |")
        print("| --- | --- | --- | --- | --- | --- |")
        for e in args.efforts.split(","):
            curve = [(b, p) for n, (_, b, p) in results.items() if n.startswith(f"basisu effort {e},")]
            speed = [s for n, (s, _, _) in results.items() if n.startswith(f"basisu effort {e},")]
            if not curve:
                continue
            for n, (s, b, p) in results.items():
                if n.startswith("texpipe"):
                    ref, where = interpolate(curve, b)
                    print(f"| {n} (vs effort {e}) | {b:.3f} | {p:.2f} | {ref:.2f}{' (' + where + ')' if where else ''} | "
                          f"{p - ref:+.2f} | {s / (sum(speed) / len(speed)):.1f}× |")
        if args.two_cores:
            two_cores(args, images, tmp)
    if args.per_image:
        by_size(images, per_image)
        by_curve(images, per_image)
    if args.plot:
        plot(results, args.plot)


def by_size(images, per_image):
    """Per image: texpipe's PSNR minus basisu effort 2's on that image at the same bits per texel,
    by size class; images whose rate lies outside basisu's curve are counted apart (clamped)."""
    classes = [(0, 128, "≤ 128"), (129, 256, "256"), (257, 512, "512"), (513, 1024, "1024"), (1025, 1 << 30, "≥ 2048")]
    curves = [sorted(per_image[n][i] for n in per_image if n.startswith("basisu effort 2,"))
              for i in range(len(images))]
    print("\n| texpipe | size | images | mean Δ dB (in range) | worst Δ dB | outside basisu's rates |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, points in per_image.items():
        if not name.startswith("texpipe"):
            continue
        for lo, hi, label in classes:
            deltas, outside = [], 0
            for i, (w, h, _) in enumerate(images):
                if not lo <= max(w, h) <= hi:
                    continue
                ref, where = interpolate(curves[i], points[i][0])
                if where:
                    outside += 1
                    continue
                deltas.append(points[i][1] - ref)
            if deltas or outside:
                mean = f"{sum(deltas) / len(deltas):+.2f}" if deltas else "—"
                worst = f"{min(deltas):+.2f}" if deltas else "—"
                print(f"| {name} | {label} | {len(deltas) + outside} | {mean} | {worst} | {outside} |", flush=True)


def by_curve(images, per_image, cap=60.0):
    """Per image, curve against curve: texpipe's points (every qlevel of one quality) and basisu
    effort 2's (every quality), each a line from point to point, compared at 21 rates spread evenly
    over the rates both cover; the mean Δ is the image's. PSNR is capped at `cap` dB (an image one
    encoder stores exactly would otherwise weigh 99 dB). By size class: the mean of the images'
    Δ, the worst image's, and how many images' curves do not overlap at all — of those, how many
    texpipe's dominates (its whole curve at lower rates than basisu's lowest, its best PSNR there
    at least basisu's at that lowest rate) and how many basisu's dominates (the same the other
    way); the rest are curves apart that cross no rate both reach."""
    classes = [(0, 128, "≤ 128"), (129, 256, "256"), (257, 512, "512"), (513, 1024, "1024"), (1025, 1 << 30, "≥ 2048")]

    def curve(names, i):
        return sorted((b, min(cap, p)) for b, p in (per_image[n][i] for n in names))

    def at(pts, r):
        for (b0, p0), (b1, p1) in zip(pts, pts[1:]):
            if b0 <= r <= b1:
                return p0 if b1 == b0 else p0 + (p1 - p0) * (r - b0) / (b1 - b0)
        return pts[0][1] if r <= pts[0][0] else pts[-1][1]

    basisu = [n for n in per_image if n.startswith("basisu effort 2,")]
    qualities = sorted({n.split(",")[0] for n in per_image if n.startswith("texpipe")})
    print("\n| texpipe (every qlevel) | size | images | mean Δ dB over the shared rates | worst image | no overlap "
          "| of those texpipe's ahead | basisu's ahead |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for q in qualities:
        names = [n for n in per_image if n.startswith(q + ",")]
        for lo, hi, label in classes:
            deltas, apart, ahead, behind = [], 0, 0, 0
            for i, (w, h, _) in enumerate(images):
                if not lo <= max(w, h) <= hi:
                    continue
                ours, theirs = curve(names, i), curve(basisu, i)
                low, high = max(ours[0][0], theirs[0][0]), min(ours[-1][0], theirs[-1][0])
                if high <= low:
                    apart += 1
                    if ours[-1][0] <= theirs[0][0] and ours[-1][1] >= theirs[0][1]:
                        ahead += 1
                    elif theirs[-1][0] <= ours[0][0] and theirs[-1][1] >= ours[0][1]:
                        behind += 1
                    continue
                rates = [low + (high - low) * k / 20 for k in range(21)]
                deltas.append(sum(at(ours, r) - at(theirs, r) for r in rates) / len(rates))
            if deltas or apart:
                mean = f"{sum(deltas) / len(deltas):+.2f}" if deltas else "—"
                worst = f"{min(deltas):+.2f}" if deltas else "—"
                print(f"| {q} | {label} | {len(deltas) + apart} | {mean} | {worst} | {apart} | {ahead} | {behind} |",
                      flush=True)


def two_cores(args, images, tmp):
    big = [(w, h, px) for w, h, px in images if w * h >= 1 << 20] or images[:10]
    total = [0.0, 0.0]
    for rep in range(3):
        for w, h, px in big:
            outs = []
            for cores in ((1, 2) if rep % 2 == 0 else (2, 1)):
                s, file = texpipe(args, tmp, px, w, h, "medium", 128, cores)
                total[cores - 1] += s
                outs.append(file)
            assert outs[0] == outs[1], "the bytes depend on the cores"
    print(f"\ntexpipe `medium` on two cores: {total[0] / total[1]:.2f}× one core ({len(big)} images, three rounds "
          f"alternating; {total[0]:.2f} s against {total[1]:.2f} s)")


def plot(results, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4.5))
    groups = {}
    for n, (_, b, p) in results.items():
        key = n.split(",")[0]
        groups.setdefault(key, []).append((b, p))
    for key, pts in sorted(groups.items()):
        pts.sort()
        ax.plot([b for b, _ in pts], [p for _, p in pts], marker="o", label=key)
    ax.set_xlabel("bits per texel (whole KTX2 file)")
    ax.set_ylabel("mean RGB PSNR (dB)")
    ax.set_title("ETC1S on the corpus: texpipe and basisu (decoded by the Basis Universal transcoder)",
                 fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
