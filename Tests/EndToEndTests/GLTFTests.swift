import Foundation
import Testing
import TexPipe

/// glTF models through the built binary (docs/gltf.md), with models written here by hand from the
/// glTF 2.0 specification: a `.gltf` with a `.bin` and image files, and a GLB whose images sit in
/// buffer views between the geometry's and in a `data:` URI. The outputs are read back by pygltflib
/// (an independent reader) and by a structural validator written here from the specification;
/// every KTX2 goes through the Basis Universal transcoder and is compared with its source.
@Suite("glTF models end to end", .serialized)
struct GLTFTests {
    typealias RGBA = AtlasCLITests.RGBA
    static let available = EndToEndReference.pythonHas("pygltflib") && EndToEndReference.pythonHas("opengl_basisu")
    static let gltfScript = CLI.packageRoot + "/Tests/TexPipeTestSupport/gltf_reference.py"
    static let basisuScript = CLI.packageRoot + "/Tests/TexPipeTestSupport/basisu_reference.py"

    // MARK: - Inputs written here

    /// A smooth gradient with a soft diagonal: what a painted colour texture looks like to a codec.
    static func gradient(_ w: Int, _ h: Int, _ seed: Int) -> RGBA {
        var px: [UInt8] = []
        for y in 0..<h {
            for x in 0..<w {
                let d = Double(x + y) / Double(w + h)
                px += [
                    UInt8(40 + 180 * Double(x) / Double(w)), UInt8(60 + 150 * Double(y) / Double(h)),
                    UInt8((Double(seed * 37 % 200) + 50 * sin(d * 6)).clamped(0, 255)), 255,
                ]
            }
        }
        return RGBA(width: w, height: h, bytes: px)
    }

    /// A dome: unit normals (x, y, z) stored as (n + 1) / 2.
    static func normalMap(_ n: Int) -> RGBA {
        var px: [UInt8] = []
        for y in 0..<n {
            for x in 0..<n {
                let dx = (Double(x) + 0.5) / Double(n) * 2 - 1
                let dy = (Double(y) + 0.5) / Double(n) * 2 - 1
                var v = (dx * 0.8, dy * 0.8, 1.0)
                let l = (v.0 * v.0 + v.1 * v.1 + v.2 * v.2).squareRoot()
                v = (v.0 / l, v.1 / l, v.2 / l)
                px += [UInt8((v.0 + 1) * 127.5), UInt8((v.1 + 1) * 127.5), UInt8((v.2 + 1) * 127.5), 255]
            }
        }
        return RGBA(width: n, height: n, bytes: px)
    }

    static func png(_ image: RGBA) throws -> [UInt8] {
        try ImageEncoder.png(Image(width: image.width, height: image.height, pixels: .rgba8(image.bytes)))
    }

    static func floats(_ v: [Float]) -> [UInt8] {
        v.flatMap { withUnsafeBytes(of: $0.bitPattern.littleEndian, Array.init) }
    }
    static func shorts(_ v: [UInt16]) -> [UInt8] { v.flatMap { withUnsafeBytes(of: $0.littleEndian, Array.init) } }

    /// A GLB as the specification lays it out: header, JSON chunk padded with spaces, BIN chunk
    /// padded with zeros.
    static func glb(_ json: String, _ bin: [UInt8]) -> [UInt8] {
        var text = Array(json.utf8)
        while text.count % 4 != 0 { text.append(0x20) }
        var body = bin
        while body.count % 4 != 0 { body.append(0) }
        func u32(_ v: Int) -> [UInt8] { withUnsafeBytes(of: UInt32(v).littleEndian, Array.init) }
        let total = 12 + 8 + text.count + 8 + body.count
        return u32(0x4654_6C67) + u32(2) + u32(total) + u32(text.count) + u32(0x4E4F_534A) + text + u32(body.count)
            + u32(0x004E_4942) + body
    }

    /// The quad's geometry: positions, two UV sets, an animation's times and translations, indices.
    static let geometry: [UInt8] =
        floats([-1, -1, 0, 1, -1, 0, 1, 1, 0, -1, 1, 0]) + floats([0, 1, 1, 1, 1, 0, 0, 0])
        + floats([0, 0.5, 0.5, 0.5, 0.5, 0, 0, 0]) + floats([0, 1]) + floats([0, 0, 0, 0, 1, 0])
        + shorts([0, 1, 2, 0, 2, 3])

    /// `models/quad.gltf`: every kind of role, KHR_texture_transform with texCoord 1, an unknown
    /// material extension, extras, a camera, an animation, and an image no material uses.
    static let quadJSON = #"""
        {
          "asset": {"version": "2.0", "generator": "texpipe tests"},
          "extensionsUsed": ["KHR_texture_transform", "KHR_materials_sheen", "EXT_unknown_material",
            "KHR_materials_specular", "KHR_materials_transmission", "KHR_materials_volume",
            "KHR_materials_iridescence", "KHR_materials_anisotropy", "KHR_materials_clearcoat"],
          "scene": 0,
          "scenes": [{"nodes": [0, 1]}],
          "nodes": [{"mesh": 0, "name": "quad"}, {"camera": 0, "translation": [0, 0, 3.5]}],
          "cameras": [{"type": "perspective", "perspective": {"yfov": 0.8, "znear": 0.01}}],
          "meshes": [{"primitives": [
            {"attributes": {"POSITION": 0, "TEXCOORD_0": 1, "TEXCOORD_1": 2}, "indices": 5, "material": 0},
            {"attributes": {"POSITION": 0, "TEXCOORD_0": 1}, "indices": 5, "material": 1}]}],
          "animations": [{"channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}],
                          "samplers": [{"input": 3, "output": 4}]}],
          "materials": [
            {"name": "painted",
             "pbrMetallicRoughness": {
               "baseColorTexture": {"index": 0, "texCoord": 1,
                 "extensions": {"KHR_texture_transform": {"offset": [0.25, 0], "scale": [0.5, 0.5]}}},
               "metallicRoughnessTexture": {"index": 2}},
             "normalTexture": {"index": 1, "scale": 0.7},
             "occlusionTexture": {"index": 2, "strength": 0.5},
             "emissiveTexture": {"index": 3}, "emissiveFactor": [1, 1, 1],
             "extensions": {"EXT_unknown_material": {"x": [1, 2]}},
             "extras": {"keep": "me"}},
            {"name": "cloth",
             "extensions": {"KHR_materials_sheen": {"sheenColorTexture": {"index": 0},
                                                    "sheenRoughnessTexture": {"index": 2}}}},
            {"name": "every other role",
             "extensions": {
               "KHR_materials_specular": {"specularTexture": {"index": 2}, "specularColorTexture": {"index": 0}},
               "KHR_materials_transmission": {"transmissionTexture": {"index": 2}},
               "KHR_materials_volume": {"thicknessTexture": {"index": 2}},
               "KHR_materials_iridescence": {"iridescenceTexture": {"index": 2}, "iridescenceThicknessTexture": {"index": 2}},
               "KHR_materials_anisotropy": {"anisotropyTexture": {"index": 2}},
               "KHR_materials_clearcoat": {"clearcoatTexture": {"index": 2}, "clearcoatRoughnessTexture": {"index": 2}}}}],
          "textures": [{"source": 0, "sampler": 0}, {"source": 1}, {"source": 2}, {"source": 3}],
          "images": [{"uri": "textures/paint.png"}, {"uri": "textures/bump%20map.png"},
                     {"uri": "textures/orm.png"}, {"uri": "textures/glow.png"}, {"uri": "textures/unused.png"}],
          "samplers": [{"magFilter": 9729, "minFilter": 9987}],
          "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3", "min": [-1, -1, 0], "max": [1, 1, 0]},
            {"bufferView": 1, "componentType": 5126, "count": 4, "type": "VEC2"},
            {"bufferView": 2, "componentType": 5126, "count": 4, "type": "VEC2"},
            {"bufferView": 3, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0], "max": [1]},
            {"bufferView": 3, "byteOffset": 8, "componentType": 5126, "count": 2, "type": "VEC3"},
            {"bufferView": 4, "componentType": 5123, "count": 6, "type": "SCALAR"}],
          "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 48},
            {"buffer": 0, "byteOffset": 48, "byteLength": 32},
            {"buffer": 0, "byteOffset": 80, "byteLength": 32},
            {"buffer": 0, "byteOffset": 112, "byteLength": 32},
            {"buffer": 0, "byteOffset": 144, "byteLength": 12}],
          "buffers": [{"uri": "quad.bin", "byteLength": 156}],
          "extras": {"author": "tests"}
        }
        """#

    /// `models/embedded.glb`: images in buffer views between the geometry's and one in a data: URI;
    /// one image used as a normal map, a clearcoat normal and a base colour (two kinds).
    static func embedded(paint: [UInt8], bump: [UInt8], coat: [UInt8]) -> [UInt8] {
        var bin: [UInt8] = []
        var views: [String] = []
        func view(_ bytes: [UInt8], stride: Int? = nil) {
            while bin.count % 4 != 0 { bin.append(0) }
            views.append(
                #"{"buffer": 0, "byteOffset": \#(bin.count), "byteLength": \#(bytes.count)"#
                    + (stride.map { #", "byteStride": \#($0)"# } ?? "") + "}")
            bin += bytes
        }
        view(Array(geometry[0..<48]), stride: 12)  // 0 positions
        view(paint)  // 1
        view(Array(geometry[48..<80]))  // 2 UVs
        view(bump)  // 3
        view(Array(geometry[144..<156]))  // 4 indices
        let json = #"""
            {"asset": {"version": "2.0"}, "extensionsUsed": ["KHR_materials_clearcoat"],
             "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
             "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "TEXCOORD_0": 1}, "indices": 2, "material": 0},
                                        {"attributes": {"POSITION": 0, "TEXCOORD_0": 1}, "indices": 2, "material": 1}]}],
             "materials": [
               {"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}, "normalTexture": {"index": 1},
                "extensions": {"KHR_materials_clearcoat": {"clearcoatFactor": 1, "clearcoatTexture": {"index": 2},
                                                           "clearcoatNormalTexture": {"index": 1}}}},
               {"pbrMetallicRoughness": {"baseColorTexture": {"index": 1}}}],
             "textures": [{"source": 0}, {"source": 1}, {"source": 2}],
             "images": [{"bufferView": 1, "mimeType": "image/png", "name": "paint"},
                        {"bufferView": 3, "mimeType": "image/png"},
                        {"uri": "data:image/png;base64,\#(Data(coat).base64EncodedString())"}],
             "accessors": [
               {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3", "min": [-1, -1, 0], "max": [1, 1, 0]},
               {"bufferView": 2, "componentType": 5126, "count": 4, "type": "VEC2"},
               {"bufferView": 4, "componentType": 5123, "count": 6, "type": "SCALAR"}],
             "bufferViews": [\#(views.joined(separator: ", "))],
             "buffers": [{"byteLength": \#(bin.count)}]}
            """#
        return glb(json, bin)
    }

    static let manifest = #"""
        {"version": 1, "output": "out", "pipelines": [
          {"name": "web", "inputs": ["models/*.gltf", "models/*.glb"], "output": "glb/{file}.glb", "gltf": {}},
          {"name": "site", "inputs": ["models/*.gltf", "models/*.glb"], "output": "site/{file}/{file}.gltf",
           "gltf": {"fallback": true, "roles": {
             "emissive": {"output": "png"},
             "data": {"stages": [{"stage": "resize", "fit": {"maxSize": 16}}, {"stage": "mipmaps"}]}}}}
        ]}
        """#

    /// A workspace holding both models and the manifest.
    static func workspace() throws -> (Workspace, [String: RGBA]) {
        let w = try Workspace()
        let images: [String: RGBA] = [
            "paint": gradient(48, 40, 1), "bump": normalMap(32), "orm": gradient(32, 32, 2),
            "glow": gradient(16, 16, 3),
            "unused": gradient(8, 8, 4), "coat": gradient(24, 24, 5),
        ]
        let dir = w.path + "/models"
        try FileManager.default.createDirectory(atPath: dir + "/textures", withIntermediateDirectories: true)
        for (name, file) in [
            ("paint", "paint"), ("bump", "bump map"), ("orm", "orm"), ("glow", "glow"), ("unused", "unused"),
        ] {
            try Data(png(images[name]!)).write(to: URL(fileURLWithPath: dir + "/textures/\(file).png"))
        }
        try Data(quadJSON.utf8).write(to: URL(fileURLWithPath: dir + "/quad.gltf"))
        try Data(geometry).write(to: URL(fileURLWithPath: dir + "/quad.bin"))
        let glbBytes = embedded(
            paint: try png(images["paint"]!), bump: try png(images["bump"]!), coat: try png(images["coat"]!))
        try Data(glbBytes).write(to: URL(fileURLWithPath: dir + "/embedded.glb"))
        w.manifest(manifest)
        return (w, images)
    }

    // MARK: - Readers written here

    /// The model's JSON and binary chunk, the GLB's layout checked against the specification.
    static func read(_ path: String) throws -> (json: [String: Any], bin: [UInt8]?, problems: [String]) {
        let bytes = [UInt8](try #require(FileManager.default.contents(atPath: path)))
        var problems: [String] = []
        func u32(_ at: Int) -> Int {
            Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24
        }
        var text = bytes
        var bin: [UInt8]?
        if bytes.starts(with: Array("glTF".utf8)) {
            if u32(4) != 2 { problems.append("GLB version \(u32(4))") }
            if u32(8) != bytes.count { problems.append("GLB length \(u32(8)) for \(bytes.count) bytes") }
            let jsonLength = u32(12)
            if u32(16) != 0x4E4F_534A { problems.append("first chunk is not JSON") }
            if jsonLength % 4 != 0 { problems.append("JSON chunk length \(jsonLength) not a multiple of 4") }
            text = Array(bytes[20..<(20 + jsonLength)])
            var at = 20 + jsonLength
            if at < bytes.count {
                let binLength = u32(at)
                if u32(at + 4) != 0x004E_4942 { problems.append("second chunk is not BIN") }
                if binLength % 4 != 0 { problems.append("BIN chunk length \(binLength) not a multiple of 4") }
                bin = Array(bytes[(at + 8)..<(at + 8 + binLength)])
                at += 8 + binLength
            }
            if at != bytes.count { problems.append("bytes after the last chunk") }
        }
        let json = try #require(try JSONSerialization.jsonObject(with: Data(text)) as? [String: Any])
        return (json, bin, problems)
    }

    /// What the glTF 2.0 specification requires of the parts texpipe writes: buffers, views,
    /// accessors (bounds and alignment), images (one source, a mimeType for a view, bytes that
    /// are what the mimeType says), textures (core sources PNG/JPEG, KHR_texture_basisu sources
    /// KTX2, EXT_texture_webp sources WebP, EXT_texture_avif sources AVIF; a texture without a core
    /// source requires each of its extensions), indices in range and every extension used declared.
    static func problems(_ path: String) throws -> [String] {
        var (json, bin, problems) = try read(path)
        let folder = (path as NSString).deletingLastPathComponent
        func list(_ key: String) -> [[String: Any]] { json[key] as? [[String: Any]] ?? [] }
        var buffers: [[UInt8]] = []
        for (k, b) in list("buffers").enumerated() {
            let length = b["byteLength"] as? Int ?? -1
            var data: [UInt8] = []
            if let uri = b["uri"] as? String {
                data = [UInt8](
                    FileManager.default.contents(atPath: folder + "/" + (uri.removingPercentEncoding ?? uri)) ?? Data())
            } else if k == 0, let bin {
                data = bin
                if bin.count - length >= 4 || bin.count < length {
                    problems.append("BIN chunk \(bin.count) for byteLength \(length)")
                }
            } else {
                problems.append("buffers[\(k)] has no data")
            }
            if data.count < length { problems.append("buffers[\(k)]: \(data.count) bytes for byteLength \(length)") }
            buffers.append(data)
        }
        let views = list("bufferViews")
        for (k, v) in views.enumerated() {
            let b = v["buffer"] as? Int ?? -1
            let end = (v["byteOffset"] as? Int ?? 0) + (v["byteLength"] as? Int ?? 0)
            if !buffers.indices.contains(b) || end > (list("buffers")[b]["byteLength"] as? Int ?? 0) {
                problems.append("bufferViews[\(k)] outside its buffer")
            }
            if let s = v["byteStride"] as? Int, s % 4 != 0 || s < 4 || s > 252 {
                problems.append("bufferViews[\(k)] stride \(s)")
            }
        }
        let sizes = [5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4]
        let components = ["SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16]
        for (k, a) in list("accessors").enumerated() {
            guard let v = a["bufferView"] as? Int else { continue }
            guard views.indices.contains(v) else {
                problems.append("accessors[\(k)].bufferView out of range")
                continue
            }
            let component = sizes[a["componentType"] as? Int ?? 0] ?? 1
            let element = component * (components[a["type"] as? String ?? ""] ?? 1)
            let stride = views[v]["byteStride"] as? Int ?? element
            let offset = a["byteOffset"] as? Int ?? 0
            if ((views[v]["byteOffset"] as? Int ?? 0) + offset) % component != 0 {
                problems.append("accessors[\(k)] misaligned")
            }
            if offset + stride * ((a["count"] as? Int ?? 1) - 1) + element > (views[v]["byteLength"] as? Int ?? 0) {
                problems.append("accessors[\(k)] past its view")
            }
        }
        var mime: [String] = []
        for (k, image) in list("images").enumerated() {
            var data: [UInt8] = []
            if let v = image["bufferView"] as? Int {
                if image["uri"] != nil { problems.append("images[\(k)] has a uri and a bufferView") }
                guard views.indices.contains(v), let b = views[v]["buffer"] as? Int, buffers.indices.contains(b) else {
                    problems.append("images[\(k)].bufferView out of range")
                    mime.append("")
                    continue
                }
                let o = views[v]["byteOffset"] as? Int ?? 0
                data = Array(buffers[b][o..<(o + (views[v]["byteLength"] as? Int ?? 0))])
                if image["mimeType"] == nil { problems.append("images[\(k)] in a view without a mimeType") }
            } else if let uri = image["uri"] as? String {
                if uri.hasPrefix("data:") {
                    data = [UInt8](
                        Data(base64Encoded: String(uri[uri.index(after: uri.firstIndex(of: ",")!)...])) ?? Data())
                } else {
                    data = [UInt8](
                        FileManager.default.contents(atPath: folder + "/" + (uri.removingPercentEncoding ?? uri))
                            ?? Data())
                    if data.isEmpty { problems.append("images[\(k)]: \(uri) missing") }
                }
            }
            let sniffed =
                data.starts(with: [0x89, 0x50, 0x4E, 0x47])
                ? "image/png"
                : data.starts(with: [0xFF, 0xD8])
                    ? "image/jpeg"
                    : data.starts(with: [0xAB, 0x4B, 0x54, 0x58, 0x20, 0x32, 0x30, 0xBB])
                        ? "image/ktx2"
                        // RIFF….WEBP (RFC 9649); an ftyp box of brand avif (AVIF §9.2).
                        : data.count > 12 && data.starts(with: Array("RIFF".utf8))
                            && Array(data[8..<12]) == Array("WEBP".utf8)
                            ? "image/webp"
                            : data.count > 12 && Array(data[4..<12]) == Array("ftypavif".utf8) ? "image/avif" : "?"
            if let m = image["mimeType"] as? String, m != sniffed {
                problems.append("images[\(k)] is \(sniffed), says \(m)")
            }
            mime.append(sniffed)
        }
        let used = Set(json["extensionsUsed"] as? [String] ?? [])
        if !Set(json["extensionsRequired"] as? [String] ?? []).isSubset(of: used) {
            problems.append("extensionsRequired not in extensionsUsed")
        }
        for (k, t) in list("textures").enumerated() {
            if let s = t["source"] as? Int {
                if !mime.indices.contains(s) || !["image/png", "image/jpeg"].contains(mime[s]) {
                    problems.append("textures[\(k)].source is not a PNG or JPEG image")
                }
            }
            let required = Set(json["extensionsRequired"] as? [String] ?? [])
            var sources = t["source"] == nil ? 0 : 1
            for (name, kind) in [
                ("KHR_texture_basisu", "image/ktx2"), ("EXT_texture_webp", "image/webp"),
                ("EXT_texture_avif", "image/avif"),
            ] {
                guard let e = (t["extensions"] as? [String: Any])?[name] as? [String: Any] else { continue }
                sources += 1
                if !used.contains(name) { problems.append("\(name) not declared") }
                if t["source"] == nil && !required.contains(name) {
                    problems.append("\(name) not required without a source")
                }
                if !mime.indices.contains(e["source"] as? Int ?? -1) || mime[e["source"] as! Int] != kind {
                    problems.append("textures[\(k)] \(name) source is not \(kind)")
                }
            }
            if sources == 0 { problems.append("textures[\(k)] has no source") }
        }
        for (m, material) in list("materials").enumerated() {
            for index in textureIndices(material) where !list("textures").indices.contains(index) {
                problems.append("materials[\(m)] names textures[\(index)]")
            }
            for e in (material["extensions"] as? [String: Any] ?? [:]).keys where !used.contains(e) {
                problems.append("materials[\(m)] uses \(e) undeclared")
            }
        }
        return problems
    }

    /// Every textureInfo `index` inside a material.
    static func textureIndices(_ o: Any) -> [Int] {
        if let d = o as? [String: Any] {
            return (d["index"] as? Int).map { [$0] } ?? [] + d.values.flatMap(textureIndices)
        }
        if let a = o as? [Any] { return a.flatMap(textureIndices) }
        return []
    }

    struct Summary: Decodable {
        struct ImageInfo: Decodable {
            var mimeType: String?
            var `where`: String
            var uri: String?
        }
        struct TextureInfo: Decodable {
            var source: Int?
            var basisu: Int?
            var webp: Int?
            var avif: Int?
        }
        var extensionsUsed: [String]
        var extensionsRequired: [String]
        var nodes: Int
        var meshes: Int
        var materials: [String?]
        var images: [ImageInfo]
        var accessors: [String?]
        var textures: [TextureInfo]
    }

    /// pygltflib's reading of a model (its validator run first); image bytes into `dir`.
    static func summary(_ model: String, images dir: String) throws -> Summary {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let r = try CLI.run(
            ["-W", "ignore", gltfScript, "summary", model, dir], in: "/", wrapper: EndToEndReference.python,
            bareCommand: true)
        #expect(r.status == 0, "\(r.stderr)")
        return try JSONDecoder().decode(Summary.self, from: Data(r.stdout.utf8))
    }

    /// A KTX2 through the Basis Universal transcoder: its codec (0 ETC1S, 1 UASTC) and every level as RGBA8.
    static func transcode(_ ktx2: String, sizes: (Int, Int)) throws -> (codec: Int, levels: [RGBA]) {
        let out = ktx2 + ".rgba"
        let r = try CLI.run(
            [basisuScript, "transcode-all", ktx2, "rgba8", out], in: "/", wrapper: EndToEndReference.python,
            bareCommand: true)
        #expect(r.status == 0, "\(r.stderr)")
        let data = [UInt8](try #require(FileManager.default.contents(atPath: out)))
        let newline = try #require(data.firstIndex(of: 0x0A))
        let head = String(decoding: data[..<newline], as: UTF8.self).split(separator: " ").map { Int($0)! }
        var at = newline + 1
        var levels: [RGBA] = []
        var (w, h) = sizes
        for _ in 0..<head[1] {
            levels.append(RGBA(width: w, height: h, bytes: Array(data[at..<(at + w * h * 4)])))
            at += w * h * 4
            (w, h) = (max(1, w / 2), max(1, h / 2))
        }
        return (head[0], levels)
    }

    static func psnr(_ a: RGBA, _ b: RGBA) -> Double {
        var sum = 0.0
        for i in a.bytes.indices where i % 4 != 3 {
            let d = Double(a.bytes[i]) - Double(b.bytes[i])
            sum += d * d
        }
        let mse = sum / Double(a.width * a.height * 3)
        return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
    }

    static func decode(_ bytes: [UInt8]) throws -> RGBA {
        let image = try ImageDecoder.decode(bytes, path: "x.png")
        guard case .rgba8(let p) = image.pixels else { throw CancellationError() }
        return RGBA(width: image.width, height: image.height, bytes: p)
    }

    // MARK: - Tests

    @Test(EndToEndReference.needs(GLTFTests.available, "python3 pygltflib and opengl_basisu"))
    func modelsComeBackValidWithEveryTextureInItsRole() throws {
        let (w, images) = try Self.workspace()
        let r = try CLI.run(["run", "--no-progress"], in: w.path)
        #expect(r.status == 0, "\(r.stderr)")
        // The image used as a normal map and a base colour: one warning naming both, written once per kind.
        #expect(r.stderr.contains("models/embedded.glb: images[1] is used as normal and clearcoatNormal and baseColor"))
        let scratch = w.path + "/scratch"
        let inputs = [
            "quad": try Self.summary(w.path + "/models/quad.gltf", images: scratch + "/in-quad"),
            "embedded": try Self.summary(w.path + "/models/embedded.glb", images: scratch + "/in-embedded"),
        ]
        for (model, file) in [
            ("quad", "out/glb/quad.glb"), ("embedded", "out/glb/embedded.glb"), ("quad", "out/site/quad/quad.gltf"),
            ("embedded", "out/site/embedded/embedded.gltf"),
        ] {
            let path = w.path + "/" + file
            #expect(try Self.problems(path) == [], "\(file)")
            let dir = scratch + "/" + file.replacingOccurrences(of: "/", with: "_")
            let s = try Self.summary(path, images: dir)
            let input = inputs[model]!
            // Geometry, nodes and materials as they were (pygltflib reads each accessor's bytes).
            #expect(s.accessors == input.accessors, "\(file)")
            #expect(s.nodes == input.nodes && s.meshes == input.meshes && s.materials == input.materials)
            let fallback = file.hasSuffix(".gltf")
            #expect(s.extensionsUsed.contains("KHR_texture_basisu"))
            #expect(Set(input.extensionsUsed).isSubset(of: Set(s.extensionsUsed)))
            #expect(s.extensionsRequired == (fallback ? [] : ["KHR_texture_basisu"]), "\(file)")
            // Every used texture has a KTX2; a fallback keeps a PNG as `source`.
            for (k, t) in s.textures.enumerated() {
                let emissive = model == "quad" && k == 3
                if emissive && fallback {
                    #expect(t.basisu == nil && s.images[t.source!].mimeType == "image/png")
                    continue
                }
                let ktx = try #require(t.basisu, "\(file) textures[\(k)]")
                #expect(s.images[ktx].mimeType == "image/ktx2")
                #expect(fallback ? t.source.map { s.images[$0].mimeType } == "image/png" : t.source == nil)
                #expect(s.images[ktx].where == (fallback ? "file" : "bufferView"))
            }
            if model == "embedded" {
                // The image of two kinds: its texture copied for the second kind.
                #expect(s.textures.count == 4)
            }
            if model == "quad" {
                // The unused image: embedded in a GLB, a file beside a .gltf, its bytes as they were.
                let unused = try #require(
                    s.images.firstIndex {
                        $0.uri?.contains("unused") == true || $0.where == "bufferView" && $0.mimeType == "image/png"
                    })
                let bytes = [UInt8](try #require(FileManager.default.contents(atPath: dir + "/image\(unused)")))
                #expect(try Self.decode(bytes).bytes == images["unused"]!.bytes)
            }
            // Each KTX2: the codec its role gives, a whole mip chain, level 0 close to its source
            // (a data texture resized for the site is compared with its fallback, the image after
            // its stages), normal maps unit length at every level.
            let roleOf: [String: [Int: (String, String)]] = [
                "quad": [0: ("color", "paint"), 1: ("normal", "bump"), 2: ("data", "orm")],
                "embedded": [0: ("color", "paint"), 1: ("normal", "bump"), 2: ("data", "coat"), 3: ("color", "bump")],
            ]
            for (k, (kind, name)) in roleOf[model]! {
                let t = s.textures[k]
                let ktx = dir + "/image\(t.basisu!)"
                let source = images[name]!
                let resized = fallback && kind == "data"
                let size = resized ? (16, 16) : (source.width, source.height)
                let (codec, levels) = try Self.transcode(ktx, sizes: size)
                #expect(codec == (kind == "color" ? 0 : 1), "\(file) textures[\(k)]")
                #expect(levels.count == Int(log2(Double(max(size.0, size.1)))) + 1, "\(file) textures[\(k)]")
                let reference =
                    resized
                    ? try Self.decode(
                        [UInt8](try #require(FileManager.default.contents(atPath: dir + "/image\(t.source!)"))))
                    : source
                let p = Self.psnr(levels[0], reference)
                #expect(p > (kind == "color" ? 30 : resized ? 34 : 38), "\(file) textures[\(k)] \(kind): \(p) dB")
                if kind == "normal" {
                    for (n, level) in levels.enumerated() {
                        var (worst, sum) = (0.0, 0.0)
                        for i in stride(from: 0, to: level.bytes.count, by: 4) {
                            let v = (0..<3).map { Double(level.bytes[i + $0]) / 255 * 2 - 1 }
                            let off = abs((v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).squareRoot() - 1)
                            (worst, sum) = (max(worst, off), sum + off)
                        }
                        let mean = sum / Double(level.width * level.height)
                        // Mips renormalized (a box-filtered dome shortens by more at 4×4); UASTC's
                        // linear endpoints shorten a strongly curved block by up to about 0.1 on their own.
                        #expect(mean < 0.06 && worst < 0.12, "\(file) normal level \(n): |n| off by \(mean), \(worst)")
                    }
                }
            }
        }
        // The .gltf keeps the model's keys in their order; KHR_texture_basisu is added at the end.
        let text = try String(contentsOfFile: w.path + "/out/site/quad/quad.gltf", encoding: .utf8)
        let keys = text.split(separator: "\n").filter { $0.hasPrefix("  \"") }.map {
            String($0.dropFirst(3).prefix { $0 != "\"" })
        }
        #expect(
            keys == [
                "asset", "extensionsUsed", "scene", "scenes", "nodes", "cameras", "meshes", "animations", "materials",
                "textures", "images", "samplers", "accessors", "bufferViews", "buffers", "extras",
            ])
        let quad = try Self.read(w.path + "/out/site/quad/quad.gltf").json
        let original = try Self.read(w.path + "/models/quad.gltf").json
        for key in ["materials", "animations", "cameras", "nodes", "samplers", "extras", "accessors"] {
            #expect(
                NSDictionary(dictionary: [key: quad[key]!]).isEqual(to: [key: original[key]!]), "\(key) changed")
        }
    }

    @Test(EndToEndReference.needs(GLTFTests.available, "python3 pygltflib and opengl_basisu"))
    func anEditedTextureReencodesAloneAndOutputsDoNotDependOnJobs() throws {
        let (w, _) = try Self.workspace()
        #expect(try CLI.run(["run", "--no-progress", "--jobs", "1"], in: w.path).status == 0)
        let one = w.files(under: "out")
        #expect(try CLI.run(["run", "--no-progress", "--jobs", "3", "--force"], in: w.path).status == 0)
        #expect(w.files(under: "out") == one)
        let again = try CLI.run(["run", "--no-progress", "--report", "report.json"], in: w.path)
        #expect(again.stdout.contains("20 jobs: 20 ok (20 up to date)"), "\(again.stdout)")
        // Reports list each model's job, then its textures' jobs, named after it.
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: w.path + "/report.json")))
                as? [String: Any])
        let inputs = try #require(report["jobs"] as? [[String: Any]]).map { job in
            (job["model"] as? String).map { $0 + " " + (job["image"] as! String) } ?? job["input"] as! String
        }
        #expect(inputs.count == 20)
        var model = ""
        for input in inputs {
            if input.hasSuffix(".gltf") || input.hasSuffix(".glb") {
                model = input
            } else {
                #expect(input.hasPrefix(model + " images["), "\(input) is not under \(model)")
            }
        }
        #expect(
            inputs.filter { !$0.contains(" images[") } == [
                "models/quad.gltf", "models/embedded.glb", "models/quad.gltf", "models/embedded.glb",
            ])
        // One texture edited: its job in each pipeline and the two models that use it run, nothing else.
        try Data(try Self.png(Self.gradient(48, 40, 9))).write(
            to: URL(fileURLWithPath: w.path + "/models/textures/paint.png"))
        let dry = try CLI.run(["run", "--dry-run"], in: w.path)
        #expect(
            dry.stdout.contains(
                "would write out/glb/quad.glb from models/quad.gltf — models/quad.gltf images[0] (baseColor, sheenColor, specularColor) runs first"
            ), "\(dry.stdout) \(dry.stderr)")
        let edited = try CLI.run(["run", "--no-progress"], in: w.path)
        let ran = edited.stdout.split(separator: "\n").filter { $0.hasPrefix("[") && !$0.hasSuffix("(up to date)") }
        #expect(
            ran.map { line in
                String(line.drop { $0 != " " }.dropFirst().prefix { $0 != "-" }.dropLast())
            }.sorted() == [
                "models/quad.gltf", "models/quad.gltf",
                "models/quad.gltf images[0] (baseColor, sheenColor, specularColor)",
                "models/quad.gltf images[0] (baseColor, sheenColor, specularColor)",
            ], "\(edited.stdout)")
        // inspect lists every texture with its role.
        let i = try CLI.run(["inspect", "out/glb/quad.glb"], in: w.path)
        #expect(i.stdout.contains("images[1] (normal): KTX2 32×32 uastc linear, 6 levels, zstd"), "\(i.stdout)")
        // Every role in its kind: the colour roles share the sRGB ETC1S, every data role the ORM image's UASTC.
        #expect(
            i.stdout.contains(
                "images[2] (metallicRoughness, occlusion, sheenRoughness, clearcoat, clearcoatRoughness, specular, "
                    + "transmission, thickness, iridescence, iridescenceThickness, anisotropy): KTX2 32×32 uastc linear"
            ),
            "\(i.stdout)")
        #expect(i.stdout.contains("images[3] (emissive): KTX2 16×16 etc1s srgb"), "\(i.stdout)")
        #expect(
            i.stdout.contains(
                "images[0] (baseColor, sheenColor, specularColor): KTX2 48×40 etc1s srgb, 6 levels, basislz"))
    }

    @Test func aBadModelFailsAloneWithItsJSONPath() throws {
        let w = try Workspace()
        let dir = w.path + "/models"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let png = try Self.png(Self.gradient(8, 8, 1))
        try Data(png).write(to: URL(fileURLWithPath: dir + "/a.png"))
        try Data(Self.geometry).write(to: URL(fileURLWithPath: dir + "/quad.bin"))
        func model(_ name: String, _ text: String) throws {
            try Data(text.utf8).write(to: URL(fileURLWithPath: dir + "/" + name))
        }
        let good = #"""
            {"asset": {"version": "2.0"}, "materials": [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}],
             "textures": [{"source": 0}], "images": [{"uri": "IMAGE"}],
             "buffers": [{"uri": "quad.bin", "byteLength": BYTES}],
             "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 48}]}
            """#
        func variant(image: String = "a.png", bytes: Int = 156) -> String {
            good.replacingOccurrences(of: "IMAGE", with: image).replacingOccurrences(of: "BYTES", with: "\(bytes)")
        }
        try model("good.gltf", variant())
        try model("malformed.gltf", "{\"asset\": {\"version\": \"2.0\"}, \"nodes\": [")
        try model("short.gltf", variant(bytes: 40))
        try model("range.gltf", variant().replacingOccurrences(of: #""source": 0"#, with: #""source": 7"#))
        try model("missing.gltf", variant(image: "gone.png"))
        var lying = Self.glb(#"{"asset": {"version": "2.0"}}"#, [1, 2, 3, 4])
        lying[20 + 32] = 200  // the BIN chunk's length (after 32 bytes of JSON), past the end of the file
        try Data(lying).write(to: URL(fileURLWithPath: dir + "/lying.glb"))
        w.manifest(
            #"{"version": 1, "output": "out", "pipelines": [{"name": "m", "inputs": ["models/*.gl*"], "output": "{file}.glb", "gltf": {}}]}"#
        )
        let r = try CLI.run(["run", "--no-progress"], in: w.path)
        #expect(r.status == 1)
        let errors = r.stderr.split(separator: "\n").filter { $0.hasPrefix("error:") }.sorted()
        #expect(
            errors == [
                "error: models/lying.glb: gltf: GLB chunk 1: its 200 bytes lie past the end of the file",
                "error: models/malformed.gltf: gltf: not JSON: line 1, column 41: unexpected end of file",
                "error: models/missing.gltf images[0] (baseColor): cannot read the file (No such file or directory)",
                "error: models/missing.gltf: gltf: not rewritten: models/missing.gltf images[0] (baseColor) failed",
                "error: models/range.gltf: gltf: textures[0].source: index 7 is out of range (the model has 1 images)",
                "error: models/short.gltf: gltf: bufferViews[0]: bytes 0…48 lie past the end of buffers[0] (40 bytes)",
            ], "\(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: w.path + "/out/good.glb"))
    }
}

extension Double {
    fileprivate func clamped(_ lo: Double, _ hi: Double) -> Double { Swift.min(hi, Swift.max(lo, self)) }
}
