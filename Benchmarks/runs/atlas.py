#!/usr/bin/env python3
"""Atlas benchmark (issue #15): texpipe's packer on 1,000 and 10,000 mixed rectangles and on the
five tightness sets, one core, beside PyPI rectpack's best MaxRects page (BSSF / BAF / BL, the
smallest page under the same rule); and the card-deck atlas job, cold.

  python3 Benchmarks/runs/atlas.py [--texpipe .build/release/texpipe] [--skip-rectpack-over N]

Occupancy = rectangle area / page area (one page; several pages: over all of them).
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "Tests", "TexPipeTestSupport"))
import rectpack_best  # noqa: E402


def sets():
    """The same seeded sets as the tightness test (AtlasPackerTests.sets), plus the two big ones."""
    r = random.Random(15)
    out = {
        "uniform 150": [(32, 32)] * 150,
        "mixed 200": [(r.randint(8, 128), r.randint(8, 128)) for _ in range(200)],
        "long thin 120": [(r.randint(4, 16), r.randint(64, 256)) if i % 2 else (r.randint(64, 256), r.randint(4, 16))
                          for i in range(120)],
        "many tiny 400": [(r.randint(2, 12), r.randint(2, 12)) for _ in range(400)],
        "few huge 6": [(r.randint(200, 700), r.randint(200, 700)) for _ in range(6)],
        "mixed 1000": [(r.randint(4, 96), r.randint(4, 96)) for _ in range(1000)],
        "mixed 10000": [(r.randint(4, 64), r.randint(4, 64)) for _ in range(10000)],
    }
    return out


def texpipe_pack(binary, sizes, settings):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"sizes": sizes, "atlas": settings}, f)
        path = f.name
    try:
        # One core: the packer is single-threaded; taskset pins the process as well.
        cmd = ["taskset", "-c", "0", binary, "pack-rects", path] if shutil.which("taskset") else [binary, "pack-rects", path]
        return json.loads(subprocess.check_output(cmd))
    finally:
        os.unlink(path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--texpipe", default=os.path.join(ROOT, ".build", "release", "texpipe"))
    # rectpack is pure Python: a smallest-page search under pot takes seconds up to ~1,000
    # rectangles, and its width search under `any` minutes from ~200.
    ap.add_argument("--skip-rectpack-over", type=int, default=1000)
    ap.add_argument("--skip-rectpack-any-over", type=int, default=150)
    ap.add_argument("--padding", type=int, default=2)
    args = ap.parse_args()
    pad = args.padding
    print(f"| set | rule | texpipe pages | texpipe s | texpipe occupancy | rectpack best page | rectpack occupancy | texpipe area / rectpack |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, sizes in sets().items():
        for rule in (["pot", "any"] if len(sizes) <= 1000 else ["pot"]):
            settings = {"maxSize": 4096, "size": rule, "padding": pad}
            best = None
            for _ in range(3 if len(sizes) <= 1000 else 1):
                res = texpipe_pack(args.texpipe, sizes, settings)
                if best is None or res["seconds"] < best["seconds"]:
                    best = res
            area = sum(w * h for w, h in sizes)
            pages = best["pages"]
            page_area = sum(p["w"] * p["h"] for p in pages)
            shown = " + ".join(f"{p['w']}×{p['h']}" for p in pages)
            ref = "—"
            ref_occ = "—"
            ratio = "—"
            limit = args.skip_rectpack_over if rule == "pot" else args.skip_rectpack_any_over
            if len(sizes) <= limit:
                page = rectpack_best.smallest(sizes, pad, rule, 4096, False)
                if page:
                    ref = f"{page[0]}×{page[1]} ({page[2]})"
                    ref_occ = f"{area / (page[0] * page[1]):.1%}"
                    ratio = f"{page_area / (page[0] * page[1]):.3f}"
            print(f"| {name} | {rule} | {shown} | {best['seconds']:.3f} | {area / page_area:.1%} | {ref} | {ref_occ} | {ratio} |")
            sys.stdout.flush()

    # The card deck atlas job (samples), cold, best of 3.
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(os.path.join(ROOT, "Samples", "cards"), os.path.join(tmp, "Samples", "cards"))
        manifest = {"version": 1, "output": "build", "pipelines": [{
            "name": "deck", "inputs": ["Samples/cards/*.png"],
            "stages": [{"stage": "color-key", "color": "rgb(0,128,0)", "region": "edges"}],
            "atlas": {"maxSize": 1024, "padding": 2, "extrude": 1, "data": ["json", "libgdx"]},
            "output": "atlas/deck{page}.png"}]}
        with open(os.path.join(tmp, "pipeline.json"), "w") as f:
            json.dump(manifest, f)
        times = []
        for _ in range(3):
            shutil.rmtree(os.path.join(tmp, "build"), ignore_errors=True)
            shutil.rmtree(os.path.join(tmp, ".texpipe"), ignore_errors=True)
            t = time.perf_counter()
            subprocess.check_call([args.texpipe, "run", "--quiet", os.path.join(tmp, "pipeline.json")])
            times.append(time.perf_counter() - t)
        print(f"\ncard-deck atlas job (13 cards, color-key, pack, PNG + JSON + libGDX), cold, whole process: "
              f"{min(times) * 1000:.0f} ms best of 3")


if __name__ == "__main__":
    main()
