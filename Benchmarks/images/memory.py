#!/usr/bin/env python3
"""The body of memory.sh: peak RSS per operation, beside the SPEC's bounds and libvips.

For each size (4096², and 16384² unless SIZES says otherwise) and each image (noise, which
does not compress, and a real texture: a SuperTuxKart texture enlarged by libvips), every
operation runs as its own `texpipe run --jobs J` process under /usr/bin/time; its peak RSS is
divided by the decoded images the operation holds (docs/performance.md "Memory"):
  - per-pixel chains: the input;
  - rotate: the input and its larger output canvas;
  - composite: the input and its one image layer;
  - mipmaps: level 0 and its levels (4/3 of level 0).
The bound is the SPEC's (2.5× for per-pixel chains, 3.5× for the others). libvips runs the
same operation where it has one (`vips premultiply`, `flip`, `rotate`, `composite2`).

  SIZES=4096 JOBS=1 Benchmarks/images/memory.sh        (defaults: SIZES="4096 16384", JOBS="1 2")
"""
import json, math, os, random, shutil, struct, subprocess, sys, zlib

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
WORK = os.path.join(ROOT, ".build-bench", "memory")
TEXPIPE = os.environ.get("TEXPIPE", os.path.join(ROOT, ".build/release/texpipe"))
DATA = "/usr/share/games/supertuxkart/data/textures"
SIZES = [int(s) for s in os.environ.get("SIZES", "4096 16384").split()]
JOBS = [int(j) for j in os.environ.get("JOBS", "1 2").split()]


def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def write_noise(path, n):
    """An n×n RGBA8 PNG of seeded noise, stored (level 0 deflate: noise does not compress)."""
    rng = random.Random(n)
    ihdr = struct.pack(">IIBBBBB", n, n, 8, 6, 0, 0, 0)
    comp = zlib.compressobj(0)
    parts = []
    row = n * 4
    for y in range(n):
        parts.append(comp.compress(b"\x00" + rng.randbytes(row)))
    parts.append(comp.flush())
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr))
        for p in parts:
            if p:
                f.write(png_chunk(b"IDAT", p))
        f.write(png_chunk(b"IEND", b""))


def real_source():
    return os.path.join(DATA, "hd_rock_01_d.png")


def write_real(path, n):
    """A real texture enlarged to n×n RGBA8 by libvips (no alpha in the source: one is added)."""
    src = real_source()
    tmp = path + ".v"
    subprocess.run(["vips", "thumbnail", src, tmp + ".png", str(n), "--size", "force"], check=True)
    subprocess.run(["vips", "bandjoin_const", tmp + ".png", path, "255"], check=False)
    if not os.path.exists(path):  # already RGBA
        shutil.move(tmp + ".png", path)
    else:
        os.remove(tmp + ".png")


def images(n):
    os.makedirs(WORK, exist_ok=True)
    out = {}
    for kind, make in (("noise", write_noise), ("real", write_real)):
        p = os.path.join(WORK, f"{kind}{n}.png")
        if not os.path.exists(p):
            make(p, n)
        out[kind] = p
    layer = os.path.join(WORK, f"layer{n}.png")
    if not os.path.exists(layer):
        write_noise(layer, n)
    return out, layer


def peak(cmd):
    """Peak RSS (KiB) of one command, or None when it fails."""
    p = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], capture_output=True, text=True)
    if p.returncode != 0:
        sys.stderr.write(f"{' '.join(cmd)[:160]}: {p.stderr[-300:]}\n")
        return None
    return int(p.stderr.strip().splitlines()[-1])


# name, stages, output extension, texture settings, bound, held (× the input's decoded bytes), vips args
def operations(n, layer):
    c, s = math.cos(math.radians(17)), math.sin(math.radians(17))
    rotated = (math.ceil(n * (c + s)) + 4) ** 2 / n**2  # expand, padding 2
    return [
        ("color-key", [{"stage": "color-key", "color": "#00ff00"}], "png", None, 2.5, 1, None),
        ("premultiply", [{"stage": "premultiply"}], "png", None, 2.5, 1, ["premultiply"]),
        ("flip + adjust", [{"stage": "flip", "axis": "horizontal"}, {"stage": "adjust", "contrast": 1.2}],
         "png", None, 2.5, 1, ["flip", "horizontal"]),
        ("rotate 17°", [{"stage": "rotate", "degrees": 17}], "png", None, 3.5, 1 + rotated, ["rotate", "17"]),
        ("composite overlay", [{"stage": "composite", "layers": [{"image": layer, "blend": "overlay"}]}],
         "png", None, 3.5, 2, ["composite2", "@layer", "overlay"]),
        ("mipmaps → BC7 KTX2", [{"stage": "mipmaps"}], "ktx2", {"format": "bc7", "quality": "fast"},
         3.5, 4 / 3, None),
        ("mipmaps coverage → BC7 KTX2", [{"stage": "mipmaps", "coverage": 0.5}], "ktx2",
         {"format": "bc7", "quality": "fast"}, 3.5, 4 / 3, None),
    ]


def texpipe_peak(src, layer, stages, ext, texture, jobs):
    d = os.path.join(WORK, "run")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    def here(path, name):
        os.link(path, os.path.join(d, name))
        return name
    inputs = [here(src, "image.png")]
    if jobs > 1:  # two jobs in flight: the same file under two names
        inputs.append(here(src, "twin.png"))
    here(layer, "layer.png")
    stages = json.loads(json.dumps(stages).replace(json.dumps(layer), '"layer.png"'))
    pipe = {"name": "m", "inputs": inputs, "output": "{file}." + ext, "stages": stages}
    if texture:
        pipe["texture"] = texture
    m = {"version": 1, "output": "out", "pipelines": [pipe]}
    mp = os.path.join(d, "pipeline.json")
    with open(mp, "w") as f:
        json.dump(m, f)
    return peak([TEXPIPE, "run", mp, "--jobs", str(jobs), "--force", "--quiet"])


def vips_peak(src, args, layer):
    if not args or not shutil.which("vips"):
        return None
    out = os.path.join(WORK, "run", "vips.png")
    a = [layer if x == "@layer" else x for x in args]
    if a[0] == "composite2":
        cmd = ["vips", "composite2", src, a[1], out, a[2]]
    else:
        cmd = ["vips", a[0], src, out, *a[1:]]
    return peak(cmd)


def main():
    rows = []
    for n in SIZES:
        imgs, layer = images(n)
        decoded = n * n * 4 / 1024  # KiB
        for name, stages, ext, texture, bound, held, vargs in operations(n, layer):
            for kind, src in imgs.items():
                for jobs in JOBS:
                    kib = texpipe_peak(src, layer, stages, ext, texture, jobs)
                    v = vips_peak(src, vargs, layer) if jobs == 1 else None
                    per = held * decoded * jobs
                    rows.append((n, name, kind, jobs, kib, kib / per if kib else None, bound, held, v))
                    r = rows[-1]
                    print(f"{n}² {name} {kind} jobs {jobs}: {kib and kib // 1024} MiB, "
                          f"{r[5] and round(r[5], 2)}× held (bound {bound}×)"
                          + (f", vips {v // 1024} MiB" if v else ""), file=sys.stderr, flush=True)
    print("| size | operation | image | jobs | held (× input) | texpipe peak | × held | bound | met | libvips peak |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for n, name, kind, jobs, kib, ratio, bound, held, v in rows:
        print(f"| {n}² | {name} | {kind} | {jobs} | {held:.2f} | "
              + (f"{kib / 1024:.0f} MiB | {ratio:.2f}× | {bound}× | {'yes' if ratio <= bound else 'no'} | "
                 if kib else "failed | | | | ")
              + (f"{v / 1024:.0f} MiB |" if v else "— |"))


if __name__ == "__main__":
    main()
