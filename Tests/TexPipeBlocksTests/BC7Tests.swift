import Foundation
import Testing
import TexPipeTestSupport

@testable import TexPipeBlocks
@testable import TexPipeCodecs
@testable import TexPipeFormats
@testable import TexPipePixels

/// BC7 against the format's own rules: blocks written bit by bit here (from the ARB extension's
/// Table.M, not through the encoder's packer), decoded by PyPI's texture2ddecoder, then encoded.
@Suite("BC7")
struct BC7Tests {
    /// Fields written from the least significant bit up, as the format stores them.
    struct Bits {
        var bytes = [UInt8](repeating: 0, count: 16)
        var at = 0
        mutating func put(_ value: Int, _ n: Int) {
            for k in 0..<n where (value >> k) & 1 == 1 { bytes[(at + k) / 8] |= UInt8(1 << ((at + k) % 8)) }
            at += n
        }
    }

    /// (subsets, partition bits, rotation bits, selection bits, color bits, alpha bits, endpoint
    /// p-bits, shared p-bits, index bits, secondary index bits), Table.M.
    static let table: [[Int]] = [
        [3, 4, 0, 0, 4, 0, 1, 0, 3, 0], [2, 6, 0, 0, 6, 0, 0, 1, 3, 0], [3, 6, 0, 0, 5, 0, 0, 0, 2, 0],
        [2, 6, 0, 0, 7, 0, 1, 0, 2, 0], [1, 0, 2, 1, 5, 6, 0, 0, 2, 3], [1, 0, 2, 0, 7, 8, 0, 0, 2, 2],
        [1, 0, 0, 0, 7, 7, 1, 0, 4, 0], [2, 6, 0, 0, 5, 5, 1, 0, 2, 0],
    ]

    /// A mode-`mode` block with partition 0 (subset 1 is columns 2–3 for two subsets; for three,
    /// Table.P3 row 0), well separated endpoints per subset, and indices running over each subset's
    /// whole range so every endpoint is used; the anchors' indices are 0.
    static func block(mode: Int, seed: UInt64) -> [UInt8] {
        let t = table[mode]
        let (ns, pb, rb, isb, cb, ab, epb, spb, ib, ib2) = (t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8], t[9])
        var r = SeededRandom(seed: seed)
        var w = Bits()
        w.put(1 << mode, mode + 1)
        w.put(0, pb)
        w.put(0, rb)
        w.put(0, isb)
        // Subset s: endpoint 0 dark in channel s, endpoint 1 bright there.
        let top = (1 << cb) - 1
        for c in 0..<3 {
            for s in 0..<ns {
                let near = c == s ? r.int(0...(top / 4)) : r.int((top / 3)...(top / 2))
                let far = c == s ? r.int((top * 3 / 4)...top) : r.int((top / 3)...(top / 2))
                w.put(near, cb)
                w.put(far, cb)
            }
        }
        if ab > 0 {
            for _ in 0..<ns {
                w.put((1 << ab) - 1, ab)
                w.put((1 << ab) - 1 - r.int(0...((1 << ab) / 3)), ab)
            }
        }
        for _ in 0..<(epb == 1 ? 2 * ns : spb == 1 ? ns : 0) { w.put(r.int(0...1), 1) }
        let subset3: [Int] = [0, 0, 1, 1, 0, 0, 1, 1, 0, 2, 2, 1, 2, 2, 2, 2]
        let subset2: [Int] = [0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1]
        let anchors: Set<Int> = ns == 1 ? [0] : ns == 2 ? [0, 15] : [0, 3, 15]
        // Each subset's texels in order take indices 0, …, max spread evenly.
        for bits in [ib, ib2] where bits > 0 {
            var seen = [Int](repeating: 0, count: 3)
            let counts = (0..<3).map { s in
                (0..<16).filter { (ns == 3 ? subset3 : ns == 2 ? subset2 : [Int](repeating: 0, count: 16))[$0] == s }
                    .count
            }
            for i in 0..<16 {
                let s = ns == 3 ? subset3[i] : ns == 2 ? subset2[i] : 0
                let n = anchors.contains(i) ? bits - 1 : bits
                let k = seen[s]
                seen[s] += 1
                var v = anchors.contains(i) ? 0 : (k * ((1 << bits) - 1) + counts[s] / 2) / max(1, counts[s] - 1)
                v = min(v, (1 << n) - 1)
                w.put(v, n)
            }
        }
        #expect(w.at == 128, "mode \(mode) fills \(w.at) bits")
        return w.bytes
    }

    static func error(_ a: [UInt8], _ b: [UInt8]) -> Int {
        zip(a, b).reduce(0) { $0 + (Int($1.0) - Int($1.1)) * (Int($1.0) - Int($1.1)) }
    }

    @Test(
        Reference.needs(BlockReference.hasDecoder, "python3 texture2ddecoder"),
        arguments: 0..<8)
    func aBlockBestInModeNIsEncodedInItOrExactly(_ mode: Int) throws {
        for seed in 1...3 {
            let made = Self.block(mode: mode, seed: UInt64(mode * 10 + seed))
            let texels = try BlockReference.reference(made, .bc7, 4, 4)
            #expect(try BC.decode(made, format: .bc7, width: 4, height: 4) == texels)
            let ours = try BC.blocks(texels, width: 4, height: 4, format: .bc7, quality: .thorough)
            let chosen = ours[0].trailingZeroBitCount
            let back = try BlockReference.reference(ours, .bc7, 4, 4)
            let e = Self.error(back, texels)
            #expect(chosen == mode || e == 0, "mode \(mode) seed \(seed): chose mode \(chosen), squared error \(e)")
        }
    }

    @Test func oneColorIsExactAndTwoColorsAreExact() throws {
        var r = SeededRandom(seed: 9)
        for _ in 0..<40 {
            let color = (0..<4).map { _ in UInt8(r.int(0...255)) }
            let image = [UInt8]((0..<16).flatMap { _ in color })
            for quality in TextureSettings.Quality.allCases {
                let d = try BC.decode(
                    try BC.blocks(image, width: 4, height: 4, format: .bc7, quality: quality), format: .bc7,
                    width: 4, height: 4)
                #expect(d == image, "\(color) \(quality)")
            }
        }
        // Two colors whose channels share one parity each (mode 6's 7-bit endpoints and p-bit
        // hold them), in any layout.
        for _ in 0..<20 {
            let p = r.int(0...1)
            let q = r.int(0...1)
            let a = (0..<4).map { _ in UInt8(r.int(0...127) * 2 + p) }
            let b = (0..<4).map { _ in UInt8(r.int(0...127) * 2 + q) }
            let image = [UInt8]((0..<16).flatMap { _ in r.int(0...1) == 0 ? a : b })
            let d = try BC.decode(
                try BC.blocks(image, width: 4, height: 4, format: .bc7, quality: .medium), format: .bc7, width: 4,
                height: 4)
            #expect(d == image, "\(a) \(b)")
        }
    }

    /// Three subsets of two colors each, laid out as BC7's first three-subset partition (the
    /// ARB extension's Table.P3 row 0) with every channel in {0, 66, 198, 255}: modes 0 and 2 store
    /// each subset's two colors exactly as its ends, while no one- or two-subset mode can hold six
    /// colors on three lines. Every effort, `fast` included, finds it.
    @Test func threeSubsetsOfTwoColorsAreExactAtEveryEffort() throws {
        let subset = [0, 0, 1, 1, 0, 0, 1, 1, 0, 2, 2, 1, 2, 2, 2, 2]
        let colors: [[[UInt8]]] = [
            [[0, 0, 0, 255], [0, 66, 0, 255]], [[255, 0, 255, 255], [198, 0, 255, 255]],
            [[0, 255, 255, 255], [0, 255, 198, 255]],
        ]
        let image = [UInt8]((0..<16).flatMap { i in colors[subset[i]][i % 2] })
        for quality in TextureSettings.Quality.allCases {
            let d = try BC.decode(
                try BC.blocks(image, width: 4, height: 4, format: .bc7, quality: quality), format: .bc7, width: 4,
                height: 4)
            #expect(d == image, "\(quality): \(d)")
        }
    }

    @Test func anOpaqueImageStaysOpaque() throws {
        let image = BlockReference.picture(37, 29, seed: 3)
        for quality in TextureSettings.Quality.allCases {
            let d = try BC.decode(
                try BC.blocks(image, width: 37, height: 29, format: .bc7, quality: quality), format: .bc7, width: 37,
                height: 29)
            #expect(stride(from: 3, to: d.count, by: 4).allSatisfy { d[$0] == 255 }, "\(quality)")
        }
    }

    /// An opaque block whose green and blue are 0 throughout and whose red is a ramp: mode 6 must
    /// keep alpha at 255 with p-bits of 1, so its ends are odd and it is off by one in green and
    /// blue on every texel — a squared error of at least 32. Modes 1 and 3 (alpha 255 by the mode,
    /// even ends) hold 0 exactly; every effort looks for them (checked with texture2ddecoder).
    @Test(Reference.needs(BlockReference.hasDecoder, "python3 texture2ddecoder"))
    func anOpaqueBlockWithAChannelAtZeroKeepsItExact() throws {
        let image = [UInt8]((0..<16).flatMap { i in [UInt8(56 + i), 0, 0, 255] })
        for quality in TextureSettings.Quality.allCases {
            let blocks = try BC.blocks(image, width: 4, height: 4, format: .bc7, quality: quality)
            let d = try BlockReference.reference(blocks, .bc7, 4, 4)
            #expect(
                stride(from: 0, to: 64, by: 4).allSatisfy { d[$0 + 1] == 0 && d[$0 + 2] == 0 && d[$0 + 3] == 255 },
                "\(quality): \(d)")
            #expect(Self.error(d, image) < 32, "\(quality): \(Self.error(d, image))")
        }
    }

    /// The one-color tables, against every endpoint pair decoded as the format decodes them
    /// (Table.M's bits, p-bit below, bits repeated to 8, then the weight): each value takes the
    /// nearest value some pair gives at that index (below first on a tie), and among the pairs
    /// that give it, the one with the closest ends (then the lowest).
    @Test func theOneColorTablesHoldTheClosestPairForEveryValue() {
        let weights: [[Int]] = [
            [0, 21, 43, 64], [0, 9, 18, 27, 37, 46, 55, 64],
            [0, 4, 9, 13, 17, 21, 26, 30, 34, 38, 43, 47, 51, 55, 60, 64],
        ]
        for row in Self.table {
            let (colorBits, alphaBits, endpointP, sharedP, indexBits, index2Bits) =
                (row[4], row[5], row[6] == 1, row[7] == 1, row[8], row[9])
            var uses = [(colorBits, endpointP, sharedP, indexBits)]
            if index2Bits > 0 {
                uses += [(colorBits, false, false, index2Bits), (alphaBits, false, false, indexBits)]
                uses += [(alphaBits, false, false, index2Bits)]
            }
            for (bits, endpointP, sharedP, index) in uses {
                let q = BC7.Quantizer(bits: bits, endpointP: endpointP, sharedP: sharedP)
                let table = BC7.SolidTable(q, indexBits: index)
                let pairs = endpointP ? [(0, 0), (0, 1), (1, 0), (1, 1)] : sharedP ? [(0, 0), (1, 1)] : [(0, 0)]
                let hasP = endpointP || sharedP
                let n = bits + (hasP ? 1 : 0)
                func decoded(_ x: Int, _ p: Int) -> Int {
                    let full = hasP ? x << 1 | p : x
                    return (full << (8 - n)) | (full >> (2 * n - 8))
                }
                for (pi, (p0, p1)) in pairs.enumerated() {
                    for k in 0..<(1 << index) {
                        // Per value: the closest pair giving it, as (distance, x0, x1).
                        var best = [(Int, Int, Int)?](repeating: nil, count: 256)
                        for x0 in 0..<(1 << bits) {
                            for x1 in 0..<(1 << bits) {
                                let (e0, e1) = (decoded(x0, p0), decoded(x1, p1))
                                let v = e0 + ((weights[index - 2][k] * (e1 - e0) + 32) >> 6)
                                let key = (abs(x0 - x1), x0, x1)
                                if best[v] == nil || key < best[v]! { best[v] = key }
                            }
                        }
                        for v in 0..<256 {
                            var u = v
                            for d in 0..<256 {
                                if v - d >= 0 && best[v - d] != nil {
                                    u = v - d
                                    break
                                }
                                if v + d < 256 && best[v + d] != nil {
                                    u = v + d
                                    break
                                }
                            }
                            let entry = table.entries[(pi * (1 << index) + k) * 256 + v]
                            let (x0, x1) = (Int(entry & 255), Int((entry >> 8) & 255))
                            #expect(
                                x0 == best[u]!.1 && x1 == best[u]!.2 && Int(entry >> 16) == (u - v) * (u - v),
                                "\(row) \(bits)-bit index \(index) p \(p0)\(p1) k \(k) v \(v)")
                        }
                    }
                }
            }
        }
    }

    /// Blocks of random bits in every mode — any partition, rotation, index selection, p-bits
    /// and indices — decode exactly as texture2ddecoder decodes them.
    @Test(Reference.needs(BlockReference.hasDecoder, "python3 texture2ddecoder"))
    func randomBlocksOfEveryModeDecodeAsTheReferenceDoes() throws {
        var r = SeededRandom(seed: 27)
        let perMode = 32
        var blocks = [UInt8]()
        for mode in 0..<8 {
            for _ in 0..<perMode {
                var block = (0..<16).map { _ in UInt8(truncatingIfNeeded: r.next()) }
                // The mode's bit, then random bits above it (nothing below: that would be another mode).
                block[0] = UInt8(truncatingIfNeeded: (Int(block[0]) << (mode + 1)) | (1 << mode))
                blocks += block
            }
        }
        let (w, h) = (4 * perMode, 4 * 8)
        #expect(
            try BC.decode(blocks, format: .bc7, width: w, height: h) == BlockReference.reference(blocks, .bc7, w, h))
    }

    @Test func aBlockWithoutAModeDecodesToTransparentBlack() throws {
        // A low byte of zero names no mode (reserved): Direct3D returns 0 in every channel.
        let d = try BC.decode([0] + [UInt8](repeating: 0xA5, count: 15), format: .bc7, width: 4, height: 4)
        #expect(d == [UInt8](repeating: 0, count: 64))
    }

    /// Half of Float's smallest normal value, computed at run time.
    @inline(never) static func halfOfTheLeastNormal(_ values: [Float]) -> Float { values[0] * values[1] }

    @Test func theEncoderFlushesDenormalsOnlyWhileItRunsAndLeavesTheThreadAsItWas() throws {
        let values: [Float] = [.leastNormalMagnitude, 0.5]
        let denormal = Self.halfOfTheLeastNormal(values)
        #expect(denormal > 0 && denormal < .leastNormalMagnitude)
        let inside = BC7.withDenormalsFlushed { Self.halfOfTheLeastNormal(values) }
        #if arch(x86_64) || arch(i386)
            #expect(inside == 0)
        #else
            #expect(inside == denormal)
        #endif
        #expect(BC7.withDenormalsFlushed(false) { Self.halfOfTheLeastNormal(values) } == denormal)
        // A whole encode (BC7 and its rdo pass, on this thread) gives the thread back as it was.
        let texels = (0..<64 * 4).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ $0 / 4) }
        _ = try BC.blocks(texels, width: 8, height: 8, format: .bc7, quality: .fast, rdo: .lambda(1))
        #expect(Self.halfOfTheLeastNormal(values) == denormal)
    }

    @Test func theInterpolationWeightsAreTheSpecsRoundedSixtyFourths() {
        // round(64·k / (2ᵇ − 1)): the encoder's arithmetic index weights equal Table's factors.
        for bits in 2...4 {
            let steps = (1 << bits) - 1
            let expected: [Int32] = (0...steps).map { (k: Int) -> Int32 in
                Int32((Double(64 * k) / Double(steps)).rounded())
            }
            #expect(BC7.weights[bits - 2] == expected)
        }
    }
    /// `rdo`'s refit (a block's endpoints fitted by least squares to indices it took from
    /// another block): given a block written here in each mode, with its endpoint and p-bit
    /// fields scrambled, and the texels texture2ddecoder decodes from the original, it keeps
    /// every bit from the mode to the rotation and selection, and from the first index bit on
    /// (where that starts is counted here from Table.M), and finds endpoints that decode (by
    /// texture2ddecoder) within one 8-bit step per channel of those texels on average — exact
    /// where the mode's quantization allows it — far closer than the scrambled ones.
    @Test(Reference.needs(BlockReference.hasDecoder, "python3 texture2ddecoder"), arguments: 0..<8)
    func aRefitKeepsTheIndicesAndFindsTheEndpoints(_ mode: Int) throws {
        let t = Self.table[mode]
        let (ns, pb, rb, isb, cb, ab, epb, spb) = (t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7])
        let header = mode + 1 + pb + rb + isb
        let indexStart = header + 6 * ns * cb + 2 * ns * ab + (epb == 1 ? 2 * ns : spb == 1 ? ns : 0)
        func bit(_ b: [UInt8], _ k: Int) -> Int { Int(b[k / 8] >> (k % 8)) & 1 }
        var exact = 0
        for seed in 1...4 {
            let made = Self.block(mode: mode, seed: UInt64(100 + mode * 10 + seed))
            let texels = try BlockReference.reference(made, .bc7, 4, 4)
            var scrambled = made
            var r = SeededRandom(seed: UInt64(seed))
            for k in header..<indexStart where r.int(0...1) == 1 { scrambled[k / 8] ^= UInt8(1 << (k % 8)) }
            func value(_ b: [UInt8]) -> UInt128 { b.enumerated().reduce(0) { $0 | UInt128($1.1) << (8 * $1.0) } }
            let px = (0..<4).map { c in BC7.V16((0..<16).map { Int32(texels[4 * $0 + c]) }) }
            let refit = try #require(BC7.refit(value(scrambled), BC7.Block(px[0], px[1], px[2], px[3])))
            let bytes = (0..<16).map { UInt8(truncatingIfNeeded: refit >> (8 * $0)) }
            for k in Array(0..<header) + Array(indexStart..<128) {
                #expect(bit(bytes, k) == bit(made, k), "mode \(mode) seed \(seed): bit \(k)")
            }
            let e = Self.error(try BlockReference.reference(bytes, .bc7, 4, 4), texels)
            let before = Self.error(try BlockReference.reference(scrambled, .bc7, 4, 4), texels)
            #expect(e <= 64 && e < before, "mode \(mode) seed \(seed): squared error \(e), scrambled \(before)")
            if e == 0 { exact += 1 }
        }
        #expect(exact >= 2, "mode \(mode): \(exact) of 4 exact")
    }
}
