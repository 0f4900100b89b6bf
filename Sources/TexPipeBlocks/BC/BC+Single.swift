internal import TexPipeFormats

/// BC4 and BC5's single-channel blocks (eight or six interpolated values between two endpoints).
extension BC {
    /// The eight values of a BC4 block's endpoints in index order: r0 > r1, r0, r1 and
    /// ⌊((7 − i)·r0 + i·r1) / 7⌋; else r0, r1, ⌊((5 − i)·r0 + i·r1) / 5⌋, 0 and 255.
    @inline(__always) static func palette8(_ r0: Int32, _ r1: Int32) -> SIMD8<Int32> {
        if r0 > r1 {
            let i = SIMD8<Int32>(0, 7, 1, 2, 3, 4, 5, 6)
            return ((7 &- i) &* r0 &+ i &* r1) / 7
        }
        let i = SIMD8<Int32>(0, 5, 1, 2, 3, 4, 0, 0)
        var p = ((5 &- i) &* r0 &+ i &* r1) / 5
        p[6] = 0
        p[7] = 255
        return p
    }

    /// One BC4 block for 16 values, as a little-endian u64: r0, r1, then 16 3-bit indices.
    ///
    /// Both modes are tried: eight values between the extremes (r0 > r1), and six between the
    /// extremes of the values other than 0 and 255 with 0 and 255 exact (r0 ≤ r1). `medium` then
    /// refines each mode's endpoints by least squares on its indices (twice); `thorough` also tries
    /// every endpoint pair within ±2 of the best. The pair with the smallest squared error wins
    /// (ties: the one tried first).
    static func encodeSingle(_ v: V16, _ quality: TextureSettings.Quality) -> UInt64 {
        let lo = v.min()
        let hi = v.max()
        if lo == hi { return pack(hi, hi, V16()) }
        let inner = v .!= 0 .& (v .!= 255)
        let innerLo = V16(repeating: 255).replacing(with: v, where: inner).min()
        let innerHi = V16(repeating: 0).replacing(with: v, where: inner).max()
        let hasInner = any(inner)
        // A plain value, not a closure's captured variable: nothing is boxed per block.
        var best = Candidate()
        best.consider(v, hi, lo)
        let six = hasInner ? (innerLo, innerHi) : (Int32(0), Int32(255))
        best.consider(v, six.0, six.1)
        if quality != .fast {
            for _ in 0..<2 {
                for eight in 0..<2 {
                    let start =
                        eight == 0
                        ? (best.r0 > best.r1 ? (best.r0, best.r1) : (hi, lo))
                        : (best.r0 <= best.r1 ? (best.r0, best.r1) : six)
                    let (_, idx) = fit(v, start.0, start.1)
                    if let (a, b) = leastSquares(v, idx, eight: eight == 0) { best.consider(v, a, b) }
                }
            }
        }
        if quality == .thorough {
            let (c0, c1) = (best.r0, best.r1)
            for d0 in Int32(-2)...2 {
                for d1 in Int32(-2)...2 {
                    let a = min(255, max(0, c0 + d0))
                    let b = min(255, max(0, c1 + d1))
                    best.consider(v, a, b)
                    best.consider(v, b, a)
                }
            }
        }
        return pack(best.r0, best.r1, best.indices)
    }

    /// The best endpoints tried so far and their indices.
    struct Candidate {
        var error = Int32.max
        var r0: Int32 = 0
        var r1: Int32 = 0
        var indices = V16()
        @inline(__always) mutating func consider(_ v: V16, _ a: Int32, _ b: Int32) {
            let (e, idx) = BC.fit(v, a, b)
            if e < error { (error, r0, r1, indices) = (e, a, b, idx) }
        }
    }

    /// The nearest palette entry for each value (the first on a tie) and the summed squared error.
    @inline(__always) static func fit(_ v: V16, _ r0: Int32, _ r1: Int32) -> (Int32, V16) {
        let p = palette8(r0, r1)
        var best = V16(repeating: Int32.max)
        var idx = V16()
        for k in 0..<8 {
            let d = v &- V16(repeating: p[k])
            let e = d &* d
            let closer = e .< best
            best.replace(with: e, where: closer)
            idx.replace(with: Int32(k), where: closer)
        }
        return (best.wrappedSum(), idx)
    }

    /// Endpoints minimising Σ (x − ((1 − w)·r0 + w·r1))² over the texels on interpolated entries
    /// (w = the index's weight), rounded and clamped, ordered for the mode; nil when degenerate.
    static func leastSquares(_ v: V16, _ idx: V16, eight: Bool) -> (Int32, Int32)? {
        var aa = 0.0
        var ab = 0.0
        var bb = 0.0
        var ax = 0.0
        var bx = 0.0
        for i in 0..<16 {
            let k = Int(idx[i])
            let w: Double
            if eight {
                w = k == 0 ? 0 : k == 1 ? 1 : Double(k - 1) / 7
            } else {
                if k >= 6 { continue }  // 0 and 255 are fixed
                w = k == 0 ? 0 : k == 1 ? 1 : Double(k - 1) / 5
            }
            let a = 1 - w
            let x = Double(v[i])
            aa += a * a
            ab += a * w
            bb += w * w
            ax += a * x
            bx += w * x
        }
        let det = aa * bb - ab * ab
        guard abs(det) > 1e-9 else { return nil }
        var a = Int32(min(255, max(0, ((ax * bb - bx * ab) / det).rounded())))
        var b = Int32(min(255, max(0, ((bx * aa - ax * ab) / det).rounded())))
        if eight && a <= b { (a, b) = (max(a, b), min(a, b)) }
        if eight && a == b { return nil }
        if !eight && a > b { (a, b) = (b, a) }
        return (a, b)
    }

    static func pack(_ r0: Int32, _ r1: Int32, _ idx: V16) -> UInt64 {
        var bits = UInt64(r0) | UInt64(r1) << 8
        for i in 0..<16 { bits |= UInt64(idx[i]) << UInt64(16 + 3 * i) }
        return bits
    }
}
