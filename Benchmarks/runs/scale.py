#!/usr/bin/env python3
"""CI at scale: 20,000 generated 32×32 sprites in 100 folders through color-key + premultiply,
whole process, this machine's cores. Times a cold run, a no-op rerun, --dry-run, validate, and a
rerun after touching 10 inputs' bytes; prints a markdown table.

    Benchmarks/runs/scale.py [BINARY...]       # default .build/release/texpipe; several: side by side
    Benchmarks/runs/scale.py --instructions [BINARY...]   # also the instructions of a no-op run and of
                                          # validate under callgrind: repeatable where times drift

Each timing is the best of three (the VM drifts; compare binaries within one run). Each binary
has its own copy of the tree (hard links) and so its own cache; the no-op and validate rows are
then measured again in five interleaved rounds (binary A, B, A, B, …), the best of each kept, so
that a drift of the machine falls on every binary alike.
"""
import os, shutil, struct, subprocess, sys, time, zlib

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
WORK = os.path.join(ROOT, ".build-bench", "scale")
INSTRUCTIONS = "--instructions" in sys.argv[1:]
BINARIES = [os.path.abspath(b) for b in sys.argv[1:] if b != "--instructions"] or [
    os.path.join(ROOT, ".build/release/texpipe")]
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


def timed(binary, args, repeat=3, cwd=None):
    best = None
    for _ in range(repeat):
        t = time.perf_counter()
        p = subprocess.run([binary] + args, cwd=cwd or WORK, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(p.stderr[-500:])
        best = min(best or 1e9, time.perf_counter() - t)
    return best


def fresh(k):
    """A fresh output root and cache for binary k, in its own tree. Old ones are moved aside, not
    deleted: ext4 allocating 40,000 inodes right after 40,000 were freed searches its recently
    deleted ones and made a cold run 2–5× slower (kernel time), which is the file system, not
    texpipe. They are removed at the end."""
    d = tree(k)
    if os.path.exists(os.path.join(d, ".texpipe")):
        os.rename(os.path.join(d, ".texpipe"), os.path.join(d, f"trash-{time.time_ns()}"))
    with open(os.path.join(d, "pipeline.json"), "w") as f:
        f.write('{"version": 1, "output": "out-%d-%d", "pipelines": [{"name": "s", "inputs": ["sprites/**/*.png"], '
                '"output": "{path}/{file}.png", "stages": [{"stage": "color-key", "color": "rgb(0,128,0)", '
                '"region": "edges"}, {"stage": "premultiply"}]}]}' % (k, time.time_ns()))
    return d


def interleaved(rows_by_binary, rounds=5):
    """The no-op rerun and validate again, binaries alternating, in each binary's own tree."""
    for _ in range(rounds):
        for k, binary in enumerate(BINARIES):
            for row, args in (("no-op rerun", ["run", "--quiet"]), ("validate", ["validate"])):
                t = timed(binary, args, repeat=1, cwd=tree(k))
                rows_by_binary[k][row] = min(rows_by_binary[k][row], t)


def instructions(rows_by_binary):
    """Instructions executed (valgrind's callgrind), no-op run and validate: the same count on every
    run of a binary, where wall time drifts up to 2×. Valgrind cannot read this toolchain's debug
    info, so it runs a copy without it (the symbol table stays)."""
    for k, binary in enumerate(BINARIES):
        copy = os.path.join(WORK, f"stripped-{k}")
        subprocess.run(["strip", "--strip-debug", "-o", copy, binary], check=True)
        for row, args in (("no-op rerun, instructions (G)", ["run", "--quiet"]),
                          ("validate, instructions (G)", ["validate"])):
            p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", copy] + args,
                               cwd=tree(k), capture_output=True, text=True)
            counts = [line.split(":")[-1] for line in p.stderr.splitlines() if "Collected :" in line]
            if p.returncode != 0 or not counts:
                raise RuntimeError(p.stderr[-500:])
            rows_by_binary[k][row] = int(counts[-1]) / 1e9
        os.remove(copy)


def tree(k):
    """Binary k's working folder: the generated sprites as hard links, its own cache and outputs."""
    path = os.path.join(WORK, f"tree-{k}")
    if not os.path.exists(os.path.join(path, "sprites")):
        os.makedirs(path, exist_ok=True)
        subprocess.run(["cp", "-al", os.path.join(WORK, "sprites"), os.path.join(path, "sprites")], check=True)
    return path


def measure(k, binary):
    d = fresh(k)
    rows = {"cold run": timed(binary, ["run", "--quiet"], repeat=1, cwd=d)}
    # A no-op right after the cold run, then the steady state (best of three).
    rows["first no-op rerun"] = timed(binary, ["run", "--quiet"], repeat=1, cwd=d)
    rows["no-op rerun"] = timed(binary, ["run", "--quiet"], cwd=d)
    rows["--dry-run"] = timed(binary, ["run", "--dry-run", "--quiet"], cwd=d)
    rows["validate"] = timed(binary, ["validate"], cwd=d)
    if "--verify" in subprocess.run([binary, "run", "--help"], capture_output=True, text=True).stdout:
        rows["no-op --verify (hash everything)"] = timed(binary, ["run", "--quiet", "--verify"], repeat=1, cwd=d)
    global generation
    for i in range(10):  # new bytes in 10 inputs: a new file each (the others' trees keep the link)
        p = os.path.join(d, "sprites", f"set{i * 7:03d}", "s000.png")
        with open(p + ".new", "wb") as fh:
            fh.write(sprite(100000 + i + generation * 10))
        os.replace(p + ".new", p)
    generation += 1
    rows["rerun after changing 10 inputs"] = timed(binary, ["run", "--quiet"], repeat=1, cwd=d)
    return rows


generation = 0


def main():
    os.makedirs(WORK, exist_ok=True)
    generate()
    shutil.rmtree(os.path.join(WORK, "out"), ignore_errors=True)  # from older versions of this script
    results = [measure(k, b) for k, b in enumerate(BINARIES)]
    if len(BINARIES) > 1:
        interleaved(results)
    if INSTRUCTIONS:
        instructions(results)
    for k in range(len(BINARIES)):
        shutil.rmtree(tree(k), ignore_errors=True)
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
