#!/usr/bin/env python3
"""GPU textures (issue 13), whole process, this machine's cores, in one run:

1. an rgba8 KTX2 of a 4096² mip chain: the encode step's rate (file bytes / encode seconds, from
   the --report's stage times);
2. ASTC 6x6 at `medium` over the ~150-texture SuperTuxKart corpus: texpipe (all cores) against
   Arm's astcenc CLI over the same files (all cores, `-cs … 6x6 -medium`), MP/s, and both
   results' PSNR (RGB, and alpha on its own) decoded by PyPI's texture2ddecoder;
3. per format (rgba8, astc-4x4…8x8): total bytes as plain KTX2, KTX2 + zstd (level 9) and PNG.

    Benchmarks/runs/textures.py [BINARY]      # default .build/release/texpipe
"""
import importlib.util, json, os, shutil, struct, subprocess, sys, time

import numpy as np
import texture2ddecoder
import zstandard

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
WORK = os.path.join(ROOT, ".build-bench", "textures")
BINARY = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build/release/texpipe"))
ASTCENC = shutil.which("astcenc")
spec = importlib.util.spec_from_file_location("compare_peers", os.path.join(ROOT, "Benchmarks", "images", "compare_peers.py"))
peers = importlib.util.module_from_spec(spec)
spec.loader.exec_module(peers)


def texpipe(manifest, *extra):
    path = os.path.join(os.path.dirname(WORK), "textures-pipeline.json")  # beside corpus/
    with open(path, "w") as f:
        json.dump(manifest, f)
    t = time.perf_counter()
    p = subprocess.run([BINARY, "run", path, "--force", "--quiet", "--report", os.path.join(WORK, "report.json"), *extra],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(p.stderr[-600:])
    return time.perf_counter() - t, json.load(open(os.path.join(WORK, "report.json")))


def ktx2_level0(path):
    """(vkFormat, width, height, level 0 bytes inflated) from a KTX2 file, by the spec's offsets."""
    b = open(path, "rb").read()
    vk, _, w, h = struct.unpack_from("<IIII", b, 12)
    scheme = struct.unpack_from("<I", b, 44)[0]
    offset, length, raw = struct.unpack_from("<QQQ", b, 80)
    data = b[offset:offset + length]
    if scheme == 2:
        data = zstandard.ZstdDecompressor().decompress(data, max_output_size=raw)
    return vk, w, h, data


def psnr(a, b):
    """RGB PSNR and alpha PSNR of two h×w×4 uint8 arrays (RGBA)."""
    def one(x, y):
        mse = np.mean((x.astype(np.float64) - y.astype(np.float64)) ** 2)
        return 99.0 if mse == 0 else 10 * np.log10(255 * 255 / mse)
    return one(a[..., :3], b[..., :3]), one(a[..., 3], b[..., 3])


def astc_rgba(data, w, h, block):
    bgra = np.frombuffer(texture2ddecoder.decode_astc(data, w, h, block, block), dtype=np.uint8).reshape(h, w, 4)
    return bgra[..., [2, 1, 0, 3]]


def main():
    os.makedirs(WORK, exist_ok=True)
    files = peers.corpus()
    mp = peers.megapixels(files)
    corpus_dir = "corpus"  # relative to the manifest, in .build-bench/
    base = {"version": 1, "output": "textures/out"}

    # 1. A 4096² rgba8 chain: the largest corpus image resized up.
    big = max(files, key=lambda f: peers.ihdr(f)[0] * peers.ihdr(f)[1])
    _, report = texpipe(dict(base, pipelines=[{
        "name": "big", "inputs": ["corpus/" + os.path.basename(big)], "output": "big/{file}.ktx2",
        "stages": [{"stage": "resize", "width": 4096, "height": 4096}, {"stage": "mipmaps"}]}]))
    job = report["jobs"][0]
    encode = next(s["seconds"] for s in job["stages"] if s["name"] == "encode")
    write = next(s["seconds"] for s in job["stages"] if s["name"] == "write")
    size = job["outputs"][0]["bytes"]
    print(f"rgba8 KTX2, 4096² chain (13 levels, {size / 1e6:.1f} MB): KTX2 encoding {encode * 1000:.0f} ms = "
          f"{size / encode / 1e9:.2f} GB/s (target ≥ 1 GB/s); with the atomic write and its SHA-256 "
          f"{(encode + write) * 1000:.0f} ms = {size / (encode + write) / 1e9:.2f} GB/s\n")

    # The corpus as raw rgba8 KTX2: the reference texels for PSNR.
    texpipe(dict(base, pipelines=[{"name": "raw", "inputs": [corpus_dir + "/*.png"], "output": "raw/{file}.ktx2",
                                   "stages": []}]))
    names = [os.path.splitext(os.path.basename(f))[0] for f in files]
    source = {}
    for n in names:
        _, w, h, data = ktx2_level0(f"{WORK}/out/raw/{n}.ktx2")
        source[n] = np.frombuffer(data, dtype=np.uint8).reshape(h, w, 4)

    # 2. ASTC 6x6 medium: texpipe and the astcenc CLI, best of two runs each.
    ours = min(texpipe(dict(base, pipelines=[{
        "name": "astc", "inputs": [corpus_dir + "/*.png"], "output": "astc-6x6/{file}.ktx2",
        "texture": {"format": "astc-6x6"}, "stages": []}]))[0] for _ in range(2))
    os.makedirs(f"{WORK}/cli", exist_ok=True)
    theirs = None
    for _ in range(2):
        t = time.perf_counter()
        for f, n in zip(files, names):
            subprocess.run([ASTCENC, "-cs", f, f"{WORK}/cli/{n}.astc", "6x6", "-medium", "-silent"], check=True)
        theirs = min(theirs or 1e9, time.perf_counter() - t)
    p_ours, p_theirs = [], []
    for n in names:
        _, w, h, data = ktx2_level0(f"{WORK}/out/astc-6x6/{n}.ktx2")
        p_ours.append(psnr(source[n], astc_rgba(data, w, h, 6)))
        cli = open(f"{WORK}/cli/{n}.astc", "rb").read()
        p_theirs.append(psnr(source[n], astc_rgba(cli[16:], w, h, 6)))
    print(f"ASTC 6x6 medium, {len(files)} textures, {mp:.1f} MP, {os.cpu_count()} cores\n")
    print("| encoder | seconds | MP/s | mean PSNR RGB | worst RGB | mean PSNR alpha |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, s, ps in [("texpipe (libastcenc)", ours, p_ours), ("astcenc CLI 4.2", theirs, p_theirs)]:
        rgb = [p[0] for p in ps]
        print(f"| {name} | {s:.2f} | {mp / s:.2f} | {np.mean(rgb):.2f} dB | {min(rgb):.2f} dB | "
              f"{np.mean([p[1] for p in ps]):.2f} dB |")

    # 3. Sizes per format.
    print(f"\nBytes over the corpus, level 0 only ({len(files)} textures):\n")
    print("| format | KTX2 | KTX2 + zstd 9 | PNG (texpipe, level 6) | PSNR RGB (mean) |")
    print("| --- | --- | --- | --- | --- |")
    texpipe(dict(base, pipelines=[{"name": "png", "inputs": [corpus_dir + "/*.png"], "output": "png/{file}.png",
                                   "png": {"color": "rgba"}, "stages": []}]))
    png_bytes = sum(os.path.getsize(f"{WORK}/out/png/{n}.png") for n in names)
    for fmt in ["rgba8", "astc-4x4", "astc-5x5", "astc-6x6", "astc-8x8"]:
        totals = []
        for sc in ["none", "zstd"]:
            texpipe(dict(base, pipelines=[{"name": "f", "inputs": [corpus_dir + "/*.png"],
                                           "output": f"{fmt}-{sc}/{{file}}.ktx2",
                                           "texture": {"format": fmt, "supercompression": sc}, "stages": []}]))
            totals.append(sum(os.path.getsize(f"{WORK}/out/{fmt}-{sc}/{n}.ktx2") for n in names))
        if fmt == "rgba8":
            quality = "lossless"
        else:
            block = int(fmt[5])
            vals = []
            for n in names:
                _, w, h, data = ktx2_level0(f"{WORK}/out/{fmt}-none/{n}.ktx2")
                vals.append(psnr(source[n], astc_rgba(data, w, h, block))[0])
            quality = f"{np.mean(vals):.2f} dB"
        print(f"| {fmt} | {totals[0] / 1e6:.2f} MB | {totals[1] / 1e6:.2f} MB | {png_bytes / 1e6:.2f} MB | {quality} |")


if __name__ == "__main__":
    main()
