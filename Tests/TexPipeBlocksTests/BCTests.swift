import Foundation
import Testing
import TexPipeTestSupport

@testable import TexPipeBlocks
@testable import TexPipeCodecs
@testable import TexPipeFormats
@testable import TexPipePixels

/// BC1–BC5 decoding and BC4/BC5 encoding against an independent decoder (PyPI's texture2ddecoder,
/// written from the same specifications, not sharing a line with texpipe) and reference encoders
/// (etcpak; bc7enc_rdo's rgbcx through bc7enc-py), plus hand-made blocks.
@Suite("block compression")
struct BCTests {
    static func randomBlocks(_ count: Int, _ format: TextureSettings.Format, seed: UInt64) -> [UInt8] {
        var r = SeededRandom(seed: seed)
        var out = (0..<(count * format.info.blockBytes)).map { _ in UInt8(r.int(0...255)) }
        for b in 0..<count {
            let at = b * format.info.blockBytes
            switch format {
            case .bc1 where b % 2 == 0:
                // Both BC1 modes often: c0 ≤ c1 (three colors) in half the blocks.
                (out[at + 1], out[at + 3]) = (min(out[at + 1], out[at + 3]), max(out[at + 1], out[at + 3]))
            case .bc7:
                // Every mode as often: mode m is m zero bits then a one.
                let m = b % 8
                out[at] = out[at] & ~UInt8(truncatingIfNeeded: (2 << m) - 1) | UInt8(1 << m)
            case .bc3:
                // BC3's color block always has four colors; texture2ddecoder switches to three when
                // c0 ≤ c1 as BC1 does (Pillow, Direct3D and the Khronos spec do not): compared
                // where they agree, c0 > c1, and the other order checked by hand below.
                (out[at + 9], out[at + 11]) = (
                    max(out[at + 9], out[at + 11]) | 1, min(out[at + 9], out[at + 11]) & 0xFE
                )
            default: break
            }
        }
        return out
    }

    @Test(
        Reference.needs(BlockReference.hasDecoder, "python3 texture2ddecoder"),
        arguments: bcFormats)
    func randomBlocksDecodeAsTheReferenceDoes(_ format: TextureSettings.Format) throws {
        let (w, h) = (64, 32)
        let blocks = Self.randomBlocks(16 * 8, format, seed: 41)
        let ours = try BC.decode(blocks, format: format, width: w, height: h)
        let theirs = try BlockReference.reference(blocks, format, w, h)
        if format == .bc1 {
            // texture2ddecoder returns BC1's 3-color index 3 as opaque black; the format says
            // transparent black: colors compared everywhere, alpha where it is opaque.
            for i in stride(from: 0, to: ours.count, by: 4) {
                #expect(Array(ours[i..<(i + 3)]) == Array(theirs[i..<(i + 3)]), "texel \(i / 4)")
                #expect(ours[i + 3] == 255 || (ours[i..<(i + 3)].allSatisfy { $0 == 0 }), "texel \(i / 4)")
            }
        } else {
            #expect(ours == theirs)
        }
    }

    @Test func handMadeBlocksDecodeByTheFormula() throws {
        // BC1, c0 = 0x1234 > c1 = 0x0841: (16, 69, 165), (8, 8, 8), ⌊(2c0 + c1)/3⌋, ⌊(c0 + 2c1)/3⌋.
        let four: [UInt8] = [0x34, 0x12, 0x41, 0x08, 0b1110_0100, 0, 0, 0]
        let d4 = try BC.decode(four, format: .bc1, width: 4, height: 4)
        #expect(Array(d4[0..<16]) == [16, 69, 165, 255, 8, 8, 8, 255, 13, 48, 112, 255, 10, 28, 60, 255])
        // c0 ≤ c1: the mean and transparent black.
        let three: [UInt8] = [0x41, 0x08, 0x34, 0x12, 0b1110_0100, 0, 0, 0]
        let d3 = try BC.decode(three, format: .bc1, width: 4, height: 4)
        #expect(Array(d3[8..<16]) == [12, 38, 86, 255, 0, 0, 0, 0])
        // BC3's color block with c0 ≤ c1 still interpolates four colors.
        let bc3 = try BC.decode([255, 255, 0, 0, 0, 0, 0, 0] + three, format: .bc3, width: 4, height: 4)
        #expect(Array(bc3[8..<16]) == [10, 28, 60, 255, 13, 48, 112, 255])
        // BC4, 200 > 10: ⌊(6·200 + 10)/7⌋ = 172; 10 ≤ 200: ⌊(4·10 + 200)/5⌋ = 48, then 0 and 255.
        let eight: [UInt8] = [200, 10, 0b1001_0000, 0, 0, 0, 0, 0]  // texel 0: index 0, texel 1: 2, texel 2: 0
        #expect(try BC.decode(eight, format: .bc4, width: 4, height: 4)[4] == 172)
        let six: [UInt8] = [10, 200, 0b1111_0010, 0b0000_0001, 0, 0, 0, 0]  // indices 2, 6, 7
        let d6 = try BC.decode(six, format: .bc4, width: 4, height: 4)
        #expect([d6[0], d6[4], d6[8]] == [48, 0, 255] && d6[1] == 0 && d6[3] == 255)
    }

    @Test(
        Reference.needs(BlockReference.hasDecoder, "python3 texture2ddecoder"),
        arguments: bcFormats)
    func encodedBlocksDecodeAlikeEverywhere(_ format: TextureSettings.Format) throws {
        for (w, h) in [(1, 1), (2, 2), (5, 3), (37, 29)] {
            let image = BlockReference.picture(w, h, seed: UInt64(w * h), alpha: format == .bc3 || format == .bc7)
            for quality in TextureSettings.Quality.allCases {
                let blocks = try BC.blocks(image, width: w, height: h, format: format, quality: quality)
                #expect(blocks.count == format.info.levelBytes(w, h))
                let ours = try BC.decode(blocks, format: format, width: w, height: h)
                let theirs = try BlockReference.reference(blocks, format, w, h)
                let diff = ours.indices.first { ours[$0] != theirs[$0] }
                #expect(
                    diff == nil,
                    "\(w)×\(h) \(quality) at byte \(diff ?? -1): \(diff.map { Array(ours[($0 / 4 * 4)..<($0 / 4 * 4 + 4)]) } ?? []) vs \(diff.map { Array(theirs[($0 / 4 * 4)..<($0 / 4 * 4 + 4)]) } ?? []) block \(Array(blocks.prefix(16)))"
                )
            }
        }
    }

    /// Gray texels of a sprite beside its black background (two blocks of a corpus texture where
    /// `medium` was 2–3× thorough's error): `medium` is at least as close as the endpoints worked
    /// out by hand — c0 = (12, 24, 12) and (7, 14, 7) in 5:6:5, c1 black, the gray cluster on the
    /// ⅔ entry ⌊(2·c0 + c1) / 3⌋ — each texel on its nearest entry, both decoded by
    /// texture2ddecoder. BC3's color block too.
    @Test(
        Reference.needs(BlockReference.hasDecoder, "python3 texture2ddecoder"),
        arguments: [TextureSettings.Format.bc1, .bc3])
    func aGrayClusterWithBlackOutliersSitsOnAThirdEntry(_ format: TextureSettings.Format) throws {
        let cases: [([UInt8], (Int, Int, Int))] = [
            ([62, 0, 0, 68, 62, 85, 0, 70, 62, 66, 0, 71, 62, 66, 0, 71], (12, 24, 12)),
            ([38, 0, 0, 43, 38, 0, 53, 42, 41, 0, 53, 42, 41, 0, 53, 42], (7, 14, 7)),
        ]
        for (grays, c0) in cases {
            let texels: [UInt8] = grays.flatMap { g -> [UInt8] in [g, g, g, 255] }
            func square(_ x: Int) -> Int { x * x }
            func squaredError(_ blocks: [UInt8]) throws -> Int {
                let decoded = try BlockReference.reference(blocks, format, 4, 4)
                var sum = 0
                for i in 0..<16 {
                    for c in 0..<3 { sum += square(Int(decoded[i * 4 + c]) - Int(texels[i * 4 + c])) }
                }
                return sum
            }
            // By hand: the 5:6:5 ends widened by repeating their top bits, the palette in index
            // order c0, c1, ⌊(2·c0 + c1) / 3⌋, ⌊(c0 + 2·c1) / 3⌋ (c1 is black).
            let end = [(c0.0 << 3) | (c0.0 >> 2), (c0.1 << 2) | (c0.1 >> 4), (c0.2 << 3) | (c0.2 >> 2)]
            let palette = [end, [0, 0, 0], end.map { 2 * $0 / 3 }, end.map { $0 / 3 }]
            var indices: UInt32 = 0
            for i in 0..<16 {
                let distance = palette.map { p in (0..<3).reduce(0) { $0 + square(p[$1] - Int(grays[i])) } }
                indices |= UInt32(distance.firstIndex(of: distance.min()!)!) << (2 * i)
            }
            let c = UInt16(c0.0 << 11 | c0.1 << 5 | c0.2)
            var hand: [UInt8] = [UInt8(c & 255), UInt8(c >> 8), 0, 0]
            for k in 0..<4 { hand.append(UInt8((indices >> (8 * k)) & 255)) }
            if format == .bc3 { hand = [255, 255, 0, 0, 0, 0, 0, 0] + hand }
            let medium = try BC.blocks(texels, width: 4, height: 4, format: format, quality: .medium)
            let (ours, theirs) = (try squaredError(medium), try squaredError(hand))
            #expect(ours <= theirs, "\(format) \(grays): medium \(ours) against \(theirs) by hand")
        }
    }

    @Test func constantColorBlocksAreExactWhereFiveSixFiveHoldsThem() throws {
        // Colors 5:6:5 represents exactly (their 8-bit expansion) come back exactly in BC1 and BC3.
        for (r, g, b) in [(0, 0, 0), (255, 255, 255), (8, 65, 132), (123, 125, 123)] {
            var image = [UInt8](repeating: 0, count: 64)
            for i in 0..<16 {
                (image[i * 4], image[i * 4 + 1], image[i * 4 + 2], image[i * 4 + 3]) = (
                    UInt8(r), UInt8(g), UInt8(b), 255
                )
            }
            for format in [TextureSettings.Format.bc1, .bc3] {
                for quality in TextureSettings.Quality.allCases {
                    let d = try BC.decode(
                        try BC.blocks(image, width: 4, height: 4, format: format, quality: quality), format: format,
                        width: 4, height: 4)
                    #expect(d == image, "\(format) \(quality) (\(r), \(g), \(b))")
                }
            }
        }
        // Two 5:6:5 colors, one per half: exact (they are the endpoints).
        var two = [UInt8](repeating: 255, count: 64)
        for i in 0..<16 { (two[i * 4], two[i * 4 + 1], two[i * 4 + 2]) = i < 8 ? (16, 69, 165) : (8, 8, 8) }
        let d = try BC.decode(
            try BC.blocks(two, width: 4, height: 4, format: .bc1, quality: .fast), format: .bc1, width: 4, height: 4)
        #expect(d == two)
        // Black and mid-gray: 128 is no 5:6:5 end (rounded to one it decodes as 132, 130, 132);
        // solved at palette positions between the ends, both colors come within 2.
        var gray = [UInt8](repeating: 255, count: 64)
        for i in 0..<16 { (gray[i * 4], gray[i * 4 + 1], gray[i * 4 + 2]) = i < 8 ? (0, 0, 0) : (128, 128, 128) }
        for format in [TextureSettings.Format.bc1, .bc3] {
            let g = try BC.decode(
                try BC.blocks(gray, width: 4, height: 4, format: format, quality: .medium), format: format, width: 4,
                height: 4)
            #expect(zip(g, gray).allSatisfy { abs(Int($0) - Int($1)) <= 2 }, "\(format): \(g)")
        }
    }

    @Test func constantBlocksAreExactAndAGradientIsWithinOneUnit() throws {
        for v in [0, 1, 77, 128, 254, 255] {
            let image = [UInt8](repeating: UInt8(v), count: 16 * 4)
            for format in [TextureSettings.Format.bc4, .bc5] {
                let d = try BC.decode(
                    BC.encode(
                        image, width: 4, height: 4, variant: format.bcVariant, quality: .fast, rows: SerialRows()),
                    format: format, width: 4, height: 4)
                #expect(stride(from: 0, to: 64, by: 4).allSatisfy { d[$0] == UInt8(v) })
            }
        }
        // A ramp across 64 texels (4 values a block, 4 apart): every texel within 1.
        var ramp = [UInt8](repeating: 0, count: 64 * 4 * 4)
        for y in 0..<4 { for x in 0..<64 { ramp[(y * 64 + x) * 4] = UInt8(x * 255 / 63) } }
        let d = try BC.decode(
            BC.encode(ramp, width: 64, height: 4, variant: .bc4, quality: .medium, rows: SerialRows()),
            format: .bc4, width: 64, height: 4)
        for i in stride(from: 0, to: d.count, by: 4) { #expect(abs(Int(d[i]) - Int(ramp[i])) <= 1) }
    }

    @Test(arguments: [TextureSettings.Format.bc5, .bc7])
    func theBytesDoNotDependOnTheCores(_ format: TextureSettings.Format) {
        let image = BlockReference.picture(256, 128, seed: 5, alpha: true)
        let one = BC.encode(
            image, width: 256, height: 128, variant: format.bcVariant, quality: .medium, rows: SerialRows())
        let lender = CoreLenderStandIn()
        let many = BC.encode(image, width: 256, height: 128, variant: format.bcVariant, quality: .medium, rows: lender)
        #expect(one == many && lender.bands > 1)
    }

    /// Splits rows into 7 bands on the calling thread, counting them.
    final class CoreLenderStandIn: RowScheduler, @unchecked Sendable {
        var bands = 0
        func forEachBand(rows: Int, pixelsPerRow: Int, _ body: (Range<Int>) -> Void) {
            for k in 0..<7 {
                bands += 1
                body((rows * k / 7)..<(rows * (k + 1) / 7))
            }
        }
    }

    /// Quality floors from the references on the same images: etcpak and bc7enc_rdo (bc7enc-py:
    /// rgbcx for BC1/BC3/BC5, bc7enc for BC7) encode, texture2ddecoder decodes both; texpipe's
    /// medium is within 0.5 dB of the better, thorough at least as good, fast at least etcpak's.
    @Test(
        Reference.needs(
            BlockReference.hasDecoder && Python.has("etcpak") && Python.has("bc7enc"), "the reference wheels"))
    func atLeastTheReferencesQuality() throws {
        let t = TempDir()
        let images = [
            (BlockReference.picture(128, 96, seed: 1), 128, 96), (BlockReference.picture(64, 64, seed: 2), 64, 64),
        ]
        let alphaImages = [
            (BlockReference.picture(128, 96, seed: 1, alpha: true), 128, 96),
            (BlockReference.picture(64, 64, seed: 2, alpha: true), 64, 64),
        ]
        for format in bcFormats {
            let channels = format == .bc5 ? [0, 1] : format == .bc4 ? [0] : [0, 1, 2]
            let set = format == .bc3 ? alphaImages : format == .bc7 ? [images[0], alphaImages[1]] : images
            for (k, (image, w, h)) in set.enumerated() {
                t.write("image.rgba", image)
                let refs = try Python.run(
                    """
                    import sys, etcpak, bc7enc, texture2ddecoder as t, math
                    d = open(sys.argv[1], 'rb').read(); w, h = int(sys.argv[2]), int(sys.argv[3]); f = sys.argv[4]
                    ch = {'bc5': [(2, 0), (1, 1)], 'bc4': [(2, 0)]}.get(f, [(2, 0), (1, 1), (0, 2)])
                    def psnr(blocks):
                        out = getattr(t, 'decode_' + f)(blocks, w, h); se = 0
                        for i in range(w * h):
                            for c, o in ch:
                                se += (out[i * 4 + c] - d[i * 4 + o]) ** 2
                        return 99 if se == 0 else 10 * math.log10(255 * 255 / (se / (w * h * len(ch))))
                    e = psnr(getattr(etcpak, 'compress_' + f)(d, w, h))
                    dds = {'bc1': 'DXT1', 'bc3': 'DXT5', 'bc5': 'BC5', 'bc7': 'BC7'}.get(f)
                    r = psnr(bc7enc.pack_dds(d, w, h, dds)) if dds else e
                    print(e, r)
                    """, t.path + "/image.rgba", String(w), String(h), format.rawValue)
                let parts = String(decoding: refs, as: UTF8.self).split(separator: " ").compactMap {
                    Double($0.trimmingCharacters(in: .whitespacesAndNewlines))
                }
                let (etcpak, rgbcx) = (parts[0], parts[1])
                func ours(_ q: TextureSettings.Quality) throws -> Double {
                    let blocks = try BC.blocks(image, width: w, height: h, format: format, quality: q)
                    return psnr(
                        try BC.decode(blocks, format: format, width: w, height: h), image, channels: channels)
                }
                let better = max(etcpak, rgbcx)
                let (fast, medium) = (try ours(.fast), try ours(.medium))
                // Thorough (slow in a debug build) on the smaller image only.
                let thorough = k == 1 ? try ours(.thorough) : nil
                print(
                    "\(format) image \(k): etcpak \(etcpak), rgbcx/bc7enc \(rgbcx); fast \(fast), medium \(medium), thorough \(thorough ?? .nan)"
                )
                #expect(fast >= etcpak - 0.01, "\(format) image \(k) fast vs etcpak \(etcpak)")
                #expect(medium >= better - 0.5, "\(format) image \(k) medium vs \(better)")
                if let thorough { #expect(thorough >= better, "\(format) image \(k) thorough vs \(better)") }
            }
        }
    }

    /// `medium`'s ±1 step, which reuses each palette entry's error in the two unchanged channels,
    /// chooses exactly what trying each of the twelve neighbours in full chooses (written out here
    /// from its definition): on random blocks, smooth ones and blocks with repeated colors (ties),
    /// from pairs in both orders and both modes, and on a nearly flat block from pairs whose
    /// neighbours include equal ends.
    @Test func plusMinusOneIsTheFullSearch() {
        // The definition: each neighbour of the start pair, in full.
        func check(_ t: BC.Texels, _ a: Int, _ b: Int, wantFour: Bool, threeColors: Bool) -> Bool {
            var start = BC.ColorCandidate()
            start.consider(t, a, b, four: wantFour || !threeColors)
            let four = start.four || !threeColors
            var expected = start
            for (shift, mask) in [(11, 31), (5, 63), (0, 31)] {
                for which in 0..<2 {
                    for delta in [-1, 1] {
                        var (x, y) = (start.c0, start.c1)
                        let v = ((which == 0 ? x : y) >> shift) & mask + delta
                        guard v >= 0 && v <= mask else { continue }
                        if which == 0 {
                            x = x & ~(mask << shift) | v << shift
                        } else {
                            y = y & ~(mask << shift) | v << shift
                        }
                        expected.consider(t, x, y, four: four)
                    }
                }
            }
            var got = start
            BC.plusMinusOne(t, &got, four: four)
            return got.packed() == expected.packed() && got.error == expected.error && got.four == expected.four
        }
        var random = SeededRandom(seed: 5)
        for trial in 0..<3000 {
            var t = BC.Texels()
            let spread = [4, 40, 255][trial % 3]
            let base = (random.int(0...255), random.int(0...255), random.int(0...255))
            for i in 0..<16 {
                let k = trial % 5 == 0 ? i % 2 : i  // two colors only: many ties
                func channel(_ c: Int) -> Int32 {
                    Int32(max(0, min(255, c + (k * 37 + c) % (spread + 1) - spread / 2)))
                }
                (t.r[i], t.g[i], t.b[i]) = (channel(base.0), channel(base.1), channel(base.2))
            }
            let (a, b) = (random.int(0...65535), random.int(0...65535))
            #expect(check(t, a, b, wantFour: trial % 4 < 2, threeColors: trial % 2 == 0), "trial \(trial)")
        }
        // A nearly flat corpus block, from every pair within a step of its color in each channel:
        // neighbours there are often equal ends (another mode), and they win.
        let texels: [(Int32, Int32, Int32)] = [
            (50, 48, 42), (50, 48, 37), (53, 50, 41), (53, 50, 41), (48, 47, 42), (51, 49, 43), (52, 50, 45),
            (51, 49, 44), (47, 45, 37), (50, 49, 42), (51, 50, 46), (49, 48, 44), (50, 48, 39), (50, 48, 42),
            (48, 47, 41), (50, 48, 45),
        ]
        var t = BC.Texels()
        for (i, c) in texels.enumerated() { (t.r[i], t.g[i], t.b[i]) = c }
        let steps = (-1...1).flatMap { r in
            (-1...1).flatMap { g in (-1...1).map { b in (6 + r) << 11 | (12 + g) << 5 | (5 + b) } }
        }
        for a in steps {
            for b in steps {
                for (wantFour, threeColors) in [(true, true), (false, true), (true, false)] {
                    #expect(check(t, a, b, wantFour: wantFour, threeColors: threeColors), "\(a), \(b)")
                }
            }
        }
    }

    /// A block of one color at `fast`, decoded by texture2ddecoder: each channel as near its value
    /// as any 5:6:5 endpoint pair's palette comes (bit-replicated ends, the ⅓ and ⅔ entries
    /// rounded down, as the format defines them), every pair tried here.
    @Test(Reference.needs(BlockReference.hasDecoder, "texture2ddecoder"))
    func fastFlatBlocksTakeTheNearestPaletteEntry() throws {
        func nearest(_ v: Int, bits: Int) -> Int {
            let top = (1 << bits) - 1
            func expand(_ x: Int) -> Int { bits == 5 ? (x << 3) | (x >> 2) : (x << 2) | (x >> 4) }
            var best = Int.max
            for a in 0...top {
                for b in 0...top { best = min(best, abs((2 * expand(a) + expand(b)) / 3 - v)) }
            }
            return best
        }
        var rng = SeededRandom(seed: 7)
        let colors =
            (0..<32).map { i in (i * 8 + 3, i * 8 + 3, i * 8 + 3) }
            + (0..<32).map { _ in (rng.int(0...255), rng.int(0...255), rng.int(0...255)) }
        // One 4×4 block per color, side by side.
        let (w, h) = (4 * colors.count, 4)
        var image = [UInt8](repeating: 255, count: w * h * 4)
        for (k, c) in colors.enumerated() {
            for y in 0..<4 {
                for x in 0..<4 {
                    let i = (y * w + k * 4 + x) * 4
                    (image[i], image[i + 1], image[i + 2]) = (UInt8(c.0), UInt8(c.1), UInt8(c.2))
                }
            }
        }
        for format in [TextureSettings.Format.bc1, .bc3] {
            let decoded = try BlockReference.reference(
                try BC.blocks(image, width: w, height: h, format: format, quality: .fast), format, w, h)
            for (k, c) in colors.enumerated() {
                for y in 0..<4 {
                    for x in 0..<4 {
                        let i = (y * w + k * 4 + x) * 4
                        let got = (Int(decoded[i]), Int(decoded[i + 1]), Int(decoded[i + 2]))
                        #expect(abs(got.0 - c.0) == nearest(c.0, bits: 5), "\(format) \(c) → \(got)")
                        #expect(abs(got.1 - c.1) == nearest(c.1, bits: 6), "\(format) \(c) → \(got)")
                        #expect(abs(got.2 - c.2) == nearest(c.2, bits: 5), "\(format) \(c) → \(got)")
                    }
                }
            }
        }
    }

    /// BC1's `fast` (and BC3's color at `fast`) against Intel's ISPC Texture Compressor, the
    /// reference it is built to match: at least its PSNR over R, G and B, both decoded by
    /// texture2ddecoder, on pictures of smooth gradients, edges and noise (the mean over them).
    @Test(Reference.needs(BlockReference.hasDecoder && Python.has("ispc_texcomp"), "ispc_texcomp"))
    func fastIsAtLeastISPCsQuality() throws {
        let t = TempDir()
        let images = [(128, 96, 1), (64, 64, 2), (96, 128, 3), (80, 48, 4)].map { w, h, seed in
            (BlockReference.picture(w, h, seed: UInt64(seed)), w, h)
        }
        for format in [TextureSettings.Format.bc1, .bc3] {
            var (ours, theirs) = (0.0, 0.0)
            for (image, w, h) in images {
                t.write("image.rgba", image)
                let out = try Python.run(
                    """
                    import sys, ispc_texcomp as i, texture2ddecoder as t, math
                    d = open(sys.argv[1], 'rb').read(); w, h = int(sys.argv[2]), int(sys.argv[3]); f = sys.argv[4]
                    b = getattr(i, 'compress_blocks_' + f)(i.RGBASurface(d, w, h, w * 4))
                    out = getattr(t, 'decode_' + f)(b, w, h); se = 0
                    for k in range(w * h):
                        for c, o in [(2, 0), (1, 1), (0, 2)]:
                            se += (out[k * 4 + c] - d[k * 4 + o]) ** 2
                    print(10 * math.log10(255 * 255 / (se / (w * h * 3))))
                    """, t.path + "/image.rgba", String(w), String(h), format.rawValue)
                theirs += try #require(
                    Double(String(decoding: out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)))
                let blocks = try BC.blocks(image, width: w, height: h, format: format, quality: .fast)
                ours += psnr(try BlockReference.reference(blocks, format, w, h), image, channels: [0, 1, 2])
            }
            let n = Double(images.count)
            print("\(format) fast \(ours / n) dB, ISPC \(theirs / n) dB")
            #expect(ours >= theirs, "\(format): fast \(ours / n) dB, ISPC \(theirs / n) dB")
        }
    }
}
