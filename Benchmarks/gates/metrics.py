#!/usr/bin/env python3
"""What the perceptual gates cost (issue #55): the 150-texture corpus with mip chains, one core
(--jobs 1), per format, the encode time texpipe reports per job (--verbose) with no check and with
every quality gate at once (minPSNR, minSSIM, maxFLIP: each level decoded and measured), rounds
interleaved so drift hits both alike. Target: ≤ 15 % over no check (BC7 medium, ASTC 6×6).

    Benchmarks/gates/metrics.py [BINARY] [ROUNDS]      # default .build/release/texpipe, 2 rounds
"""
import os
import sys

sys.path[:0] = [os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), g) for g in ("images", "encoders", "runs", "gates")]
import checks  # noqa: E402  (run, stage_ms, the corpus and the work folder)


def main():
    if not os.path.isdir(checks.CORPUS):
        sys.exit(f"no corpus at {checks.CORPUS}: run Benchmarks/images/compare-peers.sh once to fetch it")
    os.makedirs(checks.WORK, exist_ok=True)
    gates = {"none": None, "every": {"minPSNR": 0, "minSSIM": 0, "maxFLIP": 1}}
    print("| format | encode, no check | with every quality gate | cost |")
    print("| --- | --- | --- | --- |")
    for fmt, quality in (("bc7", "medium"), ("astc-6x6", "medium")):
        totals = {k: 0.0 for k in gates}
        for _ in range(checks.ROUNDS):
            for k, check in gates.items():
                p = {"name": "g", "inputs": [os.path.relpath(checks.CORPUS, checks.WORK) + "/*.png"],
                     "output": "{file}.ktx2", "texture": {"format": fmt, "quality": quality},
                     "stages": [{"stage": "mipmaps"}]}
                if check:
                    p["check"] = check
                _, out = checks.run({"version": 1, "output": os.path.join(checks.WORK, "m-" + k), "pipelines": [p]},
                                    "metrics-" + k, "--verbose")
                totals[k] += checks.stage_ms(out, "encode")
        n, e = totals["none"] / checks.ROUNDS / 1000, totals["every"] / checks.ROUNDS / 1000
        print(f"| {fmt} `{quality}` | {n:.2f} s | {e:.2f} s | {(e / n - 1) * 100:+.1f} % |", flush=True)


if __name__ == "__main__":
    main()
