"""A real client for the texture tests (Scripts/setup installs Debian's chromium): WebGL 2 in
headless Chromium, on ANGLE over SwiftShader, whose block decoders are its own.

  webgl_reference.py FILE.ktx2 OUT [--etc1]
      Every level of a KTX2 file (no supercompression, or zstd) uploaded with
      compressedTexImage2D under the GL format its vkFormat names, each read back with texelFetch
      into an RGBA8 framebuffer; OUT gets the texels, level 0 first, raw RGBA8 rows top to bottom.
      Exit status 1 with the browser's words on stderr when the page reports an error. With
      `--etc1`, a vkFormat 147 file is drawn as ETC1 (WEBGL_compressed_texture_etc1, ETC1_RGB8_OES):
      the Basis Universal transcoder's ETC1 output.

The KTX2 header is read here from the KTX 2.0 specification (the level index at byte 80, 24 bytes
a level), sharing nothing with texpipe.
"""
import base64
import json
import os
import struct
import subprocess
import sys
import tempfile

# vkFormat → (WebGL extension, GL internal format).
FORMATS = {
    131: ("WEBGL_compressed_texture_s3tc", 0x83F0),  # BC1_RGB_UNORM: COMPRESSED_RGB_S3TC_DXT1_EXT
    132: ("WEBGL_compressed_texture_s3tc_srgb", 0x8C4C),  # BC1_RGB_SRGB: COMPRESSED_SRGB_S3TC_DXT1_EXT
    137: ("WEBGL_compressed_texture_s3tc", 0x83F3),  # BC3_UNORM: COMPRESSED_RGBA_S3TC_DXT5_EXT
    138: ("WEBGL_compressed_texture_s3tc_srgb", 0x8C4F),  # BC3_SRGB: COMPRESSED_SRGB_ALPHA_S3TC_DXT5_EXT
    147: ("WEBGL_compressed_texture_etc", 0x9274),  # ETC2_R8G8B8_UNORM: COMPRESSED_RGB8_ETC2
    148: ("WEBGL_compressed_texture_etc", 0x9275),  # ETC2_R8G8B8_SRGB: COMPRESSED_SRGB8_ETC2
    151: ("WEBGL_compressed_texture_etc", 0x9278),  # ETC2_R8G8B8A8_UNORM: COMPRESSED_RGBA8_ETC2_EAC
    152: ("WEBGL_compressed_texture_etc", 0x9279),  # ETC2_R8G8B8A8_SRGB: COMPRESSED_SRGB8_ALPHA8_ETC2_EAC
    153: ("WEBGL_compressed_texture_etc", 0x9270),  # EAC_R11_UNORM: COMPRESSED_R11_EAC
    155: ("WEBGL_compressed_texture_etc", 0x9272),  # EAC_R11G11_UNORM: COMPRESSED_RG11_EAC
    157: ("WEBGL_compressed_texture_astc", 0x93B0),  # ASTC_4x4_UNORM
    158: ("WEBGL_compressed_texture_astc", 0x93D0),  # ASTC_4x4_SRGB
    161: ("WEBGL_compressed_texture_astc", 0x93B2),  # ASTC_5x5_UNORM
    162: ("WEBGL_compressed_texture_astc", 0x93D2),  # ASTC_5x5_SRGB
    165: ("WEBGL_compressed_texture_astc", 0x93B4),  # ASTC_6x6_UNORM
    166: ("WEBGL_compressed_texture_astc", 0x93D4),  # ASTC_6x6_SRGB
    171: ("WEBGL_compressed_texture_astc", 0x93B7),  # ASTC_8x8_UNORM
    172: ("WEBGL_compressed_texture_astc", 0x93D7),  # ASTC_8x8_SRGB
}

PAGE = """<!doctype html><html><body><pre id="out">running</pre><script>
const job = %s;
const out = document.getElementById("out");
try {
  const canvas = document.createElement("canvas");
  const gl = canvas.getContext("webgl2");
  if (!gl) throw new Error("no WebGL 2");
  if (!gl.getExtension(job.extension)) throw new Error("no " + job.extension);
  const tex = gl.createTexture();
  gl.bindTexture(gl.TEXTURE_2D, tex);
  gl.pixelStorei(gl.UNPACK_ALIGNMENT, 1);
  job.levels.forEach((l, n) => {
    const bytes = Uint8Array.from(atob(l.data), c => c.charCodeAt(0));
    gl.compressedTexImage2D(gl.TEXTURE_2D, n, job.format, l.width, l.height, 0, bytes);
    const e = gl.getError();
    if (e) throw new Error("compressedTexImage2D level " + n + ": GL error " + e);
  });
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST_MIPMAP_NEAREST);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAX_LEVEL, job.levels.length - 1);
  const vs = gl.createShader(gl.VERTEX_SHADER);
  gl.shaderSource(vs, "#version 300 es\\nvoid main(){vec2 p=vec2(float((gl_VertexID<<1)&2),float(gl_VertexID&2));gl_Position=vec4(p*2.0-1.0,0,1);}");
  gl.compileShader(vs);
  const fs = gl.createShader(gl.FRAGMENT_SHADER);
  gl.shaderSource(fs, "#version 300 es\\nprecision highp float;uniform highp sampler2D t;uniform int lod;out vec4 o;void main(){o=texelFetch(t,ivec2(gl_FragCoord.xy),lod);}");
  gl.compileShader(fs);
  const prog = gl.createProgram();
  gl.attachShader(prog, vs);
  gl.attachShader(prog, fs);
  gl.linkProgram(prog);
  if (!gl.getProgramParameter(prog, gl.LINK_STATUS)) throw new Error(gl.getProgramInfoLog(prog));
  gl.useProgram(prog);
  gl.uniform1i(gl.getUniformLocation(prog, "t"), 0);
  const parts = [];
  job.levels.forEach((l, n) => {
    const target = gl.createTexture();
    gl.activeTexture(gl.TEXTURE1);
    gl.bindTexture(gl.TEXTURE_2D, target);
    gl.texStorage2D(gl.TEXTURE_2D, 1, gl.RGBA8, l.width, l.height);
    const fb = gl.createFramebuffer();
    gl.bindFramebuffer(gl.FRAMEBUFFER, fb);
    gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, target, 0);
    gl.activeTexture(gl.TEXTURE0);
    gl.viewport(0, 0, l.width, l.height);
    gl.uniform1i(gl.getUniformLocation(prog, "lod"), n);
    gl.drawArrays(gl.TRIANGLES, 0, 3);
    const px = new Uint8Array(l.width * l.height * 4);
    gl.readPixels(0, 0, l.width, l.height, gl.RGBA, gl.UNSIGNED_BYTE, px);
    const e = gl.getError();
    if (e) throw new Error("level " + n + ": GL error " + e);
    let s = "";
    for (let i = 0; i < px.length; i += 8192) s += String.fromCharCode.apply(null, px.subarray(i, i + 8192));
    parts.push(btoa(s));
  });
  out.textContent = "OK " + gl.getParameter(gl.RENDERER) + "\\n" + parts.join("\\n");
} catch (e) {
  out.textContent = "ERROR " + e.message;
}
</script></body></html>
"""


def levels(ktx2):
    vk, _, w, h = struct.unpack_from("<IIII", ktx2, 12)
    count, scheme = struct.unpack_from("<II", ktx2, 40)
    out = []
    for n in range(max(1, count)):
        offset, length, raw = struct.unpack_from("<QQQ", ktx2, 80 + 24 * n)
        data = ktx2[offset:offset + length]
        if scheme == 2:
            import zstandard
            data = zstandard.ZstdDecompressor().decompress(data, max_output_size=raw)
        elif scheme != 0:
            raise SystemExit(f"supercompressionScheme {scheme} is not one WebGL takes")
        out.append({"width": max(1, w >> n), "height": max(1, h >> n), "data": base64.b64encode(data).decode()})
    return vk, out


def page_output(html, timeout, flags=()):
    """What `html`, loaded by headless Chromium (SwiftShader's WebGL 2), leaves in its
    `<pre id="out">`: the text after a first line of "OK", else its error on stderr and exit 1.
    web_reference.py loads its pages through here too."""
    with tempfile.TemporaryDirectory() as tmp:
        page = os.path.join(tmp, "page.html")
        open(page, "w").write(html)
        r = subprocess.run(
            ["chromium", "--headless", "--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
             *flags, "--user-data-dir=" + os.path.join(tmp, "profile"), "--dump-dom", "file://" + page],
            capture_output=True, text=True, timeout=timeout)
    dom = r.stdout
    start = dom.find('<pre id="out">')
    text = dom[start + len('<pre id="out">'):dom.find("</pre>", start)] if start >= 0 else ""
    if not text.startswith("OK"):
        sys.stderr.write((text or r.stderr[-2000:]).strip() + "\n")
        raise SystemExit(1)
    return text


def main():
    path, out = sys.argv[1:3]
    vk, lv = levels(open(path, "rb").read())
    if vk not in FORMATS:
        raise SystemExit(f"vkFormat {vk} has no WebGL format here")
    extension, fmt = FORMATS[vk]
    if "--etc1" in sys.argv[3:]:
        extension, fmt = "WEBGL_compressed_texture_etc1", 0x8D64
    text = page_output(PAGE % json.dumps({"extension": extension, "format": fmt, "levels": lv}), timeout=120)
    lines = text.split("\n")
    with open(out, "wb") as f:
        for b in lines[1:]:
            f.write(base64.b64decode(b))


if __name__ == "__main__":
    main()
