#!/usr/bin/env python3
"""The volume targets of issue #54, each a cold `texpipe run` (cache removed) in its own process:

1. A 64³ `.cube` LUT (a grade written here with six decimals per value, as Resolve writes them)
   into an `rgba16f` KTX2, one core: the job's time (the report's `seconds`) and the process's
   wall time. Target: ≤ 50 ms.
2. A 256×256×256 volume of smooth value noise, 256 RGB PNG slices, through `mipmaps` (the whole
   chain, 9 levels) into an `rgba8` KTX2, on two cores (`--jobs 2`, so the job borrows the other
   core): wall time, and peak RSS (`/usr/bin/time`) beside the decoded volume (256³ × 4 bytes,
   64 MiB). Targets: ≤ 2 s, ≤ 2.5× the decoded volume.

  Benchmarks/runs/volume.sh [--runs N]

Nothing here has a reference to compare with: KTX-Software's toktx makes no 3D mips. Each case
runs `--runs` times (default 3); the best and the worst are printed.
"""
import argparse
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TEXPIPE = os.path.join(ROOT, ".build", "release", "texpipe")


def write_lut(path, n=64):
    rows = [f'TITLE "benchmark grade"', f"LUT_3D_SIZE {n}"]
    for b in range(n):
        for g in range(n):
            for r in range(n):
                x, y, z = r / (n - 1), g / (n - 1), b / (n - 1)
                rows.append(f"{x * 0.9 + 0.05 * y:.6f} {y ** 1.1:.6f} {min(1.0, z * 1.05 + 0.02 * x):.6f}")
    with open(path, "w") as f:
        f.write("\n".join(rows) + "\n")


def png(path, w, h, rgb):
    raw = b"".join(b"\x00" + rgb[y * w * 3:(y + 1) * w * 3] for y in range(h))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))


def write_volume(folder, n=256):
    """Smooth value noise: a 9³ lattice of random colours, interpolated trilinearly (numpy)."""
    import numpy as np
    rng = np.random.default_rng(7)
    lattice = rng.integers(0, 256, size=(9, 9, 9, 3)).astype(np.float32)
    t = np.linspace(0, 8, n, endpoint=False)
    i = np.floor(t).astype(int)
    f = (t - i)[:, None]
    os.makedirs(folder, exist_ok=True)
    for z in range(n):
        zi, zf = i[z], t[z] - i[z]
        plane = lattice[zi] * (1 - zf) + lattice[zi + 1] * zf  # 9×9×3
        rows = plane[i] * (1 - f[:, :, None]) + plane[i + 1] * f[:, :, None]  # n×9×3
        full = rows[:, i] * (1 - f[None, :, :]) + rows[:, i + 1] * f[None, :, :]  # n×n×3
        png(os.path.join(folder, f"s{z:03d}.png"), n, n, full.astype(np.uint8).tobytes())


def run(folder, pipelines, jobs):
    manifest = os.path.join(folder, "pipeline.json")
    with open(manifest, "w") as f:
        json.dump({"version": 1, "output": "out", "pipelines": pipelines}, f)
    shutil.rmtree(os.path.join(folder, ".texpipe"), ignore_errors=True)
    shutil.rmtree(os.path.join(folder, "out"), ignore_errors=True)
    report = os.path.join(folder, "report.json")
    t = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", TEXPIPE, "run", manifest, "--jobs", str(jobs), "--quiet",
                        "--report", report], capture_output=True, text=True, cwd=folder)
    wall = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit(p.stderr)
    peak = int(p.stderr.strip().splitlines()[-1]) / 1024
    seconds = json.load(open(report))["jobs"][0]["seconds"]
    return wall, seconds, peak


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        write_lut(os.path.join(tmp, "grade.cube"))
        lut = [{"name": "lut", "inputs": ["grade.cube"], "stages": [], "output": "grade.ktx2",
                "texture": {"format": "rgba16f"}}]
        results = [run(tmp, lut, 1) for _ in range(args.runs)]
        jobs = sorted(r[1] * 1000 for r in results)
        walls = sorted(r[0] * 1000 for r in results)
        print(f"64³ LUT → rgba16f KTX2, one core: job {jobs[0]:.1f}–{jobs[-1]:.1f} ms, "
              f"process {walls[0]:.1f}–{walls[-1]:.1f} ms (target ≤ 50 ms)")
        write_volume(os.path.join(tmp, "slices"))
        volume = [{"name": "noise", "inputs": ["slices/*.png"], "volume": {}, "output": "noise.ktx2",
                   "texture": {"format": "rgba8", "colorSpace": "linear"},
                   "stages": [{"stage": "mipmaps", "colorSpace": "linear"}]}]
        results = [run(tmp, volume, 2) for _ in range(args.runs)]
        decoded = 256 ** 3 * 4 / 2**20
        walls = sorted(r[0] for r in results)
        peaks = sorted(r[2] for r in results)
        size = os.path.getsize(os.path.join(tmp, "out", "noise.ktx2")) / 2**20
        print(f"256³ noise volume, 9 levels → rgba8 KTX2 ({size:.1f} MiB), two cores: "
              f"{walls[0]:.2f}–{walls[-1]:.2f} s (target ≤ 2 s); peak {peaks[0]:.0f}–{peaks[-1]:.0f} MiB = "
              f"{peaks[0] / decoded:.2f}–{peaks[-1] / decoded:.2f}× the decoded {decoded:.0f} MiB (target ≤ 2.5×)")


if __name__ == "__main__":
    main()
