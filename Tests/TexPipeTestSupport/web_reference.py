"""References for WebP and AVIF files, sharing nothing with texpipe:

  web_reference.py decode FILE OUT
      Pillow's decoder (its wheel carries its own libwebp and libavif): the first frame as RGBA8
      rows into OUT; prints "W H".
  web_reference.py decode16 FILE.avif OUT
      Debian's avifdec (the libavif command-line decoder) at 16 bits, its PNG read here from the PNG
      specification: RGBA16 rows, native byte order, into OUT; prints "W H".
  web_reference.py p3-to-srgb FILE.avif OUT
      As `decode16`, then the pixels taken as Display P3 (SMPTE EG 432-1 primaries, D65, sRGB
      transfer) and converted to sRGB in float64: decode the transfer, RGB → XYZ → sRGB linear
      through matrices built from the primaries' chromaticities here, clip, encode, round to 8
      bits. avifdec does no colour management of the CICP, so this is the conversion texpipe owes.
  web_reference.py chromium OUT FILE...
      Headless Chromium (Debian's chromium; the same browser that runs the WebGL tests): each file
      an <img> of the page, drawn to a 2D canvas its size on the page's load and read back with
      getImageData;
      OUT gets, per file, "W H" and a line of base64 RGBA8. A page error exits 1 with its words.
"""
import base64
import json
import os
import subprocess
import sys
import tempfile

import webgl_reference  # page_output: the page through headless Chromium (this script's folder)


def pillow_rgba(path):
    from PIL import Image
    im = Image.open(path)
    im.seek(0)
    im = im.convert("RGBA")
    return im.size, im.tobytes()


def read_png(path):
    """A non-interlaced PNG's samples (PNG specification §7–9: zlib stream, filters 0–4)."""
    import struct
    import zlib
    import numpy as np
    b = open(path, "rb").read()
    assert b[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    i, idat = 8, b""
    while i < len(b):
        n, kind = struct.unpack(">I", b[i:i + 4])[0], b[i + 4:i + 8]
        data = b[i + 8:i + 8 + n]
        i += 12 + n
        if kind == b"IHDR":
            w, h, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", data)
        elif kind == b"IDAT":
            idat += data
    assert interlace == 0
    channels = {0: 1, 2: 3, 4: 2, 6: 4}[color]
    bpp = channels * depth // 8
    stride = w * bpp
    raw = zlib.decompress(idat)
    out, prev, p = bytearray(), bytearray(stride), 0
    for _ in range(h):
        f, row = raw[p], bytearray(raw[p + 1:p + 1 + stride])
        p += 1 + stride
        for x in range(stride):
            a = row[x - bpp] if x >= bpp else 0
            up, c = prev[x], (prev[x - bpp] if x >= bpp else 0)
            if f == 1:
                row[x] = (row[x] + a) & 255
            elif f == 2:
                row[x] = (row[x] + up) & 255
            elif f == 3:
                row[x] = (row[x] + (a + up) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(up - c), abs(a - c), abs(a + up - 2 * c)
                row[x] = (row[x] + (a if pa <= pb and pa <= pc else up if pb <= pc else c)) & 255
        out += row
        prev = row
    px = np.frombuffer(bytes(out), dtype=">u2" if depth == 16 else "u1").reshape(h, w, channels).astype(np.int64)
    if depth == 8:
        px = px * 257
    if channels == 3:
        px = np.concatenate([px, np.full((h, w, 1), 65535)], axis=2)
    return (w, h), px


def avifdec16(path):
    with tempfile.TemporaryDirectory() as tmp:
        png = os.path.join(tmp, "out.png")
        subprocess.run(["avifdec", "-d", "16", "-j", "1", path, png], check=True, capture_output=True)
        return read_png(png)


def p3_to_srgb(px):
    import numpy as np

    def xyz(prims):
        wx, wy = 0.3127, 0.3290
        white = np.array([wx / wy, 1.0, (1 - wx - wy) / wy])
        m = np.array([[x / y for x, y in prims], [1.0] * 3, [(1 - x - y) / y for x, y in prims]])
        return m * np.linalg.solve(m, white)

    p3 = xyz([(0.680, 0.320), (0.265, 0.690), (0.150, 0.060)])
    srgb = xyz([(0.64, 0.33), (0.30, 0.60), (0.15, 0.06)])
    px = px.reshape(-1, 4).astype(np.float64)
    v = px[:, :3] / 65535.0
    lin = np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)
    out = lin @ (np.linalg.inv(srgb) @ p3).T
    out = np.clip(out, 0, 1)
    enc = np.where(out <= 0.0031308, out * 12.92, 1.055 * out ** (1 / 2.4) - 0.055)
    rgb = np.floor(enc * 255 + 0.5)
    alpha = np.floor(px[:, 3:] * 255 / 65535 + 0.5)
    return np.concatenate([rgb, alpha], axis=1).astype(np.uint8).tobytes()


# The images are <img> elements of the page itself: its load event waits for every one of them, and
# the handler draws each to a canvas and reads it back synchronously, before --dump-dom serializes
# the page. (A script awaiting decode() raced the dump: virtual time does not wait for decoders.)
# The canvas is the software one (--disable-accelerated-2d-canvas): on SwiftShader the accelerated
# canvas draws an opaque lossy WebP from its YUV planes through a shader of its own, 2 levels off
# libwebp's RGB.
PAGE = """<!doctype html><html><body><pre id="out">running</pre>%s<script>
window.addEventListener("load", () => {
  const out = document.getElementById("out");
  try {
    const parts = [];
    for (const img of document.querySelectorAll("img")) {
      if (!img.complete || img.naturalWidth === 0) throw new Error("could not decode " + img.id);
      const c = document.createElement("canvas");
      c.width = img.naturalWidth;
      c.height = img.naturalHeight;
      const ctx = c.getContext("2d", {colorSpace: "srgb"});
      ctx.drawImage(img, 0, 0);
      const px = ctx.getImageData(0, 0, c.width, c.height).data;
      let s = "";
      for (let i = 0; i < px.length; i += 8192) s += String.fromCharCode.apply(null, px.subarray(i, i + 8192));
      parts.push(c.width + " " + c.height + "\\n" + btoa(s));
    }
    out.textContent = "OK\\n" + parts.join("\\n");
  } catch (e) {
    out.textContent = "ERROR " + e;
  }
});
</script></body></html>
"""


def chromium(out, paths):
    images = ""
    for k, p in enumerate(paths):
        mime = "image/avif" if p.endswith(".avif") else "image/webp"
        data = base64.b64encode(open(p, "rb").read()).decode()
        images += '<img id="i%d" src="data:%s;base64,%s">' % (k, mime, data)
    text = webgl_reference.page_output(
        PAGE % images, timeout=180, flags=("--virtual-time-budget=30000", "--disable-accelerated-2d-canvas"))
    open(out, "w").write(text[3:])


def main():
    cmd = sys.argv[1]
    if cmd == "chromium":
        chromium(sys.argv[2], sys.argv[3:])
        return
    path, out = sys.argv[2:4]
    if cmd == "decode":
        size, data = pillow_rgba(path)
    else:
        import numpy as np
        size, px = avifdec16(path)
        data = p3_to_srgb(px) if cmd == "p3-to-srgb" else px.astype("=u2").tobytes()
    open(out, "wb").write(data)
    print(size[0], size[1])


if __name__ == "__main__":
    main()
