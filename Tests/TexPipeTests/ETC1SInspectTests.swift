import Foundation
import Testing
import TexPipeTestSupport

@testable import TexPipe

/// `inspect` on an ETC1S file (issue #65): the two codebooks' entries and the bytes of the endpoint
/// codebook, the selector codebook and the Huffman tables, as the KTX 2.0 specification places
/// them in the BasisLZ global data (`endpointCount`, `selectorCount` as 16-bit fields, then
/// `endpointsByteLength`, `selectorsByteLength`, `tablesByteLength`), read here from the file's
/// bytes and not by texpipe's reader; one slice an image, or two with alpha; bits per texel the
/// file's bits over every level's texels.
@Suite struct ETC1SInspectTests {
    @Test(arguments: [false, true])
    func inspectReportsTheCodebooksAndTables(alpha: Bool) throws {
        let t = TempDir()
        let (w, h) = (64, 48)
        let levels = [(w, h, 1), (w / 2, h / 2, 2), (w / 4, h / 4, 3)].map { lw, lh, seed in
            let rgba = BlockReference.picture(lw, lh, seed: UInt64(seed), alpha: alpha)
            return Image(width: lw, height: lh, pixels: .rgba8(rgba))
        }
        var settings = TextureSettings.standard
        settings.format = .etc1s
        let f = try TextureEncoder.encode(levels, settings, container: .ktx2)
        t.write("a.ktx2", f)

        // The header by the tests' KTX 2.0 reader; the global data's fields by their offsets.
        let ktx = try #require(KTX2File(f))
        #expect(ktx.supercompressionScheme == 1, "supercompressionScheme: BasisLZ")
        let sgd = Int(ktx.sgdByteOffset)
        func u16(_ at: Int) -> Int { Int(f[at]) | Int(f[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        let facts = try Inspector.facts(path: t.path + "/a.ktx2")
        let b = try #require(facts.texture?.basisLZ)
        #expect(b.endpoints == u16(sgd) && b.selectors == u16(sgd + 2))
        #expect(b.endpointBytes == u32(sgd + 4) && b.selectorBytes == u32(sgd + 8) && b.tableBytes == u32(sgd + 12))
        #expect(b.endpoints > 0 && b.selectors > 0 && b.endpointBytes > 0 && b.tableBytes > 0)
        #expect(b.slicesPerImage == (alpha ? 2 : 1))
        let texels = 64 * 48 + 32 * 24 + 16 * 12
        #expect(abs(b.bitsPerTexel - Double(f.count * 8) / Double(texels)) < 1e-9)
        #expect(facts.texture?.supercompression == "basislz")

        // The text form names the same numbers (thousands grouped with commas).
        func grouped(_ n: Int) -> String {
            var (head, tail) = (String(n), "")
            while head.count > 3 {
                tail = "," + head.suffix(3) + tail
                head = String(head.dropLast(3))
            }
            return head + tail
        }
        let text = try Inspector.describe(path: t.path + "/a.ktx2")
        #expect(
            text.contains(
                "BasisLZ: \(grouped(b.endpoints)) endpoints (\(grouped(b.endpointBytes)) bytes), "
                    + "\(grouped(b.selectors)) selectors (\(grouped(b.selectorBytes)) bytes), "
                    + "tables \(grouped(b.tableBytes)) bytes; " + (alpha ? "RGB and alpha slices" : "RGB slices")),
            "\(text)")
        #expect(grouped(1_234_567) == "1,234,567" && grouped(999) == "999")
    }
}
