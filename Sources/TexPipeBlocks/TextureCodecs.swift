public import TexPipeFormats
internal import TexPipeMeasures
public import TexPipePixels

/// One codec family's encoder and decoder behind the door (`TextureCodecs`), one conformance per
/// family in its own folder (`BC/BC+Codec.swift`, …). A family implements what its declaration in
/// the format table (`CodecFamily`) says it has — 8-bit levels, HDR levels, or a whole file against
/// global data; what it lacks keeps the default, which throws the one message that says so.
protocol BlockCodec: Sendable {
    /// One level's block data from tightly packed RGBA8 (`rdo` already checked against the row).
    func encode(_ rgba: [UInt8], _ width: Int, _ height: Int, _ settings: TextureSettings, rows: any RowScheduler)
        throws -> [UInt8]
    /// One level's texels (RGBA8, width × height) from its block data.
    func decode(_ blocks: [UInt8], _ width: Int, _ height: Int, format: TextureSettings.Format, srgb: Bool) throws
        -> [UInt8]
    /// Per channel, the squared differences between the level's blocks decoded and `original`.
    func squaredErrors(
        _ blocks: [UInt8], _ original: [UInt8], _ width: Int, _ height: Int, format: TextureSettings.Format, srgb: Bool
    ) throws -> SIMD4<Int64>
    /// One level's data from an HDR image's Float RGBA.
    func encodeHDR(_ rgba: [Float], _ width: Int, _ height: Int, _ settings: TextureSettings, rows: any RowScheduler)
        throws -> [UInt8]
    /// One level's HDR texels (Float RGBA) from its data.
    func decodeHDR(_ blocks: [UInt8], _ width: Int, _ height: Int, format: TextureSettings.Format) throws -> [Float]
    /// Every image of a file (RGBA8) against one set of global data.
    func encodeFile(
        _ images: [(rgba: [UInt8], width: Int, height: Int)], _ settings: TextureSettings, rows: any RowScheduler,
        measure: Bool, memo: FileMemo.Keyed?
    ) throws -> TextureCodecs.FileData
    /// A whole-file family's global data, read back from its sections.
    func fileGlobal(_ sections: TextureCodecs.FileSections) throws -> any Sendable
    /// One image of a whole-file family: its slices through the global data (RGBA8).
    func decodeFileImage(
        _ global: any Sendable, rgb: ArraySlice<UInt8>, alpha: ArraySlice<UInt8>?, width: Int, height: Int
    ) throws -> [UInt8]
}

extension BlockCodec {
    func encode(_ rgba: [UInt8], _ width: Int, _ height: Int, _ settings: TextureSettings, rows: any RowScheduler)
        throws -> [UInt8]
    {
        let f = settings.format
        throw CodecError(
            f.info.hdr
                ? .hdrFormatNeedsHDR(f.rawValue)
                : .encoderFailed(format: f.rawValue, why: "its blocks are made for the whole file (encodeFile)"))
    }

    func decode(_ blocks: [UInt8], _ width: Int, _ height: Int, format: TextureSettings.Format, srgb: Bool) throws
        -> [UInt8]
    {
        throw CodecError(
            format.info.hdr
                ? .ldrFormatGotHDR(format.rawValue)
                : .encoderFailed(format: format.rawValue, why: "a level decodes with its file's global data"))
    }

    func squaredErrors(
        _ blocks: [UInt8], _ original: [UInt8], _ width: Int, _ height: Int, format: TextureSettings.Format, srgb: Bool
    ) throws -> SIMD4<Int64> {
        Quality.squaredErrors(original, try decode(blocks, width, height, format: format, srgb: srgb))
    }

    func encodeHDR(_ rgba: [Float], _ width: Int, _ height: Int, _ settings: TextureSettings, rows: any RowScheduler)
        throws -> [UInt8]
    {
        throw CodecError(.ldrFormatGotHDR(settings.format.rawValue))
    }

    func decodeHDR(_ blocks: [UInt8], _ width: Int, _ height: Int, format: TextureSettings.Format) throws -> [Float] {
        throw CodecError(.hdrFormatNeedsHDR(format.rawValue))
    }

    func encodeFile(
        _ images: [(rgba: [UInt8], width: Int, height: Int)], _ settings: TextureSettings, rows: any RowScheduler,
        measure: Bool, memo: FileMemo.Keyed?
    ) throws -> TextureCodecs.FileData {
        throw CodecError(.encoderFailed(format: settings.format.rawValue, why: "not a whole-file format"))
    }

    func fileGlobal(_ sections: TextureCodecs.FileSections) throws -> any Sendable {
        throw CodecError(.encoderFailed(format: sections.format.rawValue, why: "not a whole-file format"))
    }

    func decodeFileImage(
        _ global: any Sendable, rgb: ArraySlice<UInt8>, alpha: ArraySlice<UInt8>?, width: Int, height: Int
    ) throws -> [UInt8] {
        throw CodecError(.encoderFailed(format: "?", why: "not a whole-file format"))
    }
}

/// What a whole-file family makes of each image that its knob does not change (ETC1S: each
/// block's own fit), kept across one quality target's probes: the caller keys the images (one key
/// per image of an `encodeFile`, e.g. its level and layer), and a probe that has an image's key
/// reuses it. One search's, on one thread.
public final class FileMemo {
    /// A memo and the key of each image of one `encodeFile`.
    public typealias Keyed = (memo: FileMemo, keys: [[Int]])

    var fits: [[Int]: [SIMD8<Float>]] = [:]

    public init() {}

    /// The fits kept under `key`, or `make()`'s, kept.
    func fits(_ key: [Int], _ make: () -> [SIMD8<Float>]) -> [SIMD8<Float>] {
        if let kept = fits[key] { return kept }
        let made = make()
        fits[key] = made
        return made
    }
}

/// Where a texture format meets its encoder and decoder: `codec(of:)` is the one switch over the
/// codec families of the format table (`TextureFormatInfo.codec`), so a new family is a compile
/// error here until its codec is wired in; nothing outside this target calls a family by name.
public enum TextureCodecs {
    /// The family's encoder and decoder.
    static func codec(of family: TextureCodec) -> any BlockCodec {
        switch family {
        case .uncompressed: StoredTexels()
        case .half: HalfFloats()
        case .bc(let variant): BCCodec(variant: variant)
        case .astc, .astcHDR: ASTCCodec()
        case .etc(let variant): ETCCodec(variant: variant)
        case .uastc: UASTCCodec()
        case .bc6h: BC6HCodec()
        case .etc1s: ETC1SCodec()
        }
    }

    /// A whole-file family's global data and slices.
    public struct FileData: Sendable {
        public var endpointCount: Int
        public var selectorCount: Int
        public var endpoints: [UInt8]
        public var selectors: [UInt8]
        public var tables: [UInt8]
        /// Per image, in the order given: its RGB slice and, when any image has alpha below max,
        /// its alpha slice.
        public var slices: [(rgb: [UInt8], alpha: [UInt8]?)]
        /// Per image: its texels as the slices decode (RGBA8), to measure (empty unless asked).
        public var decoded: [[UInt8]]
    }

    /// A whole-file family's global data as its file stores it (KTX2's BasisLZ global data).
    public struct FileSections: Sendable {
        public var format: TextureSettings.Format
        public var endpointCount: Int
        public var selectorCount: Int
        public var endpoints: ArraySlice<UInt8>
        public var selectors: ArraySlice<UInt8>
        public var tables: ArraySlice<UInt8>

        public init(
            format: TextureSettings.Format, endpointCount: Int, selectorCount: Int, endpoints: ArraySlice<UInt8>,
            selectors: ArraySlice<UInt8>, tables: ArraySlice<UInt8>
        ) {
            self.format = format
            self.endpointCount = endpointCount
            self.selectorCount = selectorCount
            self.endpoints = endpoints
            self.selectors = selectors
            self.tables = tables
        }
    }

    /// Every image of a file (RGBA8, each its width × height) against one set of global data.
    public static func encodeFile(
        _ images: [(rgba: [UInt8], width: Int, height: Int)], _ settings: TextureSettings, rows: any RowScheduler,
        measure: Bool = false, memo: FileMemo.Keyed? = nil
    ) throws -> FileData {
        try codec(of: settings.format.info.codec).encodeFile(
            images, settings, rows: rows, measure: measure, memo: memo)
    }

    /// A whole-file format's global data read back (what its images decode against).
    public static func fileGlobal(_ sections: FileSections) throws -> any Sendable {
        try codec(of: sections.format.info.codec).fileGlobal(sections)
    }

    /// One image of a whole-file format (RGBA8, width × height) from its slices and global data.
    public static func decodeFileImage(
        _ format: TextureSettings.Format, _ global: any Sendable, rgb: ArraySlice<UInt8>, alpha: ArraySlice<UInt8>?,
        width: Int, height: Int
    ) throws -> [UInt8] {
        try codec(of: format.info.codec).decodeFileImage(global, rgb: rgb, alpha: alpha, width: width, height: height)
    }

    /// One level's block data from tightly packed RGBA8.
    public static func encode(
        _ rgba: [UInt8], _ width: Int, _ height: Int, _ settings: TextureSettings, rows: any RowScheduler
    ) throws -> [UInt8] {
        try checkRDO(settings.rdo, settings.format)
        return try codec(of: settings.format.info.codec).encode(rgba, width, height, settings, rows: rows)
    }

    /// What `encode` gives with `settings` (its `rdo` a λ) from `base`, the level's blocks encoded
    /// with the same settings but no `rdo`: the rate-distortion pass alone, so a search over λ
    /// encodes each level once (docs/gpu-textures.md "Quality targets"). nil: the format's blocks
    /// are not made that way (no `rdo`, or a format that does not take it).
    public static func optimized(
        _ base: [UInt8], _ rgba: [UInt8], _ width: Int, _ height: Int, _ settings: TextureSettings,
        rows: any RowScheduler
    ) -> [UInt8]? {
        let kind: RDO.Kind
        switch settings.format.info.codec {
        case .bc(let v) where settings.format.info.takesRDO: kind = .bc(v)
        case .uastc: kind = .uastc
        default: return nil
        }
        guard let rdo = settings.rdo else { return nil }
        return RDO.applied(rdo, to: base, rgba, width: width, height: height, kind: kind, rows: rows)
    }

    /// One level's data from an HDR image's Float RGBA (width × height).
    public static func encodeHDR(
        _ rgba: [Float], _ width: Int, _ height: Int, _ settings: TextureSettings, rows: any RowScheduler
    ) throws -> [UInt8] {
        try codec(of: settings.format.info.codec).encodeHDR(rgba, width, height, settings, rows: rows)
    }

    /// One level's HDR texels (Float RGBA, width × height) from its data.
    public static func decodeHDR(_ blocks: [UInt8], _ width: Int, _ height: Int, format: TextureSettings.Format) throws
        -> [Float]
    {
        try codec(of: format.info.codec).decodeHDR(blocks, width, height, format: format)
    }

    /// `rdo` with a format that does not take it (named through a variant key, past the
    /// manifest's check) is the job's error.
    public static func checkRDO(_ rdo: TextureSettings.RDO?, _ format: TextureSettings.Format) throws {
        if let problem = TextureSettings.rdoProblem(rdo, format) { throw CodecError(.settings(problem)) }
    }

    /// Per channel, the squared differences between a level's blocks decoded and the `original`
    /// texels (RGBA8, width × height): what its PSNR needs (BC7 block by block, with no decoded copy
    /// of the level).
    public static func squaredErrors(
        _ blocks: [UInt8], _ original: [UInt8], _ width: Int, _ height: Int, format: TextureSettings.Format,
        srgb: Bool
    ) throws -> SIMD4<Int64> {
        try codec(of: format.info.codec).squaredErrors(blocks, original, width, height, format: format, srgb: srgb)
    }

    /// One level's texels (RGBA8, width × height) from its block data.
    public static func decode(
        _ blocks: [UInt8], _ width: Int, _ height: Int, format: TextureSettings.Format, srgb: Bool
    ) throws -> [UInt8] {
        try codec(of: format.info.codec).decode(blocks, width, height, format: format, srgb: srgb)
    }
}

/// rgba8: texels stored as they are.
struct StoredTexels: BlockCodec {
    func encode(_ rgba: [UInt8], _ width: Int, _ height: Int, _ settings: TextureSettings, rows: any RowScheduler)
        -> [UInt8]
    { rgba }

    func decode(_ blocks: [UInt8], _ width: Int, _ height: Int, format: TextureSettings.Format, srgb: Bool) -> [UInt8] {
        blocks
    }
}

/// rgba16f: HDR texels stored as half floats.
struct HalfFloats: BlockCodec {
    func encodeHDR(_ rgba: [Float], _ width: Int, _ height: Int, _ settings: TextureSettings, rows: any RowScheduler)
        -> [UInt8]
    { Half.bits(rgba).withUnsafeBytes { Array($0) } }

    func decodeHDR(_ blocks: [UInt8], _ width: Int, _ height: Int, format: TextureSettings.Format) throws -> [Float] {
        guard blocks.count >= width * height * 8 else { throw CodecError(.textureTruncated(format.rawValue)) }
        return blocks.withUnsafeBytes { raw in
            Half.floats(
                UnsafeBufferPointer(
                    start: raw.baseAddress!.assumingMemoryBound(to: UInt16.self), count: width * height * 4))
        }
    }
}
