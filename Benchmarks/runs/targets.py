#!/usr/bin/env python3
"""Quality targets (docs/gpu-textures.md "Quality targets") over the 150-texture corpus.

  Benchmarks/runs/targets.py [--targets 0.95,0.98] [--families etc1s,uastc,bc7,astc] [--time-subset 24]

Bytes, per family and minSSIM target, every texture with its mip chain:
  - targeted: `texture.target` {"minSSIM": T}; each texture gets its own setting (etc1s qlevel,
    uastc/bc7 the rdo λ under zstd, astc the block size);
  - the one fixed setting a whole folder would need: the highest-quality setting any texture was
    given (qlevel max, λ min, block smallest), run over the corpus with a `check` gate of the same
    minSSIM to confirm every texture meets it (textures no setting brings to T are left out of both
    sides and counted);
  - the targeted corpus's bytes against the fixed one's.
Format lists: ["bc1", "bc7"] (KTX2, no supercompression) against BC7 alone and BC1 alone, each with
the same minSSIM: how many textures BC1 serves, whether every texture BC1 alone meets T with got
BC1, and whether any texture's list output is larger than its BC7-only output.
Time (one core, pinned; a subset of `--time-subset` textures, every n-th of the corpus): each
texture's targeted job against one encode at the setting it chose (a pipeline per texture), from
the JSON report's job seconds — the median ratio per texture; and the same two runs' walls on two
cores; and a no-op rerun of the targeted corpus against a no-op rerun of the fixed one.
"""
import argparse
import html
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CORPUS = os.path.join(ROOT, ".build-bench", "corpus")
WORK = os.path.join(ROOT, ".build-bench", "targets")
TEXPIPE = os.path.join(ROOT, ".build", "release", "texpipe")

# Each family: its texture settings, the knob the target chooses, and how to read it back.
FAMILIES = {
    "etc1s": {"format": "etc1s"},
    "uastc": {"format": "uastc", "supercompression": "zstd"},
    "bc7": {"format": "bc7", "supercompression": "zstd"},
    "astc": {"format": "astc"},
}


def run(folder, pipelines, jobs, report=True, pin=False, clean=True):
    if clean:
        shutil.rmtree(os.path.join(folder, ".texpipe"), ignore_errors=True)
        shutil.rmtree(os.path.join(folder, "out"), ignore_errors=True)
    json.dump({"version": 1, "output": "out", "pipelines": pipelines}, open(os.path.join(folder, "pipeline.json"), "w"))
    cmd = (["taskset", "-c", "0"] if pin else []) + [TEXPIPE, "run", "--no-progress", "--quiet", "--jobs", str(jobs)]
    if report:
        cmd += ["--report", "report.json"]
    t = time.perf_counter()
    subprocess.run(cmd, cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    return (json.load(open(os.path.join(folder, "report.json"))) if report else None), wall


def corpus_folder(name):
    """A work folder with the corpus as `in/` beside its manifest (inputs are relative to it), and
    the inputs' glob."""
    folder = os.path.join(WORK, name)
    os.makedirs(folder, exist_ok=True)
    if not os.path.exists(os.path.join(folder, "in")):
        os.symlink(CORPUS, os.path.join(folder, "in"))
    return folder, ["in/*.png"]


def pipeline(name, inputs, texture, check=None, output="{file}.ktx2"):
    p = {"name": name, "inputs": inputs, "output": name + "/" + output, "texture": texture,
         "stages": [{"stage": "mipmaps"}]}
    if check:
        p["check"] = check
    return p


SSIM = {}


def outputs(report):
    """input file -> (format, choice value, bytes, ok)."""
    out = {}
    for j in report["jobs"]:
        o = j["outputs"][0] if j["outputs"] else None
        name = os.path.basename(j["input"])
        if o is None:
            out[name] = (None, None, 0, False)
            continue
        c = o.get("choice") or {}
        out[name] = (o.get("format"), c.get("value"), o["bytes"], j["status"] == "ok")
        levels = o.get("psnr") or []
        SSIM[name] = min((min(l.get("ssim", 1), l.get("ssimAlpha", 1)) for l in levels), default=None)
    return out


LAMBDAS = [2 ** (10 - k / 2) if k % 2 == 0 else float(f"{2 ** (10 - k / 2):.3g}") for k in range(33)] + [0]
BLOCKS = ["8x8", "6x6", "5x5", "4x4"]


def fixed_ladder(family, chosen):
    """The settings a whole folder could take, from the highest-quality one any texture was given
    up to the family's best: the first under which every texture meets the target is the folder's."""
    values = [v for (_, v, _, ok) in chosen.values() if ok and v is not None]
    if family == "etc1s":
        start = max(int(v) for v in values)
        return [{"qlevel": q} for q in sorted({start, min(255, start + 16), min(255, start + 32), 255})]
    if family in ("uastc", "bc7"):
        start = min(float(v) for v in values)
        return [{"rdo": {"lambda": lam}} if lam > 0 else {} for lam in LAMBDAS if lam <= start]
    start = max(BLOCKS.index(v) for v in values)
    return [{"format": "astc-" + b} for b in BLOCKS[start:]]


def bytes_table(args):
    folder, inputs = corpus_folder("bytes")
    rows = []
    for family in args.families:
        for t in args.etc1s_targets if family == "etc1s" else args.targets:
            target = {"minSSIM": t}
            rep, wall = run(folder, [pipeline("t", inputs, dict(FAMILIES[family], target=target))], 2)
            chosen = outputs(rep)
            met = {k for k, v in chosen.items() if v[3]}
            for setting in fixed_ladder(family, chosen):
                texture = setting if family == "astc" else dict(FAMILIES[family], **setting)
                frep, _ = run(folder, [pipeline("f", inputs, texture, check={"minSSIM": t})], 2)
                fixed = outputs(frep)
                fixed_ok = all(fixed[k][3] for k in met)
                if fixed_ok:
                    break
            tb = sum(chosen[k][2] for k in met)
            fb = sum(fixed[k][2] for k in met)
            values = sorted({v[1] for k, v in chosen.items() if k in met}, key=lambda x: float(x.split("x")[0]))
            rows.append((family, t, len(met), len(chosen) - len(met), setting, fixed_ok, tb, fb, values))
            fixed_ssim = dict(SSIM)
            outputs(rep)
            POINTS.append({"family": family, "target": t, "fixed": str(setting),
                           "points": [(chosen[k][2], SSIM[k], fixed[k][2], fixed_ssim[k]) for k in sorted(met)]})
            print(f"{family} minSSIM {t}: {len(met)} met ({len(chosen) - len(met)} cannot), fixed {setting} "
                  f"{'all meet' if fixed_ok else 'NOT all meet'}: targeted {tb:,} vs fixed {fb:,} bytes "
                  f"({100 * (1 - tb / fb):.1f} % smaller); settings chosen {values[:3]}…{values[-3:]}", flush=True)
    return rows


POINTS = []


def picture(path):
    """Each family at each target: every texture at the folder's fixed setting (grey) and at its
    own (blue), file bytes (log) against the worst level's SSIM, the target a line."""
    panels = POINTS
    cols, pw, ph, m = 4, 300, 230, 46
    rows = (len(panels) + cols - 1) // cols
    json.dump(panels, open(os.path.join(WORK, "picture.json"), "w"))
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{cols * pw}" height="{rows * ph + 28}" '
           'font-family="sans-serif" font-size="11">', f'<rect width="100%" height="100%" fill="white"/>',
           '<text x="12" y="18" font-size="12">Each texture of the corpus that can meet the target: '
           '<tspan fill="#999">●</tspan> at the one setting the whole folder needs, '
           '<tspan fill="#2a6fdb">●</tspan> at its own chosen setting; x: file bytes (log), '
           "y: the worst level's SSIM (top 1.0), dashed: the target</text>", '<g transform="translate(0,28)">']
    for k, p in enumerate(panels):
        ox, oy = (k % cols) * pw, (k // cols) * ph
        pts = p["points"]
        xs = [b for (a, _, c, _) in pts for b in (a, c) if b > 0]
        ys = [s for (_, s1, _, s2) in pts for s in (s1, s2) if s is not None]
        if not xs or not ys:
            continue
        lx0, lx1 = math.log10(min(xs)), math.log10(max(xs)) + 1e-9
        y0 = min(min(ys), p["target"]) - 0.01
        y1 = 1.0

        def X(b):
            return ox + m + (math.log10(b) - lx0) / (lx1 - lx0) * (pw - m - 10)

        def Y(v):
            return oy + 20 + (y1 - v) / (y1 - y0) * (ph - m - 20)
        out.append(f'<text x="{ox + m}" y="{oy + 14}">{p["family"]}, minSSIM {p["target"]} '
                   f'(fixed: {html.escape(p["fixed"])})</text>')
        out.append(f'<line x1="{ox + m}" x2="{ox + pw - 10}" y1="{Y(p["target"]):.1f}" y2="{Y(p["target"]):.1f}" '
                   'stroke="#c33" stroke-dasharray="4 3"/>')
        out.append(f'<text x="{ox + 4}" y="{Y(p["target"]) + 4:.1f}" fill="#c33">{p["target"]}</text>')
        for (tb, ts, fb, fs) in pts:
            if fb > 0 and fs is not None:
                out.append(f'<circle cx="{X(fb):.1f}" cy="{Y(fs):.1f}" r="2.2" fill="#999"/>')
            if tb > 0 and ts is not None:
                out.append(f'<circle cx="{X(tb):.1f}" cy="{Y(ts):.1f}" r="2.2" fill="#2a6fdb"/>')
        out.append(f'<text x="{ox + m}" y="{oy + ph - 22}" fill="#555">file bytes (log) →  '
                   f'{sum(a for a, _, _, _ in pts):,} targeted, {sum(c for _, _, c, _ in pts):,} fixed</text>')
    out.append("</g></svg>")
    open(path, "w").write("\n".join(out) + "\n")


def kvd_length(path):
    """A KTX2's key/value data length (header field kvdByteLength)."""
    with open(path, "rb") as f:
        head = f.read(64)
    return int.from_bytes(head[60:64], "little")


def lists_table(args):
    folder, inputs = corpus_folder("lists")
    rows = []
    for t in args.targets:
        rep, _ = run(folder, [pipeline("l", inputs, {"format": ["bc1", "bc7"], "target": {"minSSIM": t}})], 2)
        both = outputs(rep)
        rep7, _ = run(folder, [pipeline("b7", inputs, {"format": "bc7"})], 2, clean=False)
        only7 = outputs(rep7)
        rep1, _ = run(folder, [pipeline("b1", inputs, {"format": "bc1"}, check={"minSSIM": t})], 2, clean=False)
        # BC1 alone meets T where its job is ok (a texture with alpha fails to encode, one under T its gate).
        bc1_ok = {k for k, v in outputs(rep1).items() if v[3]}
        picked1 = {k for k, v in both.items() if v[0] == "bc1"}
        # A list's KTX2 carries its texpipe.target record (key/value data): larger than BC7 alone
        # only by it, the blocks being BC7's own, or larger beyond it.
        record = {k: kvd_length(os.path.join(folder, "out", "l", os.path.splitext(k)[0] + ".ktx2"))
                  - kvd_length(os.path.join(folder, "out", "b7", os.path.splitext(k)[0] + ".ktx2")) for k in both}
        larger = [k for k in both if both[k][2] - record[k] > only7[k][2]]
        print(f"  the record: {min(record.values())}–{max(record.values())} bytes a file; every texture BC1 alone "
              f"meets got BC1: {bc1_ok <= picked1}", flush=True)
        rows.append((t, len(picked1), len(bc1_ok), bc1_ok <= picked1 or None, len(larger),
                     sum(v[2] for v in both.values()), sum(v[2] for v in only7.values())))
        print(f"[bc1, bc7] minSSIM {t}: BC1 picked for {len(picked1)}; BC1 alone ok (job) for {len(bc1_ok)}; "
              f"list larger than BC7-only beyond its record for {len(larger)}; bytes {rows[-1][5]:,} vs BC7-only {rows[-1][6]:,}",
              flush=True)
    return rows


def time_table(args):
    folder = os.path.join(WORK, "time")
    os.makedirs(os.path.join(folder, "in"), exist_ok=True)
    names = sorted(os.listdir(CORPUS))[:: max(1, 150 // args.time_subset)][: args.time_subset]
    for n in names:
        dst = os.path.join(folder, "in", n)
        if not os.path.exists(dst):
            shutil.copy(os.path.join(CORPUS, n), dst)
    rows = []
    for family in args.families:
        t = args.etc1s_targets[0] if family == "etc1s" else args.targets[0]
        target = {"minSSIM": t}
        rep, wall1 = run(folder, [pipeline("t", ["in/*.png"], dict(FAMILIES[family], target=target))], 1, pin=True)
        chosen = outputs(rep)
        secs = {os.path.basename(j["input"]): j["seconds"] for j in rep["jobs"]}
        _, noop_t = run(folder, [pipeline("t", ["in/*.png"], dict(FAMILIES[family], target=target))], 1,
                        report=False, pin=True, clean=False)
        # One pipeline per texture at the setting it was given.
        per = []
        for k, n in enumerate(names):
            f, v, _, ok = chosen[n]
            if family == "etc1s":
                tex = {"format": "etc1s", "qlevel": int(v)}
            elif family in ("uastc", "bc7"):
                tex = dict(FAMILIES[family], **({"rdo": {"lambda": float(v)}} if float(v) > 0 else {}))
            else:
                tex = {"format": f}
            per.append(pipeline(f"p{k}", ["in/" + n], tex))
        rep2, wall_fixed1 = run(folder, per, 1, pin=True)
        secs2 = {os.path.basename(j["input"]): j["seconds"] for j in rep2["jobs"]}
        _, noop_f = run(folder, per, 1, report=False, pin=True, clean=False)
        ratios = [secs[n] / secs2[n] for n in names if secs2.get(n)]
        _, wall2 = run(folder, [pipeline("t", ["in/*.png"], dict(FAMILIES[family], target=target))], 2, report=False)
        _, wall_fixed2 = run(folder, per, 2, report=False)
        rows.append((family, statistics.median(ratios), wall1 / wall_fixed1, wall2 / wall_fixed2, noop_t, noop_f))
        print(f"{family} minSSIM {t}, {len(names)} textures: targeted / one encode at the chosen setting, median per "
              f"texture {rows[-1][1]:.2f}x (one core; whole run {rows[-1][2]:.2f}x); two cores {rows[-1][3]:.2f}x; "
              f"no-op rerun {noop_t:.3f} s vs fixed {noop_f:.3f} s", flush=True)
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--targets", default="0.95,0.98", help="minSSIM targets of uastc, bc7, astc and the lists")
    ap.add_argument("--etc1s-targets", default="0.85,0.9", help="ETC1S's (0.95 is out of its reach for most)")
    ap.add_argument("--families", default="etc1s,uastc,bc7,astc")
    ap.add_argument("--time-subset", type=int, default=24)
    ap.add_argument("--only", default="bytes,lists,time")
    ap.add_argument("--picture", help="write the rate–quality picture (SVG) of the bytes table here")
    args = ap.parse_args()
    args.targets = [float(x) for x in args.targets.split(",")]
    args.etc1s_targets = [float(x) for x in args.etc1s_targets.split(",")]
    args.families = args.families.split(",")
    if not os.path.isdir(CORPUS):
        sys.exit("no corpus: run Benchmarks/images/compare-peers.sh once (it makes .build-bench/corpus)")
    only = args.only.split(",")
    if "bytes" in only:
        bytes_table(args)
        if args.picture:
            picture(args.picture)
    if "lists" in only:
        lists_table(args)
    if "time" in only:
        time_table(args)


if __name__ == "__main__":
    main()
