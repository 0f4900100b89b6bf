internal import Foundation
internal import TexPipeCodecs
public import TexPipeFormats
public import TexPipeParameters

/// Why a model cannot be used: where (a JSON path such as `bufferViews[3]`, or `GLB chunk 1`) and why.
public struct GLTFError: Error, Sendable, CustomStringConvertible, Equatable {
    public var at: String
    public var message: String
    public init(_ at: String, _ message: String) { (self.at, self.message) = (at, message) }
    public var description: String { at.isEmpty ? message : at + ": " + message }
}

/// A glTF 2.0 model (docs/gltf.md): its JSON with the keys in document order and, for a GLB, the
/// BIN chunk. Read from the glTF 2.0 specification: a `.gltf` is the JSON; a GLB is a 12-byte
/// header (`glTF`, version 2, length) and chunks of (length, type, data), JSON first, BIN second.
public struct GLTFModel: Sendable {
    public var json: JSONObject
    public var bin: [UInt8]?
    public var isBinary: Bool

    static let magic: UInt32 = 0x4654_6C67
    static let jsonChunk: UInt32 = 0x4E4F_534A
    static let binChunk: UInt32 = 0x004E_4942

    public init(json: JSONObject, bin: [UInt8]? = nil, isBinary: Bool = false) {
        (self.json, self.bin, self.isBinary) = (json, bin, isBinary)
    }

    /// A `.gltf` (JSON) or a GLB (by its magic), checked as far as the JSON's own structure goes:
    /// indices in range, views inside their buffers' declared lengths, accessors inside their views.
    public static func parse(_ bytes: [UInt8]) throws(GLTFError) -> GLTFModel {
        var model: GLTFModel
        if bytes.count >= 4 && u32(bytes, 0) == magic {
            model = try parseGLB(bytes)
        } else {
            model = GLTFModel(json: try parseJSON(bytes), isBinary: false)
        }
        try model.check()
        return model
    }

    static func u32(_ b: [UInt8], _ at: Int) -> UInt32 {
        UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24
    }

    static func parseGLB(_ b: [UInt8]) throws(GLTFError) -> GLTFModel {
        guard b.count >= 20 else { throw GLTFError("GLB", GLTFMessage.shortGLB(b.count)) }
        let version = u32(b, 4)
        guard version == 2 else { throw GLTFError("GLB", GLTFMessage.glbVersion(Int(version))) }
        let length = Int(u32(b, 8))
        guard length == b.count else { throw GLTFError("GLB", GLTFMessage.glbLength(length, file: b.count)) }
        var offset = 12
        var json: [UInt8]?
        var bin: [UInt8]?
        var k = 0
        while offset < b.count {
            let at = "GLB chunk \(k)"
            guard b.count - offset >= 8 else { throw GLTFError(at, GLTFMessage.chunkHeaderPastEnd) }
            let size = Int(u32(b, offset))
            let type = u32(b, offset + 4)
            guard size <= b.count - offset - 8 else { throw GLTFError(at, GLTFMessage.chunkPastEnd(size)) }
            let body = Array(b[(offset + 8)..<(offset + 8 + size)])
            switch (k, type) {
            case (0, jsonChunk): json = body
            case (0, _): throw GLTFError(at, GLTFMessage.firstChunkNotJSON(type))
            case (1, binChunk): bin = body
            case (_, jsonChunk), (_, binChunk): throw GLTFError(at, GLTFMessage.misplacedChunk(type == jsonChunk))
            default: break  // unknown chunk types are ignored, as the specification asks
            }
            offset += 8 + size
            k += 1
        }
        guard var text = json else { throw GLTFError("GLB", GLTFMessage.noJSONChunk) }
        // Padding is spaces; some writers pad with NULs.
        while text.last == 0 { text.removeLast() }
        return GLTFModel(json: try parseJSON(text), bin: bin, isBinary: true)
    }

    static func parseJSON(_ bytes: [UInt8]) throws(GLTFError) -> JSONObject {
        let json: JSON
        do { json = try JSONParser.parse(bytes) } catch { throw GLTFError("", GLTFMessage.notJSON(error.description)) }
        guard case .object(let root) = json else { throw GLTFError("", GLTFMessage.rootNotObject) }
        guard case .object(let asset)? = root["asset"], case .string(let version)? = asset["version"] else {
            throw GLTFError("asset", GLTFMessage.noAssetVersion)
        }
        guard version.hasPrefix("2.") else { throw GLTFError("asset.version", GLTFMessage.notVersion2(version)) }
        return root
    }

    // MARK: - Reading the JSON

    /// A top-level array (`images`, `bufferViews`, …); empty when absent.
    public func items(_ key: String) -> [JSON] {
        if case .array(let a)? = json[key] { return a }
        return []
    }

    /// A top-level array's `i`-th object.
    public func object(_ key: String, _ i: Int) -> JSONObject {
        let a = items(key)
        if i < a.count, case .object(let o) = a[i] { return o }
        return JSONObject()
    }

    public static func integer(_ v: JSON?) -> Int? {
        if case .number(let d)? = v, d == d.rounded(), d >= 0, d < 9e15 { return Int(d) }
        return nil
    }

    /// `o[key]` as an index into `count` items, at `at`; nil when absent.
    static func index(_ o: JSONObject, _ key: String, at: String, count: Int, of target: String) throws(GLTFError)
        -> Int?
    {
        guard let v = o[key] else { return nil }
        guard let i = integer(v) else { throw GLTFError(at + "." + key, GLTFMessage.notIndex(v.quoted)) }
        guard i < count else { throw GLTFError(at + "." + key, GLTFMessage.outOfRange(i, target, count: count)) }
        return i
    }

    static func length(_ o: JSONObject, _ key: String, at: String, required: Bool, minimum: Int = 0)
        throws(GLTFError) -> Int
    {
        guard let v = o[key] else {
            if required { throw GLTFError(at, GLTFMessage.missing(key)) }
            return 0
        }
        guard let n = integer(v), n >= minimum else { throw GLTFError(at + "." + key, GLTFMessage.notLength(v.quoted)) }
        return n
    }

    /// The structural checks of the specification that reading and rewriting depend on.
    func check() throws(GLTFError) {
        let buffers = items("buffers").count
        let views = items("bufferViews").count
        for k in 0..<buffers {
            let at = "buffers[\(k)]"
            guard case .object(let b) = items("buffers")[k] else { throw GLTFError(at, GLTFMessage.notObject) }
            _ = try Self.length(b, "byteLength", at: at, required: true, minimum: 1)
            if b["uri"] == nil && (k != 0 || !isBinary) { throw GLTFError(at, GLTFMessage.bufferWithoutURI) }
        }
        for k in 0..<views {
            let at = "bufferViews[\(k)]"
            guard case .object(let v) = items("bufferViews")[k] else { throw GLTFError(at, GLTFMessage.notObject) }
            guard let b = try Self.index(v, "buffer", at: at, count: buffers, of: "buffers") else {
                throw GLTFError(at, GLTFMessage.missing("buffer"))
            }
            let offset = try Self.length(v, "byteOffset", at: at, required: false)
            let size = try Self.length(v, "byteLength", at: at, required: true, minimum: 1)
            let declared = try Self.length(object("buffers", b), "byteLength", at: "", required: true)
            guard offset + size <= declared else {
                throw GLTFError(at, GLTFMessage.viewPastBuffer(offset, offset + size, buffer: b, declared))
            }
        }
        for (k, item) in items("accessors").enumerated() {
            let at = "accessors[\(k)]"
            guard case .object(let a) = item else { throw GLTFError(at, GLTFMessage.notObject) }
            guard let v = try Self.index(a, "bufferView", at: at, count: views, of: "bufferViews") else { continue }
            let count = try Self.length(a, "count", at: at, required: true, minimum: 1)
            let offset = try Self.length(a, "byteOffset", at: at, required: false)
            let element = Self.elementSize(a)
            let view = object("bufferViews", v)
            let stride = Self.integer(view["byteStride"]) ?? element
            let size = Self.integer(view["byteLength"]) ?? 0
            if element > 0 && offset + stride * (count - 1) + element > size {
                throw GLTFError(
                    at, GLTFMessage.accessorPastView(offset + stride * (count - 1) + element, view: v, size))
            }
        }
        for (k, item) in items("images").enumerated() {
            let at = "images[\(k)]"
            guard case .object(let image) = item else { throw GLTFError(at, GLTFMessage.notObject) }
            let view = try Self.index(image, "bufferView", at: at, count: views, of: "bufferViews")
            if view == nil && image["uri"] == nil { throw GLTFError(at, GLTFMessage.imageWithoutSource) }
        }
        let images = items("images").count
        for (k, item) in items("textures").enumerated() {
            let at = "textures[\(k)]"
            guard case .object(let t) = item else { throw GLTFError(at, GLTFMessage.notObject) }
            _ = try Self.index(t, "source", at: at, count: images, of: "images")
            _ = try Self.index(t, "sampler", at: at, count: items("samplers").count, of: "samplers")
            if case .object(let extensions)? = t["extensions"] {
                for name in Self.imageExtensions {
                    guard let e = extensions[name] else { continue }
                    let extAt = at + ".extensions." + name
                    guard case .object(let ext) = e else { throw GLTFError(extAt, GLTFMessage.notObject) }
                    _ = try Self.index(ext, "source", at: extAt, count: images, of: "images")
                }
            }
        }
        _ = try uses()
        if case .array(let used)? = json["extensionsUsed"], used.contains(.string("EXT_meshopt_compression")) {
            throw GLTFError("extensionsUsed", GLTFMessage.meshopt)
        }
    }

    /// Bytes of one element of an accessor (`VEC3` of `FLOAT`: 12); 0 when unknown.
    static func elementSize(_ a: JSONObject) -> Int {
        let component: Int =
            switch integer(a["componentType"]) {
            case 5120, 5121: 1
            case 5122, 5123: 2
            case 5125, 5126: 4
            default: 0
            }
        guard case .string(let type)? = a["type"] else { return 0 }
        let components =
            ["SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16][type] ?? 0
        // Matrix columns start on 4-byte boundaries (glTF 2.0 §3.6.2.4).
        if component == 1 && type == "MAT2" { return 8 }
        if component == 1 && type == "MAT3" { return 12 }
        if component == 2 && type == "MAT3" { return 24 }
        return component * components
    }

    // MARK: - Where the bytes are

    /// Where a buffer's or an image's bytes are: the GLB's BIN chunk, a `data:` URI, a file
    /// relative to the model (its URI percent-decoded), or a buffer view.
    public enum Source: Sendable, Equatable {
        case bin
        case data([UInt8])
        case file(String)
        case view(Int)
    }

    static func source(uri: String, at: String) throws(GLTFError) -> Source {
        if uri.hasPrefix("data:") {
            guard let comma = uri.firstIndex(of: ","), uri[..<comma].hasSuffix(";base64"),
                let data = Data(base64Encoded: String(uri[uri.index(after: comma)...]))
            else { throw GLTFError(at + ".uri", GLTFMessage.badDataURI) }
            return .data([UInt8](data))
        }
        guard let path = uri.removingPercentEncoding, !path.isEmpty, !path.hasPrefix("/"), !uri.contains(":")
        else { throw GLTFError(at + ".uri", GLTFMessage.unsupportedURI(uri)) }
        return .file(path)
    }

    public func bufferSource(_ k: Int) throws(GLTFError) -> Source {
        let b = object("buffers", k)
        if case .string(let uri)? = b["uri"] { return try Self.source(uri: uri, at: "buffers[\(k)]") }
        return .bin
    }

    public func imageSource(_ k: Int) throws(GLTFError) -> Source {
        let image = object("images", k)
        if let v = Self.integer(image["bufferView"]) { return .view(v) }
        if case .string(let uri)? = image["uri"] { return try Self.source(uri: uri, at: "images[\(k)]") }
        throw GLTFError("images[\(k)]", GLTFMessage.imageWithoutSource)
    }

    /// The reader of files a model names by URI: `folder` (the model's own) joined with the
    /// decoded URI, its failure the file's one-line reason under the URI.
    public static func files(in folder: String) -> (String) -> Result<[UInt8], GLTFError> {
        { uri in FileReader.read(folder + "/" + uri).mapError { GLTFError(uri, "\($0)") } }
    }

    /// Every buffer's bytes, each at least its declared length; `read` reads a file named by a URI
    /// (relative to the model) or says why it cannot.
    public func buffers(read: (String) -> Result<[UInt8], GLTFError>) throws(GLTFError) -> [[UInt8]] {
        var out: [[UInt8]] = []
        for k in items("buffers").indices {
            let at = "buffers[\(k)]"
            let declared = Self.integer(object("buffers", k)["byteLength"]) ?? 0
            let bytes: [UInt8]
            switch try bufferSource(k) {
            case .bin:
                guard let bin else { throw GLTFError(at, GLTFMessage.noBINChunk) }
                bytes = bin
            case .data(let d): bytes = d
            case .file(let path): bytes = try read(path).get()
            case .view: bytes = []
            }
            guard bytes.count >= declared else { throw GLTFError(at, GLTFMessage.shortBuffer(declared, bytes.count)) }
            out.append(bytes)
        }
        return out
    }

    /// A view's bytes.
    public func viewBytes(_ v: Int, buffers: [[UInt8]]) -> ArraySlice<UInt8> {
        let view = object("bufferViews", v)
        let b = Self.integer(view["buffer"]) ?? 0
        let offset = Self.integer(view["byteOffset"]) ?? 0
        let size = Self.integer(view["byteLength"]) ?? 0
        return buffers[b][offset..<(offset + size)]
    }

    /// An image's file bytes (PNG, JPEG, KTX2, …).
    public func imageBytes(_ k: Int, buffers: [[UInt8]], read: (String) -> Result<[UInt8], GLTFError>)
        throws(GLTFError) -> [UInt8]
    {
        switch try imageSource(k) {
        case .view(let v): return Array(viewBytes(v, buffers: buffers))
        case .data(let d): return d
        case .file(let path): return try read(path).get()
        case .bin: return []
        }
    }

    // MARK: - Roles

    /// One material's use of a texture in a role.
    public struct Use: Sendable, Hashable {
        public var material: Int
        public var role: GLTFRole
        public var texture: Int
        /// The image texpipe reads for the texture: its core `source`, else its
        /// `EXT_texture_webp`'s, else its `EXT_texture_avif`'s; nil when it has none of them (a
        /// KTX2 only).
        public var image: Int?
    }

    /// The extensions whose `source` names a texture's image: texpipe writes the first, reads the
    /// other two and replaces all three on a texture it processes.
    public static let imageExtensions = ["KHR_texture_basisu", "EXT_texture_webp", "EXT_texture_avif"]

    /// The image a texture's pixels are read from: the core `source` (PNG or JPEG), else a WebP or
    /// AVIF under its extension.
    func sourceImage(of texture: Int) -> Int? {
        let t = object("textures", texture)
        if let s = Self.integer(t["source"]) { return s }
        guard case .object(let extensions)? = t["extensions"] else { return nil }
        for name in ["EXT_texture_webp", "EXT_texture_avif"] {
            if case .object(let e)? = extensions[name], let s = Self.integer(e["source"]) { return s }
        }
        return nil
    }

    /// Every use of a texture by a material, in material order, roles in `GLTFRole` order.
    public func uses() throws(GLTFError) -> [Use] {
        var out: [Use] = []
        let textures = items("textures").count
        for (m, item) in items("materials").enumerated() {
            guard case .object(let material) = item else { throw GLTFError("materials[\(m)]", GLTFMessage.notObject) }
            for role in GLTFRole.allCases {
                var node = material
                var at = "materials[\(m)]"
                var found = true
                for key in role.materialPath {
                    at += "." + key
                    guard case .object(let next)? = node[key] else {
                        found = false
                        break
                    }
                    node = next
                }
                guard found else { continue }
                guard let t = try Self.index(node, "index", at: at, count: textures, of: "textures") else {
                    throw GLTFError(at, GLTFMessage.missing("index"))
                }
                out.append(Use(material: m, role: role, texture: t, image: sourceImage(of: t)))
            }
        }
        return out
    }
}

extension GLTFModel {
    /// A path naming one image of a model, `/abs/crate.glb#images[3]`: how a stage's resource names
    /// an image the model embeds (`mipmaps`' `roughnessFrom` of a glTF material's normal map).
    public static func imageReference(_ model: String, image: Int) -> String { model + "#images[\(image)]" }

    /// The model and image a reference names, or nil for any other path.
    public static func referencedImage(_ path: String) -> (model: String, image: Int)? {
        guard let hash = path.lastIndex(of: "#"), path.hasSuffix("]") else { return nil }
        let model = String(path[..<hash])
        let tail = path[path.index(after: hash)...]
        guard tail.hasPrefix("images["), let k = Int(tail.dropFirst(7).dropLast()), k >= 0,
            case .model? = FileKind(path: model)?.row.holds
        else { return nil }
        return (model, k)
    }

    /// The bytes of the image a reference names, read from its model (its buffers or the file its
    /// URI names).
    public static func referencedImageBytes(_ path: String) -> Result<[UInt8], GLTFError>? {
        guard let (model, k) = referencedImage(path) else { return nil }
        let read = files(in: (model as NSString).deletingLastPathComponent)
        do throws(GLTFError) {
            let bytes: [UInt8]
            switch FileReader.read(model) {
            case .success(let b): bytes = b
            case .failure(let e): throw GLTFError(model, "\(e)")
            }
            let parsed = try parse(bytes)
            guard k < parsed.items("images").count else { throw GLTFError("images[\(k)]", GLTFMessage.notObject) }
            return .success(try parsed.imageBytes(k, buffers: try parsed.buffers(read: read), read: read))
        } catch {
            return .failure(error)
        }
    }
}
