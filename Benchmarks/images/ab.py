#!/usr/bin/env python3
"""Two texpipe binaries on the same work, alternating, in one run (the VM's speed drifts up to 2×
between runs, so only a ratio measured side by side means anything): the compare-peers corpus
through color-key, premultiply, mipmaps, rotate, alpha-split and overlay, whole process, --force,
at --jobs 1 and at all cores. Prints the median seconds of each and after / before.

    Benchmarks/images/ab.py BEFORE AFTER [REPEAT]       # REPEAT default 3
"""
import os, statistics, subprocess, sys, time

sys.path[:0] = [os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), g) for g in ("images", "encoders", "runs", "gates")]
import compare_peers as cp  # noqa: E402

OPS = ["color-key", "premultiply", "mipmaps", "rotate", "alpha-split", "overlay"]


def main():
    before, after = (os.path.abspath(a) for a in sys.argv[1:3])
    repeat = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    os.makedirs(cp.WORK, exist_ok=True)
    files = cp.corpus()
    if not os.path.exists(cp.SHADING):
        cp.write_shading(cp.SHADING)
    print(f"| operation | jobs | before s | after s | after / before |")
    print(f"| --- | --- | --- | --- | --- |")
    for op in OPS:
        for jobs in (1, cp.CORES):
            times = {before: [], after: []}
            for _ in range(repeat):
                for binary in (before, after):
                    out = os.path.join(cp.WORK, f"ab-{op}")
                    cp.fresh(out)
                    m = cp.texpipe_manifest(op, files, out)
                    t = time.perf_counter()
                    subprocess.run([binary, "run", m, "--force", "--quiet", "--no-progress", "--jobs", str(jobs)],
                                   check=True)
                    times[binary].append(time.perf_counter() - t)
            b, a = statistics.median(times[before]), statistics.median(times[after])
            print(f"| {op} | {jobs} | {b:.2f} | {a:.2f} | {a / b:.2f} |", flush=True)


if __name__ == "__main__":
    main()
