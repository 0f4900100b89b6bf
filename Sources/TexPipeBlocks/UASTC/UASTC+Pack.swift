// The UASTC block layout: a fit packed into its 128 bits.
extension UASTC {
    /// The block's 128 bits: mode code, hints, the plane-two channel (dual-plane RGB modes), the
    /// pattern (two subsets), the endpoints (subset by subset, r0 r1 g0 g1 b0 b1 (a0 a1); trits or
    /// quints packed first, then the bits), then the weights texel by texel (both planes' in
    /// turn), each subset's anchor texel one bit short — its top bit implied 0, the subset's (or
    /// plane's) ends swapped and weights mirrored where it would be 1.
    static func pack(_ fit: Fit, _ x: Texels, opaque: Bool) -> (UInt64, UInt64) {
        let mode = fit.mode
        var parts = fit
        let top = Int32((1 << mode.weightBits) - 1)
        let two = mode.subsets == 2
        // Each subset's anchor texel (texel 0 for one subset).
        let anchor0 = two ? anchorTable[2 * fit.pattern] : 0
        let anchor1 = two ? anchorTable[2 * fit.pattern + 1] : 0
        let lanes = two ? patternTable[fit.pattern] : V16()
        for k in 0..<(two ? 2 : 1) {
            let anchor = k == 0 ? anchor0 : anchor1
            // Subset k's part (two subsets), or each plane's part at texel 0.
            for p in (two ? k : 0)...(two ? k : mode.planes - 1) where parts[p].weights[anchor] > top / 2 {
                parts[p].codes = (parts[p].codes.1, parts[p].codes.0)
                parts[p].ends = (parts[p].ends.1, parts[p].ends.0)
                let member = two ? lanes.equals(Int32(k)) : all
                parts[p].weights = parts[p].weights.choosing(V16(repeating: top) &- parts[p].weights, where: member)
            }
        }
        // Per subset, the ends of each channel (a dual-plane block's plane-two channel from its
        // second part).
        func codes(_ s: Int, _ c: Int) -> (Int32, Int32) {
            let p = mode.planes == 2 && c == fit.plane2 ? parts.part1 : parts[two ? s : 0]
            return (p.codes.0[c], p.codes.1[c])
        }
        var w = BC7.BitWriter()
        w.write(Int32(mode.code.0), mode.code.1)
        // Hints, from the block as it decodes.
        let decoded = decode(parts, lanes)
        let etc = etc1Hints(decoded)
        w.write(0, mode.short ? 1 : 2)  // BC1 hints: clear
        w.write(etc.flip, 1)
        w.write(etc.differential, 1)
        w.write(etc.table1, 3)
        w.write(etc.table2, 3)
        // ETC1 bias: none (13: each channel's digit in base 3 is 1, "add 0").
        if !mode.short { w.write(13, 5) }
        if mode.alpha { w.write(eacHint(decoded.3), 8) }
        if mode.planes == 2 && !mode.alpha { w.write(Int32(fit.plane2), 2) }
        if mode.planes == 2 && mode.alpha { w.write(3, 2) }
        if two { w.write(Int32(fit.pattern), 5) }
        // The endpoint values in order (at most 2 subsets × 4 channels × 2 ends): trit or quint
        // digits and low bits.
        var digits = V16()
        var lows = V16()
        var count = 0
        for s in 0..<mode.subsets {
            for c in 0..<(mode.alpha ? 4 : 3) {
                let (e0, e1) = codes(s, c)
                (digits[count], lows[count]) = (e0 >> 8, e0 & 255)
                (digits[count + 1], lows[count + 1]) = (e1 >> 8, e1 & 255)
                count += 2
            }
        }
        let (radix, bits) = mode.storage
        if radix > 1 {
            let per = radix == 3 ? 5 : 3
            var k = 0
            while k < count {
                let n = min(per, count - k)
                var packed: Int32 = 0
                for j in (0..<n).reversed() { packed = packed * Int32(radix) + digits[k + j] }
                // Bits of n trits (8 for 5) or quints (7 for 3).
                let groupBits =
                    radix == 3 ? (n == 5 ? 8 : n == 4 ? 7 : n == 3 ? 5 : n * 2) : (n == 3 ? 7 : n == 2 ? 5 : 3)
                w.write(packed, groupBits)
                k += n
            }
        }
        for k in 0..<count { w.write(lows[k], bits) }
        // A single-subset block's weights are its part's (plane two's from the second part); two
        // subsets' the union of their parts' (each zero outside its members).
        let plane0 = two ? parts.part0.weights | parts.part1.weights : parts.part0.weights
        for i in 0..<16 {
            let bits = mode.weightBits - (i == anchor0 || (two && i == anchor1) ? 1 : 0)
            w.write(plane0[i], bits)
            if mode.planes == 2 { w.write(parts.part1.weights[i], bits) }
        }
        return (w.lo, w.hi)
    }

    /// The block as it decodes (the ASTC interpolation of the parts' ends by their weights).
    static func decode(_ fit: Fit, _ lanes: V16) -> Texels {
        let w0 = weightValue(fit.part0.weights, bits: fit.mode.weightBits)
        let w1 = weightValue(fit.part1.weights, bits: fit.mode.weightBits)
        func from(_ p: Part, _ w: V16, _ c: Int) -> V16 {
            let l = V16(repeating: p.ends.0[c] * 257)
            let h = V16(repeating: p.ends.1[c] * 257)
            return ((l &* (64 &- w) &+ h &* w &+ 32) &>> 6) &>> 8
        }
        func channel(_ c: Int) -> V16 {
            if c == 3 && !fit.mode.alpha { return V16(repeating: 255) }
            if fit.mode.planes == 2 { return c == fit.plane2 ? from(fit.part1, w1, c) : from(fit.part0, w0, c) }
            if fit.mode.subsets == 2 {
                return from(fit.part0, w0, c).choosing(from(fit.part1, w1, c), where: lanes.equals(1))
            }
            return from(fit.part0, w0, c)
        }
        return (channel(0), channel(1), channel(2), channel(3))
    }

    /// ETC1's flip, differential bit and the subblocks' intensity tables for these texels:
    /// texpipe's own ETC1 search (individual and differential modes) at `fast` — the transcoder
    /// takes each subblock's mean as its base color and picks selectors by luminance, which the
    /// fast search's model matches at least as well as the exhaustive one (measured: ETC2 from a
    /// 64² test image 30.2 dB with fast's hints, 29.2 with thorough's).
    static func etc1Hints(_ t: (V16, V16, V16, V16)) -> (
        flip: Int32, differential: Int32, table1: Int32, table2: Int32
    ) {
        let r = BC7.float(t.0)
        let g = BC7.float(t.1)
        let b = BC7.float(t.2)
        var best = ETC.Best()
        ETC.individualOrDifferential(ETC.Pixels(r: r, g: g, b: b, sum: r + g + b), ETC.Effort.of(.fast), &best)
        let hi = best.bits >> 32
        return (Int32(hi & 1), Int32((hi >> 1) & 1), Int32((hi >> 5) & 7), Int32((hi >> 2) & 7))
    }

    /// EAC's table (low four bits) and multiplier (high four) for the alpha values: texpipe's own
    /// EAC search.
    static func eacHint(_ a: V16) -> Int32 {
        let block = ETC.eacBlock(BC7.float(a), r11: false, ETC.Effort.of(.medium))
        let multiplier = Int32((block >> 52) & 15)
        let table = Int32((block >> 48) & 15)
        return table | multiplier << 4
    }

    /// For mode 8's ETC1 hints, per (differential first, then individual; table; selector in
    /// basisu's order −b, −a, +a, +b) and 8-bit value: the base (5 or 4 bits) whose expansion plus
    /// the modifier, clamped, is nearest the value (the lowest on a tie), as error << 8 | base.
    static let solidETC1: [UInt32] = {
        let tables: [(Int, Int)] = [(2, 8), (5, 17), (9, 29), (13, 42), (18, 60), (24, 80), (33, 106), (47, 183)]
        var out = [UInt32](repeating: 0, count: 2 * 8 * 4 * 256)
        for d in 0..<2 {
            let bits = d == 0 ? 5 : 4
            for (t, (a, b)) in tables.enumerated() {
                for (sel, m) in [-b, -a, a, b].enumerated() {
                    for c in 0..<256 {
                        var e = (Int.max, 0)
                        for v in 0..<(1 << bits) {
                            let x = bits == 5 ? (v << 3) | (v >> 2) : (v << 4) | v
                            let diff = min(255, max(0, x + m)) - c
                            if diff * diff < e.0 { e = (diff * diff, v) }
                        }
                        out[((d * 8 + t) * 4 + sel) * 256 + c] = UInt32(e.0 << 8 | e.1)
                    }
                }
            }
        }
        return out
    }()

    /// Mode 8: the color, then ETC1's hints for it — differential bit, intensity table,
    /// selector and the 5-bit (differential) or 4-bit base — chosen for the least error.
    static func solid(_ c: SIMD4<Int32>) -> (UInt64, UInt64) {
        var w = BC7.BitWriter()
        w.write(23, 5)
        for k in 0..<4 { w.write(c[k], 8) }
        var best = (error: Int32.max, d: Int32(1), table: Int32(0), selector: Int32(0), base: SIMD3<Int32>())
        solidETC1.withUnsafeBufferPointer { table in
            for d in 0..<2 {
                for t in 0..<8 {
                    for sel in 0..<4 {
                        let at = ((d * 8 + t) * 4 + sel) * 256
                        let (r, g, b) = (table[at + Int(c[0])], table[at + Int(c[1])], table[at + Int(c[2])])
                        let error = Int32((r >> 8) + (g >> 8) + (b >> 8))
                        if error < best.error {
                            best = (
                                error, Int32(1 - d), Int32(t), Int32(sel),
                                SIMD3(Int32(r & 255), Int32(g & 255), Int32(b & 255))
                            )
                        }
                    }
                }
            }
        }
        w.write(best.d, 1)
        w.write(best.table, 3)
        w.write(best.selector, 2)
        for k in 0..<3 { w.write(best.base[k], 5) }
        return (w.lo, w.hi)
    }
}
