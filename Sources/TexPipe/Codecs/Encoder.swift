internal import CTexPipeShims

/// The pipeline's `png` settings, declared as data like a stage's parameters. SPEC §2.
public struct PNGSettings: Sendable, Hashable {
    public static let parameters: [Parameter] = [
        .integer(
            "level", in: 0...12, default: 6, doc: "compression level: 0…12 (libdeflate), 0…9 with the libpng encoder"),
        .choice(
            "filter", ["adaptive", "none", "sub", "up", "average", "paeth"], default: "adaptive",
            doc: "row filter; adaptive picks per row"),
        .choice(
            "encoder", ["texpipe", "libpng"], default: "texpipe",
            doc: "texpipe's writer over libdeflate, or libpng's (the reference)"),
        .choice(
            "color", ["rgba", "auto"], default: "rgba",
            doc: "rgba (RGB or gray where a stage makes those), or auto: the smallest lossless color type"),
        Parameter(
            "depth", .integerChoice([8, 16]), .optional(absentDoc: "as decoded"),
            doc: "bits per channel written"),
    ]

    public enum Filter: String, Sendable, CaseIterable { case adaptive, none, sub, up, average, paeth }
    public enum ColorMode: String, Sendable { case rgba, auto }

    public enum Writer: String, Sendable { case texpipe, libpng }

    public var level = 6
    public var encoder = Writer.texpipe
    public var filter = Filter.adaptive
    public var color = ColorMode.rgba
    public var depth: Int?

    public init() {}

    public init(_ a: Arguments) throws {
        level = a.integer("level")
        encoder = a.choice("encoder", as: Writer.self)
        if encoder == .libpng && level > 9 {
            throw StageError("the libpng encoder takes levels 0…9; 10…12 need \"encoder\": \"texpipe\"")
        }
        filter = a.choice("filter", as: Filter.self)
        color = a.choice("color", as: ColorMode.self)
        depth = a.optionalInteger("depth")
    }
}

/// The pipeline's `jpeg` settings. SPEC §2.
public struct JPEGSettings: Sendable, Hashable {
    public static let parameters: [Parameter] = [
        .integer("quality", in: 1...100, default: 90, doc: "libjpeg quality"),
        .boolean("progressive", default: false, doc: "write a progressive JPEG"),
        Parameter(
            "flatten", .color, .optional(absentDoc: "an image with any non-opaque pixel is a job error"),
            doc: "background composited under non-opaque pixels before writing"),
    ]

    public var quality = 90
    public var progressive = false
    public var flatten: Color?

    public init() {}
    public init(_ a: Arguments) {
        quality = a.integer("quality")
        progressive = a.boolean("progressive")
        flatten = a.optionalColor("flatten")
    }
}

/// Encoding: Image → PNG / JPEG bytes. No timestamps or other run-dependent bytes.
public enum Encoder {
    /// PNG color types, numbered as in the PNG specification.
    enum PNGColorType: Int32 {
        case gray = 0, rgb = 2, palette = 3, grayAlpha = 4, rgba = 6
        var channels: Int {
            switch self {
            case .gray, .palette: 1
            case .grayAlpha: 2
            case .rgb: 3
            case .rgba: 4
            }
        }
    }

    public static func png(_ image: Image, _ settings: PNGSettings = PNGSettings()) throws -> [UInt8] {
        var img = image
        if let d = settings.depth, d != img.depth { img = d == 16 ? img.to16Bit() : img.to8Bit() }
        switch img.pixels {
        case .rgba8(let p): return try png(p, img, settings)
        case .rgba16(let p): return try png(p, img, settings)
        }
    }

    static func png<C: PixelChannel>(_ p: [C], _ image: Image, _ settings: PNGSettings) throws -> [UInt8] {
        var type: PNGColorType
        var palette: [UInt8] = []
        var trns: [UInt8] = []
        var indices: [UInt8] = []
        switch (settings.color, image.layout) {
        case (.rgba, .rgba): type = .rgba
        case (.rgba, .rgb): type = .rgb
        case (.rgba, .gray): type = .gray
        case (.auto, _):
            let facts = ColorFacts(p)
            let opaque = facts.opaque || image.layout != .rgba
            let gray = facts.gray || image.layout == .gray
            type = gray ? (opaque ? .gray : .grayAlpha) : (opaque ? .rgb : .rgba)
            if C.self == UInt8.self, type != .gray,
                let pal = Palette(p as! [UInt8], keepAlpha: image.layout == .rgba)
            {
                type = .palette
                (palette, trns, indices) = (pal.rgb, pal.alpha, pal.indices)
            }
        }
        let samples: [C] = type == .palette ? [] : pack(p, type, image)
        let rowSamples = image.width * type.channels
        if settings.encoder == .texpipe {
            if type == .palette {
                return try indices.withUnsafeBytes { b in
                    try PNGWriter.encode(
                        samples: b, width: image.width, height: image.height, rowBytes: image.width, colorType: 3,
                        bitDepth: 8, channels: 1, level: settings.level, filter: settings.filter, palette: palette,
                        trns: trns)
                }
            }
            return try samples.withUnsafeBytes { b in
                try PNGWriter.encode(
                    samples: b, width: image.width, height: image.height, rowBytes: rowSamples * MemoryLayout<C>.size,
                    colorType: Int(type.rawValue), bitDepth: C.bitWidth, channels: type.channels, level: settings.level,
                    filter: settings.filter)
            }
        }
        var params = tp_png_params()
        params.color_type = type.rawValue
        params.bit_depth = Int32(C.bitWidth)
        params.level = Int32(settings.level)
        params.filter = Int32(
            [.adaptive: -1, .none: 0, .sub: 1, .up: 2, .average: 3, .paeth: 4][settings.filter]!)
        params.n_palette = Int32(palette.count / 3)
        params.n_trns = Int32(trns.count)
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var err = [CChar](repeating: 0, count: 256)
        let status: Int32 = palette.withUnsafeBufferPointer { pal in
            trns.withUnsafeBufferPointer { tr in
                params.palette = pal.baseAddress
                params.trns = tr.baseAddress
                if type == .palette {
                    return indices.withUnsafeBytes { b in
                        tp_png_encode(
                            b.baseAddress, UInt32(image.width), UInt32(image.height), image.width, &params, &out,
                            &size, &err, err.count)
                    }
                }
                return samples.withUnsafeBytes { b in
                    tp_png_encode(
                        b.baseAddress, UInt32(image.width), UInt32(image.height),
                        rowSamples * MemoryLayout<C>.size, &params, &out, &size, &err, err.count)
                }
            }
        }
        guard status == 0, let out else { throw CodecError("PNG encoder: " + Decoder.message(err)) }
        defer { tp_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: size))
    }

    /// Interleaved samples of the chosen color type (RGBA passes through untouched).
    static func pack<C: PixelChannel>(_ p: [C], _ type: PNGColorType, _ image: Image) -> [C] {
        let n = image.pixelCount
        switch type {
        case .rgba, .palette: return p
        case .rgb:
            return [C](unsafeUninitializedCapacity: n * 3) { out, count in
                for i in 0..<n {
                    out[3 * i] = p[4 * i]; out[3 * i + 1] = p[4 * i + 1]; out[3 * i + 2] = p[4 * i + 2]
                }
                count = n * 3
            }
        case .gray:
            return [C](unsafeUninitializedCapacity: n) { out, count in
                for i in 0..<n { out[i] = p[4 * i] }
                count = n
            }
        case .grayAlpha:
            return [C](unsafeUninitializedCapacity: n * 2) { out, count in
                for i in 0..<n {
                    out[2 * i] = p[4 * i]; out[2 * i + 1] = p[4 * i + 3]
                }
                count = n * 2
            }
        }
    }

    /// Whether every pixel is opaque, and whether every pixel has R = G = B.
    struct ColorFacts {
        var opaque = true
        var gray = true
        init<C: PixelChannel>(_ p: [C]) {
            let max = C(truncatingIfNeeded: C.maxValue)
            var i = 0
            while i < p.count && (opaque || gray) {
                if p[i + 3] != max { opaque = false }
                if p[i] != p[i + 1] || p[i] != p[i + 2] { gray = false }
                i += 4
            }
        }
    }

    /// An 8-bit palette: at most 256 distinct RGBA colors, non-opaque entries first so tRNS
    /// stays short, otherwise in order of first appearance (deterministic).
    struct Palette {
        var rgb: [UInt8] = []
        var alpha: [UInt8] = []
        var indices: [UInt8] = []

        init?(_ p: [UInt8], keepAlpha: Bool) {
            var seen: [UInt32: Int] = [:]
            var order: [UInt32] = []
            var i = 0
            while i < p.count {
                let a: UInt32 = keepAlpha ? UInt32(p[i + 3]) : 255
                let key = UInt32(p[i]) << 24 | UInt32(p[i + 1]) << 16 | UInt32(p[i + 2]) << 8 | a
                if seen[key] == nil {
                    if order.count == 256 { return nil }
                    seen[key] = order.count
                    order.append(key)
                }
                i += 4
            }
            let sorted = order.filter { $0 & 0xFF != 0xFF } + order.filter { $0 & 0xFF == 0xFF }
            var slot: [UInt32: UInt8] = [:]
            for (k, key) in sorted.enumerated() {
                slot[key] = UInt8(k)
                rgb += [UInt8(key >> 24), UInt8((key >> 16) & 0xFF), UInt8((key >> 8) & 0xFF)]
                if key & 0xFF != 0xFF { alpha.append(UInt8(key & 0xFF)) }
            }
            indices.reserveCapacity(p.count / 4)
            i = 0
            while i < p.count {
                let a: UInt32 = keepAlpha ? UInt32(p[i + 3]) : 255
                indices.append(slot[UInt32(p[i]) << 24 | UInt32(p[i + 1]) << 16 | UInt32(p[i + 2]) << 8 | a]!)
                i += 4
            }
        }
    }

    /// JPEG: 8-bit RGB (or gray, for a gray-layout image) at `quality`. Non-opaque pixels
    /// need `flatten`, else a job error.
    public static func jpeg(_ image: Image, _ settings: JPEGSettings = JPEGSettings()) throws -> [UInt8] {
        var img = image.to8Bit()
        if let bg = settings.flatten {
            img = try Flatten(color: bg).applied(to: img)[0]
        } else if img.layout == .rgba {
            let stats = img.alphaStatistics()
            if stats.min < 255 {
                throw CodecError(
                    "JPEG has no alpha but the image has pixels with alpha below max; set \"jpeg\": {\"flatten\": …} or write a .png"
                )
            }
        }
        guard case .rgba8(let p) = img.pixels else { preconditionFailure("8-bit after to8Bit") }
        let type: PNGColorType = img.layout == .gray ? .gray : .rgb
        let samples = pack(p, type, img)
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var err = [CChar](repeating: 0, count: 256)
        let status = samples.withUnsafeBufferPointer { b in
            tp_jpeg_encode(
                b.baseAddress, UInt32(img.width), UInt32(img.height), img.width * type.channels,
                Int32(type.channels), Int32(settings.quality), settings.progressive ? 1 : 0,
                &out, &size, &err, err.count)
        }
        guard status == 0, let out else { throw CodecError("JPEG encoder: " + Decoder.message(err)) }
        defer { tp_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: size))
    }
}
