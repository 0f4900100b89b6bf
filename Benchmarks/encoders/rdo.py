#!/usr/bin/env python3
"""Rate-distortion optimisation (docs/gpu-textures.md "Smaller downloads"): texpipe's BC1, BC3
and BC7 at `medium` without RDO, with a sweep of λ, and with `maxLoss`, on the corpus of
compare_encoders.py (every image of compare_peers.corpus() cropped to a multiple of 4), each
encoder alone on one core (`texpipe encode-blocks`, timed by itself).

Per row: seconds of encoding, mean PSNR (RGB, from texture2ddecoder's decode — none of texpipe's
code), and the corpus's bytes after zstd level 19 (Python's zstandard) and after Deflate level 9
(zlib), each image's blocks compressed on their own as a KTX2 level or a game's pack would hold
them; the change against no RDO. Writes the rate-distortion plot to docs/img/rdo.png with
--plot.

  Benchmarks/encoders/rdo.sh [--formats bc1,bc7] [--limit N] [--settings "λ 8,maxLoss 1"] [--plot]
  Benchmarks/encoders/rdo.sh --plot-from TABLE.md...   # the plot again from printed tables (rows of a
                                              # format in a later file replace an earlier one's)
"""
import argparse
import os
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [os.path.join(os.path.dirname(HERE), g) for g in ("images", "encoders", "runs", "gates")]
import compare_encoders as ce  # noqa: E402
import zstandard  # noqa: E402

SETTINGS = [("no rdo", [])] + [(f"λ {l:g}", ["--rdo-lambda", str(l)]) for l in (2, 8, 32, 128, 512)] + [
    (f"maxLoss {d:g}", ["--rdo-max-loss", str(d)]) for d in (0.5, 1, 2)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--texpipe", default=os.path.join(ROOT, ".build", "release", "texpipe"))
    ap.add_argument("--formats", default="bc1,bc3,bc7")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--settings", help="only these rows, by name, comma-separated (\"no rdo\" is always run)")
    ap.add_argument("--plot", action="store_true")
    ap.add_argument("--plot-from", nargs="+", metavar="TABLE")
    args = ap.parse_args()
    if args.plot_from:
        plot, title = {}, ""
        for path in args.plot_from:
            rows = {}
            for line in open(path):
                if line.startswith("| bc"):
                    cells = [c.strip() for c in line.strip().strip("|").split("|")]
                    rows.setdefault(cells[0], []).append((cells[1], float(cells[3]), 1 + float(cells[5].split()[0]) / 100))
                elif "images," in line:
                    title = line.split(",")[0:2]
            plot.update(rows)
        return draw(plot, f"texpipe rdo, {title[0].split()[0]} textures ({title[1].strip()}), medium")
    images, mp = ce.corpus_images(args.limit)
    print(f"{len(images)} images, {mp:.1f} MP, one core, medium effort\n")
    print("| format | setting | s | mean PSNR | zstd-19 bytes | vs no rdo | Deflate-9 bytes | vs no rdo |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    plot = {}
    with tempfile.TemporaryDirectory() as tmp:
        raws = []
        for k, (w, h, px) in enumerate(images):
            path = os.path.join(tmp, f"{k}.rgba")
            open(path, "wb").write(px)
            raws.append(path)
        z = zstandard.ZstdCompressor(level=19)
        for fmt in args.formats.split(","):
            base = None
            chosen = args.settings.split(",") if args.settings else None
            for name, extra in SETTINGS:
                if chosen and name != "no rdo" and name not in chosen:
                    continue
                seconds = psnr = 0.0
                zs = dz = 0
                for (w, h, px), raw in zip(images, raws):
                    out = raw + ".blocks"
                    r = subprocess.run([args.texpipe, "encode-blocks", "--format", fmt] + extra + [raw, str(w), str(h), out],
                                       capture_output=True, text=True, check=True)
                    seconds += float(r.stdout.strip())
                    blocks = open(out, "rb").read()
                    psnr += ce.score(fmt, blocks, w, h, px, [0, 1, 2])
                    zs += len(z.compress(blocks))
                    dz += len(zlib.compress(blocks, 9))
                psnr /= len(images)
                if base is None:
                    base = (seconds, zs, dz)
                print(f"| {fmt} | {name} | {seconds:.2f} ({seconds / base[0]:.2f}×) | {psnr:.2f} | {zs:,} | "
                      f"{100 * (zs / base[1] - 1):+.1f} % | {dz:,} | {100 * (dz / base[2] - 1):+.1f} % |", flush=True)
                plot.setdefault(fmt, []).append((name, psnr, zs / base[1]))
    if args.plot:
        draw(plot, f"texpipe rdo, {len(images)} textures ({mp:.1f} MP), medium")


def draw(plot, title):
    """docs/img/rdo.png: mean PSNR against zstd-19 bytes (% of no RDO), per format."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
    for fmt, points in plot.items():
        sweep = [p for p in points if not p[0].startswith("maxLoss")]
        ax.plot([100 * p[2] for p in sweep], [p[1] for p in sweep], marker="o", label=fmt.upper() + " (λ sweep)")
        loss = [p for p in points if p[0].startswith("maxLoss")]
        ax.scatter([100 * p[2] for p in loss], [p[1] for p in loss], marker="x", s=60,
                   label=fmt.upper() + " maxLoss 0.5 / 1 / 2")
    ax.set_xlabel("zstd-19 bytes, % of no RDO")
    ax.set_ylabel("mean PSNR (RGB), dB")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(ROOT, "docs", "img", "rdo.png"))
    print("\nwrote docs/img/rdo.png")


if __name__ == "__main__":
    main()
