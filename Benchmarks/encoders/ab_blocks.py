#!/usr/bin/env python3
"""One block encoder, two builds, side by side (a before/after of an encoder change): the same
corpus images as compare-encoders (`compare_encoders.corpus_images`, cropped to multiples of 4),
each build's `texpipe encode-blocks --warmup 1` (one core, pinned, timed warm as the references
are), alternating A B A B for `--rounds` pairs. Prints each pair's MP/s and B/A ratio, and each
build's mean and worst PSNR (decoded by texture2ddecoder, as compare-encoders scores).

    Benchmarks/encoders/ab-blocks.sh BEFORE AFTER [--format bc1] [--quality medium] [--limit 24] [--rounds 3]

BEFORE and AFTER are two texpipe binaries: build the baseline from a fresh clone (a copied
`.build` builds the checkout's sources).
"""
import argparse
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_encoders as ce  # noqa: E402

CHANNELS = {"bc4": [0], "bc5": [0, 1]}


def encode(binary, fmt, quality, images, work):
    """Seconds of encoding over every image (warm) and each image's PSNR."""
    seconds, scores = 0.0, []
    src, out = os.path.join(work, "in.rgba"), os.path.join(work, "out.bin")
    for w, h, px in images:
        with open(src, "wb") as f:
            f.write(px)
        seconds += float(subprocess.check_output(
            ["taskset", "-c", "0", binary, "encode-blocks", "--warmup", "1", "--format", fmt, "--quality", quality,
             src, str(w), str(h), out]).decode())
        with open(out, "rb") as f:
            scores.append(ce.score(fmt, f.read(), w, h, px, CHANNELS.get(fmt, [0, 1, 2])))
    return seconds, scores


def main():
    a = argparse.ArgumentParser()
    a.add_argument("before")
    a.add_argument("after")
    a.add_argument("--format", default="bc1")
    a.add_argument("--quality", default="medium")
    a.add_argument("--limit", type=int, default=24)
    a.add_argument("--rounds", type=int, default=3)
    args = a.parse_args()
    images, mp = ce.corpus_images(args.limit)
    print(f"{args.format} `{args.quality}`, {len(images)} images, {mp:.2f} MP, one core, warm")
    print("| pair | before MP/s | after MP/s | after / before |")
    print("| --- | --- | --- | --- |")
    psnr = {}
    with tempfile.TemporaryDirectory() as work:
        for r in range(args.rounds):
            speed = {}
            for name, binary in (("before", args.before), ("after", args.after)):
                s, scores = encode(os.path.abspath(binary), args.format, args.quality, images, work)
                speed[name] = mp / s
                psnr[name] = scores
            print(f"| {r + 1} | {speed['before']:.1f} | {speed['after']:.1f} | {speed['after'] / speed['before']:.2f}x |",
                  flush=True)
    for name in ("before", "after"):
        p = psnr[name]
        print(f"{name}: mean PSNR {sum(p) / len(p):.4f} dB, worst {min(p):.2f} dB")


if __name__ == "__main__":
    main()
