internal import CTexPipeASTC
internal import CZstd
internal import Foundation
import Synchronization
public import TexPipePixels

/// The pipeline's `texture` settings (SPEC §2 "GPU textures"): what a `.ktx2` or `.dds` output
/// holds. Declared once here; the manifest's table (`TexPipeManifest/OutputSettings.swift`) reads
/// its defaults from `standard`.
public struct TextureSettings: Sendable, Equatable {
    public enum Format: String, Sendable, CaseIterable {
        case rgba8
        case bc1, bc3, bc4, bc5, bc7
        case astc4x4 = "astc-4x4"
        case astc5x5 = "astc-5x5"
        case astc6x6 = "astc-6x6"
        case astc8x8 = "astc-8x8"
    }

    public enum ColorSpace: String, Sendable, CaseIterable { case srgb, linear }
    public enum Quality: String, Sendable, CaseIterable { case fast, medium, thorough }
    public enum Supercompression: String, Sendable, CaseIterable { case none, zstd }

    public var format: Format
    public var colorSpace: ColorSpace
    public var quality: Quality
    public var supercompression: Supercompression
    public var zstdLevel: Int

    public static let standard = TextureSettings(
        format: .rgba8, colorSpace: .srgb, quality: .medium, supercompression: .none, zstdLevel: 9)

    public init(
        format: Format, colorSpace: ColorSpace, quality: Quality, supercompression: Supercompression, zstdLevel: Int
    ) {
        self.format = format
        self.colorSpace = colorSpace
        self.quality = quality
        self.supercompression = supercompression
        self.zstdLevel = zstdLevel
    }

    var srgb: Bool { colorSpace == .srgb }
}

/// A GPU texture file's container.
public enum TextureContainer: String, Sendable { case ktx2, dds }

extension TextureSettings.Format {
    /// Texel block size (1×1 for rgba8).
    public var block: (width: Int, height: Int) {
        switch self {
        case .rgba8: (1, 1)
        case .bc1, .bc3, .bc4, .bc5, .bc7, .astc4x4: (4, 4)
        case .astc5x5: (5, 5)
        case .astc6x6: (6, 6)
        case .astc8x8: (8, 8)
        }
    }

    /// Bytes per texel block.
    public var blockBytes: Int {
        switch self {
        case .rgba8: 4
        case .bc1, .bc4: 8
        default: 16
        }
    }

    public var isASTC: Bool { [.astc4x4, .astc5x5, .astc6x6, .astc8x8].contains(self) }
    public var isBC: Bool { [.bc1, .bc3, .bc4, .bc5, .bc7].contains(self) }
    /// Data formats: UNORM only (`srgb` with them is a manifest error).
    public var isData: Bool { self == .bc4 || self == .bc5 }

    /// Bytes of one level of `width` × `height`: whole blocks, a partial block padded.
    public func levelBytes(_ width: Int, _ height: Int) -> Int {
        let (bw, bh) = block
        return ((width + bw - 1) / bw) * ((height + bh - 1) / bh) * blockBytes
    }

    /// `VkFormat` (Vulkan's enum, as KTX2 stores it).
    public func vkFormat(srgb: Bool) -> UInt32 {
        switch self {
        case .rgba8: srgb ? 43 : 37  // R8G8B8A8_SRGB / _UNORM
        case .bc1: srgb ? 132 : 131  // BC1_RGB_SRGB_BLOCK / _UNORM_BLOCK
        case .bc3: srgb ? 138 : 137
        case .bc4: 139  // BC4_UNORM_BLOCK
        case .bc5: 141  // BC5_UNORM_BLOCK
        case .bc7: srgb ? 146 : 145
        case .astc4x4: srgb ? 158 : 157
        case .astc5x5: srgb ? 162 : 161
        case .astc6x6: srgb ? 166 : 165
        case .astc8x8: srgb ? 172 : 171
        }
    }

    /// `DXGI_FORMAT` (DDS's DX10 header); nil for ASTC, which DDS does not carry.
    public func dxgiFormat(srgb: Bool) -> UInt32? {
        switch self {
        case .rgba8: srgb ? 29 : 28  // R8G8B8A8_UNORM_SRGB / _UNORM
        case .bc1: srgb ? 72 : 71
        case .bc3: srgb ? 78 : 77
        case .bc4: 80
        case .bc5: 83
        case .bc7: srgb ? 99 : 98
        default: nil
        }
    }

    /// The Khronos Data Format colour model of the basic descriptor block.
    var colorModel: UInt8 {
        switch self {
        case .rgba8: 1  // KHR_DF_MODEL_RGBSDA
        case .bc1: 128  // BC1A
        case .bc3: 130
        case .bc4: 131
        case .bc5: 132
        case .bc7: 134
        default: 162  // ASTC
        }
    }
}

/// The data format descriptor of a KTX2 file (Khronos Data Format Specification 1.3, basic
/// descriptor block): colour model, BT.709 primaries, sRGB or linear transfer, the
/// alpha-premultiplied flag, block dimensions, bytes per plane and one sample per channel.
public enum DataFormatDescriptor {
    struct Sample {
        var bitOffset: UInt16
        var bitLength: UInt8  // bits − 1
        var channel: UInt8  // channel id with the qualifier bits (0x10 linear) in the high nibble
        var lower: UInt32
        var upper: UInt32
    }

    public static func bytes(_ format: TextureSettings.Format, srgb: Bool, premultiplied: Bool) -> [UInt8] {
        let linearAlpha: UInt8 = srgb ? 0x10 : 0  // KHR_DF_SAMPLE_DATATYPE_LINEAR
        let samples: [Sample]
        switch format {
        case .rgba8:
            samples = [0, 1, 2, 15].enumerated().map { k, channel in
                Sample(
                    bitOffset: UInt16(8 * k), bitLength: 7, channel: UInt8(channel) | (channel == 15 ? linearAlpha : 0),
                    lower: 0, upper: 255)
            }
        case .bc1, .bc4:
            samples = [Sample(bitOffset: 0, bitLength: 63, channel: 0, lower: 0, upper: .max)]
        case .bc3:  // alpha block first, then the colour block
            samples = [
                Sample(bitOffset: 0, bitLength: 63, channel: 15 | linearAlpha, lower: 0, upper: .max),
                Sample(bitOffset: 64, bitLength: 63, channel: 0, lower: 0, upper: .max),
            ]
        case .bc5:
            samples = [
                Sample(bitOffset: 0, bitLength: 63, channel: 0, lower: 0, upper: .max),
                Sample(bitOffset: 64, bitLength: 63, channel: 1, lower: 0, upper: .max),
            ]
        case .bc7, .astc4x4, .astc5x5, .astc6x6, .astc8x8:
            samples = [Sample(bitOffset: 0, bitLength: 127, channel: 0, lower: 0, upper: .max)]
        }
        var out = ByteWriter()
        let blockSize = 24 + 16 * samples.count
        out.u32(UInt32(4 + blockSize))  // dfdTotalSize
        out.u32(0)  // vendorId KHRONOS (17 bits), descriptorType BASICFORMAT (15 bits)
        out.u32(2 | UInt32(blockSize) << 16)  // versionNumber 1.3, descriptorBlockSize
        let transfer: UInt32 = srgb ? 2 : 1  // KHR_DF_TRANSFER_SRGB / _LINEAR
        out.u32(UInt32(format.colorModel) | 1 << 8 | transfer << 16 | (premultiplied ? 1 : 0) << 24)
        let (bw, bh) = format.block
        out.u32(UInt32(bw - 1) | UInt32(bh - 1) << 8)  // texelBlockDimension0…3
        out.u32(UInt32(format.blockBytes))  // bytesPlane0 (planes 1…7 zero)
        out.u32(0)
        for s in samples {
            out.u32(UInt32(s.bitOffset) | UInt32(s.bitLength) << 16 | UInt32(s.channel) << 24)
            out.u32(0)  // samplePosition0…3
            out.u32(s.lower)
            out.u32(s.upper)
        }
        return out.bytes
    }
}

/// Little-endian byte writing.
struct ByteWriter {
    var bytes: [UInt8] = []
    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
    mutating func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
    mutating func pad(to alignment: Int) { while bytes.count % alignment != 0 { bytes.append(0) } }
}

/// GPU texture files: one image and its mip levels (level 0 first) encoded and put in a KTX2 or
/// DDS container. The block data of a level does not depend on how many cores encoded it.
public enum TextureEncoder {
    /// The file's bytes. `levels[0]` is the full-size image; every level must share its alpha
    /// state. Rows of blocks are split across the cores `rows` lends (astcenc's own threads).
    public static func encode(
        _ levels: [Image], _ settings: TextureSettings, container: TextureContainer,
        rows: any RowScheduler = SerialRows()
    ) throws -> [UInt8] {
        guard let first = levels.first else { throw CodecError(.textureWithoutLevels) }
        let format = settings.format
        if format == .bc1 {
            let translucent = Self.translucentTexels(first)
            if translucent > 0 { throw CodecError(.bc1NeedsOpaque(translucent, first.width, first.height)) }
        }
        if container == .dds && format.isASTC { throw CodecError(.astcInDDS) }
        var data: [[UInt8]] = []
        data.reserveCapacity(levels.count)
        for level in levels {
            let rgba = Self.rgba8(level)
            switch format {
            case .rgba8: data.append(rgba)
            case .bc1, .bc3, .bc4, .bc5, .bc7:
                data.append(
                    BC.encode(
                        rgba, width: level.width, height: level.height, format: format, quality: settings.quality,
                        rows: rows))
            case .astc4x4, .astc5x5, .astc6x6, .astc8x8:
                data.append(try ASTC.compress(rgba, level.width, level.height, settings, rows: rows))
            }
        }
        let premultiplied = first.alpha == .premultiplied
        switch container {
        case .ktx2:
            return try KTX2.file(first, levels.count, data, settings, premultiplied: premultiplied)
        case .dds:
            let opaque = levels.allSatisfy { Self.isOpaque($0) }
            return DDS.file(first, levels.count, data, settings, alphaMode: premultiplied ? 2 : opaque ? 3 : 1)
        }
    }

    /// The image as tightly packed 8-bit RGBA (16-bit rounded: (v · 255 + 32767) / 65535).
    public static func rgba8(_ image: Image) -> [UInt8] {
        switch image.pixels {
        case .rgba8(let p): return p
        case .rgba16(let p):
            return p.map { UInt8((UInt32($0) * 255 + 32767) / 65535) }
        }
    }

    /// Texels whose alpha is below max.
    static func translucentTexels(_ image: Image) -> Int {
        switch image.pixels {
        case .rgba8(let p): return stride(from: 3, to: p.count, by: 4).reduce(0) { $0 + (p[$1] < 255 ? 1 : 0) }
        case .rgba16(let p): return stride(from: 3, to: p.count, by: 4).reduce(0) { $0 + (p[$1] < 65535 ? 1 : 0) }
        }
    }

    static func isOpaque(_ image: Image) -> Bool {
        switch image.pixels {
        case .rgba8(let p): return stride(from: 3, to: p.count, by: 4).allSatisfy { p[$0] == 255 }
        case .rgba16(let p): return stride(from: 3, to: p.count, by: 4).allSatisfy { p[$0] == 65535 }
        }
    }
}

/// KTX 2.0 (Khronos KTX File Format Specification 2.0).
enum KTX2 {
    static let identifier: [UInt8] = [0xAB, 0x4B, 0x54, 0x58, 0x20, 0x32, 0x30, 0xBB, 0x0D, 0x0A, 0x1A, 0x0A]

    static func file(
        _ image: Image, _ levelCount: Int, _ data: [[UInt8]], _ settings: TextureSettings, premultiplied: Bool
    ) throws -> [UInt8] {
        let format = settings.format
        let srgb = settings.srgb && !format.isData
        let zstd = settings.supercompression == .zstd
        let stored: [[UInt8]] = zstd ? try data.map { try Zstd.compress($0, level: settings.zstdLevel) } : data
        let dfd = DataFormatDescriptor.bytes(format, srgb: srgb, premultiplied: premultiplied)
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
            kvdOffset + kvd.bytes.count + stored.reduce(0) { $0 + $1.count } + levelCount * lcm(format.blockBytes, 4))
        out.bytes += identifier
        out.u32(format.vkFormat(srgb: srgb))
        out.u32(1)  // typeSize: 1 for 8-bit and block-compressed formats
        out.u32(UInt32(image.width))
        out.u32(UInt32(image.height))
        out.u32(0)  // pixelDepth
        out.u32(0)  // layerCount
        out.u32(1)  // faceCount
        out.u32(UInt32(levelCount))
        out.u32(zstd ? 2 : 0)  // supercompressionScheme
        out.u32(UInt32(dfdOffset))
        out.u32(UInt32(dfd.count))
        out.u32(UInt32(kvdOffset))
        out.u32(UInt32(kvd.bytes.count))
        out.u64(0)  // sgdByteOffset
        out.u64(0)  // sgdByteLength
        // Level data is stored smallest level first, each level aligned to lcm(block bytes, 4)
        // (1 when supercompressed); the index lists level 0 first.
        let alignment = zstd ? 1 : lcm(format.blockBytes, 4)
        var offsets = [Int](repeating: 0, count: levelCount)
        var cursor = kvdOffset + kvd.bytes.count
        for n in (0..<levelCount).reversed() {
            cursor = (cursor + alignment - 1) / alignment * alignment
            offsets[n] = cursor
            cursor += stored[n].count
        }
        for n in 0..<levelCount {
            out.u64(UInt64(offsets[n]))
            out.u64(UInt64(stored[n].count))
            out.u64(UInt64(data[n].count))
        }
        out.bytes += dfd
        out.bytes += kvd.bytes
        for n in (0..<levelCount).reversed() {
            while out.bytes.count < offsets[n] { out.bytes.append(0) }
            out.bytes += stored[n]
        }
        return out.bytes
    }

    static func lcm(_ a: Int, _ b: Int) -> Int {
        var (x, y) = (a, b)
        while y != 0 { (x, y) = (y, x % y) }
        return a / x * b
    }
}

/// DDS with the DX10 header (Microsoft's DDS documentation): `DDS `, DDS_HEADER, DDS_HEADER_DXT10,
/// then every level, level 0 first.
enum DDS {
    static func file(
        _ image: Image, _ levelCount: Int, _ data: [[UInt8]], _ settings: TextureSettings, alphaMode: UInt32
    )
        -> [UInt8]
    {
        let format = settings.format
        let srgb = settings.srgb && !format.isData
        var out = ByteWriter()
        out.bytes.reserveCapacity(148 + data.reduce(0) { $0 + $1.count })
        out.bytes += Array("DDS ".utf8)
        let compressed = format != .rgba8
        // DDSD_CAPS | HEIGHT | WIDTH | PIXELFORMAT | MIPMAPCOUNT, and LINEARSIZE or PITCH.
        var flags: UInt32 = 0x1 | 0x2 | 0x4 | 0x1000 | 0x20000
        flags |= compressed ? 0x80000 : 0x8
        out.u32(124)  // dwSize
        out.u32(flags)
        out.u32(UInt32(image.height))
        out.u32(UInt32(image.width))
        // Pitch of a row (uncompressed) or the byte size of level 0 (block-compressed).
        out.u32(UInt32(compressed ? format.levelBytes(image.width, image.height) : image.width * 4))
        out.u32(0)  // dwDepth
        out.u32(UInt32(levelCount))
        for _ in 0..<11 { out.u32(0) }  // dwReserved1
        // DDS_PIXELFORMAT: DDPF_FOURCC with "DX10": the real format is in the DX10 header.
        out.u32(32)
        out.u32(0x4)
        out.bytes += Array("DX10".utf8)
        for _ in 0..<5 { out.u32(0) }
        // DDSCAPS_TEXTURE, and COMPLEX | MIPMAP when there are levels.
        out.u32(0x1000 | (levelCount > 1 ? 0x8 | 0x400000 : 0))
        for _ in 0..<4 { out.u32(0) }  // dwCaps2, dwCaps3, dwCaps4, dwReserved2
        // DDS_HEADER_DXT10
        out.u32(format.dxgiFormat(srgb: srgb)!)
        out.u32(3)  // D3D10_RESOURCE_DIMENSION_TEXTURE2D
        out.u32(0)  // miscFlag
        out.u32(1)  // arraySize
        out.u32(alphaMode)  // miscFlags2: DDS_ALPHA_MODE_STRAIGHT 1, PREMULTIPLIED 2, OPAQUE 3
        for level in data { out.bytes += level }
        return out.bytes
    }
}

/// zstd through libzstd: one frame per level, the same bytes for the same input and level.
public enum Zstd {
    public static func compress(_ bytes: [UInt8], level: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: ZSTD_compressBound(bytes.count))
        let n = bytes.withUnsafeBytes { src in
            out.withUnsafeMutableBytes { dst in
                ZSTD_compress(dst.baseAddress, dst.count, src.baseAddress, src.count, Int32(level))
            }
        }
        if ZSTD_isError(n) != 0 { throw CodecError(.zstd(String(cString: ZSTD_getErrorName(n)))) }
        out.removeSubrange(n...)
        return out
    }

    /// nil when the frame is corrupt or does not hold exactly `size` bytes.
    public static func decompress(_ bytes: [UInt8], size: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: size)
        let n = bytes.withUnsafeBytes { src in
            out.withUnsafeMutableBytes { dst in ZSTD_decompress(dst.baseAddress, dst.count, src.baseAddress, src.count)
            }
        }
        return ZSTD_isError(n) == 0 && n == size ? out : nil
    }
}

/// ASTC LDR through astcenc (the `CTexPipeASTC` shim). Presets: fast 10, medium 60, thorough 98
/// (astcenc's own `-fast`, `-medium`, `-thorough`).
public enum ASTC {
    static func preset(_ q: TextureSettings.Quality) -> Float {
        switch q {
        case .fast: 10
        case .medium: 60
        case .thorough: 98
        }
    }

    /// Blocks of a w × h RGBA8 image. astcenc runs one thread per core `rows` lends; its output
    /// does not depend on the thread count.
    static func compress(
        _ rgba: [UInt8], _ w: Int, _ h: Int, _ settings: TextureSettings, rows: any RowScheduler
    ) throws -> [UInt8] {
        let (bw, bh) = settings.format.block
        let blocks = ((w + bw - 1) / bw) * ((h + bh - 1) / bh)
        // astcenc's threads share the image's blocks through the context: each caller takes
        // blocks until none are left, so however many of the `threads` slots the scheduler
        // fills (one per band it runs), the image is done and the blocks are the same.
        let threads = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 64))
        var error = [CChar](repeating: 0, count: 256)
        guard
            let context = tp_astc_context_alloc(
                UInt32(bw), UInt32(bh), settings.srgb ? 1 : 0, preset(settings.quality), UInt32(threads), 0, &error, 256
            )
        else { throw CodecError(.astc(String(nullTerminated: error))) }
        defer { tp_astc_context_free(context) }
        var out = [UInt8](repeating: 0, count: blocks * 16)
        // A band's failure, the first one kept (bands may run at once).
        let failure = Mutex<String?>(nil)
        out.withUnsafeMutableBufferPointer { dst in
            rgba.withUnsafeBufferPointer { src in
                rows.forEachBand(rows: threads, pixelsPerRow: max(1, w * h / threads)) { band in
                    var message = [CChar](repeating: 0, count: 256)
                    if tp_astc_compress(
                        context, src.baseAddress, UInt32(w), UInt32(h), dst.baseAddress, blocks * 16,
                        UInt32(band.lowerBound), &message, 256) != 0
                    {
                        failure.withLock { $0 = $0 ?? String(nullTerminated: message) }
                    }
                }
            }
        }
        if let first = failure.withLock({ $0 }) { throw CodecError(.astc(first)) }
        return out
    }

    /// The texels of ASTC blocks (for previews and `inspect`).
    public static func decompress(
        _ data: [UInt8], width: Int, height: Int, format: TextureSettings.Format, srgb: Bool
    ) throws -> [UInt8] {
        let (bw, bh) = format.block
        var error = [CChar](repeating: 0, count: 256)
        guard let context = tp_astc_context_alloc(UInt32(bw), UInt32(bh), srgb ? 1 : 0, 60, 1, 1, &error, 256) else {
            throw CodecError(.astc(String(nullTerminated: error)))
        }
        defer { tp_astc_context_free(context) }
        var out = [UInt8](repeating: 0, count: width * height * 4)
        let status = data.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                tp_astc_decompress(
                    context, src.baseAddress, src.count, UInt32(width), UInt32(height), dst.baseAddress, &error, 256)
            }
        }
        if status != 0 { throw CodecError(.astc(String(nullTerminated: error))) }
        return out
    }
}

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
    }

    public var container: TextureContainer
    public var format: TextureSettings.Format
    public var srgb: Bool
    /// `premultiplied`, `straight` or (DDS) `opaque`.
    public var alphaMode: String
    public var width: Int
    public var height: Int
    public var levels: [Level]
    public var supercompression: TextureSettings.Supercompression
    let data: [[UInt8]]

    struct Invalid: Error, CustomStringConvertible {
        var description: String
    }

    public init(_ bytes: [UInt8]) throws {
        func u32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        func u64(_ at: Int) -> Int { (0..<8).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        if bytes.starts(with: KTX2.identifier) {
            guard bytes.count >= 80 else { throw Invalid(description: "truncated KTX2 header") }
            container = .ktx2
            let vk = UInt32(u32(12))
            guard let (f, s) = Self.format(where: { $0.vkFormat(srgb: $1) == vk }) else {
                throw Invalid(description: "KTX2 vkFormat \(vk) is not one texpipe writes")
            }
            (format, srgb) = (f, s)
            width = u32(20)
            height = u32(24)
            let count = max(1, u32(40))
            supercompression = u32(44) == 2 ? .zstd : .none
            guard bytes.count >= 80 + 24 * count else { throw Invalid(description: "truncated KTX2 level index") }
            let dfd = u32(48)
            alphaMode = dfd + 15 < bytes.count && bytes[dfd + 15] & 1 != 0 ? "premultiplied" : "straight"
            var levels: [Level] = []
            var data: [[UInt8]] = []
            for n in 0..<count {
                let (offset, length, raw) = (u64(80 + 24 * n), u64(88 + 24 * n), u64(96 + 24 * n))
                guard offset + length <= bytes.count else { throw Invalid(description: "KTX2 level \(n) past the end") }
                levels.append(
                    Level(width: max(1, width >> n), height: max(1, height >> n), bytes: length, uncompressedBytes: raw)
                )
                data.append(Array(bytes[offset..<(offset + length)]))
            }
            self.levels = levels
            self.data = data
        } else if bytes.starts(with: Array("DDS ".utf8)), bytes.count >= 148, bytes[84..<88].elementsEqual("DX10".utf8)
        {
            container = .dds
            let dxgi = UInt32(u32(128))
            guard let (f, s) = Self.format(where: { $0.dxgiFormat(srgb: $1) == dxgi }) else {
                throw Invalid(description: "DDS DXGI format \(dxgi) is not one texpipe writes")
            }
            (format, srgb) = (f, s)
            height = u32(12)
            width = u32(16)
            let count = max(1, u32(28))
            alphaMode = [1: "straight", 2: "premultiplied", 3: "opaque"][u32(144)] ?? "unknown"
            supercompression = .none
            var at = 148
            var levels: [Level] = []
            var data: [[UInt8]] = []
            for n in 0..<count {
                let (w, h) = (max(1, width >> n), max(1, height >> n))
                let size = f.levelBytes(w, h)
                guard at + size <= bytes.count else { throw Invalid(description: "DDS level \(n) past the end") }
                levels.append(Level(width: w, height: h, bytes: size, uncompressedBytes: size))
                data.append(Array(bytes[at..<(at + size)]))
                at += size
            }
            self.levels = levels
            self.data = data
        } else {
            throw Invalid(description: "not a KTX2 or DDS file texpipe can read")
        }
    }

    /// The format and colour space a container's format number stands for.
    static func format(
        where matches: (TextureSettings.Format, Bool) -> Bool
    ) -> (TextureSettings.Format, Bool)? {
        for f in TextureSettings.Format.allCases {
            for srgb in [false, true] where matches(f, srgb) { return (f, srgb) }  // data formats: UNORM
        }
        return nil
    }

    /// Level n as an 8-bit RGBA image (its alpha state as the file says).
    public func level(_ n: Int) throws -> Image {
        let l = levels[n]
        var blocks = data[n]
        if supercompression == .zstd {
            guard let raw = Zstd.decompress(blocks, size: l.uncompressedBytes) else {
                throw Invalid(description: "level \(n): corrupt zstd frame")
            }
            blocks = raw
        }
        let pixels: [UInt8]
        switch format {
        case .rgba8: pixels = blocks
        case .bc1, .bc3, .bc4, .bc5, .bc7:
            pixels = try BC.decode(blocks, format: format, width: l.width, height: l.height)
        case .astc4x4, .astc5x5, .astc6x6, .astc8x8:
            pixels = try ASTC.decompress(blocks, width: l.width, height: l.height, format: format, srgb: srgb)
        }
        guard pixels.count == l.width * l.height * 4 else { throw Invalid(description: "level \(n): wrong size") }
        return Image(
            width: l.width, height: l.height, pixels: .rgba8(pixels),
            alpha: alphaMode == "premultiplied" ? .premultiplied : .straight)
    }
}
