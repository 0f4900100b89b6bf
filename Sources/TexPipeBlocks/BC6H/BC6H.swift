package import TexPipeFormats
internal import TexPipePixels

/// texpipe's BC6H encoder (unsigned, `BC6H_UFLOAT`), for HDR images.
///
/// BC6H interpolates endpoints in the domain of a half float's bit pattern, which grows with the
/// logarithm of the value; the encoder fits and measures error there. So its error is relative
/// error, close to the log-RGB PSNR texpipe reports for HDR (`Quality.logPSNR`).
///
/// Per block: every one of the 32 two-region partitions is scored by how far its two subsets
/// lie from their principal axes (one sum per subset from precomputed moments); the best
/// `candidates` partitions and the single region get endpoints along those axes, quantized in
/// the most precise mode whose deltas fit, indices chosen against the decoded palette over all 16
/// texels at once, and `refine` least-squares refits. A block the single region holds to about
/// 2⁻⁹ relative error stops there (not at `thorough`).
/// No allocation per block; block rows go to the cores `rows` lends, and a block's bits depend
/// only on its texels.
package enum BC6H {
    /// One level's blocks from Float RGBA, on the calling thread (the benchmark's entry; the
    /// texture writer lends cores through `TextureEncoder`).
    public static func blocks(_ rgba: [Float], width: Int, height: Int, quality: TextureSettings.Quality) -> [UInt8] {
        encode(rgba, width: width, height: height, quality: quality, rows: SerialRows())
    }

    struct Effort {
        /// Two-region partitions fitted (of 32, by their score).
        let candidates: Int
        /// Least-squares refits of the single region and of the best two-region candidate
        /// (`fast` and `medium`: of the better of the two).
        let refine: Int
        /// Whether a block one region holds well (`goodEnough`) skips the partitions, and only
        /// the better of the single region and the best partition is refitted.
        var stopsEarly: Bool { candidates < 32 }

        /// Measured against ISPC Texture Compressor (docs/performance.md "BC6H").
        static func of(_ quality: TextureSettings.Quality) -> Effort {
            switch quality {
            case .fast: Effort(candidates: 1, refine: 1)
            case .medium: Effort(candidates: 2, refine: 1)
            case .thorough: Effort(candidates: 32, refine: 2)
            }
        }
    }

    typealias V = SIMD16<Float>

    /// A block's texels: each channel's 16 values as half-float bit patterns (0…31743), rows top
    /// to bottom.
    struct Texels {
        var r = V()
        var g = V()
        var b = V()
    }

    /// Endpoints per channel; lane k is endpoint k (subset k / 2).
    struct Endpoints {
        var r = SIMD4<Float>()
        var g = SIMD4<Float>()
        var b = SIMD4<Float>()
    }

    struct Quantized {
        var r = SIMD4<Int32>()
        var g = SIMD4<Int32>()
        var b = SIMD4<Int32>()
    }

    /// One way to write a block, and its error (squared, in half-bit units).
    struct Encoding {
        var error: Float = .infinity
        var mode = 0
        var partition = 0
        var q = Quantized()
        var indices = SIMD16<Int32>()
    }

    /// A block error (squared, half-bit units, 48 values) below which `fast` and `medium` try no
    /// two-region partition: 2 units RMS, a relative error of about 2⁻⁹ per value.
    static let goodEnough: Float = 48 * 4

    /// From half-float bits to the 16-bit unquantized domain endpoints interpolate in (×64/31).
    static let toUnquantized: Float = 64 / 31

    /// The two-region modes (indices into `BC6HLayout.modes`), most precise first; then the one-region modes.
    static let twoRegionOrder = [2, 3, 4, 0, 5, 6, 7, 8, 1, 9]
    static let oneRegionOrder = [13, 12, 11, 10]

    /// Per two-region partition, its subset-1 texels as a lane mask (−1 or 0).
    static let subsetMasks: [SIMD16<Int32>] = (0..<32).map { p in
        var v = SIMD16<Int32>()
        for i in 0..<16 { v[i] = -Int32((BC7.partitions2[p] >> i) & 1) }
        return v
    }

    /// One level's blocks from Float RGBA (width × height). Negative values and NaN become 0,
    /// values above 65504 become 65504.
    static func encode(
        _ rgba: [Float], width: Int, height: Int, quality: TextureSettings.Quality, rows: any RowScheduler
    ) -> [UInt8] {
        let effort = Effort.of(quality)
        return BlockRows.encode(rgba, width: width, height: height, blockBytes: 16, rows: rows) { src, bx, by, dst in
            let block = encodeBlock(load(src, bx, by, width: width, height: height), effort)
            for i in 0..<16 { dst[i] = UInt8(truncatingIfNeeded: block >> (8 * i)) }
        }
    }

    /// The block's texels; past the image's right and bottom edges the last column and row repeat.
    static func load(_ src: UnsafeBufferPointer<Float>, _ bx: Int, _ by: Int, width: Int, height: Int) -> Texels {
        var r = V()
        var g = V()
        var b = V()
        for i in 0..<16 {
            let x = min(bx * 4 + i % 4, width - 1)
            let y = min(by * 4 + i / 4, height - 1)
            let o = (y * width + x) * 4
            (r[i], g[i], b[i]) = (src[o], src[o + 1], src[o + 2])
        }
        return Texels(r: halfBits(r), g: halfBits(g), b: halfBits(b))
    }

    /// `halfBits` on 16 lanes at once, in integer arithmetic (Float16's conversion is a library
    /// call on machines without F16C): round to nearest even, subnormal halves below 2⁻¹⁴.
    @inline(__always) static func halfBits(_ v: V) -> V {
        // On the bit patterns, as integers (a NaN of either sign compares nowhere as a Float):
        // negative values and NaNs (patterns below 0 or above infinity's) become 0, values above
        // 65504 (up to infinity) 65504.
        let raw = unsafeBitCast(v, to: SIMD16<Int32>.self)
        let largest = SIMD16<Int32>(repeating: Float(65504).bitPattern.int32)
        let infinity = SIMD16<Int32>(repeating: Float.infinity.bitPattern.int32)
        let zero = raw.below(SIMD16()) | infinity.below(raw)
        let bits = raw.choosing(largest, where: largest.below(raw)).choosing(SIMD16(), where: zero)
        let clamped = unsafeBitCast(bits, to: V.self)
        // Normal: rebias the exponent, round the 13 dropped mantissa bits to nearest even.
        let normal = (bits &- (112 << 23) &+ 0xFFF &+ ((bits &>> 13) & 1)) &>> 13
        // Subnormal (below 2⁻¹⁴): the value in units of 2⁻²⁴, rounded to nearest even by the
        // 1.5 · 2²³ trick.
        let scaled = clamped * 0x1p24 + 12_582_912
        let subnormal = unsafeBitCast(scaled, to: SIMD16<Int32>.self) &- 0x4B40_0000
        let half = normal.choosing(subnormal, where: clamped.below(V(repeating: 0x1p-14)))
        return (unsafeBitCast(half &+ 0x4B00_0000, to: V.self) - 8_388_608)
    }

    // MARK: The block

    static func encodeBlock(_ t: Texels, _ effort: Effort) -> UInt128 {
        let u = Texels(r: t.r * toUnquantized, g: t.g * toUnquantized, b: t.b * toUnquantized)
        let all = SIMD16<Int32>(repeating: -1)

        // One region.
        var one = Endpoints()
        fitSubset(u, all, into: &one, at: 0)
        orient(&one, u, subset: 0, anchor: 0)
        let oneFirst = quantizedBest(one, t, partition: -1)
        // A block one region holds within a couple of half-float steps per value needs no more.
        if effort.stopsEarly && oneFirst.error <= goodEnough {
            return pack(refined(one, t, u, partition: -1, effort: effort, first: oneFirst))
        }

        // Two regions, best-scored partitions first (thorough: every one).
        let scored = effort.candidates > 0 && effort.candidates < 32 ? bestPartitions(u, effort.candidates) : SIMD4()
        var two = Encoding()
        var twoEndpoints = Endpoints()
        for k in 0..<min(effort.candidates, 32) {
            let p = effort.candidates < 32 ? Int(scored[k]) : k
            var e = Endpoints()
            let mask = subsetMasks[p]
            fitSubset(u, ~mask, into: &e, at: 0)
            fitSubset(u, mask, into: &e, at: 2)
            orient(&e, u, subset: 0, anchor: 0)
            orient(&e, u, subset: 1, anchor: Int(BC7.anchors2[p]))
            let candidate = quantizedBest(e, t, partition: p)
            if candidate.error < two.error { (two, twoEndpoints) = (candidate, e) }
        }
        // Refits: `fast` and `medium` refine the better of the two, `thorough` both.
        var best = oneFirst
        if !effort.stopsEarly || oneFirst.error <= two.error {
            best = refined(one, t, u, partition: -1, effort: effort, first: oneFirst)
        }
        if two.error < .infinity && (!effort.stopsEarly || two.error < oneFirst.error) {
            two = refined(twoEndpoints, t, u, partition: two.partition, effort: effort, first: two)
        }
        if two.error < best.error { best = two }
        return pack(best)
    }

    /// The best encoding from `e` after `effort.refine` least-squares refits of the endpoints.
    static func refined(
        _ e: Endpoints, _ t: Texels, _ u: Texels, partition: Int, effort: Effort, first: Encoding? = nil
    ) -> Encoding {
        var best = first ?? quantizedBest(e, t, partition: partition)
        var current = best
        for _ in 0..<effort.refine {
            guard let next = leastSquares(current, u, partition: partition) else { break }
            current = quantizedBest(next, t, partition: partition)
            if current.error < best.error {
                best = current
            } else {
                break
            }
        }
        return best
    }

    /// Per texel (16), per half of the partitions (lanes 0–15: partitions 0–15 or 16–31): 1
    /// where the texel is in subset 1. Entry `half · 16 + texel`.
    static let partitionLanes: [V] = (0..<32).map { k in
        var v = V()
        for p in 0..<16 { v[p] = Float((BC7.partitions2[(k / 16) * 16 + p] >> (k % 16)) & 1) }
        return v
    }

    /// The `count` (≤ 4) partitions of 32 whose subsets lie closest to their principal axes, best
    /// first (ties: the lower number). Sixteen partitions are scored at once, one lane each: the
    /// subsets' moments summed texel by texel, then Σ|x − mean|² minus the variance along the
    /// principal axis (power iteration), all in lanes.
    static func bestPartitions(_ u: Texels, _ count: Int) -> SIMD4<Int32> {
        let total = (
            r: u.r.total, g: u.g.total, b: u.b.total, rr: (u.r * u.r).total, gg: (u.g * u.g).total,
            bb: (u.b * u.b).total, rg: (u.r * u.g).total, rb: (u.r * u.b).total, gb: (u.g * u.b).total
        )
        var scores = (V(), V())
        partitionLanes.withUnsafeBufferPointer { lanes in
            for half in 0..<2 {
                // Moments of subset 1 per partition.
                var n1 = V(), r1 = V(), g1 = V(), b1 = V()
                var rr1 = V(), gg1 = V(), bb1 = V(), rg1 = V(), rb1 = V(), gb1 = V()
                for i in 0..<16 {
                    let m = lanes[half * 16 + i]
                    let (r, g, b) = (u.r[i], u.g[i], u.b[i])
                    n1 += m
                    r1 += m * r
                    g1 += m * g
                    b1 += m * b
                    rr1 += m * (r * r)
                    gg1 += m * (g * g)
                    bb1 += m * (b * b)
                    rg1 += m * (r * g)
                    rb1 += m * (r * b)
                    gb1 += m * (g * b)
                }
                let one = residuals(n1, r1, g1, b1, rr1, gg1, bb1, rg1, rb1, gb1)
                let zero = residuals(
                    16 - n1, total.r - r1, total.g - g1, total.b - b1, total.rr - rr1, total.gg - gg1,
                    total.bb - bb1, total.rg - rg1, total.rb - rb1, total.gb - gb1)
                if half == 0 { scores.0 = one + zero } else { scores.1 = one + zero }
            }
        }
        var out = SIMD4<Int32>(repeating: -1)
        for k in 0..<min(count, 4) {
            var best = 0
            var bestScore = Float.infinity
            for p in 0..<32 {
                let score = p < 16 ? scores.0[p] : scores.1[p - 16]
                if score < bestScore && !(0..<k).contains(where: { out[$0] == Int32(p) }) {
                    best = p
                    bestScore = score
                }
            }
            out[k] = Int32(best)
        }
        return out
    }

    /// Per lane, Σ|x − mean|² minus n · λmax of the covariance, from a subset's moments (every
    /// subset of a partition has at least one texel).
    @inline(__always) static func residuals(
        _ n: V, _ r: V, _ g: V, _ b: V, _ rr: V, _ gg: V, _ bb: V, _ rg: V, _ rb: V, _ gb: V
    ) -> V {
        let inverse = 1 / n
        let (mr, mg, mb) = (r * inverse, g * inverse, b * inverse)
        let crr = rr * inverse - mr * mr
        let cgg = gg * inverse - mg * mg
        let cbb = bb * inverse - mb * mb
        let crg = rg * inverse - mr * mg
        let crb = rb * inverse - mr * mb
        let cgb = gb * inverse - mg * mb
        // Start from the column of the largest diagonal entry.
        let rFirst = ~(crr.below(cgg) | crr.below(cbb))
        let gFirst = ~rFirst & ~cgg.below(cbb)
        var vr = crb.choosing(crg, where: gFirst).choosing(crr, where: rFirst)
        var vg = cgb.choosing(cgg, where: gFirst).choosing(crg, where: rFirst)
        var vb = cbb.choosing(cgb, where: gFirst).choosing(crb, where: rFirst)
        let magnitude = SIMD16<Int32>(repeating: 0x7FFF_FFFF)
        for _ in 0..<3 {
            let wr = crr * vr + crg * vg + crb * vb
            let wg = crg * vr + cgg * vg + cgb * vb
            let wb = crb * vr + cgb * vg + cbb * vb
            let size =
                unsafeBitCast(unsafeBitCast(wr, to: SIMD16<Int32>.self) & magnitude, to: V.self)
                + unsafeBitCast(unsafeBitCast(wg, to: SIMD16<Int32>.self) & magnitude, to: V.self)
                + unsafeBitCast(unsafeBitCast(wb, to: SIMD16<Int32>.self) & magnitude, to: V.self) + 1e-20
            let scale = 1 / size
            (vr, vg, vb) = (wr * scale, wg * scale, wb * scale)
        }
        let cvr = crr * vr + crg * vg + crb * vb
        let cvg = crg * vr + cgg * vg + cgb * vb
        let cvb = crb * vr + cgb * vg + cbb * vb
        let lambda = (vr * cvr + vg * cvg + vb * cvb) / (vr * vr + vg * vg + vb * vb + 1e-30)
        let residual = crr + cgg + cbb - lambda
        return residual.choosing(V(), where: residual.below(V())) * n
    }

    struct Covariance {
        var rr: Float, gg: Float, bb: Float, rg: Float, rb: Float, gb: Float
    }

    static func covariance(_ n: Float, _ m: SIMD3<Float>, _ q: SIMD8<Float>) -> Covariance {
        Covariance(
            rr: q[0] / n - m.x * m.x, gg: q[1] / n - m.y * m.y, bb: q[2] / n - m.z * m.z,
            rg: q[3] / n - m.x * m.y, rb: q[4] / n - m.x * m.z, gb: q[5] / n - m.y * m.z)
    }

    /// The unit eigenvector of the largest eigenvalue (power iteration from the column of the
    /// largest diagonal); zero for a zero matrix.
    static func principalAxis(_ c: Covariance) -> SIMD3<Float> {
        var v =
            c.rr >= c.gg && c.rr >= c.bb
            ? SIMD3(c.rr, c.rg, c.rb) : c.gg >= c.bb ? SIMD3(c.rg, c.gg, c.gb) : SIMD3(c.rb, c.gb, c.bb)
        for _ in 0..<4 {
            let w = SIMD3(
                c.rr * v.x + c.rg * v.y + c.rb * v.z, c.rg * v.x + c.gg * v.y + c.gb * v.z,
                c.rb * v.x + c.gb * v.y + c.bb * v.z)
            let length = (w * w).total3.squareRoot()
            guard length > 1e-12 else { break }
            v = w / length
        }
        let length = (v * v).total3.squareRoot()
        return length > 1e-12 ? v / length : .zero
    }

    /// Endpoints k and k + 1: the subset's extent along its principal axis (unquantized domain).
    /// `mask`: the subset's texels (−1).
    static func fitSubset(_ u: Texels, _ mask: SIMD16<Int32>, into e: inout Endpoints, at k: Int) {
        let lanes = V.ones(mask)
        let (lr, lg, lb) = (lanes * u.r, lanes * u.g, lanes * u.b)
        let n = lanes.total
        let mean = SIMD3(lr.total, lg.total, lb.total) / n
        let q = SIMD8(
            (lr * u.r).total, (lg * u.g).total, (lb * u.b).total, (lr * u.g).total, (lr * u.b).total,
            (lg * u.b).total, 0, 0)
        let axis = principalAxis(covariance(n, mean, q))
        let t = (u.r - mean.x) * axis.x + (u.g - mean.y) * axis.y + (u.b - mean.z) * axis.z
        let low = V(repeating: .greatestFiniteMagnitude).choosing(t, where: mask).least
        let high = V(repeating: -.greatestFiniteMagnitude).choosing(t, where: mask).greatest
        let e0 = clamp(mean + axis * low)
        let e1 = clamp(mean + axis * high)
        e.r[k] = e0.x
        e.g[k] = e0.y
        e.b[k] = e0.z
        e.r[k + 1] = e1.x
        e.g[k + 1] = e1.y
        e.b[k + 1] = e1.z
    }

    @inline(__always) static func clamp(_ v: SIMD3<Float>) -> SIMD3<Float> {
        v.clamped(lowerBound: .zero, upperBound: SIMD3(repeating: 65535))
    }

    /// Swaps a subset's endpoints when its anchor texel lies nearer the second: the anchor's index
    /// is stored without its top bit.
    static func orient(_ e: inout Endpoints, _ u: Texels, subset: Int, anchor: Int) {
        let k = subset * 2
        let d = SIMD3(e.r[k + 1] - e.r[k], e.g[k + 1] - e.g[k], e.b[k + 1] - e.b[k])
        let p = SIMD3(u.r[anchor] - e.r[k], u.g[anchor] - e.g[k], u.b[anchor] - e.b[k])
        if (p * d).total3 * 2 > (d * d).total3 {
            (e.r[k], e.r[k + 1]) = (e.r[k + 1], e.r[k])
            (e.g[k], e.g[k + 1]) = (e.g[k + 1], e.g[k])
            (e.b[k], e.b[k + 1]) = (e.b[k + 1], e.b[k])
        }
    }

    // MARK: Quantization

    /// The spec's unquantization of an unsigned endpoint of `bits` bits.
    @inline(__always) static func unquantize(_ x: Int32, _ bits: Int) -> Int32 {
        if bits >= 15 { return x }
        if x == 0 { return 0 }
        if x == (1 << Int32(bits)) - 1 { return 0xFFFF }
        return ((x << 15) + 0x4000) >> Int32(bits - 1)
    }

    /// Endpoints at `bits` bits: each value's bucket (unquantized values are the buckets'
    /// centres, so it is the nearest); at 16 bits the value rounded up, so that a half's exact
    /// value decodes back exactly ((⌈h · 64/31⌉ · 31) >> 6 = h).
    @inline(__always) static func quantize(_ e: SIMD4<Float>, _ bits: Int) -> SIMD4<Int32> {
        // Clamped to 0…top first, so truncation is the floor (scalar conversions: the SIMD ones go
        // through generic code).
        let top = Float((1 << bits) - 1)
        var out = SIMD4<Int32>()
        if bits >= 16 {
            for k in 0..<4 {
                let v = Swift.min(Swift.max(e[k], 0), top)
                let t = Int32(v)
                out[k] = Float(t) < v ? t + 1 : t
            }
        } else {
            let x = e * (Float(1 << bits) / 65536)
            for k in 0..<4 { out[k] = Int32(Swift.min(Swift.max(x[k], 0), top)) }
        }
        return out
    }

    static func quantize(_ e: Endpoints, _ bits: Int) -> Quantized {
        Quantized(r: quantize(e.r, bits), g: quantize(e.g, bits), b: quantize(e.b, bits))
    }

    /// The most precise mode of the region count whose deltas fit endpoints `e` (`partition`
    /// −1: one region, whose endpoints 2 and 3 repeat 0 and 1), its indices and error. The last
    /// mode of each count stores endpoints as they are, so one always fits.
    static func quantizedBest(_ e: Endpoints, _ t: Texels, partition: Int) -> Encoding {
        let order = partition < 0 ? oneRegionOrder : twoRegionOrder
        var e = e
        if partition < 0 {
            e.r = SIMD4(e.r[0], e.r[1], e.r[0], e.r[1])
            e.g = SIMD4(e.g[0], e.g[1], e.g[0], e.g[1])
            e.b = SIMD4(e.b[0], e.b[1], e.b[0], e.b[1])
        }
        for m in order {
            let mode = BC6HLayout.modes[m]
            let q = quantize(e, mode.endpointBits)
            if !mode.transformed || deltasFit(q, mode.deltaBits) {
                return evaluate(q, t, mode: m, partition: partition)
            }
        }
        preconditionFailure("the last mode of each region count stores endpoints as they are")
    }

    /// Whether every endpoint's difference from endpoint 0 fits in the signed delta bits.
    @inline(__always) static func deltasFit(_ q: Quantized, _ bits: SIMD3<Int32>) -> Bool {
        @inline(__always) func fits(_ v: SIMD4<Int32>, _ n: Int32) -> Bool {
            let d = v &- SIMD4(repeating: v[0]) &+ (1 << (n - 1))  // in 0..<2^n when it fits
            return (SIMD4<UInt32>(truncatingIfNeeded: d) &>> UInt32(n)) == .zero
        }
        return fits(q.r, bits.x) && fits(q.g, bits.y) && fits(q.b, bits.z)
    }

    /// Each texel's nearest palette entry (the anchors' among the lower half) and the total error.
    static func evaluate(_ q: Quantized, _ t: Texels, mode m: Int, partition: Int) -> Encoding {
        let bits = BC6HLayout.modes[m].endpointBits
        let two = partition >= 0
        let count = two ? 8 : 16
        var unq = Quantized()
        for k in 0..<4 {
            unq.r[k] = unquantize(q.r[k], bits)
            unq.g[k] = unquantize(q.g[k], bits)
            unq.b[k] = unquantize(q.b[k], bits)
        }
        // Lane layout of an entry: r0 r1 g0 g1 b0 b1 (subsets 0 and 1), as the decoder computes them.
        let low = SIMD8<Int32>(unq.r[0], unq.r[2], unq.g[0], unq.g[2], unq.b[0], unq.b[2], 0, 0)
        let high = SIMD8<Int32>(unq.r[1], unq.r[3], unq.g[1], unq.g[3], unq.b[1], unq.b[3], 0, 0)
        @inline(__always) func entry(_ k: Int) -> SIMD8<Float> {
            let w = two ? weights3[k] : weights4[k]
            let v = (low &* (64 &- w) &+ high &* w &+ 32) &>> 6
            // Half bits (below 2²³) to Float exactly through the exponent of 2²³.
            return unsafeBitCast(((v &* 31) &>> 6) &+ 0x4B00_0000, to: SIMD8<Float>.self) - 8_388_608
        }
        let second = two ? subsetMasks[partition] : SIMD16<Int32>()
        var bestError = V(repeating: .greatestFiniteMagnitude)
        var bestIndex = SIMD16<Int32>()
        for k in 0..<count {
            let p = entry(k)
            let r: V
            let g: V
            let b: V
            if two {
                r = V(repeating: p[0]).choosing(V(repeating: p[1]), where: second) - t.r
                g = V(repeating: p[2]).choosing(V(repeating: p[3]), where: second) - t.g
                b = V(repeating: p[4]).choosing(V(repeating: p[5]), where: second) - t.b
            } else {
                (r, g, b) = (V(repeating: p[0]) - t.r, V(repeating: p[2]) - t.g, V(repeating: p[4]) - t.b)
            }
            let error = r * r + g * g + b * b
            let better = error.below(bestError)
            bestError = bestError.choosing(error, where: better)
            bestIndex = bestIndex.choosing(SIMD16(repeating: Int32(k)), where: better)
        }
        // The anchors' indices have one bit less: keep them in the lower half.
        let anchor = two ? Int(BC7.anchors2[partition]) : 0
        for a in 0..<16 where (a == 0 || a == anchor) && bestIndex[a] >= Int32(count / 2) {
            let s = second[a] != 0 ? 1 : 0
            var e = Float.infinity
            for k in 0..<(count / 2) {
                let p = entry(k)
                let d = SIMD3(p[s] - t.r[a], p[2 + s] - t.g[a], p[4 + s] - t.b[a])
                let error = (d * d).total3
                if error < e {
                    e = error
                    bestIndex[a] = Int32(k)
                }
            }
            bestError[a] = e
        }
        return Encoding(error: bestError.total, mode: m, partition: max(partition, 0), q: q, indices: bestIndex)
    }

    /// The BPTC weights of 3- and 4-bit indices, as lanes.
    static let weights3 = SIMD8<Int32>(0, 9, 18, 27, 37, 46, 55, 64)
    static let weights4 = SIMD16<Int32>(0, 4, 9, 13, 17, 21, 26, 30, 34, 38, 43, 47, 51, 55, 60, 64)

    /// Endpoints refitted by least squares to the encoding's indices (nil: nothing to solve).
    static func leastSquares(_ c: Encoding, _ u: Texels, partition: Int) -> Endpoints? {
        let two = partition >= 0
        // The weight of index k is k · 64 / (levels − 1) rounded (no ties), here by the 1.5 · 2²³ trick.
        let k = unsafeBitCast(c.indices &+ 0x4B00_0000, to: V.self) - 8_388_608
        let step: Float = two ? 64 / 7 : 64 / 15
        let rounded: V = (k * step + 12_582_912) - 12_582_912
        let alpha = rounded / 64
        let beta = 1 - alpha
        var e = Endpoints()
        let lanesOne = two ? V.ones(subsetMasks[partition]) : V()
        for s in 0..<(two ? 2 : 1) {
            let m = s == 0 ? 1 - lanesOne : lanesOne
            let a11 = (m * beta * beta).total
            let a12 = (m * alpha * beta).total
            let a22 = (m * alpha * alpha).total
            let det = a11 * a22 - a12 * a12
            guard abs(det) > 1e-6 else { return nil }
            func solve(_ x: V) -> (Float, Float) {
                let b0 = (m * beta * x).total
                let b1 = (m * alpha * x).total
                return (
                    min(max((a22 * b0 - a12 * b1) / det, 0), 65535), min(max((a11 * b1 - a12 * b0) / det, 0), 65535)
                )
            }
            (e.r[2 * s], e.r[2 * s + 1]) = solve(u.r)
            (e.g[2 * s], e.g[2 * s + 1]) = solve(u.g)
            (e.b[2 * s], e.b[2 * s + 1]) = solve(u.b)
        }
        return e
    }

    // MARK: Bits

    /// The block's 128 bits: the mode's fields per Table.F, the partition, then the indices.
    static func pack(_ c: Encoding) -> UInt128 {
        let mode = BC6HLayout.modes[c.mode]
        let two = mode.twoRegions
        // Fields as lanes: channel · 4 + endpoint, then the mode number (lane 12).
        @inline(__always) func stored(_ v: SIMD4<Int32>, _ deltaBits: Int32) -> SIMD4<Int32> {
            guard mode.transformed else { return v }
            let d = (v &- SIMD4(repeating: v[0])) & ((1 << deltaBits) &- 1)
            return SIMD4(v[0], d[1], d[2], d[3])
        }
        let fields = SIMD16<Int32>(
            lowHalf: SIMD8(lowHalf: stored(c.q.r, mode.deltaBits.x), highHalf: stored(c.q.g, mode.deltaBits.y)),
            highHalf: SIMD8(lowHalf: stored(c.q.b, mode.deltaBits.z), highHalf: SIMD4(Int32(mode.number), 0, 0, 0)))
        var block: UInt128 = 0
        let layout = BC6HLayout.bits[mode.number]
        layout.withUnsafeBufferPointer { bits in
            for position in 0..<bits.count
            where (fields[Int(bits[position].field)] >> Int32(bits[position].bit)) & 1 != 0 {
                block |= 1 << position
            }
        }
        var position = layout.count
        if two {
            block |= UInt128(c.partition) << position
            position += 5
        }
        let indexBits = two ? 3 : 4
        let anchor = two ? Int(BC7.anchors2[c.partition]) : 0
        for i in 0..<16 {
            let n = i == 0 || i == anchor ? indexBits - 1 : indexBits
            block |= UInt128(UInt32(c.indices[i])) << position
            position += n
        }
        return block
    }
}

extension SIMD3<Float> {
    @inline(__always) var total3: Float { self[0] + self[1] + self[2] }
}

extension UInt32 {
    /// The same bits as a signed integer.
    fileprivate var int32: Int32 { Int32(bitPattern: self) }
}
