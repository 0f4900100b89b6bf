internal import TexPipeBlocks
public import TexPipeFormats
public import TexPipePixels

/// A KTX2 or DDS file as texpipe wrote it, read back for `inspect` and the HTML report: its
/// container facts, and each level decoded (rgba8 as stored, ASTC through astcenc, BC1–BC7 by
/// texpipe's own decoders).
public struct TextureFile: Sendable {
    public struct Level: Sendable, Equatable {
        public var width: Int
        public var height: Int
        /// Bytes stored in the file (after supercompression).
        public var bytes: Int
        /// Bytes of the block data (before supercompression).
        public var uncompressedBytes: Int
        /// A volume's slices at this level (1 for a 2D texture).
        public var depth = 1
    }

    public var container: TextureContainer
    public var format: TextureSettings.Format
    public var srgb: Bool
    /// `premultiplied`, `straight` or (DDS) `opaque`.
    public var alphaMode: String
    public var width: Int
    public var height: Int
    public var levels: [Level]
    /// Slices of every level: the layers of a texture array (KTX2 `layerCount`, DDS `arraySize`),
    /// the six faces of a cube map (+X, −X, +Y, −Y, +Z, −Z), 1 for a plain texture.
    public var layers = 1
    /// True when the file declares an array (KTX2 `layerCount` > 0), even of one layer.
    public var isArray = false
    /// A cube map (KTX2 `faceCount` 6; DDS `DDSCAPS2_CUBEMAP` with every face, DX10 `TEXTURECUBE`):
    /// `level(n, layer: f)` is face f.
    public var isCube = false
    /// A volume's depth (KTX2 `pixelDepth`, DDS `dwDepth` of a `TEXTURE3D`); 1 for a 2D texture.
    /// `level(n, layer: z)` is slice z of level n, which has `levels[n].depth` of them.
    public var depth = 1
    /// A volume (3D texture), even of depth 1.
    public var isVolume = false
    public var supercompression: TextureSettings.Supercompression
    /// An ETC1S file's BasisLZ global data (KTX2 `supercompressionScheme` 1): its codebooks and
    /// Huffman tables, decoded, and where each image's slices lie.
    public var basisLZ: BasisLZData?
    /// KTX2 key/value data in the file's order (values without their NUL); empty for DDS. A
    /// malformed entry ends the list (the data is advisory).
    public var keyValues: [(key: String, value: String)] = []
    /// The `texpipe.target` record a quality target wrote (docs/gpu-textures.md "Quality targets").
    public var target: String? { keyValues.first { $0.key == "texpipe.target" }?.value }
    /// Per level, every layer's blocks, layer 0 first (DDS files are reordered so).
    let data: [[UInt8]]

    /// BasisLZ's global data as read: codebook sizes, the sections' bytes and each image's slices
    /// (level by level, layer or face within a level).
    public struct BasisLZData: Sendable {
        public var endpointCount: Int
        public var selectorCount: Int
        /// Bytes of the endpoint codebook, the selector codebook and the Huffman tables.
        public var sectionBytes: (endpoints: Int, selectors: Int, tables: Int)
        /// Per image: (offset, length) of its RGB slice and of its alpha slice (nil: none).
        public var images: [(rgb: Range<Int>, alpha: Range<Int>?)]
        /// What the images decode against (the family's codebooks).
        let global: any Sendable
        /// Whether the images carry an alpha slice (the descriptor's AAA sample).
        public var hasAlpha: Bool { images.first?.alpha != nil }
    }

    /// At most this many layers (Direct3D's limit for 2D arrays).
    public static let maxLayers = 2048

    /// Reads and checks a KTX2 or DDS file before trusting any of its offsets or lengths (the
    /// KTX 2.0 specification's rules, and Microsoft's DDS layout): every range inside the file,
    /// level sizes those of the format and the dimensions, lengths equal unless supercompressed,
    /// no two levels overlapping, a sane data format descriptor, at most log2 + 1 levels and no
    /// more than `maxPixels` texels in level 0. Anything else is a one-line `CodecError`.
    public init(_ bytes: [UInt8], maxPixels: Int = Image.defaultMaxPixels) throws {
        if bytes.starts(with: FileKind.ktx2Signature) {
            try self.init(ktx2: bytes, maxPixels: maxPixels)
        } else if bytes.starts(with: Array("DDS ".utf8)) {
            try self.init(dds: bytes, maxPixels: maxPixels)
        } else {
            throw CodecError(.notATexture)
        }
    }

    /// Little-endian fields at fixed offsets of a buffer already known to be long enough.
    struct Fields {
        let bytes: [UInt8]
        func u32(_ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << (8 * UInt32($1)) } }
        func u64(_ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(bytes[at + $1]) << (8 * UInt64($1)) } }
    }

    /// Width and height within the limits: not zero, at most `maxPixels` texels.
    static func checkedSize(_ container: String, _ w: UInt32, _ h: UInt32, maxPixels: Int) throws -> (Int, Int) {
        guard w > 0, h > 0 else { throw CodecError(.textureZeroSize(container)) }
        guard UInt64(w) * UInt64(h) <= UInt64(maxPixels) else {
            throw CodecError(.overPixelLimit(width: UInt64(w), height: UInt64(h), limit: maxPixels))
        }
        return (Int(w), Int(h))
    }

    /// Levels a w × h (× d) chain can have: ⌊log2(max(w, h, d))⌋ + 1.
    static func maxLevels(_ w: Int, _ h: Int, _ d: Int = 1) -> Int {
        Int.bitWidth - max(w, h, d).leadingZeroBitCount
    }

    init(ktx2 bytes: [UInt8], maxPixels: Int) throws {
        guard bytes.count >= 80 else { throw CodecError(.truncatedHeader("KTX2")) }
        let f = Fields(bytes: bytes)
        container = .ktx2
        let vk = f.u32(12)
        // VK_FORMAT_UNDEFINED is named by the descriptor's colour model (read below).
        var known = TextureSettings.Format.forVulkan(vk)
        if vk != 0 && known == nil { throw CodecError(.unknownTextureFormat("KTX2 vkFormat", vk)) }
        (width, height) = try Self.checkedSize("KTX2", f.u32(20), f.u32(24), maxPixels: maxPixels)
        if f.u32(28) > 0 {
            // A volume: not an array or a cube map (Vulkan has neither of 3D images).
            guard f.u32(32) == 0, f.u32(36) == 1 else {
                throw CodecError(.textureShape("KTX2 volume with layerCount \(f.u32(32)) and faceCount \(f.u32(36))"))
            }
            guard UInt64(f.u32(28)) * UInt64(width) * UInt64(height) <= UInt64(maxPixels) else {
                throw CodecError(
                    .overPixelLimit(width: UInt64(width), height: UInt64(height) * UInt64(f.u32(28)), limit: maxPixels))
            }
            (depth, isVolume) = (Int(f.u32(28)), true)
        }
        guard f.u32(32) <= UInt32(Self.maxLayers) else {
            throw CodecError(.textureShape("KTX2 layerCount \(f.u32(32)) (more than \(Self.maxLayers) layers)"))
        }
        (layers, isArray) = (max(1, Int(f.u32(32))), f.u32(32) > 0)
        // A cube map (square faces, not an array of cubes) reads as six slices.
        if f.u32(36) == 6 && !isArray && width == height { (layers, isCube) = (6, true) }
        guard UInt64(width) * UInt64(height) * UInt64(layers) <= UInt64(maxPixels) else {
            throw CodecError(
                .overPixelLimit(width: UInt64(width), height: UInt64(height) * UInt64(layers), limit: maxPixels))
        }
        guard f.u32(36) == 1 || isCube else { throw CodecError(.textureShape("KTX2 faceCount \(f.u32(36))")) }
        let declared = f.u32(40)
        let count = max(1, Int(min(declared, 64)))
        guard count <= Self.maxLevels(width, height, depth) else {
            throw CodecError(.tooManyLevels(Int(declared), width, height, Self.maxLevels(width, height, depth)))
        }
        let scheme = f.u32(44)
        switch scheme {
        case 0, 1: supercompression = .none
        case 2: supercompression = .zstd
        default: throw CodecError(.unknownSupercompression(scheme))
        }
        let indexEnd = 80 + 24 * count
        guard bytes.count >= indexEnd else { throw CodecError(.truncatedLevelIndex) }
        // The data format descriptor: inside the file, after the index, its total size its length,
        // and long enough for the basic block's header (whose flags say premultiplied or not).
        let (dfdOffset, dfdLength) = (Int(f.u32(48)), Int(f.u32(52)))
        guard dfdOffset >= indexEnd, dfdLength >= 28, dfdOffset + dfdLength <= bytes.count,
            Int(f.u32(dfdOffset)) == dfdLength
        else { throw CodecError(.badDFD(dfdOffset, dfdLength)) }
        alphaMode = bytes[dfdOffset + 15] & 1 != 0 ? "premultiplied" : "straight"
        if vk == 0 {
            // A Basis Universal payload: UASTC by its colour model (byte 12 of the descriptor),
            // sRGB by its transfer function (byte 14).
            let model = bytes[dfdOffset + 12]
            known = TextureSettings.Format.forVulkan(0, model: model).map { ($0.format, bytes[dfdOffset + 14] == 2) }
            if known == nil {
                throw CodecError(.unknownTextureFormat("KTX2 vkFormat 0 with DFD colour model", UInt32(model)))
            }
        }
        guard let (format, srgb) = known else { throw CodecError(.unknownTextureFormat("KTX2 vkFormat", vk)) }
        (self.format, self.srgb) = (format, srgb)
        if isVolume && !format.info.takesVolume {
            throw CodecError(.textureShape("KTX2 volume of \(format.rawValue)"))
        }
        guard (scheme == 1) == format.info.codec.family.wholeFile else {
            let holds = TextureSettings.Format.allCases.filter(\.info.codec.family.wholeFile).map(\.info.familyName)
            throw CodecError(
                .basisLZ(
                    scheme == 1
                        ? "KTX2 BasisLZ supercompression of \(format.rawValue) (BasisLZ holds \(holds.joined(separator: ", ")) only)"
                        : "KTX2 \(format.info.familyName) without BasisLZ supercompression (supercompressionScheme \(scheme))"
                ))
        }
        let (kvdOffset, kvdLength) = (Int(f.u32(56)), Int(f.u32(60)))
        guard kvdLength == 0 || (kvdOffset >= indexEnd && kvdOffset + kvdLength <= bytes.count) else {
            throw CodecError(.rangePastTheEnd("KTX2 key/value data"))
        }
        keyValues = Self.keyValues(bytes, kvdOffset, kvdLength)
        let (sgdOffset, sgdLength) = (f.u64(64), f.u64(72))
        guard sgdLength == 0 || (sgdOffset <= UInt64(bytes.count) && sgdLength <= UInt64(bytes.count) - sgdOffset)
        else { throw CodecError(.rangePastTheEnd("KTX2 supercompression global data")) }
        var levels: [Level] = []
        var data: [[UInt8]] = []
        var ranges: [(Int, Int, Int)] = []
        for n in 0..<count {
            let (offset, length, raw) = (f.u64(80 + 24 * n), f.u64(88 + 24 * n), f.u64(96 + 24 * n))
            guard offset <= UInt64(bytes.count), length <= UInt64(bytes.count) - offset else {
                throw CodecError(.levelPastTheEnd("KTX2", n))
            }
            let (w, h, d) = (max(1, width >> n), max(1, height >> n), max(1, depth >> n))
            let expected = format.info.levelBytes(w, h) * layers * d
            // BasisLZ levels have no uncompressed length of their own (0); the others' must match.
            let rawExpected = scheme == 1 ? 0 : expected
            guard raw == UInt64(rawExpected) else {
                throw CodecError(.levelSize(n, Int(clamping: raw), rawExpected))
            }
            if scheme == 0 && length != raw {
                throw CodecError(.levelLengths(n, Int(length), Int(clamping: raw)))
            }
            guard Int(offset) >= indexEnd || length == 0 else { throw CodecError(.levelOverlaps(n)) }
            ranges.append((Int(offset), Int(offset) + Int(length), n))
            levels.append(Level(width: w, height: h, bytes: Int(length), uncompressedBytes: expected, depth: d))
            data.append(Array(bytes[Int(offset)..<Int(offset + length)]))
        }
        let sorted = ranges.filter { $0.1 > $0.0 }.sorted { $0.0 < $1.0 }
        for (a, b) in zip(sorted, sorted.dropFirst()) where b.0 < a.1 {
            throw CodecError(.levelOverlaps(max(a.2, b.2)))
        }
        self.levels = levels
        self.data = data
        if scheme == 1 {
            basisLZ = try Self.basisLZ(
                // Without global data (length 0) its offset may be anything: the reader refuses the
                // empty data before it reads at the offset.
                bytes, Int(clamping: sgdOffset), Int(sgdLength), images: count * layers, levelBytes: data.map(\.count),
                layers: layers, format: format)
        }
    }

    /// BasisLZ's global data (KTX 2.0, "BasisLZ Global Data"): the header, one descriptor per image
    /// with its slices inside its level, the three sections exactly filling the rest, no extended
    /// data, then the codebooks and tables decoded.
    static func basisLZ(
        _ bytes: [UInt8], _ offset: Int, _ length: Int, images: Int, levelBytes: [Int], layers: Int,
        format: TextureSettings.Format
    ) throws -> BasisLZData {
        func bad(_ why: String) -> CodecError { CodecError(.basisLZ("KTX2 BasisLZ global data: \(why)")) }
        guard length >= 20 + 20 * images else {
            throw bad("\(length) bytes, shorter than its \(images) image descriptors")
        }
        let f = Fields(bytes: bytes)
        let endpointCount = Int(f.u32(offset) & 0xFFFF)
        let selectorCount = Int(f.u32(offset) >> 16)
        let sections = (Int(f.u32(offset + 4)), Int(f.u32(offset + 8)), Int(f.u32(offset + 12)))
        guard f.u32(offset + 16) == 0 else { throw bad("extended data with ETC1S") }
        guard 20 + 20 * images + sections.0 + sections.1 + sections.2 == length else {
            throw bad("its sections do not add up to its length")
        }
        var descs: [(rgb: Range<Int>, alpha: Range<Int>?)] = []
        for i in 0..<images {
            let at = offset + 20 + 20 * i
            guard f.u32(at) & 0x2 == 0 else { throw bad("image \(i) is a P-frame (texpipe reads no animation)") }
            let level = levelBytes[i / layers]
            let (ro, rl, ao, al) = (Int(f.u32(at + 4)), Int(f.u32(at + 8)), Int(f.u32(at + 12)), Int(f.u32(at + 16)))
            guard rl > 0, ro <= level, rl <= level - ro, ao <= level, al <= level - ao else {
                throw bad("image \(i)'s slices lie outside its level")
            }
            descs.append((ro..<ro + rl, al > 0 ? ao..<ao + al : nil))
        }
        guard descs.allSatisfy({ ($0.alpha != nil) == (descs[0].alpha != nil) }) else {
            throw bad("some images have an alpha slice and some not")
        }
        var at = offset + 20 + 20 * images
        let endpoints = bytes[at..<at + sections.0]
        at += sections.0
        let selectors = bytes[at..<at + sections.1]
        at += sections.1
        let tables = bytes[at..<at + sections.2]
        let global = try TextureCodecs.fileGlobal(
            TextureCodecs.FileSections(
                format: format, endpointCount: endpointCount, selectorCount: selectorCount, endpoints: endpoints,
                selectors: selectors, tables: tables))
        return BasisLZData(
            endpointCount: endpointCount, selectorCount: selectorCount, sectionBytes: sections, images: descs,
            global: global)
    }

    init(dds bytes: [UInt8], maxPixels: Int) throws {
        guard bytes.count >= 128 else { throw CodecError(.truncatedHeader("DDS")) }
        let f = Fields(bytes: bytes)
        guard f.u32(4) == 124, f.u32(76) == 32 else { throw CodecError(.truncatedHeader("DDS")) }
        guard f.u32(80) & 0x4 != 0, bytes[84..<88].elementsEqual("DX10".utf8) else {
            throw CodecError(.ddsWithoutDX10)
        }
        guard bytes.count >= 148 else { throw CodecError(.truncatedHeader("DDS")) }
        container = .dds
        let dxgi = f.u32(128)
        guard let (format, srgb) = TextureSettings.Format.forDXGI(dxgi) else {
            throw CodecError(.unknownTextureFormat("DDS DXGI format", dxgi))
        }
        (self.format, self.srgb) = (format, srgb)
        (width, height) = try Self.checkedSize("DDS", f.u32(16), f.u32(12), maxPixels: maxPixels)
        guard f.u32(132) == 3 || f.u32(132) == 4 else {
            throw CodecError(.textureShape("DDS resource dimension \(f.u32(132))"))
        }
        if f.u32(132) == 4 {
            // D3D10_RESOURCE_DIMENSION_TEXTURE3D: one volume of dwDepth slices (never an array).
            guard f.u32(24) > 0, f.u32(140) == 1, f.u32(136) & 0x4 == 0 else {
                throw CodecError(.textureShape("DDS volume with depth \(f.u32(24)) and arraySize \(f.u32(140))"))
            }
            guard UInt64(f.u32(24)) * UInt64(width) * UInt64(height) <= UInt64(maxPixels) else {
                throw CodecError(
                    .overPixelLimit(width: UInt64(width), height: UInt64(height) * UInt64(f.u32(24)), limit: maxPixels))
            }
            (depth, isVolume) = (Int(f.u32(24)), true)
            guard format.info.takesVolume else { throw CodecError(.textureShape("DDS volume of \(format.rawValue)")) }
        }
        let cube = f.u32(136) & 0x4 != 0
        // A cube map: every face present (DDSCAPS2_CUBEMAP | all six), one cube, square faces.
        guard !cube || (f.u32(112) & 0xFE00 == 0xFE00 && f.u32(140) == 1 && width == height) else {
            throw CodecError(.textureShape("DDS cube map without all six faces, or an array of cubes"))
        }
        guard (1...UInt32(Self.maxLayers)).contains(f.u32(140)) else {
            throw CodecError(.textureShape("DDS arraySize \(f.u32(140))"))
        }
        (layers, isArray) = (Int(f.u32(140)), f.u32(140) > 1)
        if cube { (layers, isCube) = (6, true) }
        guard UInt64(width) * UInt64(height) * UInt64(layers) <= UInt64(maxPixels) else {
            throw CodecError(
                .overPixelLimit(width: UInt64(width), height: UInt64(height) * UInt64(layers), limit: maxPixels))
        }
        let declared = f.u32(28)
        let count = max(1, Int(min(declared, 64)))
        guard count <= Self.maxLevels(width, height, depth) else {
            throw CodecError(.tooManyLevels(Int(declared), width, height, Self.maxLevels(width, height, depth)))
        }
        alphaMode = [1: "straight", 2: "premultiplied", 3: "opaque"][f.u32(144)] ?? "unknown"
        supercompression = .none
        // Each layer's whole chain in turn: gathered here level by level, layer 0 first.
        var at = 148
        var levels: [Level] = []
        var data = [[UInt8]](repeating: [], count: count)
        for layer in 0..<layers {
            for n in 0..<count {
                let (w, h, d) = (max(1, width >> n), max(1, height >> n), max(1, depth >> n))
                // A volume's level holds its d slices.
                let size = format.info.levelBytes(w, h) * d
                guard size <= bytes.count - at else {
                    throw CodecError(
                        .levelPastTheEnd(isCube ? "DDS face \(layer)" : layers > 1 ? "DDS layer \(layer)" : "DDS", n))
                }
                if layer == 0 {
                    levels.append(
                        Level(width: w, height: h, bytes: size * layers, uncompressedBytes: size * layers, depth: d))
                }
                data[n] += bytes[at..<(at + size)]
                at += size
            }
        }
        self.levels = levels
        self.data = data
    }

    /// Level n of `layer` as an 8-bit RGBA image, or an HDR one for an HDR format (its alpha state
    /// as the file says).
    public func level(_ n: Int, layer: Int = 0) throws -> Image {
        if let basisLZ { return try wholeFileImage(basisLZ, level: n, layer: layer) }
        return try image(of: layerBlocks(try levelBlocks(n), n, layer), level: n)
    }

    /// Every layer (cube face, volume slice) of level n, the level's data decompressed once for
    /// all of them.
    public func layers(ofLevel n: Int) throws -> [Image] {
        if let basisLZ { return try (0..<layers).map { try wholeFileImage(basisLZ, level: n, layer: $0) } }
        let blocks = try levelBlocks(n)
        return try (0..<slices(n)).map { try image(of: layerBlocks(blocks, n, $0), level: n) }
    }

    /// Up to `limit` indices of `count` layers or slices, evenly spaced, the first and the last
    /// included: the ones pictures show.
    public static func picks(_ count: Int, limit: Int = 8) -> [Int] {
        guard count > limit else { return Array(0..<count) }
        return (0..<limit).map { k in (k * (count - 1) + (limit - 1) / 2) / (limit - 1) }
    }

    /// Layers, faces or (a volume's) slices at level n.
    public func slices(_ n: Int) -> Int { isVolume ? levels[n].depth : layers }

    /// Level n's data of every layer, decompressed.
    func levelBlocks(_ n: Int) throws -> [UInt8] {
        guard supercompression == .zstd else { return data[n] }
        guard let raw = Zstd.decompress(data[n], size: levels[n].uncompressedBytes) else {
            throw CodecError(.corruptZstdLevel(n))
        }
        return raw
    }

    /// One layer's part of level n's data.
    func layerBlocks(_ blocks: [UInt8], _ n: Int, _ layer: Int) throws -> [UInt8] {
        let count = slices(n)
        guard count > 1 else { return blocks }
        guard layer < count else { throw CodecError(.textureShape("slice \(layer) of level \(n), which has \(count)")) }
        let size = levels[n].uncompressedBytes / count
        return Array(blocks[(layer * size)..<((layer + 1) * size)])
    }

    /// One image of a BasisLZ file: its slices through the global data.
    func wholeFileImage(_ b: BasisLZData, level n: Int, layer: Int) throws -> Image {
        let l = levels[n]
        let desc = b.images[n * layers + layer]
        let texels = try TextureCodecs.decodeFileImage(
            format, b.global, rgb: data[n][desc.rgb], alpha: desc.alpha.map { data[n][$0] }, width: l.width,
            height: l.height)
        return Image(
            width: l.width, height: l.height, pixels: .rgba8(texels),
            alpha: alphaMode == "premultiplied" ? .premultiplied : .straight)
    }

    /// One layer of level n decoded.
    func image(of blocks: [UInt8], level n: Int) throws -> Image {
        let l = levels[n]
        let alpha: AlphaState = alphaMode == "premultiplied" ? .premultiplied : .straight
        if format.info.hdr {
            let floats = try TextureCodecs.decodeHDR(blocks, l.width, l.height, format: format)
            guard floats.count == l.width * l.height * 4 else { throw CodecError(.levelWrongSize(n)) }
            return Image(width: l.width, height: l.height, pixels: .rgbaF32(floats), alpha: alpha)
        }
        let pixels = try TextureCodecs.decode(blocks, l.width, l.height, format: format, srgb: srgb)
        guard pixels.count == l.width * l.height * 4 else { throw CodecError(.levelWrongSize(n)) }
        return Image(width: l.width, height: l.height, pixels: .rgba8(pixels), alpha: alpha)
    }
}

extension TextureFile {
    /// KTX2 key/value entries (KTX 2.0 §3.10: keyAndValueByteLength, key, NUL, value, padding to 4),
    /// read from the range the header gives; each key and value is UTF-8 and the value's trailing
    /// NUL, if any, is dropped. Reading stops at the first entry that does not fit.
    static func keyValues(_ bytes: [UInt8], _ offset: Int, _ length: Int) -> [(key: String, value: String)] {
        var out: [(key: String, value: String)] = []
        var o = offset
        let end = offset + length
        while o + 4 <= end {
            let n = Int(bytes[o]) | Int(bytes[o + 1]) << 8 | Int(bytes[o + 2]) << 16 | Int(bytes[o + 3]) << 24
            guard n > 0, n <= end - o - 4 else { break }
            let pair = bytes[(o + 4)..<(o + 4 + n)]
            guard let nul = pair.firstIndex(of: 0) else { break }
            var value = pair[(nul + 1)...]
            if value.last == 0 { value = value.dropLast() }
            guard let k = String(validating: pair[..<nul], as: UTF8.self),
                let v = String(validating: value, as: UTF8.self)
            else { break }
            out.append((k, v))
            o += (4 + n + 3) / 4 * 4
        }
        return out
    }
}
