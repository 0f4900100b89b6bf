internal import Foundation
internal import TexPipeFormats
internal import TexPipeParameters

/// An image a texture job wrote, as the model's rewrite places it.
public struct GLTFImageFile: Sendable {
    /// The file's bytes: needed when it goes into a buffer view; a file beside is already written.
    public var bytes: [UInt8]
    public var mimeType: String
    /// Its name beside the model (with its extension).
    public var name: String
    public init(bytes: [UInt8], mimeType: String, name: String) {
        (self.bytes, self.mimeType, self.name) = (bytes, mimeType, name)
    }
}

/// What one of the layout's textures became: a KTX2 for `KHR_texture_basisu`, a plain image (PNG or
/// JPEG: the fallback, or the role's `output`), or both.
public struct GLTFTextureFiles: Sendable {
    public var basisu: GLTFImageFile?
    public var plain: GLTFImageFile?
    public init(basisu: GLTFImageFile?, plain: GLTFImageFile?) { (self.basisu, self.plain) = (basisu, plain) }
}

/// The model written back (docs/gltf.md "What is kept"): every texture its layout names replaced,
/// `KHR_texture_basisu` declared, and everything else as it was — the JSON's key order, unknown
/// extensions, every buffer view at its index with its bytes (a buffer holding a replaced image is
/// re-laid, each run of other views keeping its offset modulo 16).
public enum GLTFRewrite {
    public struct Output: Sendable {
        /// The `.glb` or `.gltf` file.
        public var model: [UInt8]
        /// Buffers and copied images written beside it (`GLTFLayout.beside`), by name.
        public var beside: [(name: String, bytes: [UInt8])]
    }

    /// `unused`: the bytes of images no material uses that are files (`GLTFLayout.unusedFiles`,
    /// `.image` beside entries).
    public static func write(
        _ model: GLTFModel, buffers: [[UInt8]], layout: GLTFLayout, files: [GLTFTextureFiles],
        unused: [Int: [UInt8]], fallback: Bool, binary: Bool
    ) throws(GLTFError) -> Output {
        var root = model.json
        var textures = model.items("textures")
        var images = model.items("images")
        var views = model.items("bufferViews")
        var materials = model.items("materials")
        var bufferItems = model.items("buffers")
        // Buffer views whose bytes change: replaced in place, or added at the end of the BIN (only
        // a GLB places images in views; a `.gltf` writes them as files).
        var replaced: [Int: [UInt8]] = [:]
        var added: [[UInt8]] = []
        let firstAdded = views.count
        // Views whose image became a file beside a `.gltf`: dropped unless something else uses them.
        var orphaned: Set<Int> = []

        func objectAt(_ a: [JSON], _ i: Int) -> JSONObject {
            if case .object(let o) = a[i] { return o }
            return JSONObject()
        }
        /// An image object holding `file`: in `reuse` (a view of the original), a new view, or a URI.
        func place(_ file: GLTFImageFile, into base: JSONObject, inView: Bool, reuse: Int?) -> JSONObject {
            var o = base
            if inView {
                let v: Int
                if let reuse {
                    v = reuse
                    replaced[v] = file.bytes
                } else {
                    v = firstAdded + added.count
                    added.append(file.bytes)
                }
                o.remove("uri")
                o.set("bufferView", .number(Double(v)))
            } else {
                if let reuse { orphaned.insert(reuse) }
                o.remove("bufferView")
                o.set("uri", .string(uriEscaped(file.name)))
            }
            o.set("mimeType", .string(file.mimeType))
            return o
        }

        var counts: [Int: Int] = [:]
        Self.countViewReferences(.object(model.json), into: &counts)
        let sharedViews = Set(counts.filter { $0.value > 1 }.keys)
        // Which texture each (texture, kind) uses: the texture's first kind keeps it, another gets a copy.
        var textureFor: [TextureKind: Int] = [:]
        var firstKind: [Int: GLTFRole.Kind] = [:]
        let uses = try model.uses()
        for use in uses where use.image != nil {
            let key = TextureKind(texture: use.texture, kind: use.role.kind)
            guard textureFor[key] == nil else { continue }
            if firstKind[use.texture] == nil {
                firstKind[use.texture] = use.role.kind
                textureFor[key] = use.texture
            } else {
                textureFor[key] = textures.count
                textures.append(textures[use.texture])
            }
        }
        // Each layout texture's images: the first of an image's kinds takes its place.
        var imageSlot: [ImageKind: (plain: Int?, basisu: Int?)] = [:]
        var placedImage: Set<Int> = []
        for (k, t) in layout.textures.enumerated() {
            let original = objectAt(model.items("images"), t.image)
            var base = original
            base.remove("uri")
            base.remove("bufferView")
            base.remove("mimeType")
            // A view something else reads too (an accessor, another image) keeps its bytes: the
            // image's new bytes go in a view of their own.
            let originalView = GLTFModel.integer(original["bufferView"]).flatMap { sharedViews.contains($0) ? nil : $0 }
            var slots: (plain: Int?, basisu: Int?) = (nil, nil)
            var first = !placedImage.contains(t.image)
            placedImage.insert(t.image)
            // The plain image first (it keeps `source`), then the KTX2.
            for (file, isBasisu) in [(files[k].plain, false), (files[k].basisu, true)] {
                guard let file else { continue }
                let index: Int
                if first {
                    index = t.image
                    images[index] = .object(
                        place(file, into: original, inView: t.inView, reuse: originalView))
                    first = false
                } else {
                    index = images.count
                    images.append(.object(place(file, into: base, inView: t.inView, reuse: nil)))
                }
                if isBasisu { slots.basisu = index } else { slots.plain = index }
            }
            imageSlot[ImageKind(image: t.image, kind: t.kind)] = slots
        }
        // Textures point at their images; materials at their textures.
        var usesBasisu = false
        for (key, t) in textureFor.sorted(by: { $0.value < $1.value }) {
            var texture = objectAt(textures, t)
            guard let image = GLTFModel.integer(texture["source"]),
                let slots = imageSlot[ImageKind(image: image, kind: key.kind)]
            else { continue }
            if let b = slots.basisu {
                usesBasisu = true
                var extensions = JSONObject()
                if case .object(let e)? = texture["extensions"] { extensions = e }
                var basisu = JSONObject()
                basisu.insert("source", .number(Double(b)))
                extensions.set("KHR_texture_basisu", .object(basisu))
                texture.set("extensions", .object(extensions))
                if fallback, let p = slots.plain {
                    texture.set("source", .number(Double(p)))
                } else {
                    texture.remove("source")
                }
            } else if let p = slots.plain {
                texture.set("source", .number(Double(p)))
            }
            textures[t] = .object(texture)
        }
        for use in uses where use.image != nil {
            let t = textureFor[TextureKind(texture: use.texture, kind: use.role.kind)]!
            guard t != use.texture else { continue }
            materials[use.material] = .object(
                setIndex(objectAt(materials, use.material), path: use.role.materialPath[...], to: t))
        }
        // Images no material uses: a GLB embeds their files; a .gltf copies them beside.
        var beside: [(name: String, bytes: [UInt8])] = []
        for (image, _) in layout.unusedFiles where binary {
            // An empty file stays a URI: a view holds at least one byte.
            guard let bytes = unused[image], !bytes.isEmpty else { continue }
            var o = objectAt(images, image)
            let mime = mimeType(of: bytes)
            o.remove("uri")
            o.set("bufferView", .number(Double(firstAdded + added.count)))
            if let mime { o.set("mimeType", .string(mime)) }
            added.append(bytes)
            images[image] = .object(o)
        }
        for b in layout.beside {
            guard case .image(let image) = b.what else { continue }
            var o = objectAt(images, image)
            o.set("uri", .string(uriEscaped(b.name)))
            images[image] = .object(o)
            beside.append((b.name, unused[image] ?? []))
        }
        // Views no longer used: every `bufferView` key left in the model (accessors, sparse
        // accessors, images, KHR_draco_mesh_compression, …) is counted.
        var root0 = root
        root0.set("images", .array(images))
        root0.set("textures", .array(textures))
        root0.set("materials", .array(materials))
        var stillUsed: [Int: Int] = [:]
        Self.countViewReferences(.object(root0), into: &stillUsed)
        let dropped = orphaned.filter { stillUsed[$0] == nil }
        // Buffers: those with replaced, added or dropped views re-laid; the BIN is buffer 0 of a GLB.
        var bytes = buffers
        if binary && bytes.isEmpty && !added.isEmpty {
            bytes = [[]]
            var b = JSONObject()
            b.insert("byteLength", .number(0))
            bufferItems = [.object(b)]
        }
        for k in bytes.indices {
            let mine = views.indices.filter { v in
                GLTFModel.integer(objectAt(views, v)["buffer"]) == k
            }
            let grows = k == 0 && !added.isEmpty
            guard grows || mine.contains(where: { replaced[$0] != nil || dropped.contains($0) }) else { continue }
            let (laid, offsets) = try relay(
                bytes[k], views: views, mine: mine.filter { !dropped.contains($0) }, replaced: replaced)
            var out = laid
            var newViews: [(Int, Int, Int)] = []
            for (n, image) in added.enumerated() where k == 0 {
                while out.count % 8 != 0 { out.append(0) }
                newViews.append((firstAdded + n, out.count, image.count))
                out += image
            }
            for (v, place) in offsets {
                var o = objectAt(views, v)
                if place.offset == 0 {
                    o.remove("byteOffset")
                } else {
                    o.set("byteOffset", .number(Double(place.offset)))
                }
                o.set("byteLength", .number(Double(place.length)))
                if replaced[v] != nil { o.remove("byteStride") }
                views[v] = .object(o)
            }
            for (v, offset, length) in newViews {
                var o = JSONObject()
                o.insert("buffer", .number(Double(k)))
                if offset != 0 { o.insert("byteOffset", .number(Double(offset))) }
                o.insert("byteLength", .number(Double(length)))
                while views.count <= v { views.append(.null) }
                views[v] = .object(o)
            }
            // A buffer that held only images (now files beside a .gltf) keeps four zero bytes: a
            // buffer's byteLength is at least 1, and its index stays what views and extensions say.
            bytes[k] = out.isEmpty ? [0, 0, 0, 0] : out
        }
        for k in bytes.indices {
            var b = objectAt(bufferItems, k)
            b.set("byteLength", .number(Double(bytes[k].count)))
            let source = k < model.items("buffers").count ? try model.bufferSource(k) : .bin
            if binary && k == 0 {
                b.remove("uri")
            } else if let file = layout.beside.first(where: { $0.what == .buffer(k) }) {
                b.set("uri", .string(uriEscaped(file.name)))
                beside.append((file.name, bytes[k]))
            } else if case .data = source {
                b.set("uri", .string("data:application/octet-stream;base64," + Data(bytes[k]).base64EncodedString()))
            }
            bufferItems[k] = .object(b)
        }
        if !bufferItems.isEmpty { root.set("buffers", .array(bufferItems)) } else { root.remove("buffers") }
        if !images.isEmpty { root.set("images", .array(images)) }
        if !textures.isEmpty { root.set("textures", .array(textures)) }
        if !materials.isEmpty { root.set("materials", .array(materials)) }
        if !dropped.isEmpty {
            var renumbered: [Int: Int] = [:]
            var kept: [JSON] = []
            for v in views.indices where !dropped.contains(v) {
                renumbered[v] = kept.count
                kept.append(views[v])
            }
            views = kept
            if case .object(let o) = Self.renumberViews(.object(root), renumbered) { root = o }
        }
        if !views.isEmpty { root.set("bufferViews", .array(views)) } else { root.remove("bufferViews") }
        if usesBasisu {
            declare(&root, "extensionsUsed")
            if !fallback { declare(&root, "extensionsRequired") }
        }
        if binary {
            return Output(model: glb(json: .object(root), bin: bytes.first), beside: beside)
        }
        return Output(model: Array((JSON.object(root).written(indent: 2) + "\n").utf8), beside: beside)
    }

    struct TextureKind: Hashable {
        var texture: Int
        var kind: GLTFRole.Kind
    }
    struct ImageKind: Hashable {
        var image: Int
        var kind: GLTFRole.Kind
    }

    /// How many times each view is named by a `bufferView` key, anywhere in the model.
    static func countViewReferences(_ json: JSON, into counts: inout [Int: Int]) {
        switch json {
        case .array(let a): for v in a { countViewReferences(v, into: &counts) }
        case .object(let o):
            for key in o.keys {
                if key == "bufferView", let v = GLTFModel.integer(o[key]) { counts[v, default: 0] += 1 }
                countViewReferences(o[key]!, into: &counts)
            }
        default: break
        }
    }

    /// The model with every `bufferView` index mapped through `map` (views dropped, the rest moved up).
    static func renumberViews(_ json: JSON, _ map: [Int: Int]) -> JSON {
        switch json {
        case .array(let a): return .array(a.map { renumberViews($0, map) })
        case .object(let o):
            var out = o
            for key in o.keys {
                if key == "bufferView", let v = GLTFModel.integer(o[key]), let n = map[v] {
                    out.set(key, .number(Double(n)))
                } else {
                    out.set(key, renumberViews(o[key]!, map))
                }
            }
            return .object(out)
        default: return json
        }
    }

    static func declare(_ root: inout JSONObject, _ key: String) {
        var list: [JSON] = []
        if case .array(let a)? = root[key] { list = a }
        if !list.contains(.string("KHR_texture_basisu")) { list.append(.string("KHR_texture_basisu")) }
        root.set(key, .array(list))
    }

    static func setIndex(_ o: JSONObject, path: ArraySlice<String>, to t: Int) -> JSONObject {
        var o = o
        guard let key = path.first else {
            o.set("index", .number(Double(t)))
            return o
        }
        guard case .object(let inner)? = o[key] else { return o }
        o.set(key, .object(setIndex(inner, path: path.dropFirst(), to: t)))
        return o
    }

    /// A buffer's views laid out again: runs of unchanged views (merged where they touch or
    /// overlap) copied at their old offset modulo 16, replaced views' new bytes at 8-byte
    /// boundaries, in the order of their old offsets. Bytes no view covers are dropped.
    static func relay(_ buffer: [UInt8], views: [JSON], mine: [Int], replaced: [Int: [UInt8]]) throws(GLTFError) -> (
        [UInt8], [Int: (offset: Int, length: Int)]
    ) {
        func range(_ v: Int) -> Range<Int> {
            guard case .object(let o) = views[v] else { return 0..<0 }
            let offset = GLTFModel.integer(o["byteOffset"]) ?? 0
            return offset..<(offset + (GLTFModel.integer(o["byteLength"]) ?? 0))
        }
        let sorted = mine.sorted { (range($0).lowerBound, $0) < (range($1).lowerBound, $1) }
        for v in sorted where replaced[v] != nil {
            if let other = sorted.first(where: { $0 != v && range($0).overlaps(range(v)) }) {
                throw GLTFError("bufferViews[\(v)]", GLTFMessage.sharedView(other))
            }
        }
        var out: [UInt8] = []
        var places: [Int: (offset: Int, length: Int)] = [:]
        var k = 0
        while k < sorted.count {
            let v = sorted[k]
            if let bytes = replaced[v] {
                while out.count % 8 != 0 { out.append(0) }
                places[v] = (out.count, bytes.count)
                out += bytes
                k += 1
                continue
            }
            // A run of unchanged views that touch or overlap.
            var run = [v]
            var end = range(v).upperBound
            while k + run.count < sorted.count, replaced[sorted[k + run.count]] == nil,
                range(sorted[k + run.count]).lowerBound <= end
            {
                end = max(end, range(sorted[k + run.count]).upperBound)
                run.append(sorted[k + run.count])
            }
            let start = range(v).lowerBound
            while out.count % 16 != start % 16 { out.append(0) }
            let at = out.count
            out += buffer[start..<end]
            for r in run { places[r] = (at + range(r).lowerBound - start, range(r).count) }
            k += run.count
        }
        return (out, places)
    }

    /// A GLB: the 12-byte header, the JSON chunk padded with spaces, the BIN chunk with zeros.
    static func glb(json: JSON, bin: [UInt8]?) -> [UInt8] {
        var text = Array(json.written().utf8)
        while text.count % 4 != 0 { text.append(0x20) }
        var body = bin
        if body != nil { while body!.count % 4 != 0 { body!.append(0) } }
        let total = 12 + 8 + text.count + (body.map { 8 + $0.count } ?? 0)
        var out: [UInt8] = []
        out.reserveCapacity(total)
        func u32(_ v: Int) { for s in stride(from: 0, to: 32, by: 8) { out.append(UInt8(truncatingIfNeeded: v >> s)) } }
        u32(Int(GLTFModel.magic))
        u32(2)
        u32(total)
        u32(text.count)
        u32(Int(GLTFModel.jsonChunk))
        out += text
        if let body {
            u32(body.count)
            u32(Int(GLTFModel.binChunk))
            out += body
        }
        return out
    }

    /// The glTF mimeType of an image's bytes: PNG, JPEG and KTX2 by `ImageFormat.sniff`, WebP
    /// (EXT_texture_webp) by its RIFF header.
    static func mimeType(of bytes: [UInt8]) -> String? {
        if let format = ImageFormat.sniff(bytes) {
            if format == .png { return "image/png" }
            if format == .jpeg { return "image/jpeg" }
            if format == .ktx2 { return "image/ktx2" }
        }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) {
            return "image/webp"
        }
        return nil
    }

    /// A file name as a URI path: what is not unreserved, a sub-delimiter or `/` percent-encoded.
    static func uriEscaped(_ name: String) -> String {
        name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: ":")))
            ?? name
    }
}
