#!/usr/bin/env python3
"""Texture sets and gates (issue 29), in one run, side by side:

1. `check` cost over the ~150-texture SuperTuxKart corpus (the one compare-peers.sh fetches),
   one core (--jobs 1), mip chains, per format: the encode time texpipe reports per job
   (--verbose) without a check, with a check that has no PSNR gate (maxBytes) and with
   `minPSNR`; rounds interleaved so drift hits all three alike.
2. `pack-channels` of three 4096² grayscale maps into one PNG (--jobs 1), against the I/O it
   cannot avoid: decoding the three maps (a run that reads them and writes 1×1 crops) plus
   encoding and writing the one output (that job's own encode + write times).

    Benchmarks/gates/checks.py [BINARY] [ROUNDS]      # default .build/release/texpipe, 2 rounds
"""
import json, os, re, struct, subprocess, sys, time, zlib

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
WORK = os.path.join(ROOT, ".build-bench", "checks")
BINARY = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build/release/texpipe"))
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 2
CORPUS = os.path.join(ROOT, ".build-bench", "corpus")


def run(manifest, name, *extra):
    path = os.path.join(WORK, name + ".json")
    with open(path, "w") as f:
        json.dump(manifest, f)
    t = time.perf_counter()
    p = subprocess.run([BINARY, "run", path, "--force", "--jobs", "1", "--no-progress", *extra],
                       capture_output=True, text=True)
    wall = time.perf_counter() - t
    if p.returncode not in (0, 1):
        raise RuntimeError(p.stderr[-800:])
    return wall, p.stdout


def stage_ms(stdout, stage):
    return sum(float(v) * (1000 if unit == "s" else 1) for v, unit in re.findall(rf"\b{stage} ([0-9.]+)(ms|s)\b", stdout))


def gate_cost():
    if not os.path.isdir(CORPUS):
        sys.exit(f"no corpus at {CORPUS}: run Benchmarks/images/compare-peers.sh once to fetch it")
    checks = {"none": None, "maxBytes": {"maxBytes": 1 << 40}, "minPSNR": {"minPSNR": 0}}
    print("| format | encode, no check | check without PSNR | with minPSNR | PSNR cost |")
    print("| --- | --- | --- | --- | --- |")
    for fmt, quality in (("bc1", "medium"), ("bc7", "fast"), ("astc-6x6", "fast")):
        totals = {k: 0.0 for k in checks}
        for _ in range(ROUNDS):
            for k, check in checks.items():
                p = {"name": "g", "inputs": [os.path.relpath(CORPUS, WORK) + "/*.png"],
                     "output": "{file}.ktx2", "texture": {"format": fmt, "quality": quality},
                     "stages": [{"stage": "mipmaps"}]}
                if check:
                    p["check"] = check
                _, out = run({"version": 1, "output": os.path.join(WORK, "out-" + k), "pipelines": [p]}, "gate-" + k,
                             "--verbose")
                totals[k] += stage_ms(out, "encode")
        n, b, q = (totals[k] / ROUNDS / 1000 for k in ("none", "maxBytes", "minPSNR"))
        print(f"| {fmt} `{quality}` | {n:.2f} s | {b:.2f} s ({(b / n - 1) * 100:+.1f} %) | {q:.2f} s | "
              f"{(q / n - 1) * 100:+.1f} % |")


def write_gray(path, img):
    h, w = img.shape
    raw = b"".join(b"\x00" + img[y].tobytes() for y in range(h))
    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))


def pack_cost():
    maps = os.path.join(WORK, "maps")
    os.makedirs(maps, exist_ok=True)
    n = 4096
    rng = np.random.default_rng(29)
    y, x = np.mgrid[0:n, 0:n]
    for k, slot in enumerate(("ao", "rough", "metal")):
        path = os.path.join(maps, f"big_{slot}.png")
        if not os.path.exists(path):
            smooth = (np.sin(x / (37 + 11 * k)) + np.cos(y / (53 - 7 * k))) * 48 + 128
            img = np.clip(smooth + rng.normal(0, 12, (n, n)), 0, 255).astype(np.uint8)
            write_gray(path, img)
    pack = {"version": 1, "output": os.path.join(WORK, "out-pack"), "pipelines": [{
        "name": "orm", "inputs": ["maps/*_ao.png"], "output": "{file%_ao}_orm.png",
        "stages": [{"stage": "pack-channels", "g": {"image": "{dir}/{file%_ao}_rough.png"},
                    "b": {"image": "{dir}/{file%_ao}_metal.png"}, "a": 1}]}]}
    reads = {"version": 1, "output": os.path.join(WORK, "out-read"), "pipelines": [{
        "name": "read", "inputs": ["maps/*.png"], "output": "{file}_1px.png",
        "stages": [{"stage": "crop", "x": 0, "y": 0, "width": 1, "height": 1}]}]}
    a = b = io = 0.0
    for _ in range(ROUNDS):
        wall, out = run(pack, "pack", "--verbose")
        a += wall
        io += (stage_ms(out, "encode") + stage_ms(out, "write")) / 1000
        b += run(reads, "read")[0]
    a, b, io = a / ROUNDS, b / ROUNDS, io / ROUNDS
    print(f"\npack-channels, three 4096² maps → one PNG, --jobs 1: {a:.2f} s; "
          f"reading the three maps {b:.2f} s + encoding and writing the output {io:.2f} s = {b + io:.2f} s; "
          f"ratio {a / (b + io):.2f}× (target ≤ 1.2×)")


if __name__ == "__main__":
    os.makedirs(WORK, exist_ok=True)
    gate_cost()
    pack_cost()
