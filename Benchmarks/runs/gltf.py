#!/usr/bin/env python3
"""glTF models (docs/gltf.md): texpipe's `gltf` pipeline against the work glTF-Transform hands to
toktx — each texture encoded on its own by basisu (PyPI's alktx2, basisu 2.x) at the same settings.

Models of 5, 10 and 20 corpus textures of at least 256×256 (compare_encoders.py's corpus, in its
order, cropped to multiples of 4 and written as PNG files; a normal map's slot gets a normal map
made from the image's luma as heights). Roles cycle baseColor, baseColor, baseColor, normal, occlusion+metallicRoughness,
one material per texture. texpipe's defaults: colour ETC1S `qlevel` 128 with mipmaps; normals
UASTC with renormalized mipmaps, RDO `maxLoss` 1, zstd; data UASTC with mipmaps, zstd. basisu at
the nearest settings: ETC1S quality 25 (the rate of qlevel 128 on this corpus, docs/performance.md
"ETC1S"), effort 2; UASTC quality 100, effort 2, zstd, RDO lambda 1 and renormalized mips for
normals; mipmaps on; one thread, from the PNG bytes (`encode_bytes_to_ktx2`, as toktx reads files).

Per model: seconds cold (texpipe `run --jobs 1` pinned to one core, its cache removed; basisu
summed over the textures), total KTX2 bytes and mean RGB PSNR of level 0 (every file through the
Basis Universal transcoder, against the source). For the 20-texture model: a rerun after editing
one texture (its pixels flipped) against that texture's own encode (a one-texture model), and a
rerun of the untouched model.

  Benchmarks/runs/gltf.sh [--sizes 5,10,20] [--skip N]
"""
import argparse
import json
import math
import os
import struct
import subprocess
import sys
import tempfile
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [os.path.join(os.path.dirname(HERE), g) for g in ("images", "encoders", "runs", "gates")]
import alktx2  # noqa: E402
import compare_encoders as ce  # noqa: E402
import compare_peers  # noqa: E402
import numpy as np  # noqa: E402
import opengl_basisu  # noqa: E402

ROLES = ["baseColor", "baseColor", "baseColor", "normal", "orm"]


def material(role, t):
    if role == "baseColor":
        return {"pbrMetallicRoughness": {"baseColorTexture": {"index": t}}}
    if role == "normal":
        return {"normalTexture": {"index": t}}
    return {"occlusionTexture": {"index": t}, "pbrMetallicRoughness": {"metallicRoughnessTexture": {"index": t}}}


def write_model(folder, name, images):
    """`name.gltf` with a quad, one material per texture, and the textures (w, h, RGBA) as PNGs beside it."""
    os.makedirs(folder, exist_ok=True)
    quad = struct.pack("<12f", -1, -1, 0, 1, -1, 0, 1, 1, 0, -1, 1, 0) + struct.pack("<6H", 0, 1, 2, 0, 2, 3)
    open(os.path.join(folder, name + ".bin"), "wb").write(quad)
    files, prims = [], []
    for k, (w, h, px) in enumerate(images):
        write_png(os.path.join(folder, "t%02d.png" % k), w, h, px)
        files.append({"uri": "t%02d.png" % k})
        prims.append({"attributes": {"POSITION": 0}, "indices": 1, "material": k})
    model = {
        "asset": {"version": "2.0"}, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": prims}],
        "materials": [material(ROLES[k % len(ROLES)], k) for k in range(len(images))],
        "textures": [{"source": k} for k in range(len(images))], "images": files,
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3",
                       "min": [-1, -1, 0], "max": [1, 1, 0]},
                      {"bufferView": 1, "componentType": 5123, "count": 6, "type": "SCALAR"}],
        "bufferViews": [{"buffer": 0, "byteLength": 48}, {"buffer": 0, "byteOffset": 48, "byteLength": 12}],
        "buffers": [{"uri": name + ".bin", "byteLength": len(quad)}],
    }
    json.dump(model, open(os.path.join(folder, name + ".gltf"), "w"))


def basisu(png, role):
    kw = dict(mime="image/png", mipmaps=True, threads=1, effort=2, check_for_alpha=True)
    if role == "baseColor":
        return alktx2.encode_bytes_to_ktx2(png, codec="etc1s", quality=25, srgb=True, **kw)
    return alktx2.encode_bytes_to_ktx2(png, codec="uastc", quality=100, srgb=False, linear=True,
                                       zstd_supercompression_level=9, uastc_rdo_lambda=1.0 if role == "normal" else 0.0,
                                       renormalize=role == "normal", **kw)


def psnr(file, px):
    t = opengl_basisu.open(bytes(file))
    d = np.frombuffer(t.transcode("rgba8", level=0).data.tobytes(), dtype=np.uint8).reshape(-1, 4).astype(np.int64)
    s = np.frombuffer(px, dtype=np.uint8).reshape(-1, 4).astype(np.int64)
    se = int(((d[:, :3] - s[:, :3]) ** 2).sum())
    return 99.0 if se == 0 else 10 * math.log10(255 * 255 / (se / (len(s) * 3)))


def texpipe(args, work, *extra):
    t = time.perf_counter()
    subprocess.run(["taskset", "-c", "0", args.texpipe, "run", "--jobs", "1", "--no-progress", *extra], cwd=work,
                   check=True, capture_output=True)
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--texpipe", default=os.path.join(ROOT, ".build", "release", "texpipe"))
    ap.add_argument("--sizes", default="5,10,20")
    ap.add_argument("--skip", type=int, default=0, help="corpus images to skip first")
    ap.add_argument("--min-texels", type=int, default=256 * 256, help="smallest texture taken")
    args = ap.parse_args()
    # Textures of at least 256×256, as models carry them; a normal-map slot gets a normal map
    # made from the image's luma as a height field (basisu's `renormalize` rewrites level 0 too,
    # which would change any other image).
    files = [f for f in compare_peers.corpus()[args.skip:] if (lambda i: i[0] * i[1])(ce.load(f)) >= args.min_texels]
    sizes = [int(s) for s in args.sizes.split(",")]
    print("| model | MP | texpipe s (1 core) | basisu s | speed × | ETC1S bytes texpipe / basisu | ETC1S PSNR | "
          "UASTC bytes texpipe / basisu | UASTC PSNR |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as tmp:
        start = 0
        for n in sizes:
            chosen = files[start:start + n]
            start += n
            images = [ce.load(f) for f in chosen]
            images = [normal_map(*im) if ROLES[k % len(ROLES)] == "normal" else im for k, im in enumerate(images)]
            mp = sum(w * h for w, h, _ in images) / 1e6
            work = os.path.join(tmp, "m%d" % n)
            write_model(os.path.join(work, "models"), "model", images)
            manifest = {"version": 1, "output": "out", "pipelines": [
                {"name": "web", "inputs": ["models/*.gltf"], "output": "{file}/{file}.gltf", "gltf": {}}]}
            json.dump(manifest, open(os.path.join(work, "pipeline.json"), "w"))
            cold = texpipe(args, work)
            ours, theirs, seconds = [], [], 0.0
            for k, (w, h, px) in enumerate(images):
                role = ROLES[k % len(ROLES)]
                mine = open(os.path.join(work, "out", "model", "t%02d.ktx2" % k), "rb").read()
                t = time.perf_counter()
                other = basisu(open(os.path.join(work, "models", "t%02d.png" % k), "rb").read(), role)
                seconds += time.perf_counter() - t
                codec = "etc1s" if role == "baseColor" else "uastc"
                ours.append((codec, len(mine), psnr(mine, px)))
                theirs.append((codec, len(other), psnr(other, px)))

            def split(rows, codec):
                mine = [(b, p) for c, b, p in rows if c == codec]
                return sum(b for b, _ in mine), sum(p for _, p in mine) / max(1, len(mine))
            cells = []
            for codec in ("etc1s", "uastc"):
                (b0, p0), (b1, p1) = split(ours, codec), split(theirs, codec)
                cells += [f"{b0:,} / {b1:,}", f"{p0:.2f} / {p1:.2f}"]
            print(f"| {n} textures | {mp:.1f} | {cold:.2f} | {seconds:.2f} | {seconds / cold:.1f}× | "
                  + " | ".join(cells) + " |", flush=True)
            if n != max(sizes):
                continue
            # Untouched: a stat per file. One texture edited: it alone, and the model's rewrite.
            untouched = min(texpipe(args, work) for _ in range(3))
            k = 0
            w, h, px = images[k]
            flipped = np.frombuffer(px, dtype=np.uint8).reshape(h, w, 4)[::-1].tobytes()
            write_png(os.path.join(work, "models", "t%02d.png" % k), w, h, flipped)
            edited = texpipe(args, work)
            alone = os.path.join(tmp, "alone")
            write_model(os.path.join(alone, "models"), "model", [(w, h, flipped)])
            json.dump(manifest, open(os.path.join(alone, "pipeline.json"), "w"))
            own = texpipe(args, alone)
            print(f"\n{n}-texture model: untouched rerun {untouched:.3f} s; one texture ({w}×{h}, "
                  f"{ROLES[k % len(ROLES)]}) edited: rerun {edited:.2f} s against its own encode {own:.2f} s "
                  f"({edited / own:.2f}×)")
            # The same model as a GLB, every image in its BIN chunk: read whole and hashed per run.
            glb_work = os.path.join(tmp, "glb")
            os.makedirs(os.path.join(glb_work, "models"))
            size = write_glb(os.path.join(work, "models"), os.path.join(glb_work, "models", "model.glb"))
            json.dump({"version": 1, "output": "out", "pipelines": [
                {"name": "web", "inputs": ["models/*.glb"], "output": "{file}.glb", "gltf": {}}]},
                open(os.path.join(glb_work, "pipeline.json"), "w"))
            texpipe(args, glb_work)
            untouched = min(texpipe(args, glb_work) for _ in range(3))
            print(f"The same model as a {size / 1e6:.1f} MB GLB: untouched rerun {untouched:.3f} s")


def normal_map(w, h, px):
    """Unit normals from the image's luma as heights (central differences, wrapping), as RGBA8."""
    a = np.frombuffer(px, dtype=np.uint8).reshape(h, w, 4).astype(np.float64)
    height = (0.2126 * a[..., 0] + 0.7152 * a[..., 1] + 0.0722 * a[..., 2]) / 255 * 4
    dx = (np.roll(height, -1, 1) - np.roll(height, 1, 1)) / 2
    dy = (np.roll(height, -1, 0) - np.roll(height, 1, 0)) / 2
    n = np.stack([-dx, -dy, np.ones_like(dx)], -1)
    n /= np.linalg.norm(n, axis=-1, keepdims=True)
    out = np.empty((h, w, 4), np.uint8)
    out[..., :3] = np.round((n + 1) * 127.5).clip(0, 255)
    out[..., 3] = 255
    return w, h, out.tobytes()


def write_glb(folder, path):
    """`folder/model.gltf` as a GLB: its buffer and every image file in the BIN chunk."""
    model = json.load(open(os.path.join(folder, "model.gltf")))
    bin_ = open(os.path.join(folder, "model.bin"), "rb").read()
    del model["buffers"][0]["uri"]
    for image in model["images"]:
        data = open(os.path.join(folder, image.pop("uri")), "rb").read()
        while len(bin_) % 4:
            bin_ += b"\0"
        model["bufferViews"].append({"buffer": 0, "byteOffset": len(bin_), "byteLength": len(data)})
        image.update(bufferView=len(model["bufferViews"]) - 1, mimeType="image/png")
        bin_ += data
    while len(bin_) % 4:
        bin_ += b"\0"
    model["buffers"][0]["byteLength"] = len(bin_)
    text = json.dumps(model).encode()
    while len(text) % 4:
        text += b" "
    total = 28 + len(text) + len(bin_)
    open(path, "wb").write(struct.pack("<IIIII", 0x46546C67, 2, total, len(text), 0x4E4F534A) + text
                           + struct.pack("<II", len(bin_), 0x004E4942) + bin_)
    return total


def write_png(path, w, h, px):
    def chunk(t, d):
        c = struct.pack(">I", len(d)) + t + d
        return c + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + px[y * w * 4:(y + 1) * w * 4] for y in range(h))
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0))
    open(path, "wb").write(data + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))


if __name__ == "__main__":
    main()
