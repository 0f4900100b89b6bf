internal import TexPipeFormats
internal import TexPipePixels

/// Basis Universal ETC1S behind the door (`TextureCodecs`): a whole-file family — every image of a
/// file against one pair of codebooks, coded with BasisLZ.
struct ETC1SCodec: BlockCodec {
    func encodeFile(
        _ images: [(rgba: [UInt8], width: Int, height: Int)], _ settings: TextureSettings, rows: any RowScheduler,
        measure: Bool, memo: FileMemo.Keyed?
    ) throws -> TextureCodecs.FileData {
        let alpha = images.contains { img in
            img.rgba.withUnsafeBufferPointer { p in stride(from: 3, to: p.count, by: 4).contains { p[$0] < 255 } }
        }
        var slices: [ETC1S.Slice] = []
        // With a memo, pass 1's lines of each slice: kept, or made once and kept.
        precondition(memo == nil || memo!.keys.count == images.count)
        let effort = TextureSettings.Quality.allCases.firstIndex(of: settings.quality)!
        var lines: [SIMD8<Float>] = []
        for (k, img) in images.enumerated() {
            for a in alpha ? [false, true] : [false] {
                let slice = ETC1S.slice(img.rgba, width: img.width, height: img.height, alpha: a)
                if let (m, keys) = memo {
                    lines += m.fits(keys[k] + [a ? 1 : 0, effort]) {
                        ETC1S.lines(of: slice, quality: settings.quality, rows: rows)
                    }
                }
                slices.append(slice)
            }
        }
        let blocksX = slices.map(\.blocksX)
        let encoded = ETC1S.encode(
            consume slices, qlevel: settings.qlevel ?? TextureSettings.defaultQLevel, quality: settings.quality,
            rows: rows, lines: memo == nil ? nil : lines)
        let coded = BasisLZ.code(encoded, blocksX: blocksX)
        let global = try ETC1SDecoder.global(
            endpointCount: coded.endpointCount, selectorCount: coded.selectorCount, endpoints: coded.endpoints[...],
            selectors: coded.selectors[...], tables: coded.tables[...])
        var out: [(rgb: [UInt8], alpha: [UInt8]?)] = []
        var decoded: [[UInt8]] = []
        let step = alpha ? 2 : 1
        for (k, img) in images.enumerated() {
            let rgb = coded.slices[k * step]
            let a = alpha ? coded.slices[k * step + 1] : nil
            out.append((rgb, a))
            guard measure else { continue }
            decoded.append(
                try decodeFileImage(global, rgb: rgb[...], alpha: a?[...], width: img.width, height: img.height))
        }
        return TextureCodecs.FileData(
            endpointCount: coded.endpointCount, selectorCount: coded.selectorCount, endpoints: coded.endpoints,
            selectors: coded.selectors, tables: coded.tables, slices: out, decoded: decoded)
    }

    func fileGlobal(_ s: TextureCodecs.FileSections) throws -> any Sendable {
        try ETC1SDecoder.global(
            endpointCount: s.endpointCount, selectorCount: s.selectorCount, endpoints: s.endpoints,
            selectors: s.selectors, tables: s.tables)
    }

    func decodeFileImage(
        _ global: any Sendable, rgb: ArraySlice<UInt8>, alpha: ArraySlice<UInt8>?, width: Int, height: Int
    ) throws -> [UInt8] {
        guard let g = global as? ETC1SDecoder.Global else {
            throw CodecError(.encoderFailed(format: "etc1s", why: "its global data is not ETC1S's"))
        }
        let (bw, bh) = ((width + 3) / 4, (height + 3) / 4)
        let rgbBlocks = try ETC1SDecoder.indices(rgb, blocksX: bw, blocksY: bh, g)
        let alphaBlocks = try alpha.map { try ETC1SDecoder.indices($0, blocksX: bw, blocksY: bh, g) }
        return ETC1SDecoder.texels(rgb: rgbBlocks, alpha: alphaBlocks, width: width, height: height, g)
    }
}
