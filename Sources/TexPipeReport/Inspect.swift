internal import Foundation
internal import TexPipeCodecs
internal import TexPipeFormats
public import TexPipePixels
internal import TexPipeTextures

/// What `texpipe inspect` finds in one file: the fields the text shows, and what
/// `inspect --json` prints (one object per file).
public struct InspectFacts: Codable, Sendable, Equatable {
    public var file: String
    public var format: String
    public var width: Int
    public var height: Int
    public var colorType: String
    public var bitDepth: Int
    /// Set when the file's extension promises another format than its signature.
    public var extensionMismatch: String?
    public var interlaced: Bool?
    public var tRNS: Bool?
    public var gamma: Double?
    public var sRGB: Bool?
    public var iccProfile: Bool?
    public var progressive: Bool?
    /// WebP and AVIF: how the file is coded ("lossless"; "4:4:4, CICP 1/13/6, full range") and
    /// its frames (an animation's; texpipe reads the first).
    public var encoding: String?
    public var frames: Int?
    public var decodedDepth: Int
    public var alphaMin: Int
    public var alphaMax: Int
    public var transparentPercent: Double
    public var likelyKeyColor: String?
    public var likelyKeyColorEvidence: String?
    /// KTX2 / DDS files: the container's facts.
    public var texture: TextureFacts?
    /// HDR images (EXR, Radiance, rgba16f textures): the range of the linear values.
    public var hdr: HDRFacts?
    /// glTF models (`.gltf`, `.glb`): every image with its roles (docs/gltf.md).
    public var model: ModelFacts?
    /// `.cube` colour-grading LUTs (docs/gpu-textures.md "Colour-grading LUTs").
    public var lut: LUTFacts?
}

/// What a `.cube` LUT holds: its title, size, domain and the range of its entries.
public struct LUTFacts: Codable, Sendable, Equatable {
    public var title: String?
    public var size: Int
    public var domainMin: [Float]
    public var domainMax: [Float]
    /// The smallest and largest value of any entry's R, G or B.
    public var min: Float
    public var max: Float
}

/// The values of an HDR image: what a tonemap's exposure has to bring into range.
public struct HDRFacts: Codable, Sendable, Equatable {
    /// The largest R, G or B value.
    public var max: Double
    /// The mean of the Rec. 709 luminance (0.2126 R + 0.7152 G + 0.0722 B).
    public var meanLuminance: Double
    /// EXR: tiled rather than scanline storage.
    public var tiled: Bool?

    init(_ image: Image) { self.init([image]) }

    /// Over every texel of `images` (a cube map's six faces, an array's layers).
    init(_ images: [Image]) {
        var top: Float = 0
        var sum = 0.0
        var count = 0
        for image in images {
            guard case .rgbaF32(let p) = image.pixels else { continue }
            for i in stride(from: 0, to: p.count, by: 4) {
                top = Swift.max(top, p[i], p[i + 1], p[i + 2])
                sum += Double(0.2126 * p[i] + 0.7152 * p[i + 1] + 0.0722 * p[i + 2])
            }
            count += image.pixelCount
        }
        (max, meanLuminance) = (Double(top), sum / Double(Swift.max(1, count)))
    }
}

/// What a GPU texture file says about itself (`inspect`).
public struct TextureFacts: Codable, Sendable, Equatable {
    public var container: String
    public var format: String
    public var colorSpace: String
    public var alphaMode: String
    public var supercompression: String
    public var levels: [LevelFacts]
    /// A texture array's layers, in order (nil for a plain texture): each one's name from the layer
    /// index beside the file when there is one, and its level 0's alpha.
    public var layers: [LayerFacts]?
    /// A cube map (six faces per level, +X … −Z); nil for anything else.
    public var cube: Bool?
    /// A volume's depth (its level 0's slices); nil for anything else.
    public var depth: Int?
    /// An ETC1S file's BasisLZ global data; nil for anything else.
    public var basisLZ: BasisLZFacts?
    /// The `texpipe.target` record of a file a quality target chose the settings of (compact JSON:
    /// format, knob, target, measured); nil for anything else.
    public var target: String?

    public struct BasisLZFacts: Codable, Sendable, Equatable {
        public var endpoints: Int
        public var selectors: Int
        /// Bytes of the endpoint codebook, the selector codebook and the slices' Huffman tables.
        public var endpointBytes: Int
        public var selectorBytes: Int
        public var tableBytes: Int
        /// Slices per image: 1 (RGB) or 2 (RGB and alpha).
        public var slicesPerImage: Int
        /// The whole file's bits per texel of every image (levels, layers, faces).
        public var bitsPerTexel: Double
    }

    public struct LayerFacts: Codable, Sendable, Equatable {
        public var index: Int
        public var name: String?
        public var alphaMin: Int
        public var alphaMax: Int
    }

    public struct LevelFacts: Codable, Sendable, Equatable {
        public var width: Int
        public var height: Int
        /// A volume's slices at this level; nil for anything else.
        public var depth: Int?
        public var bytes: Int
        public var uncompressedBytes: Int
    }
}

/// `texpipe inspect`: what a file holds, without running anything. docs/command-line.md.
public enum Inspector {
    /// The facts of one file, or throws a one-line error.
    public static func facts(path: String, maxPixels: Int = Image.defaultMaxPixels) throws -> InspectFacts {
        let bytes: [UInt8]
        switch FileReader.read(path) {
        case .success(let b): bytes = b
        case .failure(let e): throw CodecError(e.description)
        }
        switch FileKind.of(bytes, path: path)?.row.holds {
        case .texture?: return try textureFacts(bytes, path: path, maxPixels: maxPixels)
        case .model?: return try modelFacts(bytes, path: path, maxPixels: maxPixels)
        case .lut?: return try lutFacts(bytes, path: path, maxPixels: maxPixels)
        case .image?, .hdrImage?, nil: return try imageFacts(bytes, path: path, maxPixels: maxPixels)
        }
    }

    /// A `.cube` LUT's facts: its size, title, domain and the range of its values.
    static func lutFacts(_ bytes: [UInt8], path: String, maxPixels: Int) throws -> InspectFacts {
        let lut = try CubeLUT(bytes, maxTexels: maxPixels)
        var f = InspectFacts(
            file: path, format: FileKind.cube.row.name, width: lut.size, height: lut.size, colorType: "RGB",
            bitDepth: 32, decodedDepth: 32, alphaMin: 65535, alphaMax: 65535, transparentPercent: 0,
            likelyKeyColor: nil, likelyKeyColorEvidence: nil)
        f.lut = LUTFacts(
            title: lut.title, size: lut.size, domainMin: [lut.domainMin.x, lut.domainMin.y, lut.domainMin.z],
            domainMax: [lut.domainMax.x, lut.domainMax.y, lut.domainMax.z], min: lut.values.min() ?? 0,
            max: lut.values.max() ?? 0)
        return f
    }

    /// An image's facts: its header, alpha statistics and likely key colour.
    static func imageFacts(_ bytes: [UInt8], path: String, maxPixels: Int) throws -> InspectFacts {
        let h = try ImageDecoder.header(bytes, path: path)
        let image = try ImageDecoder.decode(bytes, path: path, maxPixels: maxPixels)
        let stats = image.alphaStatistics()
        let key = image.isHDR ? nil : likelyKeyColor(image)
        var f = InspectFacts(
            file: path, format: h.format.name, width: h.width, height: h.height, colorType: h.colorType,
            bitDepth: h.fileBitDepth, decodedDepth: image.depth, alphaMin: stats.min, alphaMax: stats.max,
            transparentPercent: Double(stats.transparent) / Double(image.pixelCount) * 100,
            likelyKeyColor: key?.0, likelyKeyColorEvidence: key?.1)
        if let promised = ImageFormat(path: path), promised != h.format {
            f.extensionMismatch =
                "named .\((path as NSString).pathExtension) but the signature says \(h.format.name)"
        }
        if image.isHDR {
            f.hdr = HDRFacts(image)
            if h.format == .exr { f.hdr?.tiled = h.interlaced }
        } else if h.format == .png {
            (f.interlaced, f.tRNS, f.gamma, f.sRGB, f.iccProfile) =
                (h.interlaced, h.hasTransparency, h.gamma, h.sRGB, h.iccProfile)
        } else if let encoding = h.encoding {
            (f.encoding, f.frames, f.iccProfile) = (encoding, h.frames, h.iccProfile)
        } else {
            f.progressive = h.progressive
        }
        return f
    }

    /// A KTX2 / DDS file: its container facts, and alpha statistics of level 0 decoded.
    package static func textureFacts(
        _ bytes: [UInt8], path: String, maxPixels: Int = Image.defaultMaxPixels
    ) throws -> InspectFacts {
        let t = try TextureFile(bytes, maxPixels: maxPixels)
        // Level 0 of every layer where the facts need them (an array's per-layer alpha, an HDR
        // cube's or array's range), each decoded once; else the first.
        // A volume's level 0 is every slice of it.
        let layers0 =
            t.isVolume || (t.layers > 1 && (t.isArray || t.format.info.hdr))
            ? try t.layers(ofLevel: 0) : [try t.level(0)]
        let level0 = layers0[0]
        var stats = level0.alphaStatistics()
        if t.isVolume {
            for slice in layers0.dropFirst() {
                let s = slice.alphaStatistics()
                stats = (min(stats.min, s.min), max(stats.max, s.max), stats.transparent + s.transparent)
            }
        }
        var f = InspectFacts(
            file: path, format: t.container.name, width: t.width, height: t.height,
            colorType: t.format.rawValue, bitDepth: 8, decodedDepth: 8, alphaMin: stats.min,
            alphaMax: stats.max,
            transparentPercent: Double(stats.transparent) / Double(t.width * t.height * layers0.count) * 100,
            likelyKeyColor: nil, likelyKeyColorEvidence: nil)
        f.texture = TextureFacts(
            container: t.container.name, format: t.format.rawValue,
            colorSpace: t.srgb ? "srgb" : "linear",
            alphaMode: t.alphaMode, supercompression: t.basisLZ != nil ? "basislz" : t.supercompression.rawValue,
            levels: t.levels.map {
                .init(
                    width: $0.width, height: $0.height, depth: t.isVolume ? $0.depth : nil, bytes: $0.bytes,
                    uncompressedBytes: $0.uncompressedBytes)
            })
        f.texture!.target = t.target
        if t.isCube { f.texture!.cube = true }
        if t.isVolume { f.texture!.depth = t.depth }
        if let b = t.basisLZ {
            let texels = t.levels.reduce(0) { $0 + $1.width * $1.height } * t.layers
            f.texture!.basisLZ = .init(
                endpoints: b.endpointCount, selectors: b.selectorCount, endpointBytes: b.sectionBytes.endpoints,
                selectorBytes: b.sectionBytes.selectors, tableBytes: b.sectionBytes.tables,
                slicesPerImage: b.hasAlpha ? 2 : 1, bitsPerTexel: Double(bytes.count * 8) / Double(texels))
        }
        if t.isArray {
            let names = layerNames(beside: path, count: t.layers)
            f.texture!.layers = (0..<t.layers).map { k in
                let a = layers0[k].alphaStatistics()
                return .init(index: k, name: names[k], alphaMin: a.min, alphaMax: a.max)
            }
        }
        if level0.isHDR {
            // Every face or layer of level 0: a sky's sun is rarely on +X.
            f.hdr = HDRFacts(layers0)
        }
        if let promised = ImageFormat(path: path), promised.container != t.container {
            f.extensionMismatch = "named .\(PathText.pathExtension(path)) but the signature says \(f.format)"
        }
        return f
    }

    /// The names a layer index (`NAME.json` beside `NAME.ktx2`, as an array pipeline writes it)
    /// gives the layers; nil where it gives none.
    static func layerNames(beside path: String, count: Int) -> [String?] {
        var names = [String?](repeating: nil, count: count)
        guard case .success(let bytes) = FileReader.read(PathText.deletingExtension(path) + ".json"),
            let root = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
            let layers = root["layers"] as? [String: Any]
        else { return names }
        for (name, value) in layers {
            if let k = value as? Int, (0..<count).contains(k) { names[k] = name }
        }
        return names
    }

    /// A multi-line description of the file, or throws a one-line error.
    public static func describe(path: String, maxPixels: Int = Image.defaultMaxPixels) throws -> String {
        text(try facts(path: path, maxPixels: maxPixels))
    }

    /// The facts as `texpipe inspect` prints them.
    public static func text(_ f: InspectFacts) -> String {
        if let t = f.texture { return textureText(f, t) }
        if let l = f.lut {
            func triple(_ v: [Float]) -> String { v.map { String(format: "%g", $0) }.joined(separator: " ") }
            return [
                "\(f.file): Cube LUT \(l.size)×\(l.size)×\(l.size)" + (l.title.map { " \"\($0)\"" } ?? ""),
                "  domain: min \(triple(l.domainMin)), max \(triple(l.domainMax))",
                String(format: "  entries: min %g, max %g", l.min, l.max),
                "  as a texture: a \(l.size)×\(l.size)×\(l.size) volume, x red, y green, z blue (rgba8 or rgba16f)",
            ].joined(separator: "\n")
        }
        if let m = f.model { return modelText(f, m) }
        var lines: [String] = []
        var head = "\(f.file): \(f.format) \(f.width)×\(f.height), \(f.colorType) \(f.bitDepth)-bit"
        if let mismatch = f.extensionMismatch { head += " (\(mismatch))" }
        lines.append(head)
        if let hdr = f.hdr {
            lines.append(
                "  HDR, linear light\(hdr.tiled.map { $0 ? ", tiled" : ", scanline" } ?? ""): "
                    + String(format: "max %.4g, mean luminance %.4g", hdr.max, hdr.meanLuminance))
        } else if let interlaced = f.interlaced {
            lines.append(
                "  interlace: \(interlaced ? "Adam7" : "none"), tRNS: \(f.tRNS == true ? "yes" : "no"), "
                    + "gamma: \(f.gamma.map { String(format: "%.5f", $0) } ?? "none"), "
                    + "sRGB: \(f.sRGB == true ? "yes" : "no"), ICC profile: \(f.iccProfile == true ? "yes" : "no")")
        } else if let encoding = f.encoding {
            lines.append(
                "  \(encoding)" + (f.frames.map { $0 > 1 ? ", \($0) frames (the first is read)" : "" } ?? "")
                    + ", ICC profile: \(f.iccProfile == true ? "yes" : "no")")
        } else {
            lines.append("  \(f.progressive == true ? "progressive" : "baseline")")
        }
        lines.append("  decodes to RGBA \(f.decodedDepth)-bit")
        lines.append(
            "  alpha: min \(f.alphaMin), max \(f.alphaMax), "
                + String(format: "%.1f%% fully transparent", f.transparentPercent))
        if let color = f.likelyKeyColor, let evidence = f.likelyKeyColorEvidence {
            lines.append("  likely key color: \(color) (\(evidence))")
        }
        return lines.joined(separator: "\n")
    }

    /// `out/net.ktx2: KTX2 256×256, rgba8 srgb, 9 levels, zstd` and a line per level.
    static func textureText(_ f: InspectFacts, _ t: TextureFacts) -> String {
        func count(_ n: Int) -> String {
            let digits = Array(String(n))
            return String(
                digits.enumerated().flatMap { k, c in (k > 0 && (digits.count - k) % 3 == 0 ? [","] : []) + [c] })
        }
        var head =
            "\(f.file): \(t.container) \(f.width)×\(f.height)\(t.depth.map { "×\($0) volume" } ?? ""), "
            + "\(t.format) \(t.colorSpace), "
            + "\(t.levels.count) level\(t.levels.count == 1 ? "" : "s")"
            + (t.cube == true ? ", cube map (faces +X, −X, +Y, −Y, +Z, −Z)" : "")
            + (t.layers.map { ", \($0.count) layers" } ?? "")
            + (t.supercompression == "none" ? "" : ", \(t.supercompression)")
        if let mismatch = f.extensionMismatch { head += " (\(mismatch))" }
        var lines = [head, "  alpha: \(t.alphaMode)"]
        if let target = t.target { lines.append("  target: " + ValueText.oneLine(target)) }
        if let b = t.basisLZ {
            lines.append(
                "  BasisLZ: \(count(b.endpoints)) endpoints (\(count(b.endpointBytes)) bytes), "
                    + "\(count(b.selectors)) selectors (\(count(b.selectorBytes)) bytes), "
                    + "tables \(count(b.tableBytes)) bytes; \(b.slicesPerImage == 2 ? "RGB and alpha slices" : "RGB slices"); "
                    + String(format: "%.2f bits per texel", b.bitsPerTexel))
        }
        for (n, l) in t.levels.enumerated() {
            lines.append(
                "  level \(n): \(l.width)×\(l.height)\(l.depth.map { "×\($0)" } ?? ""), \(count(l.bytes)) bytes"
                    + (l.bytes == l.uncompressedBytes || t.basisLZ != nil
                        ? "" : " (\(count(l.uncompressedBytes)) before \(t.supercompression))"))
        }
        if let hdr = f.hdr {
            lines.append(
                "  level 0 HDR"
                    + (t.cube == true
                        ? " (all six faces)"
                        : t.depth.map { " (all \($0) slices)" } ?? t.layers.map { " (all \($0.count) layers)" } ?? "")
                    + ": " + String(format: "max %.4g, mean luminance %.4g", hdr.max, hdr.meanLuminance))
        }
        lines.append(
            "  level 0 decodes to: alpha min \(f.alphaMin), max \(f.alphaMax), "
                + String(format: "%.1f%% fully transparent", f.transparentPercent)
                + (t.layers == nil ? "" : " (layer 0)") + (t.depth.map { " (all \($0) slices)" } ?? ""))
        for l in t.layers ?? [] {
            lines.append(
                "  layer \(l.index)" + (l.name.map { " \"\($0)\"" } ?? "")
                    + ": alpha min \(l.alphaMin), max \(l.alphaMax)")
        }
        return lines.joined(separator: "\n")
    }

    /// Facts of several files as one JSON array (sorted keys); a file that could not be read is
    /// `{"file": …, "error": …}` in its place.
    public static func json(_ results: [(file: String, result: Result<InspectFacts, any Error>)]) throws -> [UInt8] {
        struct Failure: Encodable {
            var file: String
            var error: String
        }
        enum Item: Encodable {
            case facts(InspectFacts)
            case failure(Failure)
            func encode(to encoder: any Encoder) throws {
                switch self {
                case .facts(let f): try f.encode(to: encoder)
                case .failure(let f): try f.encode(to: encoder)
                }
            }
        }
        let items = results.map { r -> Item in
            switch r.result {
            case .success(let f): .facts(f)
            case .failure(let e): .failure(Failure(file: r.file, error: "\(e)"))
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(items)) + [10]
    }

    /// The likely key color: the color of the four corner pixels when at least two agree
    /// (cards, sprites with keyed corners), else the most common opaque border color.
    /// Returns it as `rgb(r, g, b)` at 8 bits with what supports it.
    public static func likelyKeyColor(_ image: Image) -> (String, String)? {
        let img = image.to8Bit()
        guard case .rgba8(let p) = img.pixels else { return nil }
        let (w, h) = (img.width, img.height)
        func color(_ x: Int, _ y: Int) -> UInt32? {
            let i = (y * w + x) * 4
            return p[i + 3] == 255 ? UInt32(p[i]) << 16 | UInt32(p[i + 1]) << 8 | UInt32(p[i + 2]) : nil
        }
        func name(_ k: UInt32) -> String { "rgb(\(k >> 16), \((k >> 8) & 0xFF), \(k & 0xFF))" }
        func mostCommon(_ colors: [UInt32?]) -> (UInt32, Int)? {
            var counts: [UInt32: Int] = [:]
            for case let c? in colors { counts[c, default: 0] += 1 }
            return counts.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }
                .map { ($0.key, $0.value) }
        }
        if let (k, n) = mostCommon([color(0, 0), color(w - 1, 0), color(0, h - 1), color(w - 1, h - 1)]), n >= 2 {
            return (name(k), "\(n) of 4 corners")
        }
        var border: [UInt32?] = []
        for x in 0..<w { border += [color(x, 0), color(x, h - 1)] }
        for y in 0..<h { border += [color(0, y), color(w - 1, y)] }
        guard let (k, n) = mostCommon(border) else { return nil }
        return (name(k), String(format: "%.0f%% of border pixels", Double(n) / Double(border.count) * 100))
    }
}
