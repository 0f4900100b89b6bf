internal import CTexPipeShims
public import TexPipeFormats
public import TexPipePixels

/// Encoding: Image → PNG / JPEG / WebP / AVIF / EXR bytes. No timestamps or other run-dependent
/// bytes.
public enum ImageEncoder {
    /// An image file of an image `format` — the one switch over the image formats texpipe writes —
    /// and what its texels take decoded (GPU bytes: 4 or 8 a texel as the image's depth is 8 or
    /// 16 for PNG, 4 for JPEG and WebP, 4 or 8 for AVIF as it is 8 bits or more, 8 for half-float
    /// EXR). The image is taken, not shared.
    public static func encode(
        _ image: __owned Image, as format: ImageFormat, _ files: ImageFileSettings,
        rows: any RowScheduler = SerialRows()
    ) throws -> (bytes: [UInt8], gpuBytes: Int) {
        switch format {
        case .png:
            let gpu = image.pixelCount * image.depth / 2
            return (try png(image, files.png, rows: rows), gpu)
        case .jpeg: return (try self.jpeg(image, files.jpeg, rows: rows), image.pixelCount * 4)
        case .webp: return (try WebP.encode(image, files.webp), image.pixelCount * 4)
        case .avif:
            let wide = files.avif.depth(for: image.depth) > 8
            return (try AVIF.encode(image, files.avif), image.pixelCount * (wide ? 8 : 4))
        case .exr: return (try EXR.encode(image), image.pixelCount * 8)
        case .radiance: throw CodecError(.notWritable(format.name))
        case .texture: throw CodecError(.textureInput(format.name))
        }
    }

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

    /// `rows`: where the writer's row filtering runs (the engine lends idle cores through it).
    ///
    /// The image is taken, not shared: when the caller hands over its only reference, its pixels
    /// are freed as soon as the rows are filtered, before the compressed file is made, so a large
    /// image's peak is its pixels and filtered rows, then the filtered rows and the file — never
    /// all three (docs/performance.md "Memory").
    public static func png(
        _ image: __owned Image, _ settings: PNGSettings = .standard, rows: any RowScheduler = SerialRows()
    ) throws -> [UInt8] {
        var img = consume image
        guard !img.isHDR else { throw CodecError(.ldrFormatGotHDR("PNG")) }
        if let d = settings.depth, d != img.depth { img = d == 16 ? img.to16Bit() : img.to8Bit() }
        let shape = Shape(width: img.width, height: img.height, layout: img.layout)
        // `modify` lends the pixels out of the image, so the writer holds their only reference.
        var file: [UInt8] = []
        try img.pixels.modify(
            { file = try png(&$0, shape, settings, rows) }, { file = try png(&$0, shape, settings, rows) })
        return file
    }

    /// What the writer needs of an image besides its pixels.
    struct Shape {
        var width: Int
        var height: Int
        var layout: ChannelLayout
        var pixelCount: Int { width * height }
    }

    static func png<C: PixelChannel>(
        _ p: inout [C], _ image: Shape, _ settings: PNGSettings, _ rows: any RowScheduler
    ) throws -> [UInt8] {
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
            // `unsafeBitCast`, not `as!`: the cast copies the array element by element.
            if C.self == UInt8.self, type != .gray,
                let pal = Palette(unsafeBitCast(p, to: [UInt8].self), keepAlpha: image.layout == .rgba)
            {
                type = .palette
                (palette, trns, indices) = (pal.rgb, pal.alpha, pal.indices)
            }
        }
        let rowSamples = image.width * type.channels
        if settings.encoder == .texpipe {
            if type == .palette {
                p = []
                // As few bits per index as the palette needs (1, 2, 4 or 8), as optipng and
                // ImageMagick write small palettes.
                let depth = [1, 2, 4].first { palette.count / 3 <= 1 << $0 } ?? 8
                let packed = depth == 8 ? indices : packBits(indices, image.width, image.height, depth: depth, scale: 1)
                return try packed.withUnsafeBytes { b in
                    try PNGWriter.encode(
                        samples: b, width: image.width, height: image.height,
                        rowBytes: (image.width * depth + 7) / 8, colorType: 3, bitDepth: depth, channels: 1,
                        level: settings.level, filter: settings.filter, palette: palette, trns: trns, rows: rows)
                }
            }
            // Gray whose every value is a multiple of 255 / (2ᵈ − 1) is exact at d = 1, 2 or 4 bits
            // (a binary alpha map is 1-bit): `auto` writes the fewest bits that hold it.
            if type == .gray {
                let samples = pack(p, .gray, image)
                p = []
                if settings.color == .auto, C.self == UInt8.self, let depth = lowGrayDepth(samples as! [UInt8]) {
                    let packed = packBits(
                        samples as! [UInt8], image.width, image.height, depth: depth, scale: 255 / (1 << depth - 1))
                    return try packed.withUnsafeBytes { b in
                        try PNGWriter.encode(
                            samples: b, width: image.width, height: image.height,
                            rowBytes: (image.width * depth + 7) / 8, colorType: 0, bitDepth: depth, channels: 1,
                            level: settings.level, filter: settings.filter, rows: rows)
                    }
                }
                return try samples.withUnsafeBytes { b in
                    try PNGWriter.encode(
                        samples: b, width: image.width, height: image.height,
                        rowBytes: rowSamples * MemoryLayout<C>.size,
                        colorType: 0, bitDepth: C.bitWidth, channels: 1, level: settings.level,
                        filter: settings.filter, rows: rows)
                }
            }
            // RGBA, RGB and gray + alpha are filtered straight from the RGBA pixels, picking the
            // channels row by row; then the pixels go, and the filtered rows are compressed.
            let picks: [Int]? = type == .rgb ? [0, 1, 2] : type == .grayAlpha ? [0, 3] : nil
            let filtered = p.withUnsafeBytes { b in
                PNGWriter.filtered(
                    samples: b, width: image.width, height: image.height, rowBytes: rowSamples * MemoryLayout<C>.size,
                    colorType: Int(type.rawValue), bitDepth: C.bitWidth, channels: type.channels,
                    filter: settings.filter, picks: picks, rows: rows)
            }
            p = []
            return try PNGWriter.assemble(
                head: PNGWriter.head(
                    width: image.width, height: image.height, colorType: Int(type.rawValue), bitDepth: C.bitWidth),
                compressing: filtered, level: settings.level)
        }
        let samples: [C] = type == .palette ? [] : pack(p, type, image)
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
        guard status == 0, let out else {
            throw CodecError(.encoderFailed(format: "PNG", why: ImageDecoder.message(err)))
        }
        defer { tp_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: size))
    }

    /// The fewest bits (1, 2 or 4) that hold every gray value exactly — each a multiple of
    /// 255 / (2ᵈ − 1) — or nil when only 8 do.
    static func lowGrayDepth(_ gray: [UInt8]) -> Int? {
        var multipleOf85 = true
        var multipleOf17 = true
        var binary = true
        for v in gray {
            if v != 0 && v != 255 { binary = false }
            if v % 85 != 0 { multipleOf85 = false }
            if v % 17 != 0 {
                multipleOf17 = false
                break
            }
        }
        return binary ? 1 : multipleOf85 ? 2 : multipleOf17 ? 4 : nil
    }

    /// Rows of `values / scale` packed `depth` bits each, most significant first, each row padded
    /// to a whole byte (PNG's layout for bit depths below 8).
    static func packBits(_ values: [UInt8], _ width: Int, _ height: Int, depth: Int, scale: Int) -> [UInt8] {
        let rowBytes = (width * depth + 7) / 8
        var out = [UInt8](repeating: 0, count: rowBytes * height)
        let perByte = 8 / depth
        for y in 0..<height {
            for x in 0..<width {
                let v = UInt8(Int(values[y * width + x]) / scale)
                let shift = 8 - depth * (x % perByte + 1)
                out[y * rowBytes + x / perByte] |= v << shift
            }
        }
        return out
    }

    /// Interleaved samples of the chosen color type (RGBA passes through untouched).
    static func pack<C: PixelChannel>(_ p: [C], _ type: PNGColorType, _ image: Shape) -> [C] {
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
    ///
    /// One pass over the pixels: each color is looked up in a small open-addressed table (a
    /// multiplicative hash, no allocation per pixel) — a run of one color, as sprites have, is
    /// not looked up again — and the pixel takes its color's order of appearance; a second pass
    /// maps that to the color's final slot.
    struct Palette {
        var rgb: [UInt8] = []
        var alpha: [UInt8] = []
        var indices: [UInt8] = []

        init?(_ p: [UInt8], keepAlpha: Bool) {
            let n = p.count / 4
            // 1,024 slots for at most 257 keys: a load of a quarter at most. A slot holds the key
            // with bit 32 set (0: empty) and the color's order of appearance.
            var slots = [UInt64](repeating: 0, count: 1024)
            var order: [UInt32] = []
            order.reserveCapacity(256)
            var appearance = [UInt8](repeating: 0, count: n)
            let complete: Bool = p.withUnsafeBufferPointer { px in
                slots.withUnsafeMutableBufferPointer { table in
                    appearance.withUnsafeMutableBufferPointer { out in
                        let alphaMask: UInt32 = keepAlpha ? 0 : 0xFF
                        var last: UInt32 = 0
                        var lastIndex: UInt8 = 0
                        var haveLast = false
                        for i in 0..<n {
                            let key =
                                UInt32(px[4 * i]) << 24 | UInt32(px[4 * i + 1]) << 16 | UInt32(px[4 * i + 2]) << 8
                                | (UInt32(px[4 * i + 3]) | alphaMask)
                            if haveLast && key == last {
                                out[i] = lastIndex
                                continue
                            }
                            let tagged = UInt64(key) | 1 << 32
                            var h = Int((key &* 0x9E37_79B1) >> 22)
                            while table[h] != 0 && table[h] & 0x1_FFFF_FFFF != tagged { h = (h + 1) & 1023 }
                            if table[h] == 0 {
                                if order.count == 256 { return false }
                                table[h] = tagged | UInt64(order.count) << 40
                                order.append(key)
                            }
                            (last, lastIndex, haveLast) = (key, UInt8(truncatingIfNeeded: table[h] >> 40), true)
                            out[i] = lastIndex
                        }
                        return true
                    }
                }
            }
            guard complete else { return nil }
            let sorted = order.filter { $0 & 0xFF != 0xFF } + order.filter { $0 & 0xFF == 0xFF }
            var slotOf = [UInt8](repeating: 0, count: 256)
            let place = Dictionary(uniqueKeysWithValues: sorted.enumerated().map { ($0.element, UInt8($0.offset)) })
            for (k, key) in order.enumerated() { slotOf[k] = place[key]! }
            for key in sorted {
                rgb += [UInt8(key >> 24), UInt8((key >> 16) & 0xFF), UInt8((key >> 8) & 0xFF)]
                if key & 0xFF != 0xFF { alpha.append(UInt8(key & 0xFF)) }
            }
            indices = appearance
            indices.withUnsafeMutableBufferPointer { idx in
                for i in idx.indices { idx[i] = slotOf[Int(idx[i])] }
            }
        }
    }

    /// JPEG: 8-bit RGB (or gray, for a gray-layout image) at `quality`. Non-opaque pixels
    /// need `flatten`, else a job error.
    public static func jpeg(
        _ image: Image, _ settings: JPEGSettings = .standard, rows: any RowScheduler = SerialRows()
    ) throws -> [UInt8] {
        guard !image.isHDR else { throw CodecError(.ldrFormatGotHDR("JPEG")) }
        var img = image.to8Bit()
        if let bg = settings.flatten {
            img.runInBands(FlattenKernel(color: bg, premultiplied: img.alpha == .premultiplied), on: rows)
        } else if img.layout == .rgba {
            let stats = img.alphaStatistics()
            if stats.min < 255 {
                throw CodecError(.jpegNeedsOpaque)
            }
        }
        guard case .rgba8(let p) = img.pixels else { preconditionFailure("8-bit after to8Bit") }
        let type: PNGColorType = img.layout == .gray ? .gray : .rgb
        let samples = pack(p, type, Shape(width: img.width, height: img.height, layout: img.layout))
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var err = [CChar](repeating: 0, count: 256)
        let status = samples.withUnsafeBufferPointer { b in
            tp_jpeg_encode(
                b.baseAddress, UInt32(img.width), UInt32(img.height), img.width * type.channels,
                Int32(type.channels), Int32(settings.quality), settings.progressive ? 1 : 0,
                &out, &size, &err, err.count)
        }
        guard status == 0, let out else {
            throw CodecError(.encoderFailed(format: "JPEG", why: ImageDecoder.message(err)))
        }
        defer { tp_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: size))
    }
}
