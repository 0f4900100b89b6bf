#!/usr/bin/env python3
"""WebP and AVIF (docs/manifest.md "WebP and AVIF") over the 150-texture corpus, side by side in one
run with the command-line tools of the same libraries, run one file at a time as scripts run them:
Debian's cwebp/dwebp (libwebp 1.2.4) and avifenc/avifdec (libavif 0.11.1 over libaom 3.6 and dav1d).

  Benchmarks/runs/web.py [--rounds 3] [--skip-sweep]

Encoding, each round alternating texpipe and the tool (the VM drifts; medians are quoted):
  - WebP at texpipe's defaults (quality 90, method 4, alphaQuality 100) against
    `cwebp -q 90 -m 4 -alpha_q 100`; AVIF at quality 80, speed 6 (quantizer 13, alpha lossless)
    against `avifenc -j 1 -s 6 --min 13 --max 13 --minalpha 0 --maxalpha 0`;
  - texpipe `run --jobs 1` pinned to one core, and `--jobs 2` on both, its cache removed; the tool
    pinned to one core, a process per file; bytes totalled, and whether each file is the tool's.
Quality, from the files written (Pillow decodes, scikit-image's SSIM, PSNR over RGB here, both on
colour times alpha: what is seen, so the colour under transparent texels does not count):
  - WebP q90 against the corpus PNG bytes and its PSNR; AVIF q80's bytes against WebP's;
  - AVIF at equal SSIM: the corpus's mean SSIM of WebP q90, and the lowest AVIF quality (of a sweep)
    whose mean SSIM reaches it, with its bytes.
Decoding: every WebP/AVIF written, to PNG: texpipe `run --jobs 1` (its `decode` stage seconds from
the report, and the whole run) against `dwebp`/`avifdec -j 1` a process per file, pinned.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "images"))
import compare_peers  # noqa: E402

WORK = os.path.join(ROOT, ".build-bench", "web")
TEXPIPE = os.path.join(ROOT, ".build", "release", "texpipe")
SWEEP = [30, 40, 50, 60, 70, 80]


def timed(cmd, cwd=None):
    t = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def manifest(folder, ext, settings, inputs="in/*.png", output=None):
    key = "webp" if ext == "webp" else "avif"
    p = {"name": "p", "inputs": [inputs], "stages": [], "output": output or "{file}." + ext}
    if settings:
        p[key] = settings
    json.dump({"version": 1, "output": "out", "pipelines": [p]}, open(os.path.join(folder, "pipeline.json"), "w"))


def texpipe_run(folder, jobs, report=None):
    shutil.rmtree(os.path.join(folder, ".texpipe"), ignore_errors=True)
    shutil.rmtree(os.path.join(folder, "out"), ignore_errors=True)
    pin = ["taskset", "-c", "0"] if jobs == 1 else []
    cmd = pin + [TEXPIPE, "run", "--no-progress", "--quiet", "--jobs", str(jobs)]
    if report:
        cmd += ["--report", report]
    return timed(cmd, cwd=folder)


def tool_run(files, command):
    """Seconds for the tool over every file, one process each, pinned to one core."""
    t = time.perf_counter()
    for f in files:
        subprocess.run(["taskset", "-c", "0"] + command(f), check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def quality(source, decoded_path):
    """PSNR and SSIM of what is seen: colour times alpha (premultiplied), so the colour under
    transparent texels — which lossy WebP does not keep — counts for nothing, as on screen."""
    import numpy as np
    from PIL import Image
    from skimage.metrics import structural_similarity
    a = np.asarray(Image.open(source).convert("RGBA")).astype(np.float64)
    b = np.asarray(Image.open(decoded_path).convert("RGBA")).astype(np.float64)
    a[..., :3] *= a[..., 3:] / 255
    b[..., :3] *= b[..., 3:] / 255
    mse = ((a[..., :3] - b[..., :3]) ** 2).mean()
    psnr = 99.0 if mse == 0 else 10 * np.log10(255 * 255 / mse)
    ssim = statistics.mean(
        structural_similarity(a[..., c], b[..., c], data_range=255, gaussian_weights=True, sigma=1.5,
                              use_sample_covariance=False) for c in range(3))
    return psnr, ssim


def encode_section(files, rounds, out):
    rows = {}
    for ext, settings, flags in [
        ("webp", {}, lambda f, o: ["cwebp", "-quiet", "-q", "90", "-m", "4", "-alpha_q", "100", f, "-o", o]),
        ("avif", {}, lambda f, o: ["avifenc", "-j", "1", "-s", "6", "--min", "13", "--max", "13", "--minalpha", "0",
                                    "--maxalpha", "0", f, o]),
    ]:
        folder = os.path.join(WORK, ext)
        ref_dir = os.path.join(WORK, ext + "-tool")
        os.makedirs(ref_dir, exist_ok=True)
        manifest(folder, ext, settings)
        one, two, tool = [], [], []
        for _ in range(rounds):
            one.append(texpipe_run(folder, 1))
            tool.append(tool_run(files, lambda f: flags(f, os.path.join(ref_dir, os.path.basename(f)[:-4] + "." + ext))))
            two.append(texpipe_run(folder, 2))
        mine = {f: open(os.path.join(folder, "out", f), "rb").read() for f in os.listdir(os.path.join(folder, "out"))}
        theirs = {f: open(os.path.join(ref_dir, f), "rb").read() for f in os.listdir(ref_dir)}
        same = sum(1 for f in mine if mine[f] == theirs.get(f))
        rows[ext] = {
            "texpipe_bytes": sum(map(len, mine.values())), "tool_bytes": sum(map(len, theirs.values())),
            "identical_files": same, "files": len(mine),
            "texpipe_1core_s": statistics.median(one), "texpipe_2cores_s": statistics.median(two),
            "tool_1core_s": statistics.median(tool),
        }
        r = rows[ext]
        r["ratio_1core"] = r["texpipe_1core_s"] / r["tool_1core_s"]
        r["ratio_2cores"] = r["texpipe_2cores_s"] / r["tool_1core_s"]
        print(f"{ext}: {same}/{len(mine)} files byte-identical to the tool's; bytes {r['texpipe_bytes']} vs "
              f"{r['tool_bytes']}; one core {r['texpipe_1core_s']:.2f} s vs {r['tool_1core_s']:.2f} s "
              f"({r['ratio_1core']:.2f}x), two cores {r['texpipe_2cores_s']:.2f} s ({r['ratio_2cores']:.2f}x)",
              flush=True)
    out["encode"] = rows


def decoded_png(folder):
    return os.path.join(folder, "decoded")


def quality_section(files, skip_sweep, out):
    png_bytes = sum(os.path.getsize(f) for f in files)

    def measure(folder, ext):
        sizes, psnrs, ssims = 0, [], []
        for f in files:
            name = os.path.basename(f)[:-4] + "." + ext
            path = os.path.join(folder, "out", name)
            sizes += os.path.getsize(path)
            p, s = quality(f, path)
            psnrs.append(p)
            ssims.append(s)
        return sizes, statistics.mean(psnrs), min(psnrs), statistics.mean(ssims)

    webp = measure(os.path.join(WORK, "webp"), "webp")
    avif = measure(os.path.join(WORK, "avif"), "avif")
    q = {"png_bytes": png_bytes, "webp_q90": webp, "avif_q80": avif}
    print(f"PNG {png_bytes} B; WebP q90 {webp[0]} B ({webp[0] / png_bytes:.3f}x PNG), PSNR mean {webp[1]:.2f} dB "
          f"(min {webp[2]:.2f}), SSIM {webp[3]:.4f}; AVIF q80 {avif[0]} B ({avif[0] / webp[0]:.3f}x WebP), "
          f"PSNR {avif[1]:.2f} dB, SSIM {avif[3]:.4f}", flush=True)
    if not skip_sweep:
        sweep = []
        for quality_setting in SWEEP:
            folder = os.path.join(WORK, "avif-q%d" % quality_setting)
            manifest(folder, "avif", {"quality": quality_setting})
            texpipe_run(folder, 2)
            m = measure(folder, "avif")
            sweep.append((quality_setting, m))
            print(f"  AVIF q{quality_setting}: {m[0]} B ({m[0] / webp[0]:.3f}x WebP q90), SSIM {m[3]:.4f}, "
                  f"PSNR {m[1]:.2f} dB", flush=True)
        equal = [(s, m) for s, m in sweep if m[3] >= webp[3]]
        if equal:
            s, m = min(equal, key=lambda x: x[0])
            q["avif_equal_ssim"] = {"quality": s, "bytes": m[0], "ratio_to_webp": m[0] / webp[0], "ssim": m[3]}
            print(f"AVIF at WebP q90's SSIM ({webp[3]:.4f}): quality {s}, {m[0] / webp[0]:.3f}x WebP's bytes", flush=True)
    out["quality"] = q


def decode_section(rounds, out):
    rows = {}
    for ext, command in [
        ("webp", lambda f, o: ["dwebp", "-quiet", f, "-o", o]),
        ("avif", lambda f, o: ["avifdec", "-j", "1", f, o]),
    ]:
        src = os.path.join(WORK, ext, "out")
        folder = os.path.join(WORK, ext + "-decode")
        os.makedirs(os.path.join(folder, "in"), exist_ok=True)
        inputs = []
        for f in sorted(os.listdir(src)):
            shutil.copy(os.path.join(src, f), os.path.join(folder, "in", f))
            inputs.append(os.path.join(folder, "in", f))
        manifest(folder, "png", None, inputs="in/*." + ext, output="{file}.png")
        tmp = os.path.join(WORK, ext + "-decode-tool")
        os.makedirs(tmp, exist_ok=True)
        whole, decode, tool = [], [], []
        report = os.path.join(folder, "report.json")
        for _ in range(rounds):
            whole.append(texpipe_run(folder, 1, report))
            jobs = json.load(open(report))["jobs"]
            decode.append(sum(s["seconds"] for j in jobs for s in j.get("stages", []) if s["name"] == "decode"))
            tool.append(tool_run(inputs, lambda f: command(f, os.path.join(tmp, os.path.basename(f) + ".png"))))
        rows[ext] = {"texpipe_run_s": statistics.median(whole), "texpipe_decode_s": statistics.median(decode),
                     "tool_s": statistics.median(tool)}
        r = rows[ext]
        print(f"decode {ext}: texpipe's decode stage {r['texpipe_decode_s']:.2f} s, its whole run to PNG "
              f"{r['texpipe_run_s']:.2f} s; the tool to PNG {r['tool_s']:.2f} s "
              f"({r['texpipe_decode_s'] / r['tool_s']:.2f}x, {r['texpipe_run_s'] / r['tool_s']:.2f}x)", flush=True)
    out["decode"] = rows


def main():
    a = argparse.ArgumentParser()
    a.add_argument("--rounds", type=int, default=3)
    a.add_argument("--skip-sweep", action="store_true")
    a.add_argument("--only", choices=["encode", "quality", "decode"])
    args = a.parse_args()
    files = compare_peers.corpus()
    for ext in ("webp", "avif"):
        os.makedirs(os.path.join(WORK, ext), exist_ok=True)
        link = os.path.join(WORK, ext, "in")
        if not os.path.exists(link):
            os.symlink(os.path.dirname(files[0]), link)
    for q in SWEEP:
        folder = os.path.join(WORK, "avif-q%d" % q)
        os.makedirs(folder, exist_ok=True)
        if not os.path.exists(os.path.join(folder, "in")):
            os.symlink(os.path.dirname(files[0]), os.path.join(folder, "in"))
    print(f"{len(files)} textures, {compare_peers.megapixels(files):.1f} MP", flush=True)
    out = {}
    if args.only in (None, "encode"):
        encode_section(files, args.rounds, out)
    if args.only in (None, "quality"):
        quality_section(files, args.skip_sweep, out)
    if args.only in (None, "decode"):
        decode_section(args.rounds, out)
    json.dump(out, open(os.path.join(WORK, "results.json"), "w"), indent=2)


if __name__ == "__main__":
    main()
