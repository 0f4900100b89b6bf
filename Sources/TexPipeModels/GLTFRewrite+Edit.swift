internal import Foundation
internal import TexPipeFormats
internal import TexPipeParameters

extension GLTFRewrite {
    /// The model's arrays as the rewrite changes them, and the buffer views whose bytes change:
    /// replaced in place, or added at the end of the BIN (only a GLB places images in views; a
    /// `.gltf` writes them as files).
    struct Edit {
        let model: GLTFModel
        var root: JSONObject
        var textures: [JSON]
        var images: [JSON]
        var views: [JSON]
        var materials: [JSON]
        var bufferItems: [JSON]
        var replaced: [Int: [UInt8]] = [:]
        var added: [[UInt8]] = []
        let firstAdded: Int
        /// Views whose image became a file beside a `.gltf`: dropped unless something else uses them.
        var orphaned: Set<Int> = []
        /// Views named more than once (an accessor and an image, two images): their bytes stay.
        let sharedViews: Set<Int>

        init(_ model: GLTFModel) {
            self.model = model
            root = model.json
            textures = model.items("textures")
            images = model.items("images")
            views = model.items("bufferViews")
            materials = model.items("materials")
            bufferItems = model.items("buffers")
            firstAdded = views.count
            var counts: [Int: Int] = [:]
            GLTFRewrite.countViewReferences(.object(model.json), into: &counts)
            sharedViews = Set(counts.filter { $0.value > 1 }.keys)
        }

        static func object(_ a: [JSON], _ i: Int) -> JSONObject {
            if case .object(let o) = a[i] { return o }
            return JSONObject()
        }

        /// An image object holding `file`: in `reuse` (a view of the original), a new view, or a URI.
        mutating func place(_ file: GLTFImageFile, into base: JSONObject, inView: Bool, reuse: Int?) -> JSONObject {
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
                o.set("uri", .string(GLTFRewrite.uriEscaped(file.name)))
            }
            o.set("mimeType", .string(file.mimeType))
            return o
        }

        /// Which texture each (texture, kind) uses: the texture's first kind keeps it, another gets
        /// a copy (appended to the textures).
        mutating func textureCopies(_ uses: [GLTFModel.Use]) -> [TextureKind: Int] {
            var textureFor: [TextureKind: Int] = [:]
            var firstKind: [Int: GLTFRole.Kind] = [:]
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
            return textureFor
        }

        /// Each layout texture's images: the first of an image's kinds takes its place; the plain
        /// image first (it keeps `source`), then the KTX2, then the WebP or AVIF.
        mutating func placeImages(_ layout: GLTFLayout, _ files: [GLTFTextureFiles]) -> [ImageKind: Slots] {
            var imageSlot: [ImageKind: Slots] = [:]
            var placedImage: Set<Int> = []
            for (k, t) in layout.textures.enumerated() {
                let original = Self.object(model.items("images"), t.image)
                var base = original
                base.remove("uri")
                base.remove("bufferView")
                base.remove("mimeType")
                // A view something else reads too (an accessor, another image) keeps its bytes: the
                // image's new bytes go in a view of their own.
                let originalView = GLTFModel.integer(original["bufferView"]).flatMap {
                    sharedViews.contains($0) ? nil : $0
                }
                var slots = Slots()
                var first = !placedImage.contains(t.image)
                placedImage.insert(t.image)
                for (file, slot) in [(files[k].plain, 0), (files[k].basisu, 1), (files[k].web, 2)] {
                    guard let file else { continue }
                    let index: Int
                    if first {
                        index = t.image
                        images[index] = .object(place(file, into: original, inView: t.inView, reuse: originalView))
                        first = false
                    } else {
                        index = images.count
                        images.append(.object(place(file, into: base, inView: t.inView, reuse: nil)))
                    }
                    switch slot {
                    case 0: slots.plain = index
                    case 1: slots.basisu = index
                    default:
                        slots.web = (index, file.mimeType == "image/avif" ? "EXT_texture_avif" : "EXT_texture_webp")
                    }
                }
                imageSlot[ImageKind(image: t.image, kind: t.kind)] = slots
            }
            return imageSlot
        }

        /// Where a texture's new images went: the core `source` (PNG/JPEG), the KTX2 and the web
        /// image with its extension's name.
        struct Slots {
            var plain: Int?
            var basisu: Int?
            var web: (index: Int, extension: String)?
        }

        /// Textures pointed at their images: a KTX2 under `KHR_texture_basisu`, a WebP or AVIF
        /// under its extension, a PNG/JPEG as `source` (none: `source` removed). The image
        /// extensions the texture had before are replaced.
        mutating func pointTextures(
            _ uses: [GLTFModel.Use], _ textureFor: [TextureKind: Int], _ imageSlot: [ImageKind: Slots]
        ) {
            var imageOf: [Int: Int] = [:]
            for use in uses { if let image = use.image { imageOf[use.texture] = image } }
            for (key, t) in textureFor.sorted(by: { $0.value < $1.value }) {
                var texture = Self.object(textures, t)
                guard let image = imageOf[key.texture], let slots = imageSlot[ImageKind(image: image, kind: key.kind)]
                else { continue }
                var extensions = JSONObject()
                if case .object(let e)? = texture["extensions"] { extensions = e }
                for name in GLTFModel.imageExtensions { extensions.remove(name) }
                func point(_ name: String, _ index: Int) {
                    var e = JSONObject()
                    e.insert("source", .number(Double(index)))
                    extensions.set(name, .object(e))
                }
                if let b = slots.basisu { point("KHR_texture_basisu", b) }
                if let w = slots.web { point(w.extension, w.index) }
                if extensions.keys.isEmpty {
                    texture.remove("extensions")
                } else {
                    texture.set("extensions", .object(extensions))
                }
                if let p = slots.plain { texture.set("source", .number(Double(p))) } else { texture.remove("source") }
                textures[t] = .object(texture)
            }
        }

        /// `extensionsUsed` and `extensionsRequired` for the image extensions, from the textures as
        /// written: used where a texture has one, required where such a texture has no core `source`
        /// (glTF's rule for KHR_texture_basisu, EXT_texture_webp and EXT_texture_avif alike). Other
        /// extensions are left as they were; a list left empty goes.
        mutating func declareImageExtensions() {
            var used: Set<String> = []
            var required: Set<String> = []
            for case .object(let t) in textures {
                guard case .object(let e)? = t["extensions"] else { continue }
                for name in GLTFModel.imageExtensions where e[name] != nil {
                    used.insert(name)
                    if t["source"] == nil { required.insert(name) }
                }
            }
            for (key, set) in [("extensionsUsed", used), ("extensionsRequired", required)] {
                var list: [JSON] = []
                if case .array(let a)? = root[key] { list = a }
                list.removeAll {
                    if case .string(let s) = $0 {
                        GLTFModel.imageExtensions.contains(s) && !set.contains(s)
                    } else {
                        false
                    }
                }
                for name in GLTFModel.imageExtensions where set.contains(name) && !list.contains(.string(name)) {
                    list.append(.string(name))
                }
                if list.isEmpty { root.remove(key) } else { root.set(key, .array(list)) }
            }
        }

        /// Materials pointed at the copies of textures used in a second kind.
        mutating func pointMaterials(_ uses: [GLTFModel.Use], _ textureFor: [TextureKind: Int]) {
            for use in uses where use.image != nil {
                let t = textureFor[TextureKind(texture: use.texture, kind: use.role.kind)]!
                guard t != use.texture else { continue }
                materials[use.material] = .object(
                    GLTFRewrite.setIndex(Self.object(materials, use.material), path: use.role.materialPath[...], to: t))
            }
        }

        /// Images no material uses: a GLB embeds their files; a .gltf copies them beside (returned).
        mutating func placeUnused(_ layout: GLTFLayout, _ unused: [Int: [UInt8]], binary: Bool) -> [(
            name: String, bytes: [UInt8]
        )] {
            var beside: [(name: String, bytes: [UInt8])] = []
            for (image, _) in layout.unusedFiles where binary {
                // An empty file stays a URI: a view holds at least one byte.
                guard let bytes = unused[image], !bytes.isEmpty else { continue }
                var o = Self.object(images, image)
                let mime = GLTFRewrite.mimeType(of: bytes)
                o.remove("uri")
                o.set("bufferView", .number(Double(firstAdded + added.count)))
                if let mime { o.set("mimeType", .string(mime)) }
                added.append(bytes)
                images[image] = .object(o)
            }
            for b in layout.beside {
                guard case .image(let image) = b.what else { continue }
                var o = Self.object(images, image)
                o.set("uri", .string(GLTFRewrite.uriEscaped(b.name)))
                images[image] = .object(o)
                beside.append((b.name, unused[image] ?? []))
            }
            return beside
        }

        /// Views no longer used: every `bufferView` key left in the model (accessors, sparse
        /// accessors, images, KHR_draco_mesh_compression, …) is counted.
        func orphansDropped() -> Set<Int> {
            var root0 = root
            root0.set("images", .array(images))
            root0.set("textures", .array(textures))
            root0.set("materials", .array(materials))
            var stillUsed: [Int: Int] = [:]
            GLTFRewrite.countViewReferences(.object(root0), into: &stillUsed)
            return orphaned.filter { stillUsed[$0] == nil }
        }

        /// The buffers with replaced, added or dropped views re-laid (the BIN is buffer 0 of a GLB),
        /// and their views' offsets and lengths updated.
        mutating func relayBuffers(_ buffers: [[UInt8]], dropped: Set<Int>, binary: Bool) throws(GLTFError)
            -> [[UInt8]]
        {
            var bytes = buffers
            if binary && bytes.isEmpty && !added.isEmpty {
                bytes = [[]]
                var b = JSONObject()
                b.insert("byteLength", .number(0))
                bufferItems = [.object(b)]
            }
            for k in bytes.indices {
                let mine = views.indices.filter { v in GLTFModel.integer(Self.object(views, v)["buffer"]) == k }
                let grows = k == 0 && !added.isEmpty
                guard grows || mine.contains(where: { replaced[$0] != nil || dropped.contains($0) }) else { continue }
                let (laid, offsets) = try GLTFRewrite.relay(
                    bytes[k], views: views, mine: mine.filter { !dropped.contains($0) }, replaced: replaced)
                var out = laid
                var newViews: [(Int, Int, Int)] = []
                for (n, image) in added.enumerated() where k == 0 {
                    while out.count % 8 != 0 { out.append(0) }
                    newViews.append((firstAdded + n, out.count, image.count))
                    out += image
                }
                for (v, place) in offsets {
                    var o = Self.object(views, v)
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
            return bytes
        }

        /// Each buffer's length and where it lives: the BIN of a GLB, a file beside (returned), or a
        /// `data:` URI.
        mutating func describeBuffers(_ bytes: inout [[UInt8]], _ layout: GLTFLayout, binary: Bool) throws(GLTFError)
            -> [(name: String, bytes: [UInt8])]
        {
            var beside: [(name: String, bytes: [UInt8])] = []
            for k in bytes.indices {
                var b = Self.object(bufferItems, k)
                b.set("byteLength", .number(Double(bytes[k].count)))
                let source = k < model.items("buffers").count ? try model.bufferSource(k) : .bin
                if binary && k == 0 {
                    b.remove("uri")
                } else if let file = layout.beside.first(where: { $0.what == .buffer(k) }) {
                    b.set("uri", .string(GLTFRewrite.uriEscaped(file.name)))
                    beside.append((file.name, bytes[k]))
                } else if case .data = source {
                    b.set(
                        "uri", .string("data:application/octet-stream;base64," + Data(bytes[k]).base64EncodedString()))
                }
                bufferItems[k] = .object(b)
            }
            return beside
        }

        /// The model's JSON with every array put back, dropped views removed and the rest renumbered.
        func finished(dropped: Set<Int>) -> JSONObject {
            var root = root
            var views = views
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
                if case .object(let o) = GLTFRewrite.renumberViews(.object(root), renumbered) { root = o }
            }
            if !views.isEmpty { root.set("bufferViews", .array(views)) } else { root.remove("bufferViews") }
            return root
        }
    }
}
