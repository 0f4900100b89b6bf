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
    elif sys.argv[1] == "transcode":
        path, target, out = sys.argv[2:5]
        image = opengl_basisu.open(open(path, "rb").read()).transcode(target, level=0)
        open(out, "wb").write(image.data.tobytes())


if __name__ == "__main__":
    main()
