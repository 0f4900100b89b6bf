package import TexPipeFormats
internal import TexPipePixels

/// Block compression: BC1, BC3, BC4 and BC5 blocks decoded, BC4 and BC5 encoded (Microsoft's
/// "Block Compression (Direct3D 10)" and the Khronos Data Format Specification's S3TC and RGTC
/// chapters). A block is 4 × 4 texels, rows top to bottom; an edge block past the image repeats the
/// image's last row and column when encoding and is cut when decoding.
///
/// Interpolated values are rounded down, as the reference decoder the tests use (PyPI's
/// texture2ddecoder) does: BC1's 4-color entries ⌊(2c0 + c1) / 3⌋, its 3-color entry
/// ⌊(c0 + c1) / 2⌋; BC4's 8-value entries ⌊((7 − i)·r0 + i·r1) / 7⌋, its 6-value entries
/// ⌊((5 − i)·r0 + i·r1) / 5⌋ with 0 and 255 last.
package enum BC {
    // MARK: Encoding

    /// One level's blocks in a BC format texpipe encodes, on the calling thread (the benchmark's
    /// entry; the texture writer lends cores through `TextureEncoder`).
    public static func blocks(
        _ rgba: [UInt8], width: Int, height: Int, format: TextureSettings.Format, quality: TextureSettings.Quality,
        rdo: TextureSettings.RDO? = nil
    ) throws -> [UInt8] {
        guard case .bc(let variant) = format.info.codec else { throw CodecError(.notBlockCompressed(format.rawValue)) }
        try TextureCodecs.checkRDO(rdo, format)
        return RDO.applied(
            rdo, to: encode(rgba, width: width, height: height, variant: variant, quality: quality, rows: SerialRows()),
            rgba, width: width, height: height, kind: .bc(variant), rows: SerialRows())
    }

    /// A block's 16 texels, channel by channel.
    struct Texels {
        var r = V16()
        var g = V16()
        var b = V16()
        var a = V16()
    }

    /// Up to four palette colors, channel by channel (a value, not an array: nothing allocated).
    struct Palette {
        var r = SIMD4<Int32>()
        var g = SIMD4<Int32>()
        var b = SIMD4<Int32>()
        var count = 4
    }

    /// The four (or three) colors two 5:6:5 endpoints give, as the decoder makes them.
    @inline(__always) static func colorPalette(_ c0: Int, _ c1: Int, four: Bool) -> Palette {
        let e0 = expand565(c0)
        let e1 = expand565(c1)
        let a = SIMD4<Int32>(Int32(e0.0), Int32(e0.1), Int32(e0.2), 0)
        let b = SIMD4<Int32>(Int32(e1.0), Int32(e1.1), Int32(e1.2), 0)
        let third = four ? Self.third(2 &* a &+ b) : (a &+ b) &>> 1
        let twoThirds = Self.third(a &+ 2 &* b)
        return Palette(
            r: SIMD4(a[0], b[0], third[0], twoThirds[0]), g: SIMD4(a[1], b[1], third[1], twoThirds[1]),
            b: SIMD4(a[2], b[2], third[2], twoThirds[2]), count: four ? 4 : 3)
    }

    /// ⌊x / 3⌋ for 0 ≤ x ≤ 765 as a multiply and a shift (x · 21846 / 65536 is within 0.008 of x / 3,
    /// whose fraction is at most ⅔: the same floor), where a vector division is a divide per lane.
    @inline(__always) static func third(_ x: SIMD4<Int32>) -> SIMD4<Int32> { (x &* 21846) &>> 16 }

    /// The sum of a 16-lane vector, halves added (wrapping, so in any order the same sum).
    @inline(__always) static func sum(_ v: V16) -> Int32 {
        let h = v.lowHalf &+ v.highHalf
        let q = h.lowHalf &+ h.highHalf
        let p = q.lowHalf &+ q.highHalf
        return p.x &+ p.y
    }

    /// Squared RGB error and indices of the nearest palette colors (the first on a tie).
    @inline(__always) static func colorFit(_ t: Texels, _ palette: Palette) -> (Int32, V16) {
        var best = V16(repeating: Int32.max)
        var idx = V16()
        for k in 0..<palette.count {
            let dr = t.r &- V16(repeating: palette.r[k])
            let dg = t.g &- V16(repeating: palette.g[k])
            let db = t.b &- V16(repeating: palette.b[k])
            let e = dr &* dr &+ dg &* dg &+ db &* db
            let closer = e.below(best)
            best = best.choosing(e, where: closer)
            idx = idx.choosing(V16(repeating: Int32(k)), where: closer)
        }
        return (sum(best), idx)
    }

    /// An RGB endpoint (0…255 floats) as 5:6:5, rounded.
    @inline(__always) static func to565(_ r: Double, _ g: Double, _ b: Double) -> Int {
        func q(_ v: Double, _ m: Double) -> Int { Int((min(255, max(0, v)) * m / 255).rounded()) }
        return q(r, 31) << 11 | q(g, 63) << 5 | q(b, 31)
    }

    /// One BC1 color block, as a little-endian u64 (c0, c1, 16 2-bit indices).
    ///
    /// Endpoints start at the extremes of the texels along their principal axis (power iteration
    /// on the covariance), rounded to 5:6:5; `medium` refines them by least squares on the indices
    /// (twice; `thorough` four times, and ±1 per 5:6:5 channel of each endpoint); with
    /// `threeColors` (BC1), the three-color mode (c0 ≤ c1: the ends and their mean) is tried as well
    /// — never its transparent fourth entry. `medium` also fits a block of a main cluster and
    /// outliers across its gap (`clusterFit`'s `acrossGap`). The smallest squared RGB error wins.
    static func encodeColorBlock(_ t: Texels, _ quality: TextureSettings.Quality, threeColors: Bool) -> UInt64 {
        if quality == .fast { return encodeColorBlockFast(t) }
        // The principal line (`principalLine`); a block of one color has none: its ends are its
        // color, and the one-color tables below hold it.
        let line = principalLine(t, longer: quality == .thorough)
        let mean = SIMD3<Float>(Float(sum(t.r)), Float(sum(t.g)), Float(sum(t.b))) / 16
        let axis = line?.axis ?? SIMD3(1, 0, 0)
        let (lo, hi) = (Double(line?.lo ?? 0), Double(line?.hi ?? 0))
        // In texel units, for the gap test and the cluster fit's order.
        let along = SIMD16<Double>(line?.along ?? SIMD16()) / 16
        var best = ColorCandidate()
        let c0 = to565(mean + Float(hi) * axis)
        let c1 = to565(mean + Float(lo) * axis)
        best.consider(t, c0, c1, four: true)
        if threeColors { best.consider(t, c0, c1, four: false) }
        // The mean color from the one-color tables: exact for a block of one color wherever 5:6:5
        // reaches it, and often best for a nearly flat one.
        let (r, g, b) = (Int(mean.x.rounded()), Int(mean.y.rounded()), Int(mean.z.rounded()))
        let third = oneColor.thirdEnds(r, g, b)
        best.consider(t, third.0, third.1, four: true)
        if threeColors {
            let half = oneColor.halfEnds(r, g, b)
            best.consider(t, half.0, half.1, four: false)
        }
        let two = twoColors(t)
        if let (a, b) = two {
            // Two colors: each at a palette position (weights w, v of the second end), the ends
            // solved exactly per channel, then rounded.
            for (w, v, four) in twoColorPositions where four || threeColors {
                // (1 − w)·e0 + w·e1 = a, (1 − v)·e0 + v·e1 = b.
                func ends(_ x: Double, _ y: Double) -> (Double, Double) {
                    let e1 = (y * (1 - w) - x * (1 - v)) / (v - w)
                    return ((x - w * e1) / (1 - w), e1)
                }
                let r = ends(a.0, b.0)
                let g = ends(a.1, b.1)
                let bl = ends(a.2, b.2)
                best.consider(t, to565(r.0, g.0, bl.0), to565(r.1, g.1, bl.1), four: four)
            }
        }
        let rounds = quality == .thorough ? 4 : 2
        for four in threeColors ? [true, false] : [true] {
            for _ in 0..<rounds {
                let (e0, e1) = best.four == four ? (best.c0, best.c1) : (c0, c1)
                // Four colors from the best pair: its indices are that fit's (c0 > c1 already).
                let idx =
                    four && best.four
                    ? best.indices : colorFit(t, colorPalette(max(e0, e1), min(e0, e1), four: four)).1
                guard let (a, b) = colorLeastSquares(t, idx, four: four) else { break }
                best.consider(t, a, b, four: four)
            }
        }
        // The cluster fit, from one sort: `medium` only on a block of a main cluster and outliers,
        // across its gap (see `clusterFit`'s `acrossGap`; two colors are solved above); `thorough`
        // in full, four colors and (BC1) three.
        let acrossGap = quality == .medium && two == nil && best.error > 0 && BC.hasGap(along, lo, hi)
        if acrossGap || quality == .thorough {
            withUnsafeTemporaryAllocation(of: SIMD4<Double>.self, capacity: 16) { sorted in
                sortAlong(t, along, into: sorted)
                for four in threeColors && !acrossGap ? [true, false] : [true] {
                    if let (a, b) = clusterFit(UnsafeBufferPointer(sorted), four: four, acrossGap: acrossGap) {
                        best.consider(t, a, b, four: four)
                    }
                }
            }
        }
        // ±1 per channel: `thorough` always; `medium` where the block is still off by more than 16 in
        // squared error (a third of a unit per sample on average): most blocks are within that by
        // here, and the step rarely gains them anything (from 48, one unit per sample, the skipped
        // blocks lost 0.002 dB over the corpus; from 16 nothing at four decimals, at the same speed).
        if quality == .thorough || best.error > 16 { plusMinusOne(t, &best, four: best.four || !threeColors) }
        return best.packed()
    }

    /// ±1 per 5:6:5 channel of each end of `best` (`medium` and `thorough`), each tried as
    /// `ColorCandidate.consider` would, the better kept. Equal endpoints are stored as "three
    /// colors"; BC3 has only the four-color order (`four`).
    ///
    /// A candidate changes one channel of one end, so each palette entry's error in the other two
    /// channels is the base pair's (the entries swapped when the candidate's ends swap order):
    /// those sums are made once, and each candidate computes only its own channel. The same
    /// integers as `colorFit`'s, the same first-on-a-tie choice: the same bytes.
    static func plusMinusOne(_ t: Texels, _ best: inout ColorCandidate, four: Bool) {
        // The base pair and its mode, as they were before any candidate replaced them.
        let (e0, e1, baseFour) = (best.c0, best.c1, best.four)
        let base = colorPalette(e0, e1, four: baseFour)
        let count = base.count
        withUnsafeTemporaryAllocation(of: V16.self, capacity: 12) { others in
            // others[c · 4 + k]: entry k's squared error in the two channels other than c.
            for k in 0..<count {
                let dr = t.r &- V16(repeating: base.r[k])
                let dg = t.g &- V16(repeating: base.g[k])
                let db = t.b &- V16(repeating: base.b[k])
                let (r2, g2, b2) = (dr &* dr, dg &* dg, db &* db)
                others[k] = g2 &+ b2
                others[4 + k] = r2 &+ b2
                others[8 + k] = r2 &+ g2
            }
            for (c, shift, mask) in [(0, 11, 31), (1, 5, 63), (2, 0, 31)] {
                let texels = c == 0 ? t.r : (c == 1 ? t.g : t.b)
                for which in 0..<2 {
                    for delta in [-1, 1] {
                        var a = e0
                        var b = e1
                        let v = ((which == 0 ? a : b) >> shift) & mask + delta
                        guard v >= 0 && v <= mask else { continue }
                        if which == 0 {
                            a = a & ~(mask << shift) | v << shift
                        } else {
                            b = b & ~(mask << shift) | v << shift
                        }
                        let (x, y) = four ? (max(a, b), min(a, b)) : (min(a, b), max(a, b))
                        // The mode changes (equal ends) only where the base's did not: in full.
                        guard (four && x != y) == baseFour else {
                            best.consider(t, a, b, four: four)
                            continue
                        }
                        let swapped = x != a
                        let palette = colorPalette(x, y, four: baseFour)
                        let values = c == 0 ? palette.r : (c == 1 ? palette.g : palette.b)
                        var least = V16(repeating: Int32.max)
                        var indices = V16()
                        for k in 0..<count {
                            // The base entry holding this entry's other two channels.
                            let from = swapped ? (k < 2 ? 1 - k : (count == 4 ? 5 - k : k)) : k
                            let d = texels &- V16(repeating: values[k])
                            let e = others[c * 4 + from] &+ d &* d
                            let closer = e.below(least)
                            least = least.choosing(e, where: closer)
                            indices = indices.choosing(V16(repeating: Int32(k)), where: closer)
                        }
                        let error = sum(least)
                        if error < best.error {
                            (best.error, best.c0, best.c1, best.four, best.indices) = (error, x, y, baseFour, indices)
                        }
                    }
                }
            }
        }
    }

    /// Palette positions tried for a block of two colors: (first color's weight of the second
    /// end, second color's, four-color order).
    static let twoColorPositions: [(Double, Double, Bool)] = [
        (0, 1.0 / 3, true), (0, 2.0 / 3, true), (1.0 / 3, 1, true), (2.0 / 3, 1, true), (1.0 / 3, 2.0 / 3, true),
        (0, 0.5, false), (0.5, 1, false),
    ]

    /// The block's two colors when it has exactly two.
    static func twoColors(_ t: Texels) -> ((Double, Double, Double), (Double, Double, Double))? {
        let packed = t.r &<< 16 | t.g &<< 8 | t.b
        let first = packed[0]
        var second: Int32 = -1
        for i in 1..<16 where packed[i] != first {
            if second < 0 {
                second = packed[i]
            } else if packed[i] != second {
                return nil
            }
        }
        if second < 0 { return nil }
        func color(_ p: Int32) -> (Double, Double, Double) {
            (Double(p >> 16), Double((p >> 8) & 255), Double(p & 255))
        }
        return (color(first), color(second))
    }

    /// For each 8-bit value, the 5- or 6-bit endpoint pair (a | b << 8) whose ⅓ entry
    /// ⌊(2·a + b) / 3⌋ (four colors) or mean ⌊(a + b) / 2⌋ (three colors) decodes nearest it, the
    /// closer pair on a tie: a block of one color takes that entry in every channel.
    struct OneColor {
        let third5: [Int]
        let third6: [Int]
        let half5: [Int]
        let half6: [Int]

        /// The 5:6:5 pair (c0, c1) whose ⅓ entry decodes nearest (r, g, b), channel by channel.
        func thirdEnds(_ r: Int, _ g: Int, _ b: Int) -> (Int, Int) { Self.ends(third5[r], third6[g], third5[b]) }

        /// The 5:6:5 pair whose mean (three colors) decodes nearest (r, g, b), channel by channel.
        func halfEnds(_ r: Int, _ g: Int, _ b: Int) -> (Int, Int) { Self.ends(half5[r], half6[g], half5[b]) }

        /// Three channels' table pairs (a | b << 8) as two 5:6:5 ends.
        static func ends(_ r: Int, _ g: Int, _ b: Int) -> (Int, Int) {
            ((r & 255) << 11 | (g & 255) << 5 | (b & 255), (r >> 8) << 11 | (g >> 8) << 5 | (b >> 8))
        }

        /// Per value, the pair of least cost (entry − value)²·1024 + |a − b|, the first in (a, b)
        /// order on a tie. Made from each entry's cheapest pair (the least |a − b|, the first on a
        /// tie), the nearest entries first: the same choice as trying every pair for every value, in
        /// a few thousand steps, not 256·4096 (the tables are made when a BC1 or BC3 block first
        /// needs them: a process's first block was paying milliseconds).
        static func table(bits: Int, _ entry: (Int, Int) -> Int) -> [Int] {
            let top = (1 << bits) - 1
            func expand(_ v: Int) -> Int { bits == 5 ? (v << 3) | (v >> 2) : (v << 2) | (v >> 4) }
            // Per entry value: (|a − b|, the pair's place in (a, b) order, the pair).
            var cheapest = [(Int, Int, Int)](repeating: (Int.max, 0, 0), count: 256)
            for a in 0...top {
                for b in 0...top {
                    let e = entry(expand(a), expand(b))
                    let candidate = (abs(a - b), a * (top + 1) + b, a | b << 8)
                    if (candidate.0, candidate.1) < (cheapest[e].0, cheapest[e].1) { cheapest[e] = candidate }
                }
            }
            // 1024·d² + |a − b| < 1024·(d + 1)²: the nearest entries win, whatever their pairs.
            return (0..<256).map { v in
                var best = (Int.max, 0, 0)
                for d in 0..<256 {
                    for e in [v - d, v + d] where e >= 0 && e < 256 && cheapest[e].0 != Int.max {
                        let c = cheapest[e]
                        if (c.0, c.1) < (best.0, best.1) { best = c }
                    }
                    if best.0 != Int.max { break }
                }
                return best.2
            }
        }
    }

    static let oneColor = OneColor(
        third5: OneColor.table(bits: 5) { ($0 * 2 + $1) / 3 }, third6: OneColor.table(bits: 6) { ($0 * 2 + $1) / 3 },
        half5: OneColor.table(bits: 5) { ($0 + $1) / 2 }, half6: OneColor.table(bits: 6) { ($0 + $1) / 2 })

    /// Whether the texels' positions along the axis (`along`, from `lo` to `hi`) may leave a gap
    /// over 0.35 of the span: four neighbouring sixteenths of it empty, which any such gap holds.
    /// A few operations, where `clusterFit`'s exact test sorts: it rules out most blocks.
    static func hasGap(_ along: SIMD16<Double>, _ lo: Double, _ hi: Double) -> Bool {
        guard hi - lo > 0 else { return false }
        let scale = 16 / (hi - lo)
        var occupied: UInt32 = 0
        for i in 0..<16 { occupied |= 1 << UInt32(min(15, Int((along[i] - lo) * scale))) }
        let empty = ~occupied & 0xFFFF
        return empty & (empty >> 1) & (empty >> 2) & (empty >> 3) != 0
    }

    /// The block's texels in order of their positions along the axis (`along`), each as (r, g, b,
    /// position), into `sorted` (16): an insertion sort, so equal positions keep the texels' order.
    /// (In a buffer: a SIMD16 vector indexed by a variable is stored and reloaded whole.)
    static func sortAlong(_ t: Texels, _ along: SIMD16<Double>, into sorted: UnsafeMutableBufferPointer<SIMD4<Double>>)
    {
        for i in 0..<16 {
            let texel = SIMD4(Double(t.r[i]), Double(t.g[i]), Double(t.b[i]), along[i])
            var j = i
            while j > 0 && sorted[j - 1].w > texel.w {
                sorted[j] = sorted[j - 1]
                j -= 1
            }
            sorted[j] = texel
        }
    }

    /// Cluster fit (`thorough`): the texels in order along the principal axis (`sorted`:
    /// `sortAlong`), then every split of that order into the palette's clusters in order (4:
    /// weights 1, ⅔, ⅓, 0 — 969 splits; 3: 1, ½, 0), each split's least-squares endpoints in closed
    /// form from prefix sums, snapped to the 5:6:5 grid, and its squared error; the best split's
    /// endpoints as 5:6:5.
    ///
    /// `acrossGap` (`medium`, four colors): only where the largest gap between neighbours in that
    /// order is over 0.35 of the whole span (nil otherwise), and only the splits with one of the
    /// middle clusters empty and a cluster boundary at the gap — 33 fits, not 969. That is a
    /// block of a main cluster and outliers (a gray shape's texels and its black background): the
    /// principal line's ends put the main cluster between palette entries, and least squares from
    /// there keeps it there; the best split puts it on the ⅓ or ⅔ entry.
    static func clusterFit(_ sorted: UnsafeBufferPointer<SIMD4<Double>>, four: Bool, acrossGap: Bool = false) -> (
        Int, Int
    )? {
        var pivot = 0
        if acrossGap {
            var gap = 0.0
            for i in 1..<16 where sorted[i].w - sorted[i - 1].w > gap {
                (gap, pivot) = (sorted[i].w - sorted[i - 1].w, i)
            }
            if gap <= (sorted[15].w - sorted[0].w) * 0.35 { return nil }
        }
        return withUnsafeTemporaryAllocation(of: SIMD4<Double>.self, capacity: 17) { prefix -> (Int, Int)? in
            // Prefix sums of the texels in order (their positions left out).
            prefix[0] = SIMD4()
            let rgb = SIMD4<Double>(1, 1, 1, 0)
            for i in 0..<16 { prefix[i + 1] = prefix[i] + sorted[i] * rgb }
            var search = ClusterSearch(prefix: prefix)
            if acrossGap {
                // The ⅔ cluster empty (i = j) or the ⅓ one (j = k), a boundary at the gap: the
                // split with all three boundaries there once.
                search.split(pivot, pivot, pivot)
                for k in (pivot + 1)..<17 {
                    search.split(pivot, pivot, k)
                    search.split(pivot, k, k)
                }
                for i in 0..<pivot {
                    search.split(i, i, pivot)
                    search.split(i, pivot, pivot)
                }
            } else {
                for i in 0...16 {
                    for j in i...16 {
                        if four {
                            for k in j...16 { search.split(i, j, k) }
                        } else {
                            search.split(i, j)
                        }
                    }
                }
            }
            guard search.error < Double.greatestFiniteMagnitude else { return nil }
            let (a, b) = (search.a, search.b)
            return (to565(a[0], a[1], a[2]), to565(b[0], b[1], b[2]))
        }
    }

    /// A cluster fit's splits and the best so far. A struct's methods, not local functions: a
    /// local function that changes a variable it captures checks exclusive access at run time
    /// (`swift_beginAccess`), twice per split.
    struct ClusterSearch {
        typealias D4 = SIMD4<Double>
        /// Prefix sums of the sorted texels: 17.
        let prefix: UnsafeMutableBufferPointer<D4>
        var error = Double.greatestFiniteMagnitude
        /// The best split's endpoints (the weight-1 end, the other), snapped to the 5:6:5 grid.
        var a = D4()
        var b = D4()

        // Constants held by the search, not static: a static is checked for its one-time
        // initialisation (`swift_once`) at every use, three times per split.
        let grid = D4(31, 63, 31, 0) / 255
        let ungrid = D4(255.0 / 31, 255.0 / 63, 255.0 / 31, 0)
        /// Adding 1.5·2⁵² to a double from 0 to 2⁵¹ and taking it away rounds it to an integer
        /// (to even on a tie) in the vector unit, every lane at once.
        let magic = D4(repeating: 6_755_399_441_055_744)

        /// Snapped to the 5:6:5 grid: clamped to 0…255, then ⌊v + ½⌋ (the rounding above, less
        /// one where it went up past v + ½).
        @inline(__always) func snap(_ v: D4) -> D4 {
            var x = v.replacing(with: 0, where: v .< 0)
            x.replace(with: 255, where: x .> 255)
            let u = x * grid + 0.5
            var r = (u + magic) - magic
            r.replace(with: r - 1, where: r .> u)
            return r * ungrid
        }

        /// One split: weights of cluster k, counts and sums given; endpoints a (weight 1 end) and
        /// b, snapped, and the error less the constant Σx².
        @inline(__always) mutating func consider(
            _ alpha2: Double, _ beta2: Double, _ alphaBeta: Double, _ ax: D4, _ bx: D4
        ) {
            let det = alpha2 * beta2 - alphaBeta * alphaBeta
            if det < 1e-9 { return }
            let inverse = 1 / det
            let x = snap((ax * beta2 - bx * alphaBeta) * inverse)
            let y = snap((bx * alpha2 - ax * alphaBeta) * inverse)
            let xx: D4 = x * x * alpha2
            let yy: D4 = y * y * beta2
            let xy: D4 = 2 * x * y * alphaBeta
            let cross: D4 = x * ax + y * bx
            let e: D4 = xx + yy + xy - 2 * cross
            let error = e[0] + e[1] + e[2]
            if error < self.error { (self.error, a, b) = (error, x, y) }
        }

        /// Four colors: clusters of weight 1, ⅔, ⅓ and 0 split at i ≤ j ≤ k.
        @inline(__always) mutating func split(_ i: Int, _ j: Int, _ k: Int) {
            let (n0, n1, n2, n3) = (Double(i), Double(j - i), Double(k - j), Double(16 - k))
            let s0 = prefix[i]
            let s1 = prefix[j] - prefix[i]
            let s2 = prefix[k] - prefix[j]
            let s3 = prefix[16] - prefix[k]
            consider(
                n0 + n1 * 4 / 9 + n2 / 9, n3 + n1 / 9 + n2 * 4 / 9, (n1 + n2) * 2 / 9,
                s0 + s1 * (2.0 / 3) + s2 * (1.0 / 3), s3 + s1 * (1.0 / 3) + s2 * (2.0 / 3))
        }

        /// Three colors: clusters of weight 1, ½ and 0 split at i ≤ j.
        @inline(__always) mutating func split(_ i: Int, _ j: Int) {
            let (n0, n1, n2) = (Double(i), Double(j - i), Double(16 - j))
            let s0 = prefix[i]
            let s1 = prefix[j] - prefix[i]
            let s2 = prefix[16] - prefix[j]
            consider(n0 + n1 / 4, n2 + n1 / 4, n1 / 4, s0 + s1 * 0.5, s2 + s1 * 0.5)
        }
    }

    /// Endpoints (5:6:5) minimising the squared error for these indices, per channel (weights
    /// 0, 1, ⅓, ⅔ in four-color order; 0, 1, ½ in three-color order). The weights are counted in
    /// thirds (halves), so every sum is an exact integer over the 16 lanes at once; only the
    /// solution is a division.
    static func colorLeastSquares(_ t: Texels, _ idx: V16, four: Bool) -> (Int, Int)? {
        let d: Int32 = four ? 3 : 2
        let w =
            four
            ? (V16(repeating: 3) & idx.equals(1)) | (V16(repeating: 1) & idx.equals(2))
                | (V16(repeating: 2) & idx.equals(3))
            : (V16(repeating: 2) & idx.equals(1)) | (V16(repeating: 1) & idx.equals(2))
        let a = V16(repeating: d) &- w
        let aa = Int64(sum(a &* a))
        let ab = Int64(sum(a &* w))
        let bb = Int64(sum(w &* w))
        let det = aa * bb - ab * ab
        guard det != 0 else { return nil }
        let scale = Double(d) / Double(det)
        func solve(_ x: V16) -> (Double, Double) {
            let ax = Int64(sum(a &* x))
            let bx = Int64(sum(w &* x))
            return (Double(ax * bb - bx * ab) * scale, Double(bx * aa - ax * ab) * scale)
        }
        let r = solve(t.r)
        let g = solve(t.g)
        let b = solve(t.b)
        return (to565(r.0, g.0, b.0), to565(r.1, g.1, b.1))
    }

    /// The best color endpoints tried so far: c0 and c1 in the order the mode needs (c0 > c1 for
    /// four colors, c0 ≤ c1 for three), with their indices.
    struct ColorCandidate {
        var error = Int32.max
        var c0 = 0
        var c1 = 0
        var four = true
        var indices = V16()

        mutating func consider(_ t: Texels, _ a: Int, _ b: Int, four wantFour: Bool) {
            // Four colors need c0 > c1; equal endpoints give one color in either mode.
            let (x, y) = wantFour ? (max(a, b), min(a, b)) : (min(a, b), max(a, b))
            let four = wantFour && x != y
            let (e, idx) = BC.colorFit(t, BC.colorPalette(x, y, four: four))
            if e < error { (error, c0, c1, self.four, indices) = (e, x, y, four, idx) }
        }

        /// The indices' 32 bits are each lane shifted to its place and summed (the places do not
        /// overlap, so the sum is their OR).
        func packed() -> UInt64 {
            let places = V16(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30)
            let bits = UInt32(bitPattern: BC.sum(indices &<< places))
            return UInt64(c0) | UInt64(c1) << 16 | UInt64(bits) << 32
        }
    }

    /// Blocks of an RGBA8 image in BC1, BC3 (alpha as a BC4 block, then color), BC4 (R) or BC5 (R, G),
    /// rows of blocks split across the cores `rows` lends; the bytes do not depend on how many. No
    /// allocation per block: a block's channels are SIMD16 vectors.
    static func encode(
        _ rgba: [UInt8], width: Int, height: Int, variant: BCVariant, quality: TextureSettings.Quality,
        rows: any RowScheduler
    ) -> [UInt8] {
        // Only the channels the format stores are gathered (a lane insert each).
        let channels = variant.format.info.channels
        let color = channels == .rgb || channels == .rgba
        let green = channels != .r
        let alpha = channels == .rgba
        let search = BC7.Search.of(quality)
        return BlockRows.encode(
            rgba, width: width, height: height, blockBytes: variant.blockBytes, rows: rows,
            flushDenormals: variant == .bc7
        ) { src, bx, by, dst in
            let packed = BlockTexels.load(src, bx, by, width: width, height: height)
            var t = Texels()
            t.r = packed & 255
            if green { t.g = (packed &>> 8) & 255 }
            if color { t.b = (packed &>> 16) & 255 }
            if alpha { t.a = (packed &>> 24) & 255 }
            switch variant {
            case .bc1: BlockRows.putLittleEndian(encodeColorBlock(t, quality, threeColors: true), dst)
            case .bc3:
                BlockRows.putLittleEndian(encodeSingle(t.a, quality), dst)
                BlockRows.putLittleEndian(encodeColorBlock(t, quality, threeColors: false), dst + 8)
            case .bc4: BlockRows.putLittleEndian(encodeSingle(t.r, quality), dst)
            case .bc7:
                let (lo, hi) = BC7.encodeBlock(BC7.Block(t.r, t.g, t.b, t.a), search)
                BlockRows.putLittleEndian(lo, dst)
                BlockRows.putLittleEndian(hi, dst + 8)
            case .bc5:
                BlockRows.putLittleEndian(encodeSingle(t.r, quality), dst)
                BlockRows.putLittleEndian(encodeSingle(t.g, quality), dst + 8)
            }
        }
    }

    typealias V16 = SIMD16<Int32>
}

extension BCVariant {
    var blockBytes: Int { format.info.blockBytes }
    var name: String { format.rawValue }
}
