import Foundation
import Testing
import TexPipePlanTestSupport
import TexPipeTestSupport

@testable import TexPipe
@testable import TexPipeCodecs
@testable import TexPipeEngine
@testable import TexPipeFormats
@testable import TexPipeManifest
@testable import TexPipePixels
@testable import TexPipePlan
@testable import TexPipeStages

/// KTX2 and DDS files read back with the spec-written readers in Support/TextureReaders.swift;
/// ASTC blocks decoded by Arm's `astcenc` command-line tool; zstd frames by Python's zstandard.
@Suite("GPU textures")
struct TextureTests {
    /// A deterministic RGBA test image with a smooth gradient, edges and (optionally) alpha.
    static func picture(_ w: Int, _ h: Int, alpha: Bool = true) -> Image {
        var p = [UInt8](repeating: 0, count: w * h * 4)
        for y in 0..<h {
            for x in 0..<w {
                let i = (y * w + x) * 4
                p[i] = UInt8((x * 255) / max(1, w - 1))
                p[i + 1] = UInt8((y * 255) / max(1, h - 1))
                p[i + 2] = UInt8(((x / 8 + y / 8) % 2) * 200 + 20)
                p[i + 3] = alpha ? UInt8(128 + (x + y) % 128) : 255
            }
        }
        return Image(width: w, height: h, pixels: .rgba8(p))
    }

    static func chain(_ image: Image) throws -> [Image] {
        var m = Mipmaps()
        m.layout = .texture
        return try m.applied(to: image)
    }

    static func settings(_ format: TextureSettings.Format, _ cs: TextureSettings.ColorSpace = .srgb, zstd: Bool = false)
        -> TextureSettings
    {
        var s = TextureSettings.standard
        s.format = format
        s.colorSpace = cs
        s.supercompression = zstd ? .zstd : .none
        return s
    }

    static func rgba(_ image: Image) -> [UInt8] {
        guard case .rgba8(let p) = image.pixels else { return [] }
        return p
    }

    // MARK: KTX2, rgba8

    /// Every header field, the DFD word by word (computed here from the Data Format
    /// Specification), the key/values, the level index and each level's bytes.
    @Test(arguments: [
        (TextureSettings.ColorSpace.srgb, AlphaState.straight), (.linear, .straight), (.srgb, .premultiplied),
    ])
    func rgba8KTX2(colorSpace: TextureSettings.ColorSpace, alpha: AlphaState) throws {
        var base = Self.picture(37, 20)
        if alpha == .premultiplied { base = try Premultiply().applied(to: base)[0] }
        let levels = try Self.chain(base)
        #expect(levels.count == 6)  // 37×20, 18×10, 9×5, 4×2, 2×1, 1×1
        let bytes = try TextureEncoder.encode(levels, Self.settings(.rgba8, colorSpace), container: .ktx2)
        let f = try #require(KTX2File(bytes))
        #expect(f.identifierOK)
        #expect(f.vkFormat == (colorSpace == .srgb ? 43 : 37))  // VK_FORMAT_R8G8B8A8_SRGB / _UNORM
        #expect(f.typeSize == 1)
        #expect((f.pixelWidth, f.pixelHeight, f.pixelDepth) == (37, 20, 0))
        #expect((f.layerCount, f.faceCount, f.levelCount) == (0, 1, 6))
        #expect(f.supercompressionScheme == 0)
        #expect((f.sgdByteOffset, f.sgdByteLength) == (0, 0))
        #expect(f.dfdByteOffset == 80 + 24 * 6)
        #expect(f.kvdByteOffset == f.dfdByteOffset + f.dfdByteLength)
        // DFD: total size, then the basic block (version 1.3 = 2, block size 24 + 16 × 4).
        let transfer: UInt32 = colorSpace == .srgb ? 2 : 1
        let premultipliedFlag: UInt32 = alpha == .premultiplied ? 1 : 0
        let alphaQualifier: UInt32 = colorSpace == .srgb ? 0x10 : 0  // sRGB: alpha is linear
        var expected: [UInt32] = [92, 0, 2 | 88 << 16, 1 | 1 << 8 | transfer << 16 | premultipliedFlag << 24, 0, 4, 0]
        for (k, channel) in [UInt32(0), 1, 2, 15].enumerated() {
            let qualifier = channel == 15 ? alphaQualifier : 0
            expected += [UInt32(8 * k) | 7 << 16 | (channel | qualifier) << 24, 0, 0, 255]
        }
        #expect(f.dfdWords == expected)
        #expect(f.colorModel == 1 && f.colorPrimaries == 1 && f.vendorId == 0 && f.descriptorType == 0)
        // Key/values, sorted, NUL-terminated values.
        #expect(f.keyValues.map(\.key) == ["KTXorientation", "KTXwriter"])
        #expect(f.keyValues[0].value == Array("rd".utf8))
        #expect(f.keyValues[1].value == Array("texpipe \(TexPipeVersion.string)".utf8))
        // Levels: level 0 first in the index, stored smallest first, 4-byte aligned, exact bytes.
        for n in 0..<6 {
            let l = f.levels[n]
            #expect(l.byteOffset % 4 == 0)
            #expect(l.byteLength == UInt64(levels[n].width * levels[n].height * 4))
            #expect(l.uncompressedByteLength == l.byteLength)
            #expect(f.levelData(n) == Self.rgba(levels[n]))
            if n > 0 { #expect(f.levels[n].byteOffset < f.levels[n - 1].byteOffset) }
        }
        #expect(Int(f.levels[0].byteOffset + f.levels[0].byteLength) == bytes.count)
    }

    /// The DFD of every format × colour space × alpha state, word by word, from the Data Format
    /// Specification: colour models (RGBSDA 1, BC1A 128, BC3 130, BC4 131, BC5 132, BC7 134, ETC2
    /// 161, ASTC 162), block dimensions − 1, bytes per plane, and the samples (BC3: alpha block then colour;
    /// BC5: red then green; alpha samples marked linear under sRGB).
    @Test func dataFormatDescriptorOfEveryFormat() {
        for format in TextureSettings.Format.allCases {
            for srgb in [true, false] where !(srgb && format.info.isData) {
                for premultiplied in [false, true] {
                    let words = DataFormatDescriptor.bytes(format, srgb: srgb, premultiplied: premultiplied)
                    let w = stride(from: 0, to: words.count, by: 4).map { i in
                        (0..<4).reduce(UInt32(0)) { $0 | UInt32(words[i + $1]) << (8 * $1) }
                    }
                    let linearA: UInt32 = srgb ? 0x10 : 0
                    let (model, dims, plane, samples): (UInt32, UInt32, UInt32, [[UInt32]]) =
                        switch format {
                        case .rgba8:
                            (
                                1, 0, 4,
                                [
                                    [0 | 7 << 16, 0, 0, 255], [8 | 7 << 16 | 1 << 24, 0, 0, 255],
                                    [16 | 7 << 16 | 2 << 24, 0, 0, 255],
                                    [24 | 7 << 16 | (15 | linearA) << 24, 0, 0, 255],
                                ]
                            )
                        case .bc1: (128, 3 | 3 << 8, 8, [[63 << 16, 0, 0, 0xFFFF_FFFF]])
                        case .bc3:
                            (
                                130, 3 | 3 << 8, 16,
                                [
                                    [63 << 16 | (15 | linearA) << 24, 0, 0, 0xFFFF_FFFF],
                                    [64 | 63 << 16, 0, 0, 0xFFFF_FFFF],
                                ]
                            )
                        case .bc4: (131, 3 | 3 << 8, 8, [[63 << 16, 0, 0, 0xFFFF_FFFF]])
                        case .bc5:
                            (
                                132, 3 | 3 << 8, 16,
                                [[63 << 16, 0, 0, 0xFFFF_FFFF], [64 | 63 << 16 | 1 << 24, 0, 0, 0xFFFF_FFFF]]
                            )
                        case .bc7: (134, 3 | 3 << 8, 16, [[127 << 16, 0, 0, 0xFFFF_FFFF]])
                        case .astc4x4: (162, 3 | 3 << 8, 16, [[127 << 16, 0, 0, 0xFFFF_FFFF]])
                        case .astc5x5: (162, 4 | 4 << 8, 16, [[127 << 16, 0, 0, 0xFFFF_FFFF]])
                        case .astc6x6: (162, 5 | 5 << 8, 16, [[127 << 16, 0, 0, 0xFFFF_FFFF]])
                        case .astc8x8: (162, 7 | 7 << 8, 16, [[127 << 16, 0, 0, 0xFFFF_FFFF]])
                        // ETC2 (model 161): colour channel 2, alpha 15 first in RGBA; EAC red 0, green 1.
                        case .etc2RGB: (161, 3 | 3 << 8, 8, [[63 << 16 | 2 << 24, 0, 0, 0xFFFF_FFFF]])
                        case .etc2RGBA:
                            (
                                161, 3 | 3 << 8, 16,
                                [
                                    [63 << 16 | (15 | linearA) << 24, 0, 0, 0xFFFF_FFFF],
                                    [64 | 63 << 16 | 2 << 24, 0, 0, 0xFFFF_FFFF],
                                ]
                            )
                        case .eacR11: (161, 3 | 3 << 8, 8, [[63 << 16, 0, 0, 0xFFFF_FFFF]])
                        case .eacRG11:
                            (
                                161, 3 | 3 << 8, 16,
                                [[63 << 16, 0, 0, 0xFFFF_FFFF], [64 | 63 << 16 | 1 << 24, 0, 0, 0xFFFF_FFFF]]
                            )
                        // UASTC (model 166): one 128-bit sample, channel KHR_DF_CHANNEL_UASTC_RGBA (3).
                        case .uastc: (166, 3 | 3 << 8, 16, [[127 << 16 | 3 << 24, 0, 0, 0xFFFF_FFFF]])
                        // ETC1S (model 163): supercompressed, so bytesPlane0 0; one 64-bit sample of
                        // KHR_DF_CHANNEL_ETC1S_RGB (0) (an AAA sample follows when the file has alpha).
                        case .etc1s: (163, 3 | 3 << 8, 0, [[63 << 16, 0, 0, 0xFFFF_FFFF]])
                        // BC6H (model 133): one 128-bit sample of channel 0, FLOAT (0x80), 0.0 to 1.0.
                        case .bc6h: (133, 3 | 3 << 8, 16, [[127 << 16 | 0x80 << 24, 0, 0, 0x3F80_0000]])
                        // ASTC HDR (model 162, SFLOAT): one 128-bit sample, FLOAT | SIGNED, −1.0 to 1.0.
                        case .astc4x4HDR:
                            (162, 3 | 3 << 8, 16, [[127 << 16 | 0xC0 << 24, 0, 0xBF80_0000, 0x3F80_0000]])
                        case .astc6x6HDR:
                            (162, 5 | 5 << 8, 16, [[127 << 16 | 0xC0 << 24, 0, 0xBF80_0000, 0x3F80_0000]])
                        // Half floats: R, G, B, A of 16 bits, each FLOAT | SIGNED (0xC0), −1.0 to 1.0.
                        case .rgba16f:
                            (
                                1, 0, 8,
                                [0, 1, 2, 15].enumerated().map { k, c in
                                    [
                                        UInt32(16 * k) | 15 << 16 | (c | 0xC0) << 24, 0, 0xBF80_0000, 0x3F80_0000,
                                    ]
                                }
                            )
                        }
                    let block = UInt32(24 + 16 * samples.count)
                    let transfer: UInt32 = srgb ? 2 : 1
                    let flags: UInt32 = premultiplied ? 1 : 0
                    let head: [UInt32] = [
                        4 + block, 0, 2 | block << 16, model | 1 << 8 | transfer << 16 | flags << 24, dims, plane, 0,
                    ]
                    let expected: [UInt32] = head + samples.flatMap { $0 }
                    #expect(w == expected, "\(format) srgb \(srgb) premultiplied \(premultiplied)")
                }
            }
        }
    }

    /// A 16-bit chain is rounded to 8 bits: v8 = round(v16 · 255 / 65535).
    @Test func sixteenBitIsRoundedToEight() throws {
        let values = [0, 1, 128, 129, 257, 32767, 32768, 65279, 65534, 65535]
        let image = image16(values.count, 1, values.map { [$0, 65535 - $0, $0, 65535] })
        let bytes = try TextureEncoder.encode([image], Self.settings(.rgba8), container: .ktx2)
        let f = try #require(KTX2File(bytes))
        let expected = values.flatMap { v in
            [v, 65535 - v, v, 65535].map { UInt8(roundHalfUp(Double($0) * 255 / 65535)) }
        }
        #expect(f.levelData(0) == expected)
    }

    // MARK: zstd

    /// Each level is one zstd frame that Python's zstandard inflates to the uncompressed file's
    /// level bytes; the index records both lengths.
    @Test(Reference.needs(Python.has("zstandard"), "python3 zstandard"))
    func zstdLevelsInflateToThePlainLevels() throws {
        let levels = try Self.chain(Self.picture(64, 48))
        let plain = try #require(KTX2File(try TextureEncoder.encode(levels, Self.settings(.rgba8), container: .ktx2)))
        let packed = try #require(
            KTX2File(try TextureEncoder.encode(levels, Self.settings(.rgba8, zstd: true), container: .ktx2)))
        #expect(packed.supercompressionScheme == 2)
        #expect(packed.vkFormat == plain.vkFormat && packed.dfdWords == plain.dfdWords)
        let t = TempDir()
        for n in 0..<levels.count {
            #expect(packed.levels[n].uncompressedByteLength == plain.levels[n].byteLength)
            #expect(packed.levels[n].byteLength < packed.levels[n].uncompressedByteLength || n > 3)
            t.write("level\(n).zst", packed.levelData(n))
            let out = try Python.run(
                "import sys, zstandard; sys.stdout.buffer.write(zstandard.ZstdDecompressor().decompress(open(sys.argv[1], 'rb').read()))",
                t.path + "/level\(n).zst")
            #expect(out == plain.levelData(n), "level \(n)")
        }
    }

    // MARK: ASTC

    /// An ASTC file (Arm's .astc header) around one level's blocks, for the astcenc CLI.
    static func astcFile(_ blocks: [UInt8], _ w: Int, _ h: Int, block: (Int, Int)) -> [UInt8] {
        var header: [UInt8] = [0x13, 0xAB, 0xA1, 0x5C, UInt8(block.0), UInt8(block.1), 1]
        for v in [w, h, 1] { header += [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF)] }
        return header + blocks
    }

    /// ASTC 6×6 level data decoded by the astcenc CLI: KTX2 fields for the format, and a PSNR
    /// equal to what the CLI itself reaches at -medium on the same image (within 0.1 dB).
    @Test(Reference.needs(ASTCTool.available, "the astcenc CLI"))
    func astc6x6MatchesTheReferenceEncoder() throws {
        let source = Self.picture(83, 61)
        let bytes = try TextureEncoder.encode([source], Self.settings(.astc6x6, .linear), container: .ktx2)
        let f = try #require(KTX2File(bytes))
        #expect(f.vkFormat == 165)  // VK_FORMAT_ASTC_6x6_UNORM_BLOCK
        #expect(f.colorModel == 162 && f.texelBlockDimension == [5, 5, 0, 0] && f.bytesPlane[0] == 16)
        #expect(
            f.samples == [
                .init(
                    bitOffset: 0, bitLength: 127, channelType: 0, qualifiers: 0, samplePosition: [0, 0, 0, 0], lower: 0,
                    upper: 0xFFFF_FFFF)
            ])
        #expect(f.levels[0].byteLength == UInt64(14 * 11 * 16))
        #expect(f.levels[0].byteOffset % 16 == 0)
        let t = TempDir()
        t.write("ours.astc", Self.astcFile(f.levelData(0), 83, 61, block: (6, 6)))
        let ours = try ASTCTool.decode(t.path + "/ours.astc", in: t)
        let theirs = try ASTCTool.roundTrip(source, block: "6x6", preset: "-medium", in: t)
        let (a, b) = (psnr(Self.rgba(source), ours), psnr(Self.rgba(source), theirs))
        #expect(abs(a - b) <= 0.1, "texpipe \(a) dB, astcenc \(b) dB")
        #expect(a > 30)
    }

    /// Levels smaller than a block (1×1, 2×2, 3×5) and sizes that are not multiples of it: one
    /// padded block each, which decodes to the level's texels.
    @Test(Reference.needs(ASTCTool.available, "the astcenc CLI"))
    func levelsSmallerThanABlock() throws {
        let t = TempDir()
        for (w, h) in [(1, 1), (2, 2), (3, 5), (7, 13)] {
            let solid = Image(
                width: w, height: h, pixels: .rgba8([UInt8]((0..<(w * h)).flatMap { _ in [200, 100, 50, 255] })))
            let bytes = try TextureEncoder.encode([solid], Self.settings(.astc4x4, .linear), container: .ktx2)
            let f = try #require(KTX2File(bytes))
            #expect(f.levels[0].byteLength == UInt64(((w + 3) / 4) * ((h + 3) / 4) * 16))
            t.write("s.astc", Self.astcFile(f.levelData(0), w, h, block: (4, 4)))
            let decoded = try ASTCTool.decode(t.path + "/s.astc", in: t)
            for i in stride(from: 0, to: decoded.count, by: 4) {
                #expect(
                    abs(Int(decoded[i]) - 200) <= 1 && abs(Int(decoded[i + 1]) - 100) <= 1
                        && abs(Int(decoded[i + 2]) - 50) <= 1)
            }
        }
    }

    /// astcenc's output does not depend on how many threads shared the image.
    @Test func astcBlocksDoNotDependOnThreads() throws {
        let source = Self.picture(300, 200)
        let one = try TextureEncoder.encode([source], Self.settings(.astc8x8), container: .ktx2)
        let many = try TextureEncoder.encode([source], Self.settings(.astc8x8), container: .ktx2, rows: ThreadedRows())
        #expect(one == many)
    }

    /// astcenc 4.2 keeps a tuning value from the first texture a process compresses (upstream
    /// issue #537); texpipe pins it, so a texture's blocks do not depend on what was compressed
    /// before it (each of these once came out different after the others).
    @Test func astcBlocksDoNotDependOnWhatCameBefore() throws {
        let x = Self.picture(256, 256)
        let first = try TextureEncoder.encode([x], Self.settings(.astc4x4), container: .ktx2)
        for other in [TextureSettings.Format.astc6x6, .astc8x8, .astc5x5] {
            for quality in TextureSettings.Quality.allCases {
                var s = Self.settings(other)
                s.quality = quality
                _ = try TextureEncoder.encode([Self.picture(72, 100)], s, container: .ktx2)
                #expect(try TextureEncoder.encode([x], Self.settings(.astc4x4), container: .ktx2) == first)
            }
        }
    }

    /// bc1 holds no alpha: an image with any alpha below max is refused, with the count.
    /// Every BC format through the texture writer: each level's data is that format's blocks
    /// (texpipe's encoder, same bytes as encoding the level alone), and PyPI's texture2ddecoder
    /// reads them back close to the level (alpha too where the format holds it).
    @Test(
        Reference.needs(BlockReference.hasDecoder, "python3 texture2ddecoder"),
        arguments: bcFormats)
    func bcLevelsAreTheirFormatsBlocks(_ format: TextureSettings.Format) throws {
        let alpha = format == .bc3 || format == .bc7
        let levels = [(24, 16), (12, 8)].map { (w, h) in
            Image(width: w, height: h, pixels: .rgba8(BlockReference.picture(w, h, seed: UInt64(w), alpha: alpha)))
        }
        let bytes = try TextureEncoder.encode(
            levels, Self.settings(format, format.info.isData ? .linear : .srgb), container: .ktx2)
        let f = try #require(KTX2File(bytes))
        for (n, level) in levels.enumerated() {
            let rgba = TextureEncoder.rgba8(level)
            let data = f.levelData(n)
            #expect(
                data
                    == (try BC.blocks(rgba, width: level.width, height: level.height, format: format, quality: .medium)),
                "\(format) level \(n)")
            let decoded = try BlockReference.reference(data, format, level.width, level.height)
            let channels = format == .bc4 ? [0] : format == .bc5 ? [0, 1] : alpha ? [0, 1, 2, 3] : [0, 1, 2]
            // A loose floor (level 1 is a steep 12×8: 25–28 dB): blocks of another format read
            // as these decode to noise, under 10 dB.
            #expect(psnr(decoded, rgba, channels: channels) > 20, "\(format) level \(n)")
        }
    }

    @Test func bc1RefusesAlpha() throws {
        let image = Self.picture(10, 4)  // alpha 128 + (x + y) % 128: every texel below 255
        #expect(throws: CodecError.self) { try TextureEncoder.encode([image], Self.settings(.bc1), container: .dds) }
        do {
            _ = try TextureEncoder.encode([image], Self.settings(.bc1), container: .dds)
        } catch {
            #expect(
                "\(error)"
                    == "bc1 holds no alpha: 40 of the 10×4 texels have alpha below max (use bc3 or bc7, or flatten first)"
            )
        }
    }

    // MARK: DDS

    @Test(arguments: [AlphaState.straight, .premultiplied])
    func ddsHeaderAndData(alpha: AlphaState) throws {
        var base = Self.picture(20, 12)
        if alpha == .premultiplied { base = try Premultiply().applied(to: base)[0] }
        let levels = try Self.chain(base)
        let bytes = try TextureEncoder.encode(levels, Self.settings(.rgba8), container: .dds)
        let f = try #require(DDSFile(bytes))
        #expect(f.magicOK && f.size == 124)
        #expect(f.flags == 0x1 | 0x2 | 0x4 | 0x8 | 0x1000 | 0x20000)  // CAPS HEIGHT WIDTH PITCH PIXELFORMAT MIPMAPCOUNT
        #expect((f.width, f.height, f.depth) == (20, 12, 0))
        #expect(f.pitchOrLinearSize == 20 * 4)
        #expect(f.mipMapCount == UInt32(levels.count))
        #expect(f.pixelFormatSize == 32 && f.pixelFormatFlags == 0x4 && f.fourCC == "DX10")
        #expect(f.caps == 0x1000 | 0x8 | 0x400000)  // TEXTURE | COMPLEX | MIPMAP
        #expect(f.dxgiFormat == 29)  // DXGI_FORMAT_R8G8B8A8_UNORM_SRGB
        #expect(f.resourceDimension == 3 && f.miscFlag == 0 && f.arraySize == 1)
        #expect(f.miscFlags2 == (alpha == .premultiplied ? 2 : 1))
        #expect(f.data == levels.flatMap(Self.rgba))
    }

    @Test func ddsOfAnOpaqueImageSaysOpaque() throws {
        let bytes = try TextureEncoder.encode(
            [Self.picture(8, 8, alpha: false)], Self.settings(.rgba8, .linear), container: .dds)
        let f = try #require(DDSFile(bytes))
        #expect(f.miscFlags2 == 3 && f.dxgiFormat == 28 && f.mipMapCount == 1 && f.caps == 0x1000)
    }

    // MARK: normal maps

    /// A normal map from a height field: after `normals: true`, every texel of every level has
    /// length within 1/127 of 1; a flat map stays exactly (128, 128, 255).
    @Test func normalMapChainStaysUnitLength() throws {
        let (w, h) = (64, 40)
        var p = [UInt8](repeating: 255, count: w * h * 4)
        func height(_ x: Int, _ y: Int) -> Double { 6 * sin(Double(x) / 5) * cos(Double(y) / 7) }
        for y in 0..<h {
            for x in 0..<w {
                let dx = height(min(w - 1, x + 1), y) - height(max(0, x - 1), y)
                let dy = height(x, min(h - 1, y + 1)) - height(x, max(0, y - 1))
                let n = [-dx, -dy, 2.0]
                let l = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).squareRoot()
                for c in 0..<3 { p[(y * w + x) * 4 + c] = UInt8(((n[c] / l + 1) / 2 * 255).rounded()) }
            }
        }
        var m = Mipmaps()
        m.layout = .texture
        m.normals = true
        m.colorSpace = .linear
        let levels = try m.applied(to: Image(width: w, height: h, pixels: .rgba8(p)))
        #expect(levels.count == 7)
        for level in levels.dropFirst() {
            let q = Self.rgba(level)
            for i in stride(from: 0, to: q.count, by: 4) {
                let v = (0..<3).map { 2 * Double(q[i + $0]) / 255 - 1 }
                let length = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).squareRoot()
                #expect(abs(length - 1) <= 1.0 / 127, "level \(level.width)×\(level.height) texel \(i / 4): \(length)")
            }
        }
        let flat = Image(
            width: 16, height: 16, pixels: .rgba8([UInt8]((0..<256).flatMap { _ in [128, 128, 255, 255] })))
        for level in try m.applied(to: flat) {
            let texels: [UInt8] = Self.rgba(level)
            var distinct = Set<[UInt8]>()
            for i in stride(from: 0, to: level.width * level.height * 4, by: 4) {
                distinct.insert(Array(texels[i..<(i + 4)]))
            }
            #expect(distinct == [[128, 128, 255, 255]])
        }
    }
}

/// A row scheduler that really runs bands on several threads at once.
struct ThreadedRows: RowScheduler {
    func forEachBand(rows: Int, pixelsPerRow: Int, _ body: (Range<Int>) -> Void) {
        withoutActuallyEscaping(body) { body in
            let box = UnsafeSendable(body)
            DispatchQueue.concurrentPerform(iterations: rows) { k in box.value(k..<(k + 1)) }
        }
    }
}

/// The texture settings are checked like every other parameter: at their JSON path, with the
/// same words every time.
@Suite("GPU texture manifest errors")
struct TextureManifestTests {
    static func errors(_ pipeline: String) -> [String] {
        let t = TempDir()
        t.png("in/a.png", width: 8, height: 8)
        return t.errors(#"{ "version": 1, "output": "out", "pipelines": [ "# + pipeline + " ] }")
    }

    @Test func astcInDDS() {
        #expect(
            Self.errors(
                #"{ "name": "p", "inputs": ["in/*.png"], "output": "{file}.dds", "texture": { "format": "astc-6x6" }, "stages": [] }"#
            ) == [
                "error: $T/pipeline.json: pipelines[0].texture.format: astc-6x6 is KTX2 only: DDS cannot hold ASTC (use a .ktx2 template)"
            ])
    }

    @Test func srgbWithADataFormat() {
        #expect(
            Self.errors(
                #"{ "name": "p", "inputs": ["in/*.png"], "output": "{file}.ktx2", "texture": { "format": "bc5", "colorSpace": "srgb" }, "stages": [] }"#
            ).contains(
                "error: $T/pipeline.json: pipelines[0].texture.colorSpace: bc5 is a data format, UNORM only: \"srgb\" does not apply (remove colorSpace or use \"linear\")"
            ))
    }

    @Test func textureSettingsWithAPNGTemplate() {
        #expect(
            Self.errors(
                #"{ "name": "p", "inputs": ["in/*.png"], "output": "{file}.png", "texture": { "format": "rgba8" }, "stages": [] }"#
            ) == [
                "error: $T/pipeline.json: pipelines[0].texture: texture settings apply to .ktx2 and .dds outputs; \"{file}.png\" writes neither"
            ])
    }

    @Test func textureLayoutWithAPNGTemplate() {
        #expect(
            Self.errors(
                #"{ "name": "p", "inputs": ["in/*.png"], "output": "{file}.png", "stages": [ { "stage": "mipmaps", "layout": "texture" } ] }"#
            ) == [
                "error: $T/pipeline.json: pipelines[0].stages[0]: mipmaps: layout \"texture\" keeps the chain in one GPU texture file; the template writes PNG (use a .ktx2 or .dds template, or layout \"files\")"
            ])
    }

    @Test func unknownTextureKeyAndFormat() {
        #expect(
            Self.errors(
                #"{ "name": "p", "inputs": ["in/*.png"], "output": "{file}.ktx2", "texture": { "fromat": "rgba8", "format": "astc-6x5" }, "stages": [] }"#
            ) == [
                "error: $T/pipeline.json: pipelines[0].texture.format: expected one of "
                    + TextureSettings.Format.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
                    + ", \"astc\", found \"astc-6x5\"",
                "error: $T/pipeline.json: pipelines[0].texture.fromat: unknown key \"fromat\"; did you mean \"format\"?",
            ])
    }

    @Test func zstdInDDS() {
        #expect(
            Self.errors(
                #"{ "name": "p", "inputs": ["in/*.png"], "output": "{file}.dds", "texture": { "supercompression": "zstd" }, "stages": [] }"#
            ) == [
                "error: $T/pipeline.json: pipelines[0].texture.supercompression: supercompression is KTX2 only: DDS files are not supercompressed"
            ])
    }

    /// The mip chain of a .ktx2 template is one output with every level, no suffix.
    @Test func aTextureTemplatePlansOneOutputWithItsLevels() throws {
        let t = TempDir()
        t.png("in/a.png", width: 40, height: 24)
        let plan = try t.plan(
            #"{ "version": 1, "output": "out", "pipelines": [ { "name": "p", "inputs": ["in/*.png"], "output": "{file}{suffix}.ktx2", "stages": [ { "stage": "mipmaps" } ] } ] }"#
        ).get()
        #expect(plan.jobs[0].outputs.map(\.relative) == ["a.ktx2"])
        #expect(plan.jobs[0].outputs[0].levels == 6)
        #expect(plan.jobs[0].outputs[0].format == .ktx2)
    }
}
