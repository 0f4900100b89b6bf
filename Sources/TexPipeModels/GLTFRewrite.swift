internal import Foundation
public import TexPipeFormats
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
/// JPEG: the core source, or the role's `output`), a web image (WebP or AVIF: a fallback, or the
/// role's `output`), or some of them.
public struct GLTFTextureFiles: Sendable {
    public var basisu: GLTFImageFile?
    public var plain: GLTFImageFile?
    public var web: GLTFImageFile?
    public init(basisu: GLTFImageFile?, plain: GLTFImageFile?, web: GLTFImageFile? = nil) {
        (self.basisu, self.plain, self.web) = (basisu, plain, web)
    }
}

/// The model written back (docs/gltf.md "What is kept"): every texture its layout names replaced,
/// its image extensions (`KHR_texture_basisu`, `EXT_texture_webp`, `EXT_texture_avif`) declared,
/// and everything else as it was — the JSON's key order, unknown
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
    /// `.image` beside entries). In its steps: each texture's images placed, textures and materials
    /// pointed at them, the unused images embedded or copied, views no longer used dropped, the
    /// buffers re-laid, and the model written.
    public static func write(
        _ model: GLTFModel, buffers: [[UInt8]], layout: GLTFLayout, files: [GLTFTextureFiles],
        unused: [Int: [UInt8]], binary: Bool
    ) throws(GLTFError) -> Output {
        var edit = Edit(model)
        let uses = try model.uses()
        let textureFor = edit.textureCopies(uses)
        let imageSlot = edit.placeImages(layout, files)
        edit.pointTextures(uses, textureFor, imageSlot)
        edit.declareImageExtensions()
        edit.pointMaterials(uses, textureFor)
        var beside = edit.placeUnused(layout, unused, binary: binary)
        let dropped = edit.orphansDropped()
        var bytes = try edit.relayBuffers(buffers, dropped: dropped, binary: binary)
        beside += try edit.describeBuffers(&bytes, layout, binary: binary)
        let root = edit.finished(dropped: dropped)
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

    /// The glTF mimeType of an image's bytes, by `FileKind.sniff`: PNG, JPEG, KTX2, WebP and AVIF.
    public static func mimeType(of bytes: [UInt8]) -> String? { FileKind.sniff(bytes).flatMap(mimeType(of:)) }

    /// The glTF mimeType of a kind of image file (nil: one glTF does not hold).
    public static func mimeType(of kind: FileKind) -> String? {
        switch kind {
        case .png: "image/png"
        case .jpeg: "image/jpeg"
        case .ktx2: "image/ktx2"
        case .webp: "image/webp"
        case .avif: "image/avif"
        case .exr, .radiance, .dds, .cube, .gltf, .glb: nil
        }
    }

    /// A file name as a URI path: what is not unreserved, a sub-delimiter or `/` percent-encoded.
    static func uriEscaped(_ name: String) -> String {
        name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: ":")))
            ?? name
    }
}
