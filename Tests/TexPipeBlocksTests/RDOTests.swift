import Foundation
import Testing
import TexPipeTestSupport

@testable import TexPipeBlocks
@testable import TexPipeCodecs
@testable import TexPipeFormats
@testable import TexPipePixels
@testable import TexPipeTextures

/// Rate-distortion optimisation (docs/gpu-textures.md "Smaller downloads"): the blocks stay
/// valid (an independent decoder reads them as texpipe's does), `maxLoss` holds on the decoded
/// pixels, zstd shrinks them, and the bytes do not depend on the cores.
@Suite("rdo")
struct RDOTests {
    static let formats: [TextureSettings.Format] = [.bc1, .bc3, .bc7]

    /// A texture with what real ones have: flat areas, a gradient, a hard-edged pattern, a soft
    /// disc of alpha, and a little noise.
    static func scene(_ w: Int, _ h: Int, seed: UInt64, alpha: Bool) -> [UInt8] {
        var r = SeededRandom(seed: seed)
        var p = [UInt8](repeating: 255, count: w * h * 4)
        for y in 0..<h {
            for x in 0..<w {
                let i = (y * w + x) * 4
                let (qx, qy) = (x * 2 / w, y * 2 / h)
                let c: (Int, Int, Int) =
                    switch (qx, qy) {
                    case (0, 0): (40, 90, 160)
                    case (1, 0): (x * 255 / w, 128, 255 - y * 255 / h)
                    case (0, _): (x / 8 + y / 8) % 2 == 0 ? (230, 200, 40) : (30, 30, 30)
                    default: (120 + r.int(0...6), 100 + r.int(0...6), 90 + r.int(0...6))
                    }
                (p[i], p[i + 1], p[i + 2]) = (UInt8(c.0), UInt8(c.1), UInt8(c.2))
                if alpha {
                    let d = (Double(x - w / 2) * Double(x - w / 2) + Double(y - h / 2) * Double(y - h / 2)).squareRoot()
                    p[i + 3] = UInt8(max(0, min(255, 255 - (d - Double(min(w, h)) / 3) * 8)))
                }
            }
        }
        return p
    }

    static func blocks(
        _ image: [UInt8], _ w: Int, _ h: Int, _ format: TextureSettings.Format, _ rdo: TextureSettings.RDO?
    ) throws -> [UInt8] {
        try BC.blocks(image, width: w, height: h, format: format, quality: .medium, rdo: rdo)
    }

    /// PSNR from the squared errors of decoded texels against the image, computed here:
    /// 10 · log10(255² / MSE) over R, G, B, and over alpha on its own.
    static func psnr(_ decoded: [UInt8], _ image: [UInt8]) -> (rgb: Double, alpha: Double) {
        var se = [0.0, 0.0]
        for i in 0..<image.count {
            let d = Double(Int(decoded[i]) - Int(image[i]))
            se[i % 4 == 3 ? 1 : 0] += d * d
        }
        let n = Double(image.count / 4)
        func db(_ s: Double, _ samples: Double) -> Double {
            s == 0 ? 99 : min(99, 10 * log10(255 * 255 / (s / samples)))
        }
        return (db(se[0], 3 * n), db(se[1], n))
    }

    @Test(Reference.needs(BlockReference.hasDecoder, "python3 texture2ddecoder"), arguments: formats)
    func optimisedBlocksDecodeAsTheReferenceDecodes(_ format: TextureSettings.Format) throws {
        for (w, h) in [(64, 48), (37, 29), (5, 3)] {
            let image = Self.scene(w, h, seed: UInt64(w), alpha: format != .bc1)
            for rdo in [TextureSettings.RDO.lambda(16), .lambda(1000), .maxLoss(1)] {
                let blocks = try Self.blocks(image, w, h, format, rdo)
                #expect(blocks.count == format.info.levelBytes(w, h))
                let ours = try BC.decode(blocks, format: format, width: w, height: h)
                let theirs = try BlockReference.reference(blocks, format, w, h)
                if format == .bc1 {
                    // texture2ddecoder gives BC1's 3-color index 3 opaque black, the format
                    // transparent black: colors everywhere, alpha where opaque.
                    for i in stride(from: 0, to: ours.count, by: 4) {
                        #expect(Array(ours[i..<(i + 3)]) == Array(theirs[i..<(i + 3)]), "\(w)×\(h) texel \(i / 4)")
                        #expect(ours[i + 3] == 255 || ours[i..<(i + 3)].allSatisfy { $0 == 0 })
                    }
                } else {
                    #expect(ours == theirs, "\(format) \(w)×\(h) \(rdo)")
                }
            }
        }
    }

    /// BC3's color block is four colors whatever the endpoints' order, but some decoders (among
    /// them texture2ddecoder) read c0 ≤ c1 as BC1's three-color mode: every color block RDO writes
    /// reads the same either way (c0 > c1, or c0 = c1 without index 3), as the encoder's do.
    @Test func bc3ColorBlocksReadTheSameInBothModes() throws {
        for (w, h, seed) in [(64, 64, 1), (96, 40, 2), (128, 128, 3)] {
            let image = Self.scene(w, h, seed: UInt64(seed), alpha: true)
            for rdo in [TextureSettings.RDO.lambda(8), .lambda(200), .maxLoss(2)] {
                let blocks = try Self.blocks(image, w, h, .bc3, rdo)
                for at in stride(from: 8, to: blocks.count, by: 16) {
                    let c0 = Int(blocks[at]) | Int(blocks[at + 1]) << 8
                    let c1 = Int(blocks[at + 2]) | Int(blocks[at + 3]) << 8
                    let selectors = (0..<16).map { Int(blocks[at + 4 + $0 / 4]) >> (2 * ($0 % 4)) & 3 }
                    #expect(
                        c0 > c1 || (c0 == c1 && !selectors.contains(3)), "block \(at / 16): \(c0), \(c1), \(selectors)")
                }
            }
        }
    }

    /// texpipe's BC1 is opaque: RDO never picks the three-color mode's transparent entry, even
    /// for texels given with alpha (as `encode-blocks` takes them), where it would have matched.
    @Test func bc1StaysOpaque() throws {
        let (w, h) = (64, 64)
        // The bottom half transparent: there the three-color mode's fourth entry would match alpha.
        var image = Self.scene(w, h, seed: 4, alpha: false)
        for i in stride(from: image.count / 2 + 3, to: image.count, by: 4) { image[i] = 0 }
        for rdo in [TextureSettings.RDO.lambda(8), .lambda(500)] {
            let decoded = try BC.decode(try Self.blocks(image, w, h, .bc1, rdo), format: .bc1, width: w, height: h)
            #expect(stride(from: 3, to: decoded.count, by: 4).allSatisfy { decoded[$0] == 255 }, "\(rdo)")
        }
    }

    /// `maxLoss: d` loses at most d dB of PSNR against the same encoder without RDO, on RGB and
    /// on alpha, measured here from the decoded pixels; and it does change blocks.
    @Test(arguments: formats)
    func maxLossHoldsOnEveryTestImage(_ format: TextureSettings.Format) throws {
        var changed = false
        for (k, (w, h)) in [(64, 48), (37, 29)].enumerated() {
            let image = Self.scene(w, h, seed: UInt64(k + 7), alpha: format != .bc1)
            let plain = try Self.blocks(image, w, h, format, nil)
            let before = Self.psnr(try BC.decode(plain, format: format, width: w, height: h), image)
            for d in [0.5, 2.0] {
                let blocks = try Self.blocks(image, w, h, format, .maxLoss(d))
                let after = Self.psnr(try BC.decode(blocks, format: format, width: w, height: h), image)
                #expect(before.rgb - after.rgb <= d + 1e-9, "\(format) \(w)×\(h) maxLoss \(d): RGB")
                if format != .bc1 { #expect(before.alpha - after.alpha <= d + 1e-9, "\(format) \(w)×\(h): alpha") }
                changed = changed || blocks != plain
            }
        }
        #expect(changed)
    }

    /// `maxLoss` searches on one slice in `RDO.sampleStride` (here one in two: the middle one
    /// of each run, so the second) and then optimises the rest. On a level of two slices whose
    /// sampled one (the bottom half) is flat —
    /// every λ loses nothing there — and whose other is the scene, the search must go back below
    /// the sample's λ (1024); on the scene throughout it need not. Either way the loss measured
    /// here from the decoded pixels stays within the bound, and the blocks are exactly one whole
    /// pass at the λ it reports (the sample's and the rest's slices put together are a whole pass).
    @Test func theSampledSearchHoldsOnTheWholeLevel() throws {
        let (w, h) = (256, 128)  // 64 × 32 blocks: 2 slices of 1,024 (16 rows of blocks each)
        #expect(RDO.sliceBlocks == 1024)
        let scene = Self.scene(w, h, seed: 5, alpha: false)
        var harsh = scene
        for i in stride(from: w * h * 2, to: w * h * 4, by: 4) {
            (harsh[i], harsh[i + 1], harsh[i + 2]) = (128, 128, 128)
        }
        #expect(RDO.sampled(2, stride: 2) == [1])
        for image in [harsh, scene] {
            let plain = try Self.blocks(image, w, h, .bc1, nil)
            let before = Self.psnr(try BC.decode(plain, format: .bc1, width: w, height: h), image)
            let (blocks, lambda) = RDO.searched(
                plain, image, width: w, height: h, kind: .bc(.bc1), maxLoss: 1, rows: SerialRows(), sampleStride: 2)
            let after = Self.psnr(try BC.decode(blocks, format: .bc1, width: w, height: h), image)
            #expect(before.rgb - after.rgb <= 1 + 1e-9)
            let l = try #require(lambda)
            #expect(blocks == RDO.pass(plain, image, w, h, .bc(.bc1), l, SerialRows()).blocks)
            #expect(blocks != plain)
            if image == harsh { #expect(l < 1024) }
        }
    }

    /// zstd (Python's zstandard, level 19) stores the optimised blocks in fewer bytes: at least a
    /// quarter of a block (BC3: of a half) for every block that now repeats one of the `RDO.window` before
    /// it and did not.
    @Test(Reference.needs(Python.has("zstandard"), "python3 zstandard"), arguments: formats)
    func zstdStoresThemSmaller(_ format: TextureSettings.Format) throws {
        let (w, h) = (128, 128)
        let image = Self.scene(w, h, seed: 3, alpha: format != .bc1)
        let plain = try Self.blocks(image, w, h, format, nil)
        let optimised = try Self.blocks(image, w, h, format, .maxLoss(1))
        // BC3's alpha and color blocks repeat on their own: 8-byte units; else whole blocks.
        let unit = format == .bc3 ? 8 : format.info.blockBytes
        func repeats(_ b: [UInt8]) -> Int {
            let units = b.count / unit
            let perBlock = format.info.blockBytes / unit
            return (0..<units).filter { i in
                stride(from: i - perBlock, through: max(0, i - perBlock * RDO.window), by: -perBlock).contains { j in
                    j >= 0 && b[(j * unit)..<(j * unit + unit)] == b[(i * unit)..<(i * unit + unit)]
                }
            }.count
        }
        let gained = repeats(optimised) - repeats(plain)
        #expect(gained > 0)
        func zstd(_ b: [UInt8]) throws -> Int {
            let t = TempDir()
            t.write("b", b)
            let out = try Python.run(
                "import sys, zstandard; print(len(zstandard.ZstdCompressor(level=19).compress(open(sys.argv[1], 'rb').read())))",
                t.path + "/b")
            return Int(String(decoding: out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        }
        let (a, b) = (try zstd(plain), try zstd(optimised))
        #expect(b > 0 && a - b >= gained * unit / 4, "\(format): \(a) → \(b) bytes, \(gained) more repeats")
    }

    /// The search's sample: the middle slice of each run of `stride`, or of all where there are
    /// fewer (a level's first rows are often sky or empty; they were the sample).
    @Test func theSampleIsTheMiddleOfEachRun() {
        #expect(RDO.sampled(1, stride: 8) == [0])
        #expect(RDO.sampled(4, stride: 8) == [2])
        #expect(RDO.sampled(7, stride: 8) == [3])
        #expect(RDO.sampled(20, stride: 8) == [4, 12])
        #expect(RDO.sampled(64, stride: 8) == [4, 12, 20, 28, 36, 44, 52, 60])
    }

    /// A BC7 candidate's rate, counted by hand: 8 bits per literal byte, 24 for the first run of
    /// at least 3 equal bytes (8 where the distance is the last match's), 8 for each further run.
    @Test func aCandidatesRateCountsEveryRunOfThreeEqualBytes() {
        let other: UInt128 = 0x0F0E_0D0C_0B0A_0908_0706_0504_0302_0100
        // The bytes at `places` changed.
        func differing(_ places: [Int]) -> UInt128 {
            places.reduce(other) { v, k in v ^ (UInt128(0x80) << UInt128(8 * k)) }
        }
        #expect(RDO.bits(other, other, n: 16, repeated: false) == 24)
        #expect(RDO.bits(other, other, n: 16, repeated: true) == 8)
        // 15 equal bytes at the end: one literal, one match.
        #expect(RDO.bits(differing([0]), other, n: 16, repeated: false) == 8 + 24)
        // Equal at the start (bytes 0–8), then 7 literals.
        #expect(RDO.bits(differing(Array(9..<16)), other, n: 16, repeated: false) == 7 * 8 + 24)
        // One run in the middle (bytes 5–9): 11 literals and a match; at the last distance, 8.
        let middle = differing([0, 1, 2, 3, 4, 10, 11, 12, 13, 14, 15])
        #expect(RDO.bits(middle, other, n: 16, repeated: false) == 11 * 8 + 24)
        #expect(RDO.bits(middle, other, n: 16, repeated: true) == 11 * 8 + 8)
        // Three runs (0–3, 6–8, 12–15) and five literals: 5 · 8 + 24 + 8 + 8.
        #expect(RDO.bits(differing([4, 5, 9, 10, 11]), other, n: 16, repeated: false) == 80)
        // Runs of two are no match: bytes 0–1, 3–4, … all literals, and no candidate.
        #expect(RDO.bits(differing([2, 5, 8, 11, 14]), other, n: 16, repeated: false) == nil)
        // A run of two beside a run of three: only the three count.
        #expect(
            RDO.bits(differing([2, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]), other, n: 16, repeated: false) == 13 * 8 + 24)
    }

    /// A block that repeats one written earlier in its slice, however far back, is one match to
    /// the LZ stage, and RDO rates it so. A row of 19 BC1 blocks: X (a gradient in red), 16 flat
    /// colors far from each other and from X, X with green 4 higher, then X again, 18 blocks
    /// after the first (beyond the 16 looked back). At λ 16 the last block as it is costs its
    /// error D₀ and one match (24 bits: 384); a copy of its neighbour costs that neighbour's
    /// error, about D₀ + 16 · 4², and one match too: the block stays X. Rated as literals (64
    /// bits: 1,024), it would have become the copy (and it does, without this rate).
    @Test func aRepeatOfABlockFarBackStaysARepeat() throws {
        let (w, h) = (19 * 4, 4)
        var image = [UInt8](repeating: 255, count: w * h * 4)
        for y in 0..<h {
            for x in 0..<w {
                let block = x / 4
                let (r, g, b) =
                    switch block {
                    case 0, 18: (150 + 24 * (x % 4), 100, 48)
                    case 17: (150 + 24 * (x % 4), 104, 48)
                    default: (block * 14, 255 - block * 14, block % 2 == 0 ? 10 : 240)
                    }
                let i = (y * w + x) * 4
                (image[i], image[i + 1], image[i + 2]) = (UInt8(r), UInt8(g), UInt8(b))
            }
        }
        let plain = try Self.blocks(image, w, h, .bc1, nil)
        func block(_ b: [UInt8], _ k: Int) -> [UInt8] { Array(b[(8 * k)..<(8 * k + 8)]) }
        #expect(block(plain, 18) == block(plain, 0) && block(plain, 17) != block(plain, 0))
        let out = RDO.pass(plain, image, w, h, .bc(.bc1), 16, SerialRows()).blocks
        // (The others may change where it costs nothing: a flat block's indices are free.)
        #expect(block(out, 0) == block(plain, 0) && block(out, 18) == block(plain, 0))
    }

    /// RDO's rate is an estimate: where zstd would store its blocks in more bytes than the
    /// blocks without (a tiled level whose repeats lie far apart), the blocks stay as they were.
    @Test func blocksThatZstdStoresLargerAreNotKept() {
        var r = SeededRandom(seed: 21)
        let noise = (0..<4096).map { _ in UInt8(r.int(0...255)) }
        let repeated = Array(noise[0..<1024]) + Array(noise[0..<1024]) + Array(noise[2048..<4096])
        #expect(RDO.shrinks(repeated, noise))
        #expect(!RDO.shrinks(noise, repeated))
        #expect(!RDO.shrinks(noise, noise))
    }

    /// Slices are fixed, so the bytes do not depend on how many cores run them, nor on the run.
    @Test(arguments: formats)
    func theBytesDoNotDependOnTheCores(_ format: TextureSettings.Format) throws {
        let (w, h) = (192, 128)  // 1,536 blocks: two slices
        let image = Self.scene(w, h, seed: 9, alpha: true)
        let plain = try Self.blocks(image, w, h, format, nil)
        guard case .bc(let variant) = format.info.codec else {
            Issue.record("\(format) is not a BC format")
            return
        }
        let one = RDO.optimized(plain, image, width: w, height: h, kind: .bc(variant), .lambda(32), rows: SerialRows())
        let lender = BCTests.CoreLenderStandIn()
        let many = RDO.optimized(plain, image, width: w, height: h, kind: .bc(variant), .lambda(32), rows: lender)
        let again = RDO.optimized(
            plain, image, width: w, height: h, kind: .bc(variant), .lambda(32), rows: SerialRows())
        #expect(one == many && one == again && lender.bands > 1 && one != plain)
    }

    /// UASTC: `maxLoss` holds on the decoded pixels, blocks repeat, the bytes do not depend on the
    /// cores, and the Basis Universal transcoder (what a web engine runs) opens the file and gives
    /// exactly texpipe's decode: RDO writes only whole copies of blocks, hints and all.
    @Test func uastcBlocksStayWholeAndWithinTheLoss() throws {
        let (w, h) = (96, 64)
        let image = Self.scene(w, h, seed: 12, alpha: true)
        let plain = UASTC.blocks(image, width: w, height: h, quality: .medium)
        let before = Self.psnr(try UASTCDecoder.decode(plain, width: w, height: h), image)
        for d in [0.5, 2.0] {
            let blocks = UASTC.blocks(image, width: w, height: h, quality: .medium, rdo: .maxLoss(d))
            let after = Self.psnr(try UASTCDecoder.decode(blocks, width: w, height: h), image)
            #expect(before.rgb - after.rgb <= d + 1e-9 && before.alpha - after.alpha <= d + 1e-9, "maxLoss \(d)")
            #expect(blocks != plain)
            // Every block is one the encoder wrote for this image.
            let written = Set(stride(from: 0, to: plain.count, by: 16).map { plain[$0..<($0 + 16)] })
            #expect(stride(from: 0, to: blocks.count, by: 16).allSatisfy { written.contains(blocks[$0..<($0 + 16)]) })
        }
        let lender = BCTests.CoreLenderStandIn()
        let big = Self.scene(192, 128, seed: 13, alpha: false)  // 1,536 blocks: two slices
        let one = UASTC.blocks(big, width: 192, height: 128, quality: .fast, rdo: .lambda(64))
        let many = UASTC.blocks(big, width: 192, height: 128, quality: .fast, rows: lender, rdo: .lambda(64))
        #expect(one == many && lender.bands > 1)
        if Reference.use(UASTCTests.available) {
            var settings = TextureSettings.standard
            settings.format = .uastc
            settings.rdo = .lambda(64)
            let bytes = try TextureEncoder.encode(
                [Image(width: w, height: h, pixels: .rgba8(image))], settings, container: .ktx2)
            let t = TempDir()
            t.write("out.ktx2", bytes)
            try UASTCTests.run(["transcode", t.path + "/out.ktx2", "rgba8", t.path + "/rgba"])
            let rgba = Array(try Data(contentsOf: URL(fileURLWithPath: t.path + "/rgba")))
            let blocks = try #require(KTX2File(bytes)).levelData(0)
            #expect(rgba == (try UASTCDecoder.decode(blocks, width: w, height: h)))
        }
    }

    /// A mode 6 block written here field by field (BPTC's layout: 7 mode bits, R0 R1 G0 G1 B0 B1
    /// A0 A1 of 7 bits, two p-bits, then texel 0's index of 3 bits and 15 of 4), its ends 1 and
    /// 255 in the colors (both p-bits 1, so alpha is 255 at both) and every index 0.
    static func grayMode6Block() -> UInt128 {
        var v = UInt128(1) << 6
        var at = 7
        for value in [0, 127, 0, 127, 0, 127, 127, 127] {
            v |= UInt128(value) << at
            at += 7
        }
        v |= UInt128(1) << 63 | UInt128(1) << 64
        return v
    }

    /// `BC7.reindexed` keeps every bit before the indices and gives each texel its palette
    /// entry: on texels that are entries of that block (computed here from BPTC's 4-bit weights),
    /// texture2ddecoder decodes the new block to them exactly; texel 0, an anchor, only reaches
    /// the lower half of the entries.
    @Test(Reference.needs(BlockReference.hasDecoder, "python3 texture2ddecoder"))
    func reindexedFindsEachTexelsEntryBehindTheSameEndpoints() throws {
        let weights = [0, 4, 9, 13, 17, 21, 26, 30, 34, 38, 43, 47, 51, 55, 60, 64]
        let entries = weights.map { ((64 - $0) * 1 + $0 * 255 + 32) >> 6 }
        let block = Self.grayMode6Block()
        // Texel i takes entry (7 · i + 3) mod 16 (a permutation); texel 0 asks for entry 15.
        let wanted = (0..<16).map { i in i == 0 ? 15 : (7 * i + 3) % 16 }
        var t = BC.Texels()
        for i in 0..<16 {
            let e = Int32(entries[wanted[i]])
            (t.r[i], t.g[i], t.b[i], t.a[i]) = (e, e, e, 255)
        }
        let out = try #require(BC7.reindexed(block, t))
        let headerBits = 65
        let header = (UInt128(1) << headerBits) - 1
        #expect(out & header == block & header)
        var bytes = [UInt8](repeating: 0, count: 16)
        for k in 0..<16 { bytes[k] = UInt8(truncatingIfNeeded: out >> (8 * k)) }
        let decoded = try BlockReference.reference(bytes, .bc7, 4, 4)
        for i in 0..<16 {
            // The anchor's best entry in the lower half is entry 7.
            let expected = UInt8(entries[i == 0 ? 7 : wanted[i]])
            #expect(Array(decoded[(4 * i)..<(4 * i + 4)]) == [expected, expected, expected, 255], "texel \(i)")
        }
    }

    /// On the encoder's own blocks of every mode it writes, reindexing a block for its own texels
    /// keeps the bits before the indices (their count per mode from BPTC's field table) and
    /// stays near the encoder's error (both decoded by texture2ddecoder): the indices are the
    /// texels' projections on their lines, rounded.
    @Test(Reference.needs(BlockReference.hasDecoder, "python3 texture2ddecoder"))
    func reindexingTheEncodersOwnBlocksKeepsTheirQuality() throws {
        // Mode, partition, rotation, selection, endpoint and p-bits, per mode (mode 4: nil).
        let headerBits = [83, 82, 99, 98, 0, 66, 65, 98]
        let (w, h) = (64, 48)
        let image = Self.scene(w, h, seed: 7, alpha: true)
        let blocks = try Self.blocks(image, w, h, .bc7, nil)
        var reindexed = blocks
        var modes = Set<Int>()
        for k in 0..<(blocks.count / 16) {
            var v = UInt128(0)
            for j in 0..<16 { v |= UInt128(blocks[16 * k + j]) << (8 * j) }
            let mode = (v & 0xFF).trailingZeroBitCount
            let (bx, by) = (k % (w / 4), k / (w / 4))
            var t = BC.Texels()
            for i in 0..<16 {
                let p = 4 * ((4 * by + i / 4) * w + 4 * bx + i % 4)
                (t.r[i], t.g[i], t.b[i], t.a[i]) = (
                    Int32(image[p]), Int32(image[p + 1]), Int32(image[p + 2]), Int32(image[p + 3])
                )
            }
            guard let out = BC7.reindexed(v, t) else {
                #expect(mode == 4)
                continue
            }
            modes.insert(mode)
            let header = (UInt128(1) << headerBits[mode]) - 1
            #expect(out & header == v & header, "block \(k), mode \(mode)")
            for j in 0..<16 { reindexed[16 * k + j] = UInt8(truncatingIfNeeded: out >> (8 * j)) }
        }
        #expect(modes.count >= 3, "modes \(modes.sorted())")
        func squaredError(_ decoded: [UInt8]) -> Double {
            zip(decoded, image).reduce(0) { $0 + Double((Int($1.0) - Int($1.1)) * (Int($1.0) - Int($1.1))) }
        }
        let before = squaredError(try BlockReference.reference(blocks, .bc7, w, h))
        let after = squaredError(try BlockReference.reference(reindexed, .bc7, w, h))
        #expect(after <= 1.05 * before, "\(after) against \(before)")
    }
}
