#!/usr/bin/env python3
"""The smallest page PyPI's rectpack (MaxRects: best short side, best area, bottom-left) reaches
for a set of rectangles under a page-size rule: an independent reference for texpipe's packer.

Input (stdin, JSON): {"sizes": [[w, h], ...], "padding": p, "rule": "pot"|"any"|"multiple-of-4",
"maxSize": m, "rotate": bool}. Padding is applied the way docs/atlases.md needs it: each rectangle and the
bin grow by `padding` once. Output: {"w": W, "h": H, "area": W*H, "algo": name} — the page cut to
the rule's smallest size around what rectpack placed, smallest area over the heuristics; or
{"area": null} when no page up to maxSize holds everything in one bin.
"""
import json
import sys

from rectpack import MaxRectsBaf, MaxRectsBl, MaxRectsBssf, PackingBin, PackingMode, SORT_AREA, newPacker

ALGOS = {"bssf": MaxRectsBssf, "baf": MaxRectsBaf, "bl": MaxRectsBl}


def round_up(n, rule):
    if rule == "pot":
        p = 1
        while p < n:
            p *= 2
        return p
    if rule == "multiple-of-4":
        return max(4, (n + 3) // 4 * 4)
    return max(1, n)


def pack(rects, W, H, algo, rotate):
    p = newPacker(mode=PackingMode.Offline, bin_algo=PackingBin.BFF, pack_algo=algo, sort_algo=SORT_AREA,
                  rotation=rotate)
    for i, (w, h) in enumerate(rects):
        p.add_rect(w, h, rid=i)
    p.add_bin(W, H)
    p.pack()
    placed = p.rect_list()
    if len(placed) != len(rects):
        return None
    return placed


def fits(rects, W, H, pad, rule, rotate):
    """Every rectangle on a W×H page by some heuristic: the page cut to the rule around them."""
    best = None
    for name, algo in ALGOS.items():
        placed = pack(rects, W + pad, H + pad, algo, rotate)
        if placed is None:
            continue
        w = max(x + rw for (_, x, y, rw, rh, _) in placed) - pad
        h = max(y + rh for (_, x, y, rw, rh, _) in placed) - pad
        page = (round_up(w, rule), round_up(h, rule), name)
        if best is None or page[0] * page[1] < best[0] * best[1]:
            best = page
    return best


def smallest(sizes, pad, rule, max_size, rotate):
    rects = [(w + pad, h + pad) for w, h in sizes]
    area = sum(w * h for w, h in rects)
    best = fits(rects, max_size, max_size, pad, rule, rotate)
    if best is None:
        return None
    if rule == "pot":
        sides = [1 << k for k in range(0, 16) if (1 << k) <= max_size]
        candidates = sorted(((w, h) for w in sides for h in sides if (w + pad) * (h + pad) >= area),
                            key=lambda c: (c[0] * c[1], max(c) / min(c), -c[0]))
        for w, h in candidates:
            if w * h >= best[0] * best[1]:
                break
            page = fits(rects, w, h, pad, rule, rotate)
            if page is not None:
                if page[0] * page[1] < best[0] * best[1]:
                    best = page
                break
        return best
    # any / multiple-of-4: widths about 3 % apart, each with its smallest height by bisection.
    step = 4 if rule == "multiple-of-4" else 1
    min_w = round_up(max(min(w, h) if rotate else w for w, h in sizes), rule)
    min_h = round_up(max(min(w, h) if rotate else h for w, h in sizes), rule)
    w = float(min_w)
    widths = []
    while int(w) <= max_size:
        r = round_up(int(w), rule)
        if r <= max_size and (not widths or widths[-1] != r):
            widths.append(r)
        w = max(w * 1.03, w + step)
    for W in widths:
        lo = max(min_h, round_up(area // (W + pad), rule))
        hi = min(max_size, (best[0] * best[1] - 1) // W // step * step)
        found = None
        while lo <= hi:
            mid = max(lo, (lo + hi) // 2 // step * step)
            page = fits(rects, W, mid, pad, rule, rotate)
            if page is not None:
                found = page
                hi = mid - step
            else:
                lo = mid + step
        if found is not None and found[0] * found[1] < best[0] * best[1]:
            best = found
    return best


if __name__ == "__main__":
    job = json.load(open(sys.argv[1]) if len(sys.argv) > 1 else sys.stdin)
    page = smallest([tuple(s) for s in job["sizes"]], job.get("padding", 0), job.get("rule", "pot"),
                    job.get("maxSize", 2048), job.get("rotate", False))
    if page is None:
        print(json.dumps({"area": None}))
    else:
        print(json.dumps({"w": page[0], "h": page[1], "area": page[0] * page[1], "algo": page[2]}))
