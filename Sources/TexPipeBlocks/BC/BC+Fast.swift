/// BC1's (and BC3's color) `fast` block: the principal axis from exact integer moments, the ends
/// of the texels along it, then two least-squares refits of the ends on the indices they give —
/// every per-texel step a 16-lane vector, no per-texel scalar loop and no Double.
extension BC {
    /// One color block at `fast`, as a little-endian u64 (four-color order; c0 = c1 for a flat
    /// block, which decodes as one color either way).
    ///
    /// The covariance is exact: 16·Σxy − Σx·Σy in integers. The axis is four power-iteration steps
    /// from the channel of largest variance, in Float on those six numbers; the texels' positions
    /// along it are a 16-lane Float product of exact integers, so the ends (min and max, which
    /// reduce exactly in any order) are the same on every build.
    static func encodeColorBlockFast(_ t: Texels) -> UInt64 {
        let sr = sum(t.r)
        let sg = sum(t.g)
        let sb = sum(t.b)
        // 16 × covariance, exact.
        func moment(_ x: V16, _ sx: Int32, _ y: V16, _ sy: Int32) -> Float {
            Float(16 &* sum(x &* y) &- sx &* sy)
        }
        let rr = moment(t.r, sr, t.r, sr)
        let rg = moment(t.r, sr, t.g, sg)
        let rb = moment(t.r, sr, t.b, sb)
        let gg = moment(t.g, sg, t.g, sg)
        let gb = moment(t.g, sg, t.b, sb)
        let bb = moment(t.b, sb, t.b, sb)
        var axis: SIMD3<Float> = rr >= gg && rr >= bb ? [1, 0, 0] : (gg >= bb ? [0, 1, 0] : [0, 0, 1])
        for _ in 0..<4 {
            let x = rr * axis.x + rg * axis.y + rb * axis.z
            let y = rg * axis.x + gg * axis.y + gb * axis.z
            let z = rb * axis.x + gb * axis.y + bb * axis.z
            let len = (x * x + y * y + z * z).squareRoot()
            if !(len > 1e-3) { break }
            axis = SIMD3(x, y, z) * (1 / len)
        }
        // Positions along the axis, in sixteenths (16·texel − Σ, exact integers, then one product each).
        let dr = SIMD16<Float>(16 &* t.r &- V16(repeating: sr))
        let dg = SIMD16<Float>(16 &* t.g &- V16(repeating: sg))
        let db = SIMD16<Float>(16 &* t.b &- V16(repeating: sb))
        let along = dr * axis.x + dg * axis.y + db * axis.z
        let (lo, hi) = (least(along) / 16, -least(-along) / 16)
        let mean = SIMD3<Float>(Float(sr), Float(sg), Float(sb)) / 16
        let top = mean + hi * axis
        let bottom = mean + lo * axis
        var best = ColorCandidate()
        best.consider(t, to565(top), to565(bottom), four: true)
        // Two refits: the ends solved by least squares on the indices the best ends give.
        for _ in 0..<2 where best.error > 0 {
            let before = best.error
            guard let (a, b) = colorLeastSquares(t, best.indices, four: best.four) else { break }
            best.consider(t, a, b, four: true)
            if best.error == before { break }
        }
        return best.packed()
    }

    /// The least of 16 lanes (no NaN), halves against halves: exact in any order; the greatest is
    /// the least of the negated lanes, negated. (One per scalar type: generic, they are not
    /// vectorised.)
    @inline(__always) static func least(_ v: SIMD16<Float>) -> Float {
        let h = v.lowHalf.replacing(with: v.highHalf, where: v.highHalf .< v.lowHalf)
        let q = h.lowHalf.replacing(with: h.highHalf, where: h.highHalf .< h.lowHalf)
        return Swift.min(Swift.min(q.x, q.y), Swift.min(q.z, q.w))
    }

    @inline(__always) static func least(_ v: SIMD16<Double>) -> Double {
        let h = v.lowHalf.replacing(with: v.highHalf, where: v.highHalf .< v.lowHalf)
        let q = h.lowHalf.replacing(with: h.highHalf, where: h.highHalf .< h.lowHalf)
        return Swift.min(Swift.min(q.x, q.y), Swift.min(q.z, q.w))
    }

    /// An RGB end (0…255 Floats) as 5:6:5, rounded half away from zero.
    @inline(__always) static func to565(_ c: SIMD3<Float>) -> Int {
        let v = (c.clamped(lowerBound: .zero, upperBound: SIMD3(repeating: 255)) * SIMD3(31, 63, 31) / 255)
            .rounded(.toNearestOrAwayFromZero)
        return Int(v.x) << 11 | Int(v.y) << 5 | Int(v.z)
    }
}
