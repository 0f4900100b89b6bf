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

    public init(_ bytes: [UInt8]) throws {
        func u32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        func u64(_ at: Int) -> Int { (0..<8).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        if bytes.starts(with: KTX2.identifier) {
            guard bytes.count >= 80 else { throw CodecError(.truncatedHeader("KTX2")) }
            container = .ktx2
            let vk = UInt32(u32(12))
            guard let (f, s) = TextureSettings.Format.forVulkan(vk) else {
                throw CodecError(.unknownTextureFormat("KTX2 vkFormat", vk))
            }
            (format, srgb) = (f, s)
            width = u32(20)
            height = u32(24)
            let count = max(1, u32(40))
            supercompression = u32(44) == 2 ? .zstd : .none
            guard bytes.count >= 80 + 24 * count else { throw CodecError(.truncatedLevelIndex) }
            let dfd = u32(48)
            alphaMode = dfd + 15 < bytes.count && bytes[dfd + 15] & 1 != 0 ? "premultiplied" : "straight"
            var levels: [Level] = []
            var data: [[UInt8]] = []
            for n in 0..<count {
                let (offset, length, raw) = (u64(80 + 24 * n), u64(88 + 24 * n), u64(96 + 24 * n))
                guard offset + length <= bytes.count else { throw CodecError(.levelPastTheEnd("KTX2", n)) }
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
            guard let (f, s) = TextureSettings.Format.forDXGI(dxgi) else {
                throw CodecError(.unknownTextureFormat("DDS DXGI format", dxgi))
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
                let size = f.info.levelBytes(w, h)
                guard at + size <= bytes.count else { throw CodecError(.levelPastTheEnd("DDS", n)) }
                levels.append(Level(width: w, height: h, bytes: size, uncompressedBytes: size))
                data.append(Array(bytes[at..<(at + size)]))
                at += size
            }
            self.levels = levels
            self.data = data
        } else {
            throw CodecError(.notATexture)
        }
    }

    /// Level n as an 8-bit RGBA image (its alpha state as the file says).
    public func level(_ n: Int) throws -> Image {
        let l = levels[n]
        var blocks = data[n]
        if supercompression == .zstd {
            guard let raw = Zstd.decompress(blocks, size: l.uncompressedBytes) else {
                throw CodecError(.corruptZstdLevel(n))
            }
            blocks = raw
        }
        let pixels = try TextureCodecs.decode(blocks, l.width, l.height, format: format, srgb: srgb)
        guard pixels.count == l.width * l.height * 4 else { throw CodecError(.levelWrongSize(n)) }
        return Image(
            width: l.width, height: l.height, pixels: .rgba8(pixels),
            alpha: alphaMode == "premultiplied" ? .premultiplied : .straight)
    }
}
