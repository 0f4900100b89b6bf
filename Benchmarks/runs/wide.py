#!/usr/bin/env python3
"""The wide build against the baseline (docs/performance.md "The wide build"): the same sources
built twice — `TEXPIPE_PORTABLE=1` (x86-64, SSE2) and the default on a CPU with AVX2 and FMA
(Scripts/cpu-flags: Haswell) — timed side by side in one run, A B A B, one core (`--jobs 1`, pinned),
on every sixth texture of the corpus by name (25 textures, 7.3 MP; Benchmarks/images/compare-peers.sh
fetches it) with their mip chains: each case's stage seconds (`--verbose`; a check's measuring is in
`encode`, so with both BC7 `fast` cases run a last row gives the gates alone: the difference) and its
whole run, medians; and every output compared byte for byte.

    TEXPIPE_PORTABLE=1 swift build -c release --scratch-path .build-portable --product texpipe
    Benchmarks/runs/wide.py .build-portable/release/texpipe .build/release/texpipe [--rounds 3] [--cases "BC1 medium"]
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import statistics
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WORK = os.path.join(ROOT, ".build-bench", "wide")
CORPUS = os.path.join(ROOT, ".build-bench", "corpus")

CASES = {
    "BC1 medium": {"texture": {"format": "bc1", "quality": "medium"}, "flatten": True},
    "BC7 fast": {"texture": {"format": "bc7", "quality": "fast"}},
    "BC7 medium": {"texture": {"format": "bc7", "quality": "medium"}},
    "UASTC medium": {"texture": {"format": "uastc", "quality": "medium"}},
    "ETC1S medium": {"texture": {"format": "etc1s", "quality": "medium"}},
    "ASTC 6x6 medium": {"texture": {"format": "astc-6x6", "quality": "medium"}},
    "BC7 fast + SSIM and FLIP gates": {"texture": {"format": "bc7", "quality": "fast"},
                                       "check": {"minSSIM": 0, "maxFLIP": 1}},
    "mipmaps lanczos3 (PNG)": {"png": True},
}


def manifest(case, folder, files):
    stages = ([{"stage": "flatten"}] if case.get("flatten") else []) + [
        {"stage": "mipmaps", **({"filter": "lanczos3", "layout": "strip"} if case.get("png") else {})}]
    p = {"name": "w", "inputs": ["in/" + f for f in files], "stages": stages,
         "output": "{file}.png" if case.get("png") else "{file}.ktx2"}
    if "texture" in case:
        p["texture"] = case["texture"]
    if "check" in case:
        p["check"] = case["check"]
    os.makedirs(folder, exist_ok=True)
    if not os.path.exists(os.path.join(folder, "in")):
        os.symlink(CORPUS, os.path.join(folder, "in"))
    with open(os.path.join(folder, "pipeline.json"), "w") as f:
        json.dump({"version": 1, "output": "out", "pipelines": [p]}, f)


def run(binary, folder):
    shutil.rmtree(os.path.join(folder, ".texpipe"), ignore_errors=True)
    shutil.rmtree(os.path.join(folder, "out"), ignore_errors=True)
    t = time.perf_counter()
    p = subprocess.run(["taskset", "-c", "0", binary, "run", "--jobs", "1", "--no-progress", "--verbose"],
                       cwd=folder, check=True, capture_output=True, text=True)
    wall = time.perf_counter() - t
    return wall, p.stdout


def stage_s(stdout, stage):
    """The seconds `--verbose` gives a stage, summed over the jobs (a check is timed in `encode`)."""
    return sum(float(v) / (1 if unit == "s" else 1000)
               for v, unit in re.findall(rf"\b{stage} ([0-9.]+)(ms|s)\b", stdout))


def digest(folder):
    h = hashlib.sha256()
    out = os.path.join(folder, "out")
    for name in sorted(os.listdir(out)):
        h.update(name.encode())
        with open(os.path.join(out, name), "rb") as f:
            h.update(f.read())
    return h.hexdigest()


def main():
    a = argparse.ArgumentParser()
    a.add_argument("baseline")
    a.add_argument("wide")
    a.add_argument("--rounds", type=int, default=3)
    a.add_argument("--cases", default="", help="only these cases, comma-separated (default: all)")
    args = a.parse_args()
    files = sorted(f for f in os.listdir(CORPUS) if f.endswith(".png"))[::6]
    medians = {}
    print("| case | its stage | baseline s | wide s | faster | whole run: baseline s | wide s | faster | outputs |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, case in CASES.items():
        if args.cases and name not in args.cases.split(","):
            continue
        folders = {k: os.path.join(WORK, k, name.replace(" ", "_")) for k in ("baseline", "wide")}
        for folder in folders.values():
            manifest(case, folder, files)
        stage = "mipmaps" if case.get("png") else "encode"
        walls = {"baseline": [], "wide": []}
        stages = {"baseline": [], "wide": []}
        for _ in range(args.rounds):
            for k, binary in (("baseline", args.baseline), ("wide", args.wide)):
                wall, out = run(os.path.abspath(binary), folders[k])
                walls[k].append(wall)
                stages[k].append(stage_s(out, stage))
        b, w = statistics.median(walls["baseline"]), statistics.median(walls["wide"])
        sb, sw = statistics.median(stages["baseline"]), statistics.median(stages["wide"])
        same = "identical" if digest(folders["baseline"]) == digest(folders["wide"]) else "DIFFER"
        print(f"| {name} | `{stage}` | {sb:.2f} | {sw:.2f} | {sb / sw:.2f}x | {b:.2f} | {w:.2f} | {b / w:.2f}x | {same} |",
              flush=True)
        medians[name] = (sb, sw)
    # The gates' measuring alone: the gated case's encode less the same encode without the gates.
    gated, plain = medians.get("BC7 fast + SSIM and FLIP gates"), medians.get("BC7 fast")
    if gated and plain:
        gb, gw = gated[0] - plain[0], gated[1] - plain[1]
        print(f"| the SSIM and FLIP gates alone | `encode` less BC7 `fast`'s | {gb:.2f} | {gw:.2f} | {gb / gw:.2f}x "
              "| | | | |")


if __name__ == "__main__":
    main()
