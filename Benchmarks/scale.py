#!/usr/bin/env python3
"""CI at scale: 20,000 generated 32×32 sprites in 100 folders through color-key + premultiply,
whole process, this machine's cores. Times a cold run, a no-op rerun, --dry-run, validate, and a
rerun after touching 10 inputs' bytes; prints a markdown table.

    Benchmarks/scale.py [BINARY...]       # default .build/release/texpipe; several: side by side

Each timing is the best of three (the VM drifts; compare binaries within one run).
"""
import os, shutil, struct, subprocess, sys, time, zlib

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
WORK = os.path.join(ROOT, ".build-bench", "scale")
BINARIES = [os.path.abspath(b) for b in sys.argv[1:]] or [os.path.join(ROOT, ".build/release/texpipe")]
TARGETS = {"cold run": 4.0, "no-op rerun": 0.5, "validate": 0.3, "rerun after changing 10 inputs": 0.6}
FOLDERS, PER_FOLDER, SIZE = 100, 200, 32


def png(w, h, rgba_rows):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    raw = b"".join(b"\x00" + row for row in rgba_rows)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))


def sprite(i):
    """A key-green square with a colored disc whose color and radius depend on i."""
    r, g, b = (i * 37) % 256, (i * 91) % 256, (i * 53) % 256
    rad = 6 + i % 10
    rows = []
    for y in range(SIZE):
        row = bytearray()
        for x in range(SIZE):
            inside = (x - 15.5) ** 2 + (y - 15.5) ** 2 <= rad * rad
            row += bytes((r, g, b, 255) if inside else (0, 128, 0, 255))
        rows.append(bytes(row))
    return png(SIZE, SIZE, rows)


def generate():
    marker = os.path.join(WORK, "sprites", ".complete")
    if os.path.exists(marker):
        return
    shutil.rmtree(os.path.join(WORK, "sprites"), ignore_errors=True)
    for f in range(FOLDERS):
        d = os.path.join(WORK, "sprites", f"set{f:03d}")
        os.makedirs(d)
        for k in range(PER_FOLDER):
            with open(os.path.join(d, f"s{k:03d}.png"), "wb") as fh:
                fh.write(sprite(f * PER_FOLDER + k))
    open(marker, "w").close()


def timed(binary, args, repeat=3):
    best = None
    for _ in range(repeat):
        t = time.perf_counter()
        p = subprocess.run([binary] + args, cwd=WORK, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(p.stderr[-500:])
        best = min(best or 1e9, time.perf_counter() - t)
    return best


def fresh(k):
    """A fresh output root and cache for binary k. Old ones are moved aside, not deleted: ext4
    allocating 40,000 inodes right after 40,000 were freed searches its recently deleted ones and
    made a cold run 2–5× slower (kernel time), which is the file system, not texpipe. They are
    removed at the end."""
    if os.path.exists(os.path.join(WORK, ".texpipe")):
        os.rename(os.path.join(WORK, ".texpipe"), os.path.join(WORK, f"trash-{time.time_ns()}"))
    with open(os.path.join(WORK, "pipeline.json"), "w") as f:
        f.write('{"version": 1, "output": "out-%d-%d", "pipelines": [{"name": "s", "inputs": ["sprites/**/*.png"], '
                '"output": "{path}/{file}.png", "stages": [{"stage": "color-key", "color": "rgb(0,128,0)", '
                '"region": "edges"}, {"stage": "premultiply"}]}]}' % (k, time.time_ns()))


def measure(k, binary):
    fresh(k)
    rows = {"cold run": timed(binary, ["run", "--quiet"], repeat=1)}
    # A no-op right after the cold run, then the steady state (best of three).
    rows["first no-op rerun"] = timed(binary, ["run", "--quiet"], repeat=1)
    rows["no-op rerun"] = timed(binary, ["run", "--quiet"])
    rows["--dry-run"] = timed(binary, ["run", "--dry-run", "--quiet"])
    rows["validate"] = timed(binary, ["validate"])
    if "--verify" in subprocess.run([binary, "run", "--help"], capture_output=True, text=True).stdout:
        rows["no-op --verify (hash everything)"] = timed(binary, ["run", "--quiet", "--verify"], repeat=1)
    global generation
    for k in range(10):  # new bytes in 10 inputs
        p = os.path.join(WORK, "sprites", f"set{k * 7:03d}", "s000.png")
        with open(p, "wb") as fh:
            fh.write(sprite(100000 + k + generation * 10))
    generation += 1
    rows["rerun after changing 10 inputs"] = timed(binary, ["run", "--quiet"], repeat=1)
    return rows


generation = 0


def main():
    os.makedirs(WORK, exist_ok=True)
    generate()
    shutil.rmtree(os.path.join(WORK, "out"), ignore_errors=True)  # from older versions of this script
    results = [measure(k, b) for k, b in enumerate(BINARIES)]
    for name in os.listdir(WORK):
        if name.startswith(("out-", "trash-")):
            shutil.rmtree(os.path.join(WORK, name), ignore_errors=True)
    print(f"{FOLDERS * PER_FOLDER} sprites {SIZE}×{SIZE} in {FOLDERS} folders, color-key + premultiply, "
          f"{os.cpu_count()} cores, whole process, seconds\n")
    names = [os.path.relpath(b, ROOT) if b.startswith(ROOT) else b for b in BINARIES]
    print("| run | " + " | ".join(names) + " | target |")
    print("| --- |" + " --- |" * (len(names) + 1))
    for row in results[-1]:
        cells = [f"{r[row]:.2f}" if row in r else "—" for r in results]
        target = f"≤ {TARGETS[row]}" if row in TARGETS else ""
        print(f"| {row} | " + " | ".join(cells) + f" | {target} |")


if __name__ == "__main__":
    main()
