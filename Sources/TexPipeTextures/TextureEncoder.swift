internal import Foundation
internal import TexPipeBlocks
public import TexPipeFormats
public import TexPipeMeasures
public import TexPipePixels

/// GPU texture files: one image and its mip levels (level 0 first) encoded and put in a KTX2 or
/// DDS container. The block data of a level does not depend on how many cores encoded it.
public enum TextureEncoder {
    /// The file's bytes. `levels[0]` is the full-size image; every level must share its alpha
    /// state. Rows of blocks are split across the cores `rows` lends (astcenc's own threads).
    public static func encode(
        _ levels: [Image], _ settings: TextureSettings, container: TextureContainer,
        rows: any RowScheduler = SerialRows()
    ) throws -> [UInt8] {
        try encode(levels, settings, container: container, rows: rows, measure: false).bytes
    }

    /// The file's bytes and, with `measure`, each level's PSNR against the texels encoded: the
    /// blocks decoded by the format's decoder as they are made (nothing for `rgba8`, stored exactly).
    public static func encode(
        _ levels: [Image], _ settings: TextureSettings, container: TextureContainer,
        rows: any RowScheduler = SerialRows(), measure: Bool, metrics: QualityMetrics = .none
    ) throws -> (bytes: [UInt8], quality: [LevelQuality]) {
        try encode(levels, settings, container: container, rows: rows, measure: measure, metrics: metrics, memo: nil)
    }

    /// The same, with what one quality target search's probes share kept in `memo` (`BlockMemo`).
    static func encode(
        _ levels: [Image], _ settings: TextureSettings, container: TextureContainer, rows: any RowScheduler,
        measure: Bool, metrics: QualityMetrics, memo: BlockMemo?
    ) throws -> (bytes: [UInt8], quality: [LevelQuality]) {
        // A cube map's levels each hold its six faces stacked: the faces become the slices.
        if let first = levels.first, first.cube {
            let faces = levels.map { $0.cubeFaces() }
            return try encode(
                layers: (0..<6).map { f in faces.map { $0[f] } }, array: false, cube: true, settings,
                container: container, rows: rows, measure: measure, metrics: metrics, memo: memo)
        }
        return try encode(
            layers: [levels], array: false, cube: false, settings, container: container, rows: rows,
            measure: measure, metrics: metrics, memo: memo)
    }

    /// A texture array: `layers[k]` is layer k's mip chain, every layer the same sizes (KTX2
    /// `layerCount`, DDS `arraySize`); with `cube`, the six faces of a cube map in KTX2's order. A
    /// level's PSNR is its worst layer's.
    public static func encode(
        layers: [[Image]], array: Bool = true, cube: Bool = false, _ settings: TextureSettings,
        container: TextureContainer,
        rows: any RowScheduler = SerialRows(), measure: Bool = false, metrics: QualityMetrics = .none
    ) throws -> (bytes: [UInt8], quality: [LevelQuality]) {
        try encode(
            layers: layers, array: array, cube: cube, settings, container: container, rows: rows, measure: measure,
            metrics: metrics, memo: nil)
    }

    /// The same, with what one quality target search's probes share kept in `memo` (`BlockMemo`).
    static func encode(
        layers: [[Image]], array: Bool, cube: Bool, _ settings: TextureSettings, container: TextureContainer,
        rows: any RowScheduler, measure: Bool, metrics: QualityMetrics, memo: BlockMemo?
    ) throws -> (bytes: [UInt8], quality: [LevelQuality]) {
        guard let levels = layers.first, let first = levels.first else { throw CodecError(.textureWithoutLevels) }
        let format = settings.format
        let info = format.info
        if info.channels == .rgb {
            for layer in layers {
                let translucent = Self.translucentTexels(layer[0])
                if translucent > 0 {
                    throw CodecError(.needsOpaque(format.rawValue, translucent, first.width, first.height))
                }
            }
        }
        // The rules the manifest and the planner checked, asked again of settings built in code.
        if let problem = settings.problems(in: container, hdrImage: first.isHDR).first {
            throw CodecError(.settings(problem))
        }
        let premultiplied = first.alpha == .premultiplied
        let layerCount = array ? layers.count : 0
        if info.codec.family.wholeFile {
            return try wholeFile(
                layers, settings, premultiplied: premultiplied, layerCount: layerCount, cube: cube, rows: rows,
                measure: measure, metrics: metrics, memo: memo)
        }
        // data[n]: level n of every layer, layer 0 first (KTX2's order within a level).
        var data = [[UInt8]](repeating: [], count: levels.count)
        var quality: [LevelQuality] = []
        let srgb = settings.colorSpace == .srgb && !info.isData
        for n in 0..<levels.count {
            var worst: LevelQuality?
            for (k, layer) in layers.enumerated() {
                let (blocks, q) = try Self.encoded(
                    layer[n], settings, srgb: srgb, rows, measure, metrics, memo: memo.map { ($0, n, k) })
                if let q { worst = worst.map { $0.worse(q) } ?? q }
                if layers.count == 1 { data[n] = blocks } else { data[n] += blocks }
            }
            if let worst { quality.append(worst) }
        }
        switch container {
        case .ktx2:
            return (
                try KTX2.file(
                    first, levels.count, data, settings, premultiplied: premultiplied, layerCount: layerCount,
                    faceCount: cube ? 6 : 1),
                quality
            )
        case .dds:
            let opaque = layers.allSatisfy { $0.allSatisfy { Self.isOpaque($0) } }
            return (
                try DDS.file(
                    first, levels.count, data, settings, alphaMode: premultiplied ? 2 : opaque ? 3 : 1,
                    arraySize: max(1, layerCount), cube: cube),
                quality
            )
        }
    }

    /// A volume (3D texture): `levels[n]` holds level n's depth slices, every slice of a level the
    /// same size (KTX2 `pixelDepth`, DDS `TEXTURE3D`). Each slice is encoded on its own (2D blocks
    /// for the BC formats) and released once encoded; a level's PSNR is its worst slice's.
    /// `giveBack` (the engine's allocator policy) is called after every 16 MiB released — slices
    /// encoded, blocks copied into the file — so the volume and its file are never resident at once.
    public static func encode(
        volume levels: consuming [[Image]], _ settings: TextureSettings, container: TextureContainer,
        rows: any RowScheduler = SerialRows(), measure: Bool = false, metrics: QualityMetrics = .none,
        giveBack: (() -> Void)? = nil
    ) throws -> (bytes: [UInt8], quality: [LevelQuality]) {
        guard let first = levels.first?.first else { throw CodecError(.textureWithoutLevels) }
        let format = settings.format
        let info = format.info
        if let problem = TextureSettings.volumeProblem(format) { throw CodecError(.settings(problem)) }
        if let problem = settings.problems(in: container, hdrImage: first.isHDR).first {
            throw CodecError(.settings(problem))
        }
        let (width, height, depth) = (first.width, first.height, levels[0].count)
        let premultiplied = first.alpha == .premultiplied
        var opaque = true
        if info.channels == .rgb {
            for slice in levels[0] {
                let translucent = Self.translucentTexels(slice)
                if translucent > 0 {
                    throw CodecError(.needsOpaque(format.rawValue, translucent, width, height * depth))
                }
            }
        }
        let srgb = settings.colorSpace == .srgb && !info.isData
        var pieces = [[[UInt8]]](repeating: [], count: levels.count)
        var quality: [LevelQuality] = []
        var released = Releases(giveBack)
        for n in levels.indices {
            var worst: LevelQuality?
            for z in levels[n].indices {
                let slice = levels[n][z]
                levels[n][z] = Self.released
                opaque = opaque && (container != .dds || Self.isOpaque(slice))
                let (blocks, q) = try Self.encoded(slice, settings, srgb: srgb, rows, measure, metrics)
                if let q { worst = worst.map { $0.worse(q) } ?? q }
                // A BC slice's texels go now; an rgba8 slice's are its blocks, which go into the file.
                if !(info.codec.family.exact && slice.depth == 8) {
                    released.add(slice.pixelCount * slice.depth / 2)
                }
                pieces[n].append(blocks)
            }
            if let worst { quality.append(worst) }
        }
        switch container {
        case .ktx2:
            return (
                try KTX2.file(
                    width: width, height: height, pixelDepth: depth, levels.count, &pieces, settings,
                    premultiplied: premultiplied, released: &released),
                quality
            )
        case .dds:
            return (
                try DDS.file(
                    width: width, height: height, depth: depth, levels.count, &pieces, settings,
                    alphaMode: premultiplied ? 2 : opaque ? 3 : 1, released: &released),
                quality
            )
        }
    }

    /// Counts the bytes a writer releases and calls `giveBack` after every 16 MiB of them.
    struct Releases {
        let giveBack: (() -> Void)?
        var bytes = 0
        init(_ giveBack: (() -> Void)?) { self.giveBack = giveBack }
        mutating func add(_ n: Int) {
            guard let giveBack else { return }
            bytes += n
            if bytes >= 16 << 20 {
                giveBack()
                bytes = 0
            }
        }
    }

    /// One image's blocks (a level, or one layer, face or slice of it) and, with `measure`, what was
    /// measured of them: HDR in log-RGB PSNR (half floats are stored as they are, nothing to
    /// measure); 8/16-bit by `measured`.
    static func encoded(
        _ image: Image, _ settings: TextureSettings, srgb: Bool, _ rows: any RowScheduler, _ measure: Bool,
        _ metrics: QualityMetrics, memo: (BlockMemo, level: Int, layer: Int)? = nil
    ) throws -> (blocks: [UInt8], quality: LevelQuality?) {
        let format = settings.format
        let info = format.info
        if info.hdr || image.isHDR {
            guard case .rgbaF32(let floats) = image.pixels else {
                throw CodecError(.hdrFormatNeedsHDR(format.rawValue))
            }
            let blocks = try TextureCodecs.encodeHDR(floats, image.width, image.height, settings, rows: rows)
            guard measure && !info.codec.family.exact else { return (blocks, nil) }
            let decoded = try TextureCodecs.decodeHDR(blocks, image.width, image.height, format: format)
            var q = LevelQuality(rgb: Quality.logPSNR(floats, decoded), alpha: nil)
            if metrics.perceptual {
                let f = Quality.hdrFLIP(
                    floats, decoded, width: image.width, height: image.height, map: metrics.flipMaps != nil)
                q.flip = f.mean
                metrics.flipMaps?.offer(.init(mean: f.mean, width: image.width, height: image.height, values: f.map))
            }
            return (blocks, q)
        }
        let texels = Self.rgba8(image)
        var blocks: [UInt8]
        if let (m, n, k) = memo, info.takesRDO {
            // A λ search: the blocks without rdo once per level and layer, the rdo pass per λ.
            var plain = settings
            plain.rdo = nil
            let base = try m.base[[n, k]] ?? TextureCodecs.encode(texels, image.width, image.height, plain, rows: rows)
            m.base[[n, k]] = base
            blocks = TextureCodecs.optimized(base, texels, image.width, image.height, settings, rows: rows) ?? base
        } else {
            blocks = try TextureCodecs.encode(texels, image.width, image.height, settings, rows: rows)
        }
        guard measure && !info.codec.family.exact else { return (blocks, nil) }
        let source = memo.flatMap { m, n, k in
            m.source([n, k], texels, image.width, image.height, info.channels, metrics)
        }
        return (
            blocks,
            try Self.measured(blocks, texels, image.width, image.height, settings, srgb, metrics, source: source)
        )
    }

    /// One level's measures: PSNR from its blocks (BC7 without a decoded copy), and what `metrics`
    /// asks from its decode.
    static func measured(
        _ blocks: [UInt8], _ texels: [UInt8], _ w: Int, _ h: Int, _ settings: TextureSettings, _ srgb: Bool,
        _ metrics: QualityMetrics, source: SourceSide? = nil
    ) throws -> LevelQuality {
        let info = settings.format.info
        if metrics.isEmpty {
            let errors = try TextureCodecs.squaredErrors(blocks, texels, w, h, format: settings.format, srgb: srgb)
            return Quality.level(errors: errors, texels: w * h, channels: info.channels)
        }
        let decoded = try TextureCodecs.decode(blocks, w, h, format: settings.format, srgb: srgb)
        let q = Quality.level(errors: Quality.squaredErrors(texels, decoded), texels: w * h, channels: info.channels)
        return Quality.measured(
            q, texels, decoded, width: w, height: h, channels: info.channels, metrics, source: source)
    }

    /// What stands in for a volume slice once it is encoded (its pixels released).
    static let released = Image(width: 1, height: 1, pixels: .rgba8([0, 0, 0, 0]))

    /// A file whose blocks are made all at once (ETC1S): every image — level by level, layer or face
    /// within a level, KTX2's order — against one pair of codebooks; each level's data is its
    /// images' slices in that order, each RGB slice followed by its alpha slice, and the global
    /// data describes where each lies (KTX2 only; the settings rules keep it there).
    static func wholeFile(
        _ layers: [[Image]], _ settings: TextureSettings, premultiplied: Bool, layerCount: Int, cube: Bool,
        rows: any RowScheduler, measure: Bool, metrics: QualityMetrics, memo: BlockMemo? = nil
    ) throws -> (bytes: [UInt8], quality: [LevelQuality]) {
        let levels = layers[0]
        var images: [(rgba: [UInt8], width: Int, height: Int)] = []
        var keys: [[Int]] = []
        for n in 0..<levels.count {
            for (k, layer) in layers.enumerated() {
                images.append((Self.rgba8(layer[n]), layer[n].width, layer[n].height))
                keys.append([n, k])
            }
        }
        let coded = try TextureCodecs.encodeFile(
            images, settings, rows: rows, measure: measure, memo: memo.map { ($0.file, keys) })
        var data = [[UInt8]](repeating: [], count: levels.count)
        var descs: [KTX2.ImageDesc] = []
        var quality: [LevelQuality] = []
        let alpha = coded.slices.first?.alpha != nil
        for n in 0..<levels.count {
            var worst: LevelQuality?
            for k in 0..<layers.count {
                let i = n * layers.count + k
                let (rgb, a) = coded.slices[i]
                var desc = KTX2.ImageDesc(rgbOffset: data[n].count, rgbLength: rgb.count)
                data[n] += rgb
                if let a {
                    desc.alphaOffset = data[n].count
                    desc.alphaLength = a.count
                    data[n] += a
                }
                descs.append(desc)
                if measure {
                    let errors = Quality.squaredErrors(images[i].rgba, coded.decoded[i])
                    let (w, h) = (images[i].width, images[i].height)
                    let channels: TextureFormatInfo.Channels = alpha ? .rgba : .rgb
                    let q = Quality.measured(
                        Quality.level(errors: errors, texels: w * h, channels: channels), images[i].rgba,
                        coded.decoded[i], width: w, height: h, channels: channels, metrics,
                        source: memo?.source(keys[i], images[i].rgba, w, h, channels, metrics))
                    worst = worst.map { $0.worse(q) } ?? q
                }
            }
            if let worst { quality.append(worst) }
        }
        let global = KTX2.BasisLZGlobal(
            endpointCount: coded.endpointCount, selectorCount: coded.selectorCount, images: descs,
            endpoints: coded.endpoints, selectors: coded.selectors, tables: coded.tables)
        let bytes = try KTX2.file(
            levels[0], levels.count, data, settings, premultiplied: premultiplied, layerCount: layerCount,
            faceCount: cube ? 6 : 1, basisLZ: global)
        return (bytes, quality)
    }

    /// The image as tightly packed 8-bit RGBA (16-bit rounded: (v · 255 + 32767) / 65535; an HDR
    /// image's values clamped to 0…1 and rounded, for previews only: HDR is encoded from its Floats).
    public static func rgba8(_ image: Image) -> [UInt8] {
        switch image.pixels {
        case .rgba8(let p): return p
        case .rgba16(let p):
            return p.map { UInt8((UInt32($0) * 255 + 32767) / 65535) }
        case .rgbaF32(let p):
            return p.map { UInt8(min(max($0.isNaN ? 0 : $0, 0), 1) * 255 + 0.5) }
        }
    }

    /// Texels whose alpha is below max.
    static func translucentTexels(_ image: Image) -> Int {
        switch image.pixels {
        case .rgba8(let p): return stride(from: 3, to: p.count, by: 4).reduce(0) { $0 + (p[$1] < 255 ? 1 : 0) }
        case .rgba16(let p): return stride(from: 3, to: p.count, by: 4).reduce(0) { $0 + (p[$1] < 65535 ? 1 : 0) }
        case .rgbaF32(let p): return stride(from: 3, to: p.count, by: 4).reduce(0) { $0 + (p[$1] < 1 ? 1 : 0) }
        }
    }

    static func isOpaque(_ image: Image) -> Bool {
        switch image.pixels {
        case .rgba8(let p): return stride(from: 3, to: p.count, by: 4).allSatisfy { p[$0] == 255 }
        case .rgba16(let p): return stride(from: 3, to: p.count, by: 4).allSatisfy { p[$0] == 65535 }
        case .rgbaF32(let p): return stride(from: 3, to: p.count, by: 4).allSatisfy { p[$0] >= 1 }
        }
    }
}

/// What one search's probes share: the blocks of each level and layer encoded without `rdo` (a λ
/// search: `rdo` only rewrites them, so each probe costs the rate-distortion pass, not the
/// encoder), and a whole-file family's per-image work no knob changes (docs/gpu-textures.md
/// "Quality targets"). One search's, on one thread.
final class BlockMemo {
    var base: [[Int]: [UInt8]] = [:]
    /// A whole-file family's (ETC1S's block fits, which no qlevel changes).
    let file = FileMemo()
    /// Each level and layer's side of SSIM (and FLIP's, when measured), by the channels measured:
    /// shared by the memos of one search's formats.
    let sources: Sources

    /// The sides of SSIM one search has made.
    final class Sources {
        struct Key: Hashable {
            var image: [Int]
            var channels: TextureFormatInfo.Channels
            var flip: Bool
        }
        var sides: [Key: SourceSide] = [:]
    }

    init(sharing sources: Sources = Sources()) { self.sources = sources }

    /// The side of SSIM of image `key` (`texels`, w × h) for a format storing `channels`, made once;
    /// nil when `metrics` measures no SSIM or the image is larger than the memo keeps.
    func source(
        _ key: [Int], _ texels: [UInt8], _ w: Int, _ h: Int, _ channels: TextureFormatInfo.Channels,
        _ metrics: QualityMetrics
    ) -> SourceSide? {
        // FLIP's side is 36 bytes a texel, SSIM's 8 a channel: levels of up to 2 M and 4 M texels.
        guard metrics.perceptual, w * h <= (metrics.flip ? 1 << 21 : 1 << 22) else { return nil }
        let at = Sources.Key(image: key, channels: channels, flip: metrics.flip)
        if let s = sources.sides[at] { return s }
        let s = SourceSide(texels, width: w, height: h, channels: channels, flip: metrics.flip)
        sources.sides[at] = s
        return s
    }
}
