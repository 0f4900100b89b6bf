"""The normal stages' formulas, written in NumPy (float64) from docs/stages.md "Normal maps" — the
text of the issue and the SPEC, not texpipe's code — for the tests to hold texpipe against.

Images are raw RGBA rows, 8-bit or 16-bit (little-endian): `W H DEPTH` describe them.

  normals_reference.py from-height IN W H DEPTH JSON OUT
  normals_reference.py adjust IN W H DEPTH JSON OUT
  normals_reference.py blend BASE W H DEPTH DETAIL DW DH JSON OUT
  normals_reference.py roughness LEVEL W H DEPTH NORMALS NW NH JSON OUT

JSON holds the stage's parameters (defaults as the docs give them).
"""
import json
import sys

import numpy as np


def load(path, w, h, depth):
    dtype = "<u2" if depth == 16 else "u1"
    return np.fromfile(path, dtype=dtype).reshape(h, w, 4).astype(np.float64)


def save(px, path, depth):
    m = 65535 if depth == 16 else 255
    px = np.clip(px, 0, m)
    px.astype("<u2" if depth == 16 else "u1").tofile(path)


def round_half_up(v):
    return np.floor(v + 0.5)


def unpack(px, m):
    return px[..., :3] * 2 / m - 1


def normalize(v):
    length = np.sqrt((v * v).sum(axis=-1, keepdims=True))
    flat = np.zeros_like(v)
    flat[..., 2] = 1
    return np.where(length > 0, v / np.where(length > 0, length, 1), flat)


def pack(n, m):
    return round_half_up((n + 1) / 2 * m)


def from_height(px, m, p):
    channel = p.get("channel", "luma")
    if channel == "luma":
        h = (0.2126 * px[..., 0] + 0.7152 * px[..., 1] + 0.0722 * px[..., 2]) / m
    else:
        h = px[..., "rgba".index(channel)] / m
    mode = "wrap" if p.get("edge", "clamp") == "wrap" else "edge"
    H = np.pad(h, 1, mode=mode)
    c = H[1:-1, 1:-1]
    left, right = H[1:-1, :-2], H[1:-1, 2:]
    up, down = H[:-2, 1:-1], H[2:, 1:-1]
    ul, ur, dl, dr = H[:-2, :-2], H[:-2, 2:], H[2:, :-2], H[2:, 2:]
    f = p.get("filter", "sobel")
    if f == "central":
        dx = (right - left) / 2
        dy = (down - up) / 2
    else:
        a, b, div = (1, 2, 8) if f == "sobel" else (3, 10, 32)
        dx = (a * (ur - ul) + b * (right - left) + a * (dr - dl)) / div
        dy = (a * (dl - ul) + b * (down - up) + a * (dr - ur)) / div  # y down the image
    dv = -dy if p.get("convention", "opengl") == "opengl" else dy  # v up (OpenGL) or down (DirectX)
    s = p.get("strength", 1)
    n = normalize(np.stack([-s * dx, -s * dv, np.ones_like(dx)], axis=-1))
    out = np.empty_like(px)
    out[..., :3] = pack(n, m)
    out[..., 3] = round_half_up(h * m) if p.get("keepHeight", False) else m
    return out


def adjust(px, m, p):
    n = unpack(px, m)
    if p.get("fromXY", False):
        n[..., 2] = np.sqrt(np.maximum(0, 1 - n[..., 0] ** 2 - n[..., 1] ** 2))
    if p.get("flipY", False):
        n[..., 1] = -n[..., 1]
    s = p.get("strength", 1)
    n[..., 0] *= s
    n[..., 1] *= s
    out = px.copy()
    out[..., :3] = pack(normalize(n), m)
    return out


def blend(base, detail, m, p):
    h, w = base.shape[:2]
    dh, dw = detail.shape[:2]
    ys = np.arange(h) % dh
    xs = np.arange(w) % dw
    detail = detail[ys][:, xs]
    n1 = normalize(unpack(base, m))
    n2 = unpack(detail, m)
    s = p.get("strength", 1)
    n2[..., 0] *= s
    n2[..., 1] *= s
    n2 = normalize(n2)
    method = p.get("method", "rnm")
    if method == "rnm":
        t = n1.copy()
        t[..., 2] += 1
        u = n2 * np.array([-1, -1, 1])
        r = t * (t * u).sum(axis=-1, keepdims=True) - u * t[..., 2:3]
    elif method == "whiteout":
        r = np.concatenate([n1[..., :2] + n2[..., :2], n1[..., 2:3] * n2[..., 2:3]], axis=-1)
    elif method == "udn":
        r = np.concatenate([n1[..., :2] + n2[..., :2], n1[..., 2:3]], axis=-1)
    else:
        r = n1 + n2
    out = base.copy()
    out[..., :3] = pack(normalize(r), m)
    return out


def roughness(level, m, normals, nm, p):
    """One level below 0: each texel's footprint in the normal map, texels weighted by the part of
    them it covers; r = |mean unit normal|; roughness' = sqrt(roughness² + min(3σ², 0.16))."""
    h, w = level.shape[:2]
    nh, nw = normals.shape[:2]
    v = unpack(normals, nm)
    v[..., 2] = np.sqrt(np.maximum(0, 1 - v[..., 0] ** 2 - v[..., 1] ** 2))
    v = normalize(v)

    def weights(n_out, n_map):
        W = np.zeros((n_out, n_map))
        for i in range(n_out):
            a, b = i * n_map / n_out, (i + 1) * n_map / n_out
            for j in range(n_map):
                W[i, j] = max(0.0, min(b, j + 1) - max(a, j))
        return W / W.sum(axis=1, keepdims=True)

    wy, wx = weights(h, nh), weights(w, nw)
    mean = np.einsum("yi,xj,ijc->yxc", wy, wx, v)
    r = np.sqrt((mean * mean).sum(axis=-1))
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = (3 * r - r ** 3) / (1 - r * r)
        add = np.where(kappa > 0, np.minimum(3 * 0.25 / np.where(kappa > 0, kappa, 1), 0.16), 0.16)
    add = np.where(r < 1, add, 0)
    c = "rgba".index(p.get("channel", "g"))
    out = level.copy()
    rough = level[..., c] / m
    raised = round_half_up(np.sqrt(rough * rough + add) * m)
    out[..., c] = np.where(add > 0, np.minimum(raised, m), level[..., c])
    return out


def main():
    cmd = sys.argv[1]
    a = sys.argv[2:]
    if cmd == "blend":
        base, w, h, depth, det, dw, dh, params, out = a
        w, h, depth, dw, dh = int(w), int(h), int(depth), int(dw), int(dh)
        m = 65535 if depth == 16 else 255
        r = blend(load(base, w, h, depth), load(det, dw, dh, depth), m, json.loads(params))
    elif cmd == "roughness":
        lvl, w, h, depth, nrm, nw, nh, params, out = a
        w, h, depth, nw, nh = int(w), int(h), int(depth), int(nw), int(nh)
        m = 65535 if depth == 16 else 255
        r = roughness(load(lvl, w, h, depth), m, load(nrm, nw, nh, depth), m, json.loads(params))
    else:
        path, w, h, depth, params, out = a
        w, h, depth = int(w), int(h), int(depth)
        m = 65535 if depth == 16 else 255
        px = load(path, w, h, depth)
        r = (from_height if cmd == "from-height" else adjust)(px, m, json.loads(params))
    save(r, out, depth)


if __name__ == "__main__":
    main()
