import Foundation
import Testing
import TexPipeTestSupport

@testable import TexPipeBlocks
@testable import TexPipeFormats
@testable import TexPipeMeasures
@testable import TexPipePixels
@testable import TexPipeTextures

/// The KTX2 and DDS reader behind `inspect` on files a user may bring from anywhere: hand-built
/// malformed files, each a field of a valid file changed, give one-line errors (the KTX 2.0
/// specification's rules; Microsoft's DDS layout), never a trap.
@Suite("texture file reader")
struct TextureFileTests {
    static func valid(_ format: TextureSettings.Format, container: TextureContainer, zstd: Bool = false) throws
        -> [UInt8]
    {
        var settings = TextureSettings.standard
        settings.format = format
        settings.supercompression = zstd ? .zstd : .none
        var texels = [UInt8](repeating: 255, count: 8 * 4 * 4)
        for i in stride(from: 0, to: texels.count, by: 4) {
            (texels[i], texels[i + 1], texels[i + 2]) = (UInt8(i % 251), UInt8(i / 2), 40)
        }
        // Its chain by hand (8×4, 4×2, 2×1, 1×1): the container's layout is what is read here, not
        // the filter.
        let levels = [(8, 4), (4, 2), (2, 1), (1, 1)].map { w, h in
            Image(width: w, height: h, pixels: .rgba8(Array(texels.prefix(w * h * 4))))
        }
        return try TextureEncoder.encode(levels, settings, container: container)
    }

    static func put32(_ bytes: inout [UInt8], _ at: Int, _ v: UInt32) {
        for k in 0..<4 { bytes[at + k] = UInt8(truncatingIfNeeded: v >> (8 * UInt32(k))) }
    }

    static func put64(_ bytes: inout [UInt8], _ at: Int, _ v: UInt64) {
        for k in 0..<8 { bytes[at + k] = UInt8(truncatingIfNeeded: v >> (8 * UInt64(k))) }
    }

    static func message(_ bytes: [UInt8]) -> String {
        do {
            let file = try TextureFile(bytes, maxPixels: 1 << 20)
            for n in file.levels.indices { _ = try file.level(n) }
            return "ok"
        } catch {
            return "\(error)"
        }
    }

    @Test func validFilesRead() throws {
        let ktx2 = try Self.valid(.rgba8, container: .ktx2)
        let file = try TextureFile(ktx2)
        #expect(file.levels.count == 4 && file.width == 8 && file.height == 4)
        #expect(Self.message(ktx2) == "ok")
        #expect(Self.message(try Self.valid(.bc7, container: .ktx2, zstd: true)) == "ok")
        #expect(Self.message(try Self.valid(.bc1, container: .dds)) == "ok")
    }

    /// A vkFormat of 0 (VK_FORMAT_UNDEFINED) is named by the descriptor: colour model 166 is UASTC,
    /// its transfer function (byte 14 of the descriptor: 2 sRGB, 1 linear) the colour space. Model
    /// 163 is ETC1S, which is BasisLZ or nothing; another model is no format texpipe writes.
    @Test func uastcIsNamedByItsDescriptor() throws {
        let good = try Self.valid(.uastc, container: .ktx2)
        let file = try TextureFile(good)
        #expect(file.format == .uastc && file.srgb && Self.message(good) == "ok")
        let dfd = Int(good[48]) | Int(good[49]) << 8
        var linear = good
        linear[dfd + 14] = 1
        #expect(try TextureFile(linear).srgb == false)
        var etc1s = good
        etc1s[dfd + 12] = 163
        #expect(Self.message(etc1s) == "KTX2 ETC1S without BasisLZ supercompression (supercompressionScheme 0)")
        var other = good
        other[dfd + 12] = 164
        #expect(Self.message(other) == "KTX2 vkFormat 0 with DFD colour model 164 is not one texpipe writes")
    }

    /// Level index entry n of a KTX2 file starts at 80 + 24 n: byteOffset, byteLength,
    /// uncompressedByteLength.
    @Test func malformedKTX2() throws {
        let good = try Self.valid(.rgba8, container: .ktx2)
        func mutated(_ change: (inout [UInt8]) -> Void) -> String {
            var b = good
            change(&b)
            return Self.message(b)
        }
        let level0 = (80, 88, 96)
        let cases: [(String, String)] = [
            (Self.message(Array(good.prefix(60))), "truncated KTX2 header"),
            (mutated { Self.put32(&$0, 12, 999) }, "KTX2 vkFormat 999 is not one texpipe writes"),
            (mutated { Self.put32(&$0, 20, 0) }, "KTX2 image of zero width or height"),
            (
                mutated { Self.put32(&$0, 20, 1 << 20) },
                "image is 1048576x4 (4194304 pixels), over the limit of 1048576 (--max-pixels)"
            ),
            (
                mutated { Self.put32(&$0, 40, 9) },
                "9 levels for 8×4: at most 4 (⌊log2 of the larger side⌋ + 1)"
            ),
            (
                mutated { Self.put32(&$0, 36, 6) },
                "KTX2 faceCount 6 is not a texture shape texpipe reads (2D: a texture, an array, or one cube map)"
            ),
            (
                mutated { Self.put32(&$0, 44, 1) },
                "KTX2 BasisLZ supercompression of rgba8 (BasisLZ holds ETC1S only)"
            ),
            (mutated { Self.put64(&$0, level0.0, UInt64(good.count)) }, "KTX2 level 0 past the end"),
            (mutated { Self.put64(&$0, level0.0, .max - 3) }, "KTX2 level 0 past the end"),
            (
                mutated { Self.put64(&$0, level0.2, 1 << 60) },
                "KTX2 level 0 holds 1152921504606846976 bytes of blocks; its format and size need 128"
            ),
            (
                mutated { Self.put64(&$0, level0.1, 64) },
                "KTX2 level 0: byteLength 64 and uncompressedByteLength 128 differ without supercompression"
            ),
            (
                // Level 1 (8 bytes… 4×2 texels: 32 bytes) moved onto level 0's bytes.
                mutated { b in
                    let offset0 = (0..<8).reduce(UInt64(0)) { $0 | UInt64(b[80 + $1]) << (8 * UInt64($1)) }
                    Self.put64(&b, 104, offset0)
                }, "KTX2 level 1 overlaps another level or the header"
            ),
            (
                mutated { Self.put32(&$0, 52, 8) },
                "KTX2 data format descriptor at 176, 8 bytes, is not a valid one (past the end, before the level index, or its total size disagrees)"
            ),
            (mutated { Self.put32(&$0, 60, 1 << 30) }, "KTX2 key/value data past the end of the file"),
        ]
        for (found, expected) in cases { #expect(found == expected) }
        #expect(Self.message(Array("not a texture".utf8)) == "not a KTX2 or DDS file texpipe can read")
    }

    @Test func malformedZstdLevelIsAnError() throws {
        var b = try Self.valid(.bc7, container: .ktx2, zstd: true)
        let offset = Int((0..<8).reduce(UInt64(0)) { $0 | UInt64(b[80 + $1]) << (8 * UInt64($1)) })
        b[offset] ^= 0xFF  // the frame's magic number
        #expect(Self.message(b) == "level 0: corrupt zstd frame")
    }

    @Test func malformedDDS() throws {
        let good = try Self.valid(.bc1, container: .dds)
        func mutated(_ change: (inout [UInt8]) -> Void) -> String {
            var b = good
            change(&b)
            return Self.message(b)
        }
        let cases: [(String, String)] = [
            (Self.message(Array(good.prefix(100))), "truncated DDS header"),
            (mutated { Self.put32(&$0, 4, 100) }, "truncated DDS header"),
            (
                mutated {
                    $0[84] = UInt8(ascii: "D"); $0[87] = UInt8(ascii: "1")
                }, "DDS without a DX10 header is not one texpipe reads"
            ),
            (mutated { Self.put32(&$0, 128, 1234) }, "DDS DXGI format 1234 is not one texpipe writes"),
            (mutated { Self.put32(&$0, 12, 0) }, "DDS image of zero width or height"),
            (mutated { Self.put32(&$0, 28, 30) }, "30 levels for 8×4: at most 4 (⌊log2 of the larger side⌋ + 1)"),
            // Six layers declared, one layer's data there.
            (mutated { Self.put32(&$0, 140, 6) }, "DDS layer 1 level 0 past the end"),
            (
                mutated { Self.put32(&$0, 140, 0) },
                "DDS arraySize 0 is not a texture shape texpipe reads (2D: a texture, an array, or one cube map)"
            ),
            (
                mutated { Self.put32(&$0, 136, 4) },
                "DDS cube map without all six faces, or an array of cubes is not a texture shape texpipe reads (2D: a texture, an array, or one cube map)"
            ),
            (Self.message(Array(good.dropLast(4))), "DDS level 3 past the end"),
        ]
        for (found, expected) in cases { #expect(found == expected) }
    }
}
