#!/usr/bin/env python3
"""`texpipe diff` of two builds of the 150-texture corpus (issue #55): BC7 with mip chains at
quality `fast` (BASE) and `medium` (HEAD), so nearly every texture changed and every level of each
is decoded twice and measured (PSNR, SSIM, FLIP). Wall time on two cores (target ≤ 10 s), and the
peak memory beyond a diff that reads the same files but finds them all unchanged, in pairs of the
corpus's largest decoded level-0 images (RGBA8) per core (target ≤ 2).

    Benchmarks/gates/diff.py [BINARY] [ROUNDS]      # default .build/release/texpipe, 3 rounds
"""
import json, os, struct, subprocess, sys, time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
WORK = os.path.join(ROOT, ".build-bench", "diff")
BINARY = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build/release/texpipe"))
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
CORPUS = os.path.join(ROOT, ".build-bench", "corpus")
CORES = 2


def timed(args):
    """Wall seconds and peak RSS (KiB) of one texpipe command."""
    t = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", BINARY, *args], capture_output=True, text=True, cwd=WORK)
    wall = time.perf_counter() - t
    if p.returncode not in (0, 1):
        raise RuntimeError(p.stderr[-600:])
    return wall, int(p.stderr.strip().splitlines()[-1]), p.stdout.strip()


def build(quality):
    out = os.path.join(WORK, quality)
    manifest = {"version": 1, "output": quality, "pipelines": [
        {"name": "c", "inputs": [os.path.relpath(CORPUS, WORK) + "/*.png"], "output": "{file}.ktx2",
         "texture": {"format": "bc7", "quality": quality}, "stages": [{"stage": "mipmaps"}]}]}
    path = os.path.join(WORK, quality + ".json")
    json.dump(manifest, open(path, "w"))
    subprocess.run([BINARY, "run", path, "--quiet", "--jobs", str(CORES)], check=True, cwd=WORK)
    return out


def main():
    if not os.path.isdir(CORPUS):
        sys.exit(f"no corpus at {CORPUS}: run Benchmarks/images/compare-peers.sh once to fetch it")
    os.makedirs(WORK, exist_ok=True)
    base, head = build("fast"), build("medium")
    largest = 0
    for f in os.listdir(CORPUS):
        w, h = struct.unpack(">II", open(os.path.join(CORPUS, f), "rb").read(24)[16:24])
        largest = max(largest, w * h * 4 * 2)
    _, baseline, _ = timed(["diff", "fast", "fast", "--jobs", str(CORES)])
    walls, peaks = [], []
    for _ in range(ROUNDS):
        wall, peak, summary = timed(["diff", "fast", "medium", "--jobs", str(CORES)])
        walls.append(wall)
        peaks.append(peak)
    extra = (max(peaks) - baseline) * 1024
    print(summary)
    print("| measure | value | target |")
    print("| --- | --- | --- |")
    print(f"| wall, {CORES} cores, {ROUNDS} rounds | {min(walls):.2f}–{max(walls):.2f} s | ≤ 10 s |")
    print(f"| peak RSS (all-unchanged diff) | {max(peaks) / 1024:.1f} MiB ({baseline / 1024:.1f} MiB) | |")
    print(f"| beyond it, per core, in largest pairs ({largest / 2**20:.0f} MiB) | "
          f"{extra / CORES / largest:.2f} | ≤ 2 |")


if __name__ == "__main__":
    main()
