"""glTF models read by pygltflib (an independent reader; Scripts/setup --test installs it), for the
glTF tests.

  gltf_reference.py summary MODEL OUT_DIR
      loads MODEL (.gltf or .glb), runs pygltflib's validator, and prints one JSON object: counts,
      extensionsUsed/Required, per image its mimeType and where its bytes are, per accessor the
      SHA-256 of the bytes it reads (stride-aware), per material its name. Every image's bytes are
      written to OUT_DIR/imageN (from the GLB's BIN chunk, a buffer file or a data: URI).
"""
import base64
import hashlib
import json
import os
import struct
import sys
from urllib.parse import unquote

import pygltflib
import pygltflib.validator

SIZES = {5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4}
COMPONENTS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}


def main():
    model, out = sys.argv[2], sys.argv[3]
    g = pygltflib.GLTF2().load(model)
    pygltflib.validator.validate(g)
    folder = os.path.dirname(os.path.abspath(model))

    def buffer(k):
        b = g.buffers[k]
        if b.uri is None:
            return g.binary_blob()
        if b.uri.startswith("data:"):
            return base64.b64decode(b.uri.split(",", 1)[1])
        return open(os.path.join(folder, unquote(b.uri)), "rb").read()

    buffers = [buffer(k) for k in range(len(g.buffers))]

    def view(v):
        bv = g.bufferViews[v]
        return buffers[bv.buffer][(bv.byteOffset or 0):(bv.byteOffset or 0) + bv.byteLength]

    images = []
    for k, im in enumerate(g.images):
        if im.bufferView is not None:
            data, where = view(im.bufferView), "bufferView"
        elif im.uri.startswith("data:"):
            data, where = base64.b64decode(im.uri.split(",", 1)[1]), "data"
        else:
            data, where = open(os.path.join(folder, unquote(im.uri)), "rb").read(), "file"
        with open(os.path.join(out, "image%d" % k), "wb") as f:
            f.write(data)
        images.append({"mimeType": im.mimeType, "where": where, "uri": im.uri, "bytes": len(data)})
    accessors = []
    for a in g.accessors:
        if a.bufferView is None:
            accessors.append(None)
            continue
        size = SIZES[a.componentType] * COMPONENTS[a.type]
        bv = g.bufferViews[a.bufferView]
        stride = bv.byteStride or size
        data = view(a.bufferView)
        start = a.byteOffset or 0
        elements = b"".join(data[start + i * stride:start + i * stride + size] for i in range(a.count))
        accessors.append(hashlib.sha256(elements).hexdigest())
    textures = []
    for t in g.textures:
        ext = t.extensions or {}
        def source(name):
            return ext[name]["source"] if name in ext else None
        textures.append({"source": t.source, "basisu": source("KHR_texture_basisu"),
                         "webp": source("EXT_texture_webp"), "avif": source("EXT_texture_avif")})
    print(json.dumps({
        "extensionsUsed": g.extensionsUsed, "extensionsRequired": g.extensionsRequired,
        "nodes": len(g.nodes), "meshes": len(g.meshes), "materials": [m.name for m in g.materials],
        "images": images, "accessors": accessors, "textures": textures}))


if __name__ == "__main__":
    main()
