import Foundation
import Testing
import TexPipeTestSupport

@testable import TexPipeBlocks
@testable import TexPipeCodecs
@testable import TexPipeFormats
@testable import TexPipePixels
@testable import TexPipeTextures

/// ETC2 and EAC: texpipe's decoder against an independent one (PyPI's texture2ddecoder), blocks
/// built by hand from the Khronos Data Format Specification's bit tables with their texels worked
/// out here from its formulas, texpipe's encoder checked by both decoders, and its quality against
/// etcpak's on the same images.
@Suite("ETC2 and EAC")
struct ETCTests {
    typealias Format = TextureSettings.Format
    static let formats: [Format] = [.etc2RGB, .etc2RGBA, .eacR11, .eacRG11]
    static let hasDecoder = Python.has("texture2ddecoder")

    /// texture2ddecoder's texels for `blocks` of a w × h level (decoded at whole blocks, then cut),
    /// as RGBA. Its EAC output is each 11-bit value shifted right by 3, in the red (and green) byte.
    static func reference(_ blocks: [UInt8], _ format: Format, _ w: Int, _ h: Int) throws -> [UInt8] {
        let name = [.etc2RGB: "etc2", .etc2RGBA: "etc2a8", .eacR11: "eacr", .eacRG11: "eacrg"][format]!
        return try BlockReference.reference(blocks, decoder: name, w, h)
    }

    /// texpipe's decode in texture2ddecoder's terms: ETC2 as is; EAC from the 11-bit values
    /// (`ETCDecoder.eac11`), shifted right by 3 as that decoder does.
    static func ours(_ blocks: [UInt8], _ format: Format, _ w: Int, _ h: Int) throws -> [UInt8] {
        guard format == .eacR11 || format == .eacRG11 else {
            return try ETCDecoder.decode(blocks, format: format, width: w, height: h)
        }
        let size = format.info.blockBytes
        let bw = (w + 3) / 4
        var out = [UInt8](repeating: 0, count: w * h * 4)
        for y in 0..<h {
            for x in 0..<w {
                let at = ((y / 4) * bw + x / 4) * size
                func word(_ o: Int) -> UInt64 { (0..<8).reduce(UInt64(0)) { $0 << 8 | UInt64(blocks[at + o + $1]) } }
                let i = (y % 4) * 4 + x % 4
                out[(y * w + x) * 4] = UInt8(ETCDecoder.eac11(word(0))[i] >> 3)
                if format == .eacRG11 { out[(y * w + x) * 4 + 1] = UInt8(ETCDecoder.eac11(word(8))[i] >> 3) }
                out[(y * w + x) * 4 + 3] = 255
            }
        }
        return out
    }

    /// Random blocks with every colour mode as often: block b's mode is b % 5 — individual,
    /// differential (no overflow), T (R + dR above 31), H (G + dG below 0), planar (B + dB above 31).
    static func randomBlocks(_ count: Int, _ format: Format, seed: UInt64) -> [UInt8] {
        var r = SeededRandom(seed: seed)
        let size = format.info.blockBytes
        var out = (0..<(count * size)).map { _ in UInt8(r.int(0...255)) }
        guard format == .etc2RGB || format == .etc2RGBA else { return out }
        let colorAt = format == .etc2RGBA ? 8 : 0
        for b in 0..<count {
            let at = b * size + colorAt
            switch b % 5 {
            case 0: out[at + 3] &= ~2
            case 1:
                out[at + 3] |= 2
                for c in 0..<3 { out[at + c] = UInt8(r.int(4...27)) << 3 | UInt8(r.int(0...7)) }
            case 2:
                out[at + 3] |= 2
                out[at] = 31 << 3 | 3  // R 31, dR +3
            case 3:
                out[at + 3] |= 2
                out[at] = UInt8(r.int(4...27)) << 3 | UInt8(r.int(0...7))
                out[at + 1] = 1 << 3 | 6  // G 1, dG −2
            default:
                out[at + 3] |= 2
                out[at] = UInt8(r.int(4...27)) << 3 | UInt8(r.int(0...7))
                out[at + 1] = UInt8(r.int(4...27)) << 3 | UInt8(r.int(0...7))
                out[at + 2] = 30 << 3 | 2  // B 30, dB +2
            }
        }
        return out
    }

    @Test(Reference.needs(hasDecoder, "python3 texture2ddecoder"), arguments: formats)
    func randomBlocksDecodeAsTheReferenceDoes(_ format: Format) throws {
        let (w, h) = (40, 32)
        let blocks = Self.randomBlocks(10 * 8, format, seed: 7)
        var theirs = try Self.reference(blocks, format, w, h)
        var mine = try Self.ours(blocks, format, w, h)
        if format == .etc2RGBA {
            // An alpha multiplier of 0 is one no encoder may write (the spec asks decoders for 0 ×
            // modifier); texture2ddecoder differs there, so those blocks' alpha is left out.
            for by in 0..<8 {
                for bx in 0..<10 where blocks[(by * 10 + bx) * 16 + 1] >> 4 == 0 {
                    for y in 0..<4 {
                        for x in 0..<4 {
                            let i = ((by * 4 + y) * w + bx * 4 + x) * 4 + 3
                            (theirs[i], mine[i]) = (0, 0)
                        }
                    }
                }
            }
        }
        let diff = mine.indices.first { mine[$0] != theirs[$0] }
        #expect(
            diff == nil,
            "\(format): texel \((diff ?? 0) / 4) \(mine[(diff ?? 0) / 4 * 4..<(diff ?? 0) / 4 * 4 + 4]) vs \(theirs[(diff ?? 0) / 4 * 4..<(diff ?? 0) / 4 * 4 + 4])"
        )
    }

    /// 64-bit big-endian block bytes.
    static func bytes(_ w: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: w >> (56 - 8 * $0)) } }

    /// Texel (x, y) of a decoded 4 × 4 block.
    static func texel(_ d: [UInt8], _ x: Int, _ y: Int) -> [Int] { (0..<4).map { Int(d[(y * 4 + x) * 4 + $0]) } }

    @Test func handMadeBlocksDecodeAsTheSpecificationSays() throws {
        // Differential, flip 1 (subblocks on top of each other): R 28 (→ 231), dR −4 (→ 24 → 198),
        // G 4 (→ 33), dG +2 (→ 6 → 49), B 3 (→ 24), dB 0; tables 2 (9, 29) and 5 (24, 80).
        // Texel (1, 0) index 01 (+29): (231+29, 33+29, 24+29) clamped = (255, 62, 53); texel (2, 3)
        // index 11 (−80) in subblock 2: (118, −31, −56) clamped = (118, 0, 0).
        let fields: [(UInt64, UInt64)] = [
            (28, 27), (4, 24), (4, 19), (2, 16), (3, 11), (0, 8), (2, 5), (5, 2), (1, 1), (1, 0),
        ]
        var hi: UInt64 = fields.reduce(0) { (sum: UInt64, f: (UInt64, UInt64)) -> UInt64 in sum | f.0 << f.1 }
        var lo: UInt64 = 0
        lo |= 1 << UInt64(1 * 4 + 0)  // (1, 0): k = 4, index 01
        lo |= 1 << UInt64(16 + 2 * 4 + 3) | 1 << UInt64(2 * 4 + 3)  // (2, 3): k = 11, index 11
        var d = try ETCDecoder.decode(Self.bytes(hi << 32 | lo), format: .etc2RGB, width: 4, height: 4)
        #expect(Self.texel(d, 1, 0) == [255, 62, 53, 255])
        #expect(Self.texel(d, 2, 3) == [118, 0, 0, 255])
        #expect(Self.texel(d, 0, 0) == [240, 42, 33, 255])  // index 00: +9
        #expect(Self.texel(d, 0, 2) == [222, 73, 48, 255])  // subblock 2, index 00: +24

        // T mode: R1 = 0b1011 (R1a 10, R1b 11): the free bits 111 and 0 make R = 0b11110 = 30 and
        // dR = 0b011 = 3, so R + dR = 33 > 31 selects T. G1 5, B1 9, R2 2, G2 12, B2 7; distance
        // index 0b101 = 5 → 32. Paint colours: c1 = (187, 85, 153); c2 = (34, 204, 119);
        // c2 + 32 = (66, 236, 151); c2 − 32 = (2, 172, 87).
        hi = 0b111 << 29 | 0b10 << 27 | 0 << 26 | 0b11 << 24 | 5 << 20 | 9 << 16 | 2 << 12 | 12 << 8 | 7 << 4
        hi |= 0b10 << 2 | 1 << 1 | 1
        lo = 0
        // Indices by texel: (0,0) 0, (1,0) 1, (2,0) 2, (3,0) 3.
        for (x, v) in [(0, 0), (1, 1), (2, 2), (3, 3)] {
            let k = UInt64(x * 4)
            lo |= UInt64(v >> 1) << (16 + k) | UInt64(v & 1) << k
        }
        d = try ETCDecoder.decode(Self.bytes(hi << 32 | lo), format: .etc2RGB, width: 4, height: 4)
        #expect(
            (0..<4).map { Self.texel(d, $0, 0) } == [
                [187, 85, 153, 255], [66, 236, 151, 255], [34, 204, 119, 255], [2, 172, 87, 255],
            ])

        // H mode: c1 = (R1 3, G1 0b0101, B1 0b1010) → (51, 85, 170); c2 = (4, 4, 4) → 68s. R = 3
        // with dR = G1's top three (0b010 = +2): 5, inside. G1's last bit 1 and B1's top bit 1
        // with the free bits 111 make G = 31, dG = 0 (free) then B1's next two (01): +1, so
        // G + dG = 32 selects H. da 1, db 0, and c1 < c2 by value gives the index's low bit 0:
        // 0b100 = 4 → 23. Paint colours: c1 ± 23, c2 ± 23.
        hi = 0 << 31 | 3 << 27 | 0b010 << 24 | 0b111 << 21 | 1 << 20 | 1 << 19 | 0 << 18 | 0b010 << 15
        hi |= 4 << 11 | 4 << 7 | 4 << 3 | 1 << 2 | 1 << 1 | 0
        lo = 0
        for (x, v) in [(0, 0), (1, 1), (2, 2), (3, 3)] {
            let k = UInt64(x * 4 + 1)  // row y = 1
            lo |= UInt64(v >> 1) << (16 + k) | UInt64(v & 1) << k
        }
        d = try ETCDecoder.decode(Self.bytes(hi << 32 | lo), format: .etc2RGB, width: 4, height: 4)
        #expect(
            (0..<4).map { Self.texel(d, $0, 1) } == [
                [74, 108, 193, 255], [28, 62, 147, 255], [91, 91, 91, 255], [45, 45, 45, 255],
            ])

        // Planar: O = (RO 10, GO 100, BO 20) → (40, 201, 81); H = (RH 40, GH 30, BH 63) → (162, 60,
        // 255); V = (RV 0, GV 127, BV 5) → (0, 255, 20). R(x, y) = clamp((x·(H − O) + y·(V − O) +
        // 4·O + 2) >> 2), e.g. at (3, 3): R (366 − 120 + 162) >> 2 = 102, G (−423 + 162 + 806) >> 2
        // = 136, B (522 − 183 + 326) >> 2 = 166; at (1, 2): R (122 − 80 + 162) >> 2 = 51,
        // G (−141 + 108 + 806) >> 2 = 193, B (174 − 122 + 326) >> 2 = 94.
        let (ro, go, bo) = (UInt64(10), UInt64(100), UInt64(20))
        let (rh, gh, bh) = (UInt64(40), UInt64(30), UInt64(63))
        let (rv, gv, bv) = (UInt64(0), UInt64(127), UInt64(5))
        hi = ro << 25 | (go >> 6) << 24 | (go & 63) << 17 | (bo >> 5) << 16 | ((bo >> 3) & 3) << 11 | (bo & 7) << 7
        hi |= (rh >> 1) << 2 | 1 << 1 | (rh & 1)
        hi |= ((ro >> 1) & 1) << 31 | ((go >> 1) & 1) << 23
        // B = free 111 + BO's 2 bits (0b10) = 30, dB = free 0 + 0b10 → +2: 32, planar.
        hi |= 0b111 << 13
        lo = gh << 25 | bh << 19 | rv << 13 | gv << 6 | bv
        d = try ETCDecoder.decode(Self.bytes(hi << 32 | lo), format: .etc2RGB, width: 4, height: 4)
        #expect(Self.texel(d, 0, 0) == [40, 201, 81, 255])
        #expect(Self.texel(d, 3, 3) == [102, 136, 166, 255])
        #expect(Self.texel(d, 1, 2) == [51, 193, 94, 255])

        // EAC: base 103, multiplier 2, table 13, texel b (0, 1) index 3 (−10): alpha 83; R11
        // 828 − 160 = 668 (the spec's examples), and with multiplier 0: 818.
        let eac: UInt64 = 103 << 56 | 2 << 52 | 13 << 48 | 3 << 42
        #expect(ETCDecoder.alpha(eac)[4] == 83)
        #expect(ETCDecoder.eac11(eac)[4] == 668)
        #expect(ETCDecoder.eac11(103 << 56 | 0 << 52 | 13 << 48 | 3 << 42)[4] == 818)
        #expect(ETCDecoder.to8(668) == 83 && ETCDecoder.to8(2047) == 255 && ETCDecoder.to8(0) == 0)
    }

    /// A test picture with what each mode is for: smooth gradients (planar), two-colour edges
    /// (T and H), strong noise (individual), mild noise on near colours (differential); with
    /// `alpha`, a soft disc.
    static func picture(_ w: Int, _ h: Int, seed: UInt64, alpha: Bool = false) -> [UInt8] {
        var r = SeededRandom(seed: seed)
        var p = [UInt8](repeating: 255, count: w * h * 4)
        for y in 0..<h {
            for x in 0..<w {
                let i = (y * w + x) * 4
                let zone = (x / 16 + y / 16) % 4
                var c: (Int, Int, Int)
                switch zone {
                case 0: c = (x * 255 / max(1, w - 1), y * 200 / max(1, h - 1), 255 - x * 3 % 256)
                case 1: c = (x + y) % 7 < 3 ? (230, 40, 30) : (20, 90, 220)
                case 2: c = (r.int(0...255), r.int(100...140), r.int(0...60))
                // Texture-like: mild noise on two near colours side by side (differential's case).
                default: c = (100 + 12 * ((x / 2) % 2) + r.int(-5...5), 140 + r.int(-5...5), 60 + r.int(-5...5))
                }
                (p[i], p[i + 1], p[i + 2]) = (UInt8(c.0), UInt8(c.1), UInt8(c.2))
                if alpha {
                    let d = (Double(x - w / 2) * Double(x - w / 2) + Double(y - h / 2) * Double(y - h / 2)).squareRoot()
                    p[i + 3] = UInt8(max(0, min(255, 255 - (d - Double(min(w, h)) / 3) * 16)))
                }
            }
        }
        return p
    }

    @Test(Reference.needs(hasDecoder, "python3 texture2ddecoder"), arguments: formats)
    func encodedBlocksDecodeAlikeEverywhere(_ format: Format) throws {
        for (w, h) in [(1, 1), (2, 2), (5, 3), (37, 29)] {
            let image = Self.picture(w, h, seed: UInt64(w * h), alpha: format == .etc2RGBA)
            for quality in TextureSettings.Quality.allCases {
                let blocks = try ETC.blocks(image, width: w, height: h, format: format, quality: quality)
                #expect(blocks.count == format.info.levelBytes(w, h))
                let mine = try Self.ours(blocks, format, w, h)
                let theirs = try Self.reference(blocks, format, w, h)
                #expect(mine == theirs, "\(format) \(w)×\(h) \(quality)")
            }
        }
    }

    /// The colour mode of each block of an ETC2 RGB level (0 individual, 1 differential, 2 T, 3 H,
    /// 4 planar), read from the bits as the specification selects it.
    static func modes(_ blocks: [UInt8], stride: Int, offset: Int) -> Set<Int> {
        var out = Set<Int>()
        for at in Swift.stride(from: offset, to: blocks.count, by: stride) {
            func s3(_ v: Int) -> Int { v >= 4 ? v - 8 : v }
            let (r, g, b) = (Int(blocks[at] >> 3), Int(blocks[at + 1] >> 3), Int(blocks[at + 2] >> 3))
            let (dr, dg, db) = (s3(Int(blocks[at] & 7)), s3(Int(blocks[at + 1] & 7)), s3(Int(blocks[at + 2] & 7)))
            if blocks[at + 3] & 2 == 0 {
                out.insert(0)
            } else if !(0...31).contains(r + dr) {
                out.insert(2)
            } else if !(0...31).contains(g + dg) {
                out.insert(3)
            } else if !(0...31).contains(b + db) {
                out.insert(4)
            } else {
                out.insert(1)
            }
        }
        return out
    }

    @Test func theEncoderUsesEveryMode() throws {
        let image = Self.picture(128, 128, seed: 3)
        var used = Set<Int>()
        for quality in TextureSettings.Quality.allCases {
            let blocks = try ETC.blocks(image, width: 128, height: 128, format: .etc2RGB, quality: quality)
            let m = Self.modes(blocks, stride: 8, offset: 0)
            used.formUnion(m)
            if quality != .fast { #expect(m.isSuperset(of: [1, 2, 3, 4]), "\(quality): \(m.sorted())") }
        }
        #expect(used == [0, 1, 2, 3, 4], "\(used.sorted())")
    }

    @Test func constantBlocksAreExactWhereTheFormatHoldsThem() throws {
        for v in [0, 1, 77, 128, 200, 254, 255] {
            let image = (0..<16).flatMap { _ -> [UInt8] in [UInt8(v), UInt8(255 - v), UInt8(v / 2), UInt8(v)] }
            for quality in TextureSettings.Quality.allCases {
                // EAC holds every 8-bit value: alpha exactly, R11 and RG11 as the nearest 11-bit value.
                let a = try ETCDecoder.decode(
                    try ETC.blocks(image, width: 4, height: 4, format: .etc2RGBA, quality: quality),
                    format: .etc2RGBA, width: 4, height: 4)
                #expect(stride(from: 3, to: 64, by: 4).allSatisfy { a[$0] == UInt8(v) }, "alpha \(v) \(quality)")
                let rg = try ETCDecoder.decode(
                    try ETC.blocks(image, width: 4, height: 4, format: .eacRG11, quality: quality),
                    format: .eacRG11, width: 4, height: 4)
                #expect(
                    stride(from: 0, to: 64, by: 4).allSatisfy { rg[$0] == UInt8(v) && rg[$0 + 1] == UInt8(255 - v) })
                // ETC2 RGB's modifiers are never 0, but a T block's first paint colour is a 4-bit
                // expansion (17·k) as it is, and a planar block with O = H = V is any 6-7-6
                // expansion (R and B 6 bits, G 7 bits).
                let k = v / 17 * 17
                func e6(_ q: Int) -> Int { q << 2 | q >> 4 }
                func e7(_ q: Int) -> Int { q << 1 | q >> 6 }
                for (r, g, b) in [(k, k, k), (k, 255 - k, 17 * (v % 16)), (e6(v / 4), e7(v / 2), e6(63 - v / 4))] {
                    let block = (0..<16).flatMap { _ -> [UInt8] in [UInt8(r), UInt8(g), UInt8(b), 255] }
                    let d = try ETCDecoder.decode(
                        try ETC.blocks(block, width: 4, height: 4, format: .etc2RGB, quality: quality),
                        format: .etc2RGB, width: 4, height: 4)
                    #expect(d == block, "(\(r), \(g), \(b)) \(quality)")
                }
            }
        }
    }

    @Test func theBytesDoNotDependOnTheCores() {
        let image = Self.picture(256, 128, seed: 5, alpha: true)
        for variant in [ETCVariant.rgba, .rg11] {
            let one = ETC.encode(image, width: 256, height: 128, variant: variant, quality: .medium, rows: SerialRows())
            let lender = BCTests.CoreLenderStandIn()
            let many = ETC.encode(image, width: 256, height: 128, variant: variant, quality: .medium, rows: lender)
            #expect(one == many && lender.bands > 1)
        }
    }

    /// Quality floors from etcpak on the same images (its blocks decoded by texture2ddecoder, as
    /// texpipe's are): medium at least etcpak's PSNR plus a margin for ETC2 RGB, and at least
    /// etcpak's for EAC; fast at least etcpak's.
    @Test(Reference.needs(hasDecoder && Python.has("etcpak"), "python3 texture2ddecoder and etcpak"))
    func atLeastEtcpaksQuality() throws {
        let t = TempDir()
        for format in Self.formats {
            let (w, h) = (96, 64)
            let image = Self.picture(w, h, seed: 11, alpha: format == .etc2RGBA)
            let channels = format == .eacR11 ? [0] : format == .eacRG11 ? [0, 1] : [0, 1, 2]
            t.write("image.rgba", image)
            let entry = [.etc2RGB: "etc2_rgb", .etc2RGBA: "etc2_rgba", .eacR11: "eac_r", .eacRG11: "eac_rg"][format]!
            // PSNR of the colour channels, and of alpha on its own (ETC2 RGBA).
            func scores(_ decoded: [UInt8]) -> (Double, Double) {
                (
                    psnr(decoded, image, channels: channels),
                    format == .etc2RGBA ? psnr(decoded, image, channels: [3]) : 0
                )
            }
            // etcpak 0.9.15's ETC and EAC entries read RGBA (and swap red and blue in the buffer
            // they are given: this one is read from the file for the call alone).
            let blocks = try Python.run(
                "import sys, etcpak; d = open(sys.argv[1], 'rb').read(); "
                    + "sys.stdout.buffer.write(getattr(etcpak, 'compress_' + sys.argv[2])(d, 96, 64))",
                t.path + "/image.rgba", entry)
            let reference = scores(try Self.reference(Array(blocks.prefix(format.info.levelBytes(w, h))), format, w, h))
            func mine(_ q: TextureSettings.Quality) throws -> (Double, Double) {
                let b = try ETC.blocks(image, width: w, height: h, format: format, quality: q)
                return scores(try Self.reference(b, format, w, h))
            }
            let (fast, medium) = (try mine(.fast), try mine(.medium))
            print("\(format): etcpak \(reference), fast \(fast), medium \(medium)")
            #expect(fast.0 >= reference.0 - 0.01, "\(format) fast vs etcpak \(reference)")
            #expect(medium.0 >= reference.0 + (format == .etc2RGB ? 1 : 0), "\(format) medium vs etcpak \(reference)")
            #expect(medium.1 >= reference.1 - 0.01, "\(format) medium alpha vs etcpak \(reference)")
        }
    }
}

extension ETCTests {
    /// A whole KTX2 file: read back with the tests' own KTX2 reader (written from the KTX2
    /// specification), every level's blocks decoded alike by texpipe and texture2ddecoder.
    @Test(Reference.needs(hasDecoder, "python3 texture2ddecoder"), arguments: formats)
    func ktx2FilesReadBackLevelByLevel(_ format: Format) throws {
        var levels: [Image] = []
        var (w, h) = (37, 20)
        while true {
            levels.append(
                Image(
                    width: w, height: h, pixels: .rgba8(Self.picture(w, h, seed: UInt64(w), alpha: format == .etc2RGBA))
                ))
            if w == 1 && h == 1 { break }
            (w, h) = (max(1, w / 2), max(1, h / 2))
        }
        var settings = TextureSettings.standard
        settings.format = format
        settings.colorSpace = format.info.isData ? .linear : .srgb
        let bytes = try TextureEncoder.encode(levels, settings, container: .ktx2)
        let f = try #require(KTX2File(bytes))
        #expect(f.vkFormat == format.info.vkFormat(srgb: !format.info.isData))
        #expect(f.colorModel == 161 && f.texelBlockDimension == [3, 3, 0, 0] && Int(f.levelCount) == levels.count)
        for (n, level) in levels.enumerated() {
            let data = f.levelData(n)
            #expect(data.count == format.info.levelBytes(level.width, level.height))
            #expect(
                try Self.ours(data, format, level.width, level.height)
                    == Self.reference(data, format, level.width, level.height), "level \(n)")
        }
    }

    /// ETC2 RGB holds no alpha: a translucent texel is the job's error, counted, with the format to use.
    @Test func etc2RGBRefusesAlpha() throws {
        var p = Self.picture(8, 8, seed: 1)
        p[3] = 200
        p[7 * 4 + 3] = 0
        let image = Image(width: 8, height: 8, pixels: .rgba8(p))
        var settings = TextureSettings.standard
        settings.format = .etc2RGB
        #expect {
            try TextureEncoder.encode([image], settings, container: .ktx2)
        } throws: { error in
            "\(error)"
                == "etc2-rgb holds no alpha: 2 of the 8×8 texels have alpha below max (use etc2-rgba, or flatten first)"
        }
    }
}

extension ETCTests {
    /// A block of two values, 0 and 128, as a mask's edge or a two-level gauge has them: table
    /// 14's modifiers −8 and +8 times a multiplier of 8 span exactly 128 (alpha: base 64 ± 64;
    /// R11: 516 ± 512 = 4 and 1028, which decode to 0 and 128), so `medium` and `thorough` store
    /// them exactly — the outermost modifiers of no table do.
    @Test func twoValuesComeBackExactly() throws {
        let image = (0..<16).flatMap { i -> [UInt8] in
            let v: UInt8 = i % 4 < 2 ? 0 : 128
            return [v, v, v, v]
        }
        for quality in [TextureSettings.Quality.medium, .thorough] {
            for format in [Format.etc2RGBA, .eacR11, .eacRG11] {
                let d = try ETCDecoder.decode(
                    try ETC.blocks(image, width: 4, height: 4, format: format, quality: quality), format: format,
                    width: 4, height: 4)
                let channel = format == .etc2RGBA ? 3 : 0
                #expect(
                    (0..<16).allSatisfy { d[$0 * 4 + channel] == image[$0 * 4] }, "\(format) \(quality): \(d)")
            }
        }
    }
}
