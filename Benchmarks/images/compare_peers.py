#!/usr/bin/env python3
"""The body of compare-peers.sh: corpus, commands, timing, table. See the shell script."""
import json, os, platform, shutil, statistics, struct, subprocess, sys, time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
WORK = os.path.join(ROOT, ".build-bench")
DATA = "/usr/share/games/supertuxkart/data"
REPEAT = int(os.environ.get("REPEAT", "5"))
CORES = os.cpu_count() or 1
TEXPIPE = os.path.join(ROOT, ".build/release/texpipe")
FLOOR = os.path.join(WORK, "png_floor")


def ihdr(path):
    with open(path, "rb") as f:
        head = f.read(33)
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        return None
    w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", head[16:29])
    return w, h, depth, ctype, interlace


def corpus():
    """~150 RGBA 8-bit textures, 64…2048 px, a fixed list: every k-th of the sorted candidates."""
    out = os.path.join(WORK, "corpus")
    if os.path.isdir(out) and len(os.listdir(out)) >= 100:
        return sorted(os.path.join(out, f) for f in os.listdir(out))
    found = []
    for base, _, files in os.walk(DATA):
        for f in files:
            if f.endswith(".png"):
                p = os.path.join(base, f)
                info = ihdr(p)
                if info and info[2] == 8 and info[3] == 6 and info[4] == 0 and 64 <= min(info[:2]) and max(info[:2]) <= 2048:
                    found.append(p)
    found.sort()
    step = max(1, len(found) // 150)
    chosen = found[::step][:150]
    os.makedirs(out, exist_ok=True)
    for p in chosen:
        name = os.path.relpath(p, DATA).replace("/", "_")
        shutil.copy(p, os.path.join(out, name))
    return sorted(os.path.join(out, f) for f in os.listdir(out))


def megapixels(files):
    return sum(ihdr(f)[0] * ihdr(f)[1] for f in files) / 1e6


def run(cmd, env=None):
    """Wall seconds and peak RSS (KiB, largest process) of one shell command."""
    e = dict(os.environ, **(env or {}))
    t = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", "bash", "-c", cmd], env=e, capture_output=True, text=True)
    wall = time.perf_counter() - t
    if p.returncode != 0:
        raise RuntimeError(f"{cmd[:120]}…: {p.stderr[-400:]}")
    rss = int(p.stderr.strip().splitlines()[-1])
    return wall, rss


def dir_bytes(d):
    return sum(os.path.getsize(os.path.join(b, f)) for b, _, fs in os.walk(d) for f in fs)


def fresh(d):
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


SHADING = os.path.join(WORK, "shading.png")


def write_shading(path, n=256):
    """A 256² opaque gray fold pattern (mid-gray = neutral), the overlay's layer, tiled."""
    import math, struct, zlib
    def gray(x, y):
        return max(0, min(255, round(128 + 50 * math.sin(x / 9 + 2 * math.sin(y / 23)) + 20 * math.sin((x + y) / 5))))
    rows = b"".join(b"\x00" + bytes(v for x in range(n) for v in (gray(x, y),) * 3 + (255,)) for y in range(n))
    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", n, n, 8, 6, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))


def texpipe_manifest(op, files, out):
    stages = {
        "color-key": [{"stage": "color-key", "color": "#000000", "tolerance": 0.1}],
        "premultiply": [{"stage": "premultiply"}],
        "mipmaps": [{"stage": "mipmaps"}],
        "rotate": [{"stage": "rotate", "degrees": 17}],
        # bleed off: the peers' commands extract alpha and drop it, nothing more (texpipe's default
        # also bleeds the diffuse map's color under transparent texels — other pixels, other bytes).
        "alpha-split": [{"stage": "alpha-split", "bleed": False}],
        "overlay": [{"stage": "composite", "layers": [{"image": SHADING, "blend": "overlay", "fit": "tile"}]}],
        "floor": [],
    }[op]
    m = {"version": 1, "output": out, "pipelines": [{"name": "b", "inputs": ["corpus/*.png"],
         "output": "{file}{suffix}.png", "png": {"level": 6}, "stages": stages}]}
    path = os.path.join(WORK, f"{op}.json")
    with open(path, "w") as f:
        json.dump(m, f)
    return path


def commands(op, files, out, parallel):
    """Shell commands for each tool (None where the tool has no such operation)."""
    listing = " ".join(f"'{f}'" for f in files)
    jobs = CORES if parallel else 1
    x = f"printf '%s\\n' {listing} | xargs -d '\\n' -P {jobs} -n {max(1, len(files) // (jobs * 4))}"
    im_env = ""  # MAGICK_THREAD_LIMIT=1 is exported for the whole command (see main)
    im = {
        "color-key": f"{x} {im_env} mogrify -path {out} -fuzz 10% -transparent black -quality 65",
        "premultiply": f"{x} {im_env} mogrify -path {out} -channel RGB -fx 'u*u.a' -quality 65",
        "rotate": f"{x} {im_env} mogrify -path {out} -background none -rotate 17 -quality 65",
        "overlay": f"{x} sh -c 'for f; do b=$(basename \"$f\" .png); {im_env} composite -compose Overlay -tile {SHADING} \"$f\" -quality 65 {out}/\"$b\".png; done' _",
        "alpha-split": f"{x} sh -c 'for f; do b=$(basename \"$f\" .png); {im_env} convert \"$f\" \\( +clone -alpha extract -write {out}/\"$b\"_alpha.png +delete \\) -alpha off -quality 65 {out}/\"$b\"_diffuse.png; done' _",
        "mipmaps": f"{x} sh -c 'for f; do b=$(basename \"$f\" .png); {im_env} convert \"$f\" -write {out}/\"$b\"_mip0.png -resize 50% -write {out}/\"$b\"_mip1.png -resize 50% -write {out}/\"$b\"_mip2.png -resize 50% -write {out}/\"$b\"_mip3.png -resize 50% -write {out}/\"$b\"_mip4.png -resize 50% -write {out}/\"$b\"_mip5.png -resize 50% -write {out}/\"$b\"_mip6.png -resize 50% -write {out}/\"$b\"_mip7.png -resize 50% -write {out}/\"$b\"_mip8.png -resize 50% -write {out}/\"$b\"_mip9.png -resize 50% -quality 65 {out}/\"$b\"_mip10.png; done' _",
    }.get(op)
    v_env = ""  # VIPS_CONCURRENCY=1 likewise: one thread per process, processes per core
    vips = {
        "premultiply": f"{x} sh -c 'for f; do b=$(basename \"$f\" .png); {v_env} vips premultiply \"$f\" {out}/\"$b\".v && {v_env} vips cast {out}/\"$b\".v {out}/\"$b\".png[compression=6] uchar && rm {out}/\"$b\".v; done' _",
        "rotate": f"{x} sh -c 'for f; do b=$(basename \"$f\" .png); {v_env} vips rotate \"$f\" {out}/\"$b\".png[compression=6] 17; done' _",
        "alpha-split": f"{x} sh -c 'for f; do b=$(basename \"$f\" .png); {v_env} vips extract_band \"$f\" {out}/\"$b\"_diffuse.png[compression=6] 0 --n 3; {v_env} vips extract_band \"$f\" {out}/\"$b\"_alpha.png[compression=6] 3; done' _",
        "mipmaps": f"{x} sh -c 'for f; do b=$(basename \"$f\" .png); p=\"$f\"; i=0; cp \"$f\" {out}/\"$b\"_mip0.png; while [ $(vipsheader -f width \"$p\") -gt 1 ] || [ $(vipsheader -f height \"$p\") -gt 1 ]; do i=$((i+1)); {v_env} vips resize \"$p\" {out}/\"$b\"_mip$i.png[compression=6] 0.5; p={out}/\"$b\"_mip$i.png; done; done' _",
    }.get(op)
    return {"im": im, "vips": vips}


def main():
    files = corpus()
    mp = megapixels(files)
    print(f"corpus: {len(files)} RGBA textures, {mp:.1f} MP, from {DATA}", file=sys.stderr)
    ops = ["color-key", "premultiply", "mipmaps", "rotate", "overlay", "alpha-split"]
    write_shading(SHADING)  # libvips' composite2 has no tiling and mixes partial alpha otherwise: IM only
    rows = []
    for parallel in (False, True):
        jobs = CORES if parallel else 1
        out = fresh(os.path.join(WORK, "out-floor"))
        fm = texpipe_manifest("floor", files, out)
        listing = " ".join(f"'{f}'" for f in files)
        floor_cmd = f"printf '%s\\n' {listing} | xargs -d '\\n' -P {jobs} -n {max(1, len(files) // (jobs * 4))} {FLOOR} 6 {out}"
        floor = statistics.median(run(floor_cmd)[0] for _ in range(REPEAT))
        for op in ops:
            res = {}
            out = os.path.join(WORK, f"out-texpipe-{op}")
            m = texpipe_manifest(op, files, out)
            samples = []
            for _ in range(REPEAT):
                fresh(out)
                shutil.rmtree(os.path.join(WORK, ".texpipe"), ignore_errors=True)
                samples.append(run(f"{TEXPIPE} run {m} --jobs {jobs} --quiet --force"))
            res["texpipe"] = (statistics.median(s[0] for s in samples), max(s[1] for s in samples), dir_bytes(out))
            for tool, cmd in commands(op, files, os.path.join(WORK, f"out-{op}-tool"), parallel).items():
                if cmd is None:
                    res[tool] = None
                    continue
                samples = []
                for _ in range(REPEAT):
                    d = fresh(os.path.join(WORK, f"out-{op}-tool"))
                    samples.append(run("export MAGICK_THREAD_LIMIT=1 VIPS_CONCURRENCY=1; "
                                       + cmd.replace(os.path.join(WORK, f"out-{op}-tool"), d)))
                res[tool] = (statistics.median(s[0] for s in samples), max(s[1] for s in samples), dir_bytes(d))
            rows.append((op, jobs, floor, res))
            print(f"done {op} jobs={jobs}", file=sys.stderr)
    print(f"\n{len(files)} SuperTuxKart RGBA textures ({mp:.1f} MP), PNG level 6, median of {REPEAT}, "
          f"whole process; {platform.machine()}, {CORES} cores; "
          f"{subprocess.run(['convert', '-version'], capture_output=True, text=True).stdout.splitlines()[0][9:40]}, "
          f"{subprocess.run(['vips', '--version'], capture_output=True, text=True).stdout.strip()}.\n")
    print("| operation | cores | texpipe MP/s | × floor time | ImageMagick MP/s | libvips MP/s | texpipe vs IM | texpipe vs vips | bytes texpipe / IM / vips | texpipe peak RSS |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for op, jobs, floor, res in rows:
        t = res["texpipe"]
        def mps(r):
            return f"{mp / r[0]:.1f}" if r else "n/a"
        def vs(r):
            return f"{r[0] / t[0]:.1f}×" if r else "n/a"
        def mb(r):
            return f"{r[2] / 1e6:.1f}" if r else "–"
        print(f"| {op} | {jobs} | {mps(t)} | {t[0] / floor:.2f} | {mps(res['im'])} | {mps(res['vips'])} | {vs(res['im'])} | "
              f"{vs(res['vips'])} | {mb(t)} / {mb(res['im'])} / {mb(res['vips'])} MB | {t[1] / 1024:.0f} MiB |")
    print(f"\nThe floor (libpng decode + encode, level 6, a C program of ours): "
          + ", ".join(f"{mp / floor:.1f} MP/s on {jobs} core{'s' if jobs > 1 else ''}" for op, jobs, floor, _ in rows[::len(ops)]))


if __name__ == "__main__":
    main()
