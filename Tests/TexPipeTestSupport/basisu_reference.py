"""The Basis Universal references for the UASTC tests (Scripts/setup --test installs them):
basisu's own encoder (alktx2) and transcoder (opengl-basisu), what web engines run.

  basisu_reference.py encode IN.rgba W H EFFORT OUT_BLOCKS OUT_RGBA
      basisu's UASTC (quality 100) of raw RGBA8: level 0's blocks, and the transcoder's RGBA8.
  basisu_reference.py encode-ktx2 IN.rgba W H EFFORT OUT.ktx2
      basisu's UASTC (quality 100) of raw RGBA8 as a KTX2 file.
  basisu_reference.py transcode FILE.ktx2 TARGET OUT
      level 0 of a KTX2 file transcoded to TARGET (rgba8, bc7, etc2, astc_4x4, …), raw bytes.
  basisu_reference.py transcode-all FILE.ktx2 TARGET OUT
      every image of a KTX2 file (level by level; layer, then face, within a level) transcoded to
      TARGET, raw bytes one after another; first a line "CODEC LEVELS LAYERS FACES HAS_ALPHA".
  basisu_reference.py targets FILE.ktx2 ETC1_OUT.ktx2
      every level transcoded to each GPU target (etc1, etc2, bc1, bc3, bc7, astc_4x4), decoded by
      texture2ddecoder and compared with the rgba8 transcode: one line per target and level,
      "TARGET LEVEL BYTES RGB_MAX_DIFF RGB_PSNR ALPHA_MAX_DIFF"; the etc1 transcode also written as
      a KTX2 of ETC1 blocks (vkFormat 147: ETC1 is a subset of ETC2 RGB) for a client to draw.
"""
import struct
import sys

import alktx2
import opengl_basisu


def level0(ktx2):
    scheme = struct.unpack_from("<I", ktx2, 44)[0]
    offset, length = struct.unpack_from("<QQ", ktx2, 80)
    data = ktx2[offset:offset + length]
    if scheme == 2:
        import zstandard
        data = zstandard.ZstdDecompressor().decompress(data)
    return data


def main():
    if sys.argv[1] == "encode":
        raw, w, h, effort, out_blocks, out_rgba = sys.argv[2:8]
        px = open(raw, "rb").read()
        k = alktx2.encode_raw_rgba_to_ktx2(px, int(w), int(h), codec="uastc", quality=100, effort=int(effort),
                                           srgb=False, linear=True, check_for_alpha=False, force_alpha=True)
        open(out_blocks, "wb").write(level0(k))
        rgba = opengl_basisu.open(bytes(k)).transcode("rgba8", level=0).data
        open(out_rgba, "wb").write(rgba.tobytes())
    elif sys.argv[1] == "encode-ktx2":
        raw, w, h, effort, out = sys.argv[2:7]
        k = alktx2.encode_raw_rgba_to_ktx2(open(raw, "rb").read(), int(w), int(h), codec="uastc", quality=100,
                                           effort=int(effort), srgb=False, linear=True, check_for_alpha=False,
                                           force_alpha=True)
        open(out, "wb").write(k)
    elif sys.argv[1] == "transcode-all":
        path, target, out = sys.argv[2:5]
        t = opengl_basisu.open(open(path, "rb").read())
        with open(out, "wb") as f:
            f.write(f"{t.codec} {t.levels} {t.layers} {t.faces} {int(t.has_alpha)}\n".encode())
            for level in range(t.levels):
                for layer in range(max(1, t.layers)):
                    for face in range(t.faces):
                        f.write(t.transcode(target, level=level, layer=layer, face=face).data.tobytes())
    elif sys.argv[1] == "targets":
        import numpy as np
        import texture2ddecoder as t2d
        path, etc1_out = sys.argv[2:4]
        t = opengl_basisu.open(open(path, "rb").read())
        # The etc2 target is ETC2 RGBA (EAC alpha, then colour) with or without alpha.
        decoders = {"etc1": t2d.decode_etc1, "etc2": t2d.decode_etc2a8,
                    "bc1": t2d.decode_bc1, "bc3": t2d.decode_bc3, "bc7": t2d.decode_bc7,
                    "astc_4x4": lambda d, w, h: t2d.decode_astc(d, w, h, 4, 4)}
        etc1_levels = []
        for level in range(t.levels):
            ref = t.transcode("rgba8", level=level)
            w, h = ref.width, ref.height
            want = np.frombuffer(ref.data.tobytes(), dtype=np.uint8).reshape(h, w, 4).astype(np.int64)
            pw, ph = (w + 3) // 4 * 4, (h + 3) // 4 * 4
            for target, decode in decoders.items():
                blocks = t.transcode(target, level=level).data.tobytes()
                if target == "etc1":
                    etc1_levels.append(blocks)
                got = np.frombuffer(decode(blocks, pw, ph), dtype=np.uint8).reshape(ph, pw, 4)[:h, :w]
                got = got[..., [2, 1, 0, 3]].astype(np.int64)
                diff = np.abs(got[..., :3] - want[..., :3])
                mse = float((diff ** 2).mean())
                alpha = int(np.abs(got[..., 3] - want[..., 3]).max()) if target not in ("etc1", "bc1") else 0
                psnr = 99.0 if mse == 0 else 10 * np.log10(255 * 255 / mse)
                print(f"{target} {level} {len(blocks)} {int(diff.max())} {psnr:.2f} {alpha}")
        # A minimal KTX2 of the ETC1 levels (vkFormat 147, linear DFD as an ETC2 RGB file would have).
        w, h = t.width, t.height
        dfd = struct.pack("<IIIIIII", 44, 0, 2 | 40 << 16, 161 | 1 << 8 | 1 << 16, 3 | 3 << 8, 8, 0)
        dfd += struct.pack("<IIII", 63 << 16 | 2 << 24, 0, 0, 0xFFFFFFFF)
        n = len(etc1_levels)
        head_len = 80 + 24 * n
        offset = head_len + len(dfd)
        index = b""
        for blocks in etc1_levels:
            index += struct.pack("<QQQ", offset, len(blocks), len(blocks))
            offset += len(blocks)
        head = b"\xabKTX 20\xbb\r\n\x1a\n" + struct.pack("<IIIIIIIII", 147, 1, w, h, 0, 0, 1, n, 0)
        head += struct.pack("<IIIIQQ", head_len, len(dfd), 0, 0, 0, 0)
        open(etc1_out, "wb").write(head + index + dfd + b"".join(etc1_levels))
    elif sys.argv[1] == "transcode":
        path, target, out = sys.argv[2:5]
        image = opengl_basisu.open(open(path, "rb").read()).transcode(target, level=0)
        open(out, "wb").write(image.data.tobytes())


if __name__ == "__main__":
    main()
