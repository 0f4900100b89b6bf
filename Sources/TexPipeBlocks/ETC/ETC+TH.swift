/// ETC2's T and H modes: two colours, a distance and a table of four paints.
extension ETC {
    // MARK: T and H

    static func twoColor(_ px: Pixels, _ effort: Effort, _ best: inout Best) {
        // Two groups along the colours' principal axis (a few power iterations on the covariance).
        let mean = SIMD3<Float>(px.r.total, px.g.total, px.b.total) / 16
        let dr = px.r - mean.x
        let dg = px.g - mean.y
        let db = px.b - mean.z
        let rr = (dr * dr).total
        let gg = (dg * dg).total
        let bb = (db * db).total
        let rg = (dr * dg).total
        let rb = (dr * db).total
        let gb = (dg * db).total
        var axis = SIMD3<Float>(rr + rg + rb, rg + gg + gb, rb + gb + bb)
        for _ in 0..<3 {
            axis = SIMD3<Float>(
                rr * axis.x + rg * axis.y + rb * axis.z, rg * axis.x + gg * axis.y + gb * axis.z,
                rb * axis.x + gb * axis.y + bb * axis.z)
            let n = max(abs(axis.x), abs(axis.y), abs(axis.z))
            if n == 0 { return }
            axis /= n
        }
        let projection = dr * axis.x + dg * axis.y + db * axis.z
        var second = F16().below(projection)  // set: the second group
        for _ in 0..<2 {
            let ones = F16.ones(second)
            let n2 = ones.total
            if n2 == 0 || n2 == 16 { return }
            let n1 = 16 - n2
            let m2 = SIMD3<Float>((px.r * ones).total, (px.g * ones).total, (px.b * ones).total) / n2
            let m1 = (mean * 16 - m2 * n2) / n1
            // Reassign each texel to the nearer mean.
            let e1 = sq(px.r - m1.x) + sq(px.g - m1.y) + sq(px.b - m1.z)
            let e2 = sq(px.r - m2.x) + sq(px.g - m2.y) + sq(px.b - m2.z)
            let next = e2.below(e1)
            if next == second { break }
            second = next
        }
        let ones2 = F16.ones(second)
        let n2 = ones2.total
        if n2 == 0 || n2 == 16 { return }
        let m2 = SIMD3<Float>((px.r * ones2).total, (px.g * ones2).total, (px.b * ones2).total) / n2
        let m1 = (mean * 16 - m2 * n2) / (16 - n2)
        // Each group's spread along grey: the mean |σ − σ̄| / 3, an estimate of the distance.
        let s1 = m1.x + m1.y + m1.z
        let s2 = m2.x + m2.y + m2.z
        let dev = abs16(px.sum - F16(repeating: s1)).choosing(abs16(px.sum - F16(repeating: s2)), where: second)
        let spread1 = (dev * (1 - ones2)).total / (16 - n2) / 3
        let spread2 = (dev * ones2).total / n2 / 3
        let q1 = quantize4(m1)
        let q2 = quantize4(m2)
        let c1 = expand4(q1)
        let c2 = expand4(q2)
        // H: both groups spread by ±d.
        let (lowH, highH) = distanceRange((spread1 + spread2) / 2, effort)
        for d in lowH...highH { hMode(px, q1, c1, q2, c2, d, &best) }
        // T: one group a single colour, the other spread by ±d; the tighter group single first,
        // then (thorough) the other way round.
        let tighterFirst = spread1 <= spread2
        for k in 0..<(effort.twoColorDistances >= 8 ? 2 : 1) {
            let firstSingle = (k == 0) == tighterFirst
            let (low, high) = distanceRange(firstSingle ? spread2 : spread1, effort)
            for d in low...high {
                if firstSingle { tMode(px, q1, c1, q2, c2, d, &best) } else { tMode(px, q2, c2, q1, c1, d, &best) }
            }
        }
    }

    @inline(__always) static func sq(_ v: F16) -> F16 { v * v }
    @inline(__always) static func abs16(_ v: F16) -> F16 {
        unsafeBitCast(unsafeBitCast(v, to: I16.self) & 0x7FFF_FFFF, to: F16.self)
    }
    @inline(__always) static func quantize4(_ v: SIMD3<Float>) -> SIMD3<Int32> {
        let q = (v * (15 / 255)).rounded(.toNearestOrEven)
        return SIMD3<Int32>(Int32(min(15, max(0, q.x))), Int32(min(15, max(0, q.y))), Int32(min(15, max(0, q.z))))
    }
    @inline(__always) static func expand4(_ q: SIMD3<Int32>) -> SIMD3<Float> {
        let e = (q &<< 4) | q
        return SIMD3<Float>(Float(e.x), Float(e.y), Float(e.z))
    }

    /// The distance indices to try around an estimate (a range): the nearest one or two, or all.
    static func distanceRange(_ estimate: Float, _ effort: Effort) -> (Int, Int) {
        if effort.twoColorDistances >= 8 { return (0, 7) }
        var nearest = 0
        for k in 1..<8 where abs(distances[k] - estimate) < abs(distances[nearest] - estimate) { nearest = k }
        if effort.twoColorDistances == 1 { return (nearest, nearest) }
        let other = nearest == 0 ? 1 : nearest == 7 ? 6 : (estimate < distances[nearest] ? nearest - 1 : nearest + 1)
        return (min(nearest, other), max(nearest, other))
    }

    /// The exact error of four paint colours and each texel's index.
    @inline(__always) static func paint(
        _ px: Pixels, _ p0: SIMD3<Float>, _ p1: SIMD3<Float>, _ p2: SIMD3<Float>, _ p3: SIMD3<Float>
    ) -> (Float, I16) {
        @inline(__always) func e(_ p: SIMD3<Float>) -> F16 {
            let c = p.clamped(lowerBound: .zero, upperBound: SIMD3(repeating: 255))
            return sq(px.r - c.x) + sq(px.g - c.y) + sq(px.b - c.z)
        }
        return argmin4(e(p0), e(p1), e(p2), e(p3))
    }

    static func hMode(
        _ px: Pixels, _ qa: SIMD3<Int32>, _ ca: SIMD3<Float>, _ qb: SIMD3<Int32>, _ cb: SIMD3<Float>, _ di: Int,
        _ best: inout Best
    ) {
        // The distance index's low bit is (colour 1 ≥ colour 2), comparing (R << 16) + (G << 8) + B.
        @inline(__always) func value(_ q: SIMD3<Int32>) -> Int32 { q.x << 8 | q.y << 4 | q.z }
        let va = value(qa)
        let vb = value(qb)
        var (q1, c1, q2, c2) = (qa, ca, qb, cb)
        if (di & 1 == 1) != (va >= vb) {
            if va == vb { return }  // equal colours only take odd indices
            (q1, c1, q2, c2) = (qb, cb, qa, ca)
        }
        let d = SIMD3<Float>(repeating: distances[di])
        let (e, index) = paint(px, c1 + d, c1 - d, c2 + d, c2 - d)
        guard e < best.error else { return }
        let g1a = UInt64(q1.y >> 1)
        let x = Int(q1.y & 1) << 1 | Int(q1.z >> 3)
        let y = Int((q1.z & 7) >> 1)
        // Bits 63…32: free 63, R1 62…59, G1's top three 58…56, free 55…53, G1's last 52, B1's top
        // 51, free 50, B1's last three 49…47, R2 46…43, G2 42…39, B2 38…35, da 34, 1, db 32.
        var hi = UInt64(q1.x) << 27 | g1a << 24 | UInt64(q1.y & 1) << 20 | UInt64(q1.z >> 3) << 19
        hi |= UInt64(q1.z & 7) << 15 | UInt64(q2.x) << 11 | UInt64(q2.y) << 7 | UInt64(q2.z) << 3
        hi |= UInt64(di >> 2) << 2 | 1 << 1 | UInt64((di >> 1) & 1)
        hi |= (g1a >> 2) << 31  // R + dR stays inside 0…31
        if x + y >= 4 { hi |= 0b111 << 21 } else { hi |= 1 << 18 }  // G + dG outside
        best.consider(e, hi << 32 | UInt64(indexBits(index)))
    }

    static func tMode(
        _ px: Pixels, _ q1: SIMD3<Int32>, _ c1: SIMD3<Float>, _ q2: SIMD3<Int32>, _ c2: SIMD3<Float>, _ di: Int,
        _ best: inout Best
    ) {
        let d = SIMD3<Float>(repeating: distances[di])
        let (e, index) = paint(px, c1, c2 + d, c2, c2 - d)
        guard e < best.error else { return }
        let ra = UInt64(q1.x >> 2)
        let rb = UInt64(q1.x & 3)
        // Bits 63…32: free 63…61, R1's top two 60…59, free 58, R1's last two 57…56, G1, B1, R2,
        // G2, B2 (four bits each, 55…36), da 35…34, 1, db 32.
        var hi = ra << 27 | rb << 24 | UInt64(q1.y) << 20 | UInt64(q1.z) << 16 | UInt64(q2.x) << 12
        hi |= UInt64(q2.y) << 8 | UInt64(q2.z) << 4 | UInt64(di >> 1) << 2 | 1 << 1 | UInt64(di & 1)
        if ra + rb >= 4 { hi |= 0b111 << 29 } else { hi |= 1 << 26 }  // R + dR outside 0…31
        best.consider(e, hi << 32 | UInt64(indexBits(index)))
    }
}
