#!/usr/bin/env python3
"""The normal stages (docs/stages.md "Normal maps") beside `adjust` on the same 4096² image (a
SuperTuxKart rock texture enlarged by libvips, as Benchmarks/images/memory.py makes it), one core, side by side in one run: each stage's own seconds (the JSON report's stage timings, so
decoding and PNG writing do not count) and each run's peak RSS (/usr/bin/time) over the decoded
images it holds (the input, and the image a stage reads beside it: `normal-blend`'s detail,
`roughnessFrom`'s normal map; docs/performance.md "Memory": per-pixel chains at most 2.5×).
`mipmaps` with `roughnessFrom` beside `mipmaps` alone: what the roughness pass adds.

  .venv/bin/python3 Benchmarks/runs/normals.py [--size 4096] [--rounds 3]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "images"))
import memory  # noqa: E402  (write_noise: a seeded noise PNG)

WORK = os.path.join(ROOT, ".build-bench", "normals")
TEXPIPE = os.path.join(ROOT, ".build", "release", "texpipe")

CASES = [
    ("adjust", [{"stage": "adjust", "saturation": 1.2, "contrast": 1.1}], [], "adjust"),
    ("premultiply", [{"stage": "premultiply"}], [], "premultiply"),
    ("normal-from-height", [{"stage": "normal-from-height", "strength": 2}], [], "normal-from-height"),
    ("normal-adjust", [{"stage": "normal-adjust", "flipY": True, "strength": 1.5}], [], "normal-adjust"),
    ("normal-blend", [{"stage": "normal-blend", "detail": "detail.png"}], ["detail.png"], "normal-blend"),
    # A per-pixel stage that reads one image beside its input, as normal-blend does: its memory's yardstick.
    ("composite", [{"stage": "composite", "layers": [{"image": "detail.png", "blend": "overlay"}]}], ["detail.png"],
     "composite"),
    ("mipmaps", [{"stage": "mipmaps", "colorSpace": "linear", "layout": "files"}], [], "mipmaps"),
    ("mipmaps+roughnessFrom",
     [{"stage": "mipmaps", "colorSpace": "linear", "layout": "files",
       "roughnessFrom": {"normals": "detail.png"}}], ["detail.png"], "mipmaps"),
]


def run(case, size):
    name, stages, _, stage_name = case
    folder = os.path.join(WORK, name)
    os.makedirs(folder, exist_ok=True)
    for f in ("in.png", "detail.png"):
        if not os.path.exists(os.path.join(folder, f)):
            os.symlink(os.path.join(WORK, f), os.path.join(folder, f))
    p = {"name": "n", "inputs": ["in.png"], "stages": stages, "output": "{file}{suffix}.png"}
    json.dump({"version": 1, "output": "out", "pipelines": [p]}, open(os.path.join(folder, "pipeline.json"), "w"))
    subprocess.run(["rm", "-rf", os.path.join(folder, ".texpipe"), os.path.join(folder, "out")], check=True)
    r = subprocess.run(["taskset", "-c", "0", "/usr/bin/time", "-f", "%M", TEXPIPE, "run", "--quiet", "--jobs", "1",
                        "--report", "r.json"], cwd=folder, capture_output=True, text=True, check=True)
    rss_kib = int(r.stderr.strip().split()[-1])
    jobs = json.load(open(os.path.join(folder, "r.json")))["jobs"]
    seconds = sum(s["seconds"] for j in jobs for s in j["stages"] if s["name"] == stage_name)
    return seconds, rss_kib * 1024


def main():
    a = argparse.ArgumentParser()
    a.add_argument("--size", type=int, default=4096)
    a.add_argument("--rounds", type=int, default=3)
    args = a.parse_args()
    os.makedirs(WORK, exist_ok=True)
    # A real texture enlarged (memory.py's: a rock, by libvips), and noise for the second image.
    for f, make in (("in.png", memory.write_real), ("detail.png", memory.write_noise)):
        path = os.path.join(WORK, f)
        if not os.path.exists(path):
            make(path, args.size)
    image_bytes = args.size * args.size * 4
    times = {c[0]: [] for c in CASES}
    rss = {c[0]: [] for c in CASES}
    for _ in range(args.rounds):
        for case in CASES:
            s, m = run(case, args.size)
            times[case[0]].append(s)
            rss[case[0]].append(m)
    base = statistics.median(times["adjust"])
    out = {}
    for name, _, extra, _ in CASES:
        t = statistics.median(times[name])
        m = statistics.median(rss[name])
        # The bound: 2.5x the input for a per-pixel stage, plus each image it reads beside it; a
        # chain of levels holds 4/3 of level 0 (docs/performance.md "Memory": 3.5x).
        bound = (3.5 if name.startswith("mipmaps") else 2.5) + len(extra)
        out[name] = {"stage_seconds": t, "vs_adjust": t / base, "peak_rss": m, "rss_over_input": m / image_bytes,
                     "bound": bound}
        print(f"{name:24s} {t:7.3f} s ({t / base:4.2f}x adjust)  peak {m / 2**20:7.1f} MiB "
              f"= {m / image_bytes:4.2f}x the input (bound {bound}x)", flush=True)
    json.dump(out, open(os.path.join(WORK, "results.json"), "w"), indent=2)


if __name__ == "__main__":
    main()
