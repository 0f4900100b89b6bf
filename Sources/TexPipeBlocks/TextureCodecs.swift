public import TexPipeFormats
internal import TexPipeMeasures
public import TexPipePixels

/// Where a texture format meets its encoder and decoder: one switch over the codec families of
/// the format table (`TextureFormatInfo.codec`), so a new family is a compile error here until
/// its codec is wired in.
public enum TextureCodecs {
    /// What encodes a codec family's blocks, as `texpipe formats` and docs/reference/textures.md
    /// name it.
    public static func encoder(of codec: TextureCodec) -> String {
        switch codec {
        case .uncompressed: "stored as is"
        case .bc: "texpipe's BC encoder"
        case .astc: "Arm's astcenc"
        case .astcHDR: "Arm's astcenc (HDR profile)"
        case .etc: "texpipe's ETC2/EAC encoder"
        case .uastc: "texpipe's UASTC encoder"
        case .half: "half floats, stored as is"
        case .bc6h: "texpipe's BC6H encoder"
        case .etc1s: "texpipe's ETC1S encoder and BasisLZ"
        }
    }

    /// Whether a family's blocks are made for the whole file at once (`encodeFile`): ETC1S, whose
    /// codebooks every image shares.
    public static func isWholeFile(_ codec: TextureCodec) -> Bool { codec == .etc1s }

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

    /// Every image of a file (RGBA8, each its width × height) against one pair of codebooks.
    public static func encodeFile(
        _ images: [(rgba: [UInt8], width: Int, height: Int)], _ settings: TextureSettings, rows: any RowScheduler,
        measure: Bool = false
    ) throws -> FileData {
        guard settings.format.info.codec == .etc1s else {
            throw CodecError(.encoderFailed(format: settings.format.rawValue, why: "not a whole-file format"))
        }
        let alpha = images.contains { img in
            img.rgba.withUnsafeBufferPointer { p in stride(from: 3, to: p.count, by: 4).contains { p[$0] < 255 } }
        }
        var slices: [ETC1S.Slice] = []
        for img in images {
            slices.append(ETC1S.slice(img.rgba, width: img.width, height: img.height, alpha: false))
            if alpha { slices.append(ETC1S.slice(img.rgba, width: img.width, height: img.height, alpha: true)) }
        }
        let blocksX = slices.map(\.blocksX)
        let encoded = ETC1S.encode(
            consume slices, qlevel: settings.qlevel ?? 128, quality: settings.quality, rows: rows)
        let coded = BasisLZ.code(encoded, blocksX: blocksX)
        let global = try ETC1SDecoder.global(
            endpointCount: coded.endpointCount, selectorCount: coded.selectorCount, endpoints: coded.endpoints[...],
            selectors: coded.selectors[...], tables: coded.tables[...])
        var out: [(rgb: [UInt8], alpha: [UInt8]?)] = []
        var decoded: [[UInt8]] = []
        let step = alpha ? 2 : 1
        for (k, img) in images.enumerated() {
            let bw = (img.width + 3) / 4
            let bh = (img.height + 3) / 4
            let rgb = coded.slices[k * step]
            let a = alpha ? coded.slices[k * step + 1] : nil
            out.append((rgb, a))
            guard measure else { continue }
            let rgbBlocks = try ETC1SDecoder.indices(rgb[...], blocksX: bw, blocksY: bh, global)
            let alphaBlocks = try a.map { try ETC1SDecoder.indices($0[...], blocksX: bw, blocksY: bh, global) }
            decoded.append(
                ETC1SDecoder.texels(rgb: rgbBlocks, alpha: alphaBlocks, width: img.width, height: img.height, global))
        }
        return FileData(
            endpointCount: coded.endpointCount, selectorCount: coded.selectorCount, endpoints: coded.endpoints,
            selectors: coded.selectors, tables: coded.tables, slices: out, decoded: decoded)
    }

    /// One level's block data from tightly packed RGBA8.
    public static func encode(
        _ rgba: [UInt8], _ width: Int, _ height: Int, _ settings: TextureSettings, rows: any RowScheduler
    ) throws -> [UInt8] {
        let info = settings.format.info
        try checkRDO(settings.rdo, settings.format)
        return switch info.codec {
        case .uncompressed: rgba
        case .bc(let variant):
            RDO.applied(
                settings.rdo,
                to: BC.encode(
                    rgba, width: width, height: height, variant: variant, quality: settings.quality, rows: rows),
                rgba, width: width, height: height, kind: .bc(variant), rows: rows)
        case .astc: try ASTC.compress(rgba, width, height, settings, rows: rows)
        case .etc(let variant):
            ETC.encode(rgba, width: width, height: height, variant: variant, quality: settings.quality, rows: rows)
        case .uastc:
            RDO.applied(
                settings.rdo,
                to: UASTC.encode(rgba, width: width, height: height, quality: settings.quality, rows: rows),
                rgba, width: width, height: height, kind: .uastc, rows: rows)
        case .half, .bc6h, .astcHDR: throw CodecError(.hdrFormatNeedsHDR(settings.format.rawValue))
        case .etc1s:
            throw CodecError(
                .encoderFailed(format: "etc1s", why: "its blocks are made for the whole file (encodeFile)"))
        }
    }

    /// One level's data from an HDR image's Float RGBA (width × height).
    public static func encodeHDR(
        _ rgba: [Float], _ width: Int, _ height: Int, _ settings: TextureSettings, rows: any RowScheduler
    ) throws -> [UInt8] {
        switch settings.format.info.codec {
        case .half:
            return Half.bits(rgba).withUnsafeBytes { Array($0) }
        case .bc6h:
            return BC6H.encode(rgba, width: width, height: height, quality: settings.quality, rows: rows)
        case .astcHDR:
            return try ASTC.compressHDR(rgba, width, height, settings, rows: rows)
        case .uncompressed, .bc, .astc, .etc, .uastc, .etc1s:
            throw CodecError(.ldrFormatGotHDR(settings.format.rawValue))
        }
    }

    /// One level's HDR texels (Float RGBA, width × height) from its data.
    public static func decodeHDR(_ blocks: [UInt8], _ width: Int, _ height: Int, format: TextureSettings.Format) throws
        -> [Float]
    {
        switch format.info.codec {
        case .half:
            guard blocks.count >= width * height * 8 else { throw CodecError(.textureTruncated(format.rawValue)) }
            return blocks.withUnsafeBytes { raw in
                Half.floats(
                    UnsafeBufferPointer(
                        start: raw.baseAddress!.assumingMemoryBound(to: UInt16.self), count: width * height * 4))
            }
        case .bc6h:
            return try BC6HDecoder.decode(blocks, width: width, height: height)
        case .astcHDR:
            return try ASTC.decompressHDR(blocks, width: width, height: height, format: format)
        case .uncompressed, .bc, .astc, .etc, .uastc, .etc1s:
            throw CodecError(.hdrFormatNeedsHDR(format.rawValue))
        }
    }

    /// `rdo` with a format that does not take it (named through a variant key, past the
    /// manifest's check) is the job's error.
    public static func checkRDO(_ rdo: TextureSettings.RDO?, _ format: TextureSettings.Format) throws {
        if let problem = TextureSettings.rdoProblem(rdo, format) { throw CodecError(.settings(problem)) }
    }

    /// Per channel, the squared differences between a level's blocks decoded and the `original`
    /// texels (RGBA8, width × height): what its PSNR needs. BC7 block by block, with no decoded copy
    /// of the level.
    public static func squaredErrors(
        _ blocks: [UInt8], _ original: [UInt8], _ width: Int, _ height: Int, format: TextureSettings.Format,
        srgb: Bool
    ) throws -> SIMD4<Int64> {
        if case .bc(.bc7) = format.info.codec {
            return try BC.bc7SquaredErrors(blocks, original, width: width, height: height)
        }
        return Quality.squaredErrors(original, try decode(blocks, width, height, format: format, srgb: srgb))
    }

    /// One level's texels (RGBA8, width × height) from its block data.
    public static func decode(
        _ blocks: [UInt8], _ width: Int, _ height: Int, format: TextureSettings.Format, srgb: Bool
    ) throws -> [UInt8] {
        switch format.info.codec {
        case .uncompressed: blocks
        case .bc(let variant): try BC.decode(blocks, variant: variant, width: width, height: height)
        case .astc: try ASTC.decompress(blocks, width: width, height: height, format: format, srgb: srgb)
        case .etc(let variant): try ETCDecoder.decode(blocks, variant: variant, width: width, height: height)
        case .uastc: try UASTCDecoder.decode(blocks, width: width, height: height)
        case .etc1s:
            throw CodecError(.encoderFailed(format: "etc1s", why: "a level decodes with its file's global data"))
        case .half, .bc6h, .astcHDR: throw CodecError(.ldrFormatGotHDR(format.rawValue))
        }
    }
}
