#!/usr/bin/env python3
"""CI at scale: 20,000 generated 32×32 sprites in 100 folders through color-key + premultiply,
whole process, this machine's cores. Times a cold run, a no-op rerun, --dry-run, validate, and a
rerun after touching 10 inputs' bytes; prints a markdown table.

    Benchmarks/scale.py [BINARY]          # default .build/release/texpipe
"""
import os, shutil, struct, subprocess, sys, time, zlib

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
WORK = os.path.join(ROOT, ".build-bench", "scale")
BINARY = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build/release/texpipe"))
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


def timed(args):
    t = time.perf_counter()
    p = subprocess.run([BINARY] + args, cwd=WORK, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(p.stderr[-500:])
    return time.perf_counter() - t


def main():
    os.makedirs(WORK, exist_ok=True)
    generate()
    with open(os.path.join(WORK, "pipeline.json"), "w") as f:
        f.write('{"version": 1, "output": "out", "pipelines": [{"name": "s", "inputs": ["sprites/**/*.png"], '
                '"output": "{path}/{file}.png", "stages": [{"stage": "color-key", "color": "rgb(0,128,0)", '
                '"region": "edges"}, {"stage": "premultiply"}]}]}')
    shutil.rmtree(os.path.join(WORK, "out"), ignore_errors=True)
    shutil.rmtree(os.path.join(WORK, ".texpipe"), ignore_errors=True)
    rows = [("cold run", timed(["run", "--quiet"]))]
    rows.append(("no-op rerun", timed(["run", "--quiet"])))
    rows.append(("--dry-run", timed(["run", "--dry-run", "--quiet"])))
    rows.append(("validate", timed(["validate"])))
    for k in range(10):  # new bytes in 10 inputs
        p = os.path.join(WORK, "sprites", f"set{k * 7:03d}", "s000.png")
        with open(p, "wb") as fh:
            fh.write(sprite(100000 + k))
    rows.append(("rerun after changing 10 inputs", timed(["run", "--quiet"])))
    print(f"{FOLDERS * PER_FOLDER} sprites {SIZE}×{SIZE} in {FOLDERS} folders, color-key + premultiply, "
          f"{os.cpu_count()} cores, whole process\n")
    print("| run | seconds |\n| --- | --- |")
    for name, s in rows:
        print(f"| {name} | {s:.2f} |")


if __name__ == "__main__":
    main()
