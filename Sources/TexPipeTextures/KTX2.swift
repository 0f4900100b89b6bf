internal import TexPipeBlocks
internal import TexPipeFormats
internal import TexPipePixels

/// KTX 2.0 (Khronos KTX File Format Specification 2.0).
enum KTX2 {
    static let identifier = FileKind.ktx2Signature

    /// One image's slices within its level (BasisLZ global data's `ImageDesc`); flags 0 (no P-frames).
    struct ImageDesc {
        var rgbOffset: Int
        var rgbLength: Int
        var alphaOffset = 0
        var alphaLength = 0
    }

    /// BasisLZ's supercompression global data (KTX 2.0, "BasisLZ Global Data"): the codebooks'
    /// sizes, one descriptor per image, then the endpoint, selector and table sections.
    struct BasisLZGlobal {
        var endpointCount: Int
        var selectorCount: Int
        var images: [ImageDesc]
        var endpoints: [UInt8]
        var selectors: [UInt8]
        var tables: [UInt8]

        var bytes: [UInt8] {
            var out = ByteWriter()
            out.bytes += [UInt8(truncatingIfNeeded: endpointCount), UInt8(truncatingIfNeeded: endpointCount >> 8)]
            out.bytes += [UInt8(truncatingIfNeeded: selectorCount), UInt8(truncatingIfNeeded: selectorCount >> 8)]
            for n in [endpoints.count, selectors.count, tables.count, 0] { out.u32(UInt32(n)) }
            for d in images {
                out.u32(0)
                for v in [d.rgbOffset, d.rgbLength, d.alphaOffset, d.alphaLength] { out.u32(UInt32(v)) }
            }
            out.bytes += endpoints
            out.bytes += selectors
            out.bytes += tables
            return out.bytes
        }
    }

    static func file(
        _ image: Image, _ levelCount: Int, _ data: [[UInt8]], _ settings: TextureSettings, premultiplied: Bool,
        layerCount: Int = 0, faceCount: Int = 1, basisLZ: BasisLZGlobal? = nil
    ) throws -> [UInt8] {
        var pieces = data.map { [$0] }
        var released = TextureEncoder.Releases(nil)
        return try file(
            width: image.width, height: image.height, pixelDepth: 0, levelCount, &pieces, settings,
            premultiplied: premultiplied, layerCount: layerCount, faceCount: faceCount, basisLZ: basisLZ,
            released: &released)
    }

    /// The file from each level's data in pieces (a volume's slices), which are emptied as they are
    /// copied in: a large volume is never held twice. `pixelDepth` > 0: a volume of that depth.
    static func file(
        width: Int, height: Int, pixelDepth: Int, _ levelCount: Int, _ pieces: inout [[[UInt8]]],
        _ settings: TextureSettings, premultiplied: Bool, layerCount: Int = 0, faceCount: Int = 1,
        basisLZ: BasisLZGlobal? = nil, released: inout TextureEncoder.Releases
    ) throws -> [UInt8] {
        let format = settings.format
        let info = format.info
        let srgb = settings.srgb
        let zstd = basisLZ == nil && settings.supercompression == .zstd
        // zstd makes each level one frame: its pieces are joined and compressed, level by level.
        let raw = pieces.map { $0.reduce(0) { $0 + $1.count } }
        if zstd {
            for n in pieces.indices {
                let joined = pieces[n].count == 1 ? pieces[n][0] : Array(pieces[n].joined())
                pieces[n] = [try Zstd.compress(joined, level: settings.zstdLevel)]
            }
        }
        let storedCount = pieces.map { $0.reduce(0) { $0 + $1.count } }
        let sgd = basisLZ?.bytes ?? []
        let alphaSlice = basisLZ?.images.first.map { $0.alphaLength > 0 } ?? false
        let dfd = DataFormatDescriptor.bytes(
            format, srgb: srgb, premultiplied: premultiplied, alphaSample: alphaSlice)
        // Key/value data, keys sorted by their bytes, each entry padded to 4.
        var kvd = ByteWriter()
        for (key, value) in [("KTXorientation", "rd"), ("KTXwriter", "texpipe " + TexPipeVersion.string)] {
            let pair = Array(key.utf8) + [0] + Array(value.utf8) + [0]
            kvd.u32(UInt32(pair.count))
            kvd.bytes += pair
            kvd.pad(to: 4)
        }
        let headerBytes = 12 + 9 * 4 + 4 * 4 + 2 * 8 + levelCount * 24
        let dfdOffset = headerBytes
        let kvdOffset = dfdOffset + dfd.count
        var out = ByteWriter()
        // One allocation for the whole file: the level data is most of it.
        out.bytes.reserveCapacity(
            kvdOffset + kvd.bytes.count + storedCount.reduce(0, +) + levelCount * lcm(info.blockBytes, 4))
        out.bytes += identifier
        out.u32(info.vkFormat(srgb: srgb))
        // typeSize: 1 for 8-bit and block-compressed formats, 2 for half floats (the channel's size).
        out.u32(info.isBlockCompressed ? 1 : UInt32(info.blockBytes / 4))
        out.u32(UInt32(width))
        out.u32(UInt32(height))
        out.u32(UInt32(pixelDepth))  // 0: 2D; else a volume, each level holding its slices in order
        out.u32(UInt32(layerCount))  // 0: not an array; else the layers, each level holding them in order
        out.u32(UInt32(faceCount))  // 6 for a cube map: each level holds the faces +X, −X, +Y, −Y, +Z, −Z
        out.u32(UInt32(levelCount))
        out.u32(basisLZ != nil ? 1 : zstd ? 2 : 0)  // supercompressionScheme: BasisLZ 1, zstd 2
        out.u32(UInt32(dfdOffset))
        out.u32(UInt32(dfd.count))
        out.u32(UInt32(kvdOffset))
        out.u32(UInt32(kvd.bytes.count))
        // The global data follows the key/value data, aligned to 8.
        let sgdOffset = sgd.isEmpty ? 0 : (kvdOffset + kvd.bytes.count + 7) / 8 * 8
        out.u64(UInt64(sgdOffset))
        out.u64(UInt64(sgd.count))
        // Level data is stored smallest level first, each level aligned to lcm(block bytes, 4)
        // (1 when supercompressed); the index lists level 0 first.
        let alignment = zstd || basisLZ != nil ? 1 : lcm(info.blockBytes, 4)
        var offsets = [Int](repeating: 0, count: levelCount)
        var cursor = sgd.isEmpty ? kvdOffset + kvd.bytes.count : sgdOffset + sgd.count
        for n in (0..<levelCount).reversed() {
            cursor = (cursor + alignment - 1) / alignment * alignment
            offsets[n] = cursor
            cursor += storedCount[n]
        }
        for n in 0..<levelCount {
            out.u64(UInt64(offsets[n]))
            out.u64(UInt64(storedCount[n]))
            out.u64(basisLZ != nil ? 0 : UInt64(raw[n]))  // uncompressedByteLength: 0 for BasisLZ
        }
        out.bytes += dfd
        out.bytes += kvd.bytes
        if !sgd.isEmpty {
            while out.bytes.count < sgdOffset { out.bytes.append(0) }
            out.bytes += sgd
        }
        for n in (0..<levelCount).reversed() {
            while out.bytes.count < offsets[n] { out.bytes.append(0) }
            for k in pieces[n].indices {
                out.bytes += pieces[n][k]
                released.add(pieces[n][k].count)
                pieces[n][k] = []
            }
        }
        return out.bytes
    }

    /// `file` (as `file(…)` wrote it with `settings`) with one more key/value entry: the entries
    /// kept sorted by key, each padded to 4, the global data and the levels moved after them to
    /// their alignments (KTX 2.0 §3.10, §3.11).
    static func adding(key: String, value: String, to file: [UInt8], _ settings: TextureSettings) throws -> [UInt8] {
        func u32(_ o: Int) -> Int { (0..<4).reduce(0) { $0 | Int(file[o + $1]) << (8 * $1) } }
        func u64(_ o: Int) -> Int { u32(o) | u32(o + 4) << 32 }
        let levelCount = max(1, u32(40))
        let (kvdOffset, kvdLength) = (u32(56), u32(60))
        let (sgdOffset, sgdLength) = (u64(64), u64(72))
        // The entries as they are, and the new one, sorted by their keys' bytes.
        var entries: [(key: [UInt8], bytes: [UInt8])] = []
        var o = kvdOffset
        while o + 4 <= kvdOffset + kvdLength {
            let n = u32(o)
            let pair = Array(file[(o + 4)..<(o + 4 + n)])
            entries.append((Array(pair.prefix { $0 != 0 }), pair))
            o += (4 + n + 3) / 4 * 4
        }
        entries.append((Array(key.utf8), Array(key.utf8) + [0] + Array(value.utf8) + [0]))
        entries.sort { $0.key.lexicographicallyPrecedes($1.key) }
        var kvd = ByteWriter()
        for e in entries {
            kvd.u32(UInt32(e.bytes.count))
            kvd.bytes += e.bytes
            kvd.pad(to: 4)
        }
        var out = ByteWriter()
        out.bytes = Array(file[0..<kvdOffset])
        out.bytes += kvd.bytes
        let end = kvdOffset + kvd.bytes.count
        func put(_ v: Int, at offset: Int, _ width: Int) {
            for k in 0..<width { out.bytes[offset + k] = UInt8(truncatingIfNeeded: v >> (8 * k)) }
        }
        put(kvd.bytes.count, at: 60, 4)
        if sgdLength > 0 {
            while out.bytes.count % 8 != 0 { out.bytes.append(0) }
            put(out.bytes.count, at: 64, 8)
            out.bytes += file[sgdOffset..<(sgdOffset + sgdLength)]
        } else {
            precondition(out.bytes.count == end)
        }
        let info = settings.format.info
        let supercompressed = u32(44) != 0
        let alignment = supercompressed ? 1 : lcm(info.blockBytes, 4)
        for n in (0..<levelCount).reversed() {
            let (offset, length) = (u64(80 + 24 * n), u64(88 + 24 * n))
            while out.bytes.count % alignment != 0 { out.bytes.append(0) }
            put(out.bytes.count, at: 80 + 24 * n, 8)
            out.bytes += file[offset..<(offset + length)]
        }
        return out.bytes
    }

    static func lcm(_ a: Int, _ b: Int) -> Int {
        var (x, y) = (a, b)
        while y != 0 { (x, y) = (y, x % y) }
        return a / x * b
    }
}
