/// BC1's (and BC3's color) `fast` block: the principal axis from exact integer moments, the ends
/// of the texels along it, then two least-squares refits of the ends on the indices they give —
/// every per-texel step a 16-lane vector, no per-texel scalar loop and no Double.
extension BC {
    /// One color block at `fast`, as a little-endian u64: the ends of the texels along their
    /// principal line (`principalLine`), refined; a block of one color from the one-color tables.
    static func encodeColorBlockFast(_ t: Texels) -> UInt64 {
        guard let line = principalLine(t) else { return flatBlock(t) }
        let top = line.mean + line.hi * line.axis
        let bottom = line.mean + line.lo * line.axis
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

    /// A block's principal line: its mean, its axis, each texel's position along the axis in
    /// sixteenths (`along`), and the least and greatest position in texel units (`lo`, `hi`).
    struct Line {
        var mean: SIMD3<Float>
        var axis: SIMD3<Float>
        var along: SIMD16<Float>
        var lo: Float
        var hi: Float
    }

    /// The principal line of a block's colors (nil for a block of one color, which has none).
    ///
    /// The covariance is exact: 16·Σxy − Σx·Σy in integers, scaled by its trace (the matrix is
    /// positive semi-definite: every entry within 0…1 after, so its powers cannot overflow). The
    /// axis is four power-iteration steps from the channel of largest variance (eight with
    /// `longer`), taken as that column of the covariance's fourth (eighth) power: products of
    /// symmetric 3×3 matrices, then one square root, where each step was a dependent square root
    /// and division. The texels' positions along it are a 16-lane Float product of exact integers,
    /// so the ends (a min and a max, which reduce exactly in any order) are the same on every build.
    static func principalLine(_ t: Texels, longer: Bool = false) -> Line? {
        let sr = sum(t.r)
        let sg = sum(t.g)
        let sb = sum(t.b)
        func moment(_ x: V16, _ sx: Int32, _ y: V16, _ sy: Int32) -> Float {
            Float(16 &* sum(x &* y) &- sx &* sy)
        }
        let rr0 = moment(t.r, sr, t.r, sr)
        let gg0 = moment(t.g, sg, t.g, sg)
        let bb0 = moment(t.b, sb, t.b, sb)
        let trace = rr0 + gg0 + bb0
        guard trace > 0 else { return nil }
        let inverse = 1 / trace
        var (rr, gg, bb) = (rr0 * inverse, gg0 * inverse, bb0 * inverse)
        var rg = moment(t.r, sr, t.g, sg) * inverse
        var rb = moment(t.r, sr, t.b, sb) * inverse
        var gb = moment(t.g, sg, t.b, sb) * inverse
        // The column of the channel of largest variance, chosen before squaring.
        let which = rr >= gg && rr >= bb ? 0 : (gg >= bb ? 1 : 2)
        // Squared once (M²), or twice (M⁴) for eight steps; then M²'s column times M² again.
        for _ in 0..<(longer ? 2 : 1) {
            (rr, rg, rb, gg, gb, bb) = (
                rr * rr + rg * rg + rb * rb, rr * rg + rg * gg + rb * gb, rr * rb + rg * gb + rb * bb,
                rg * rg + gg * gg + gb * gb, rg * rb + gg * gb + gb * bb, rb * rb + gb * gb + bb * bb
            )
        }
        let column =
            which == 0 ? SIMD3<Float>(rr, rg, rb) : (which == 1 ? SIMD3<Float>(rg, gg, gb) : SIMD3<Float>(rb, gb, bb))
        let power =
            SIMD3<Float>(rr, rg, rb) * column.x + SIMD3<Float>(rg, gg, gb) * column.y
            + SIMD3<Float>(rb, gb, bb) * column.z
        let length = (power.x * power.x + power.y * power.y + power.z * power.z).squareRoot()
        let axis = power * (1 / length)
        // Positions along the axis, in sixteenths (16·texel − Σ, exact integers, then one product each).
        let dr = SIMD16<Float>(16 &* t.r &- V16(repeating: sr))
        let dg = SIMD16<Float>(16 &* t.g &- V16(repeating: sg))
        let db = SIMD16<Float>(16 &* t.b &- V16(repeating: sb))
        let along = dr * axis.x + dg * axis.y + db * axis.z
        return Line(
            mean: SIMD3<Float>(Float(sr), Float(sg), Float(sb)) / 16, axis: axis, along: along,
            lo: least(along) / 16, hi: -least(-along) / 16)
    }

    /// A block of one color: the endpoint pair whose ⅓ entry decodes nearest it, per channel (the
    /// one-color tables `medium` uses too).
    static func flatBlock(_ t: Texels) -> UInt64 {
        let (c0, c1) = oneColor.thirdEnds(Int(t.r[0]), Int(t.g[0]), Int(t.b[0]))
        var best = ColorCandidate()
        best.consider(t, c0, c1, four: true)
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
    /// The clamp is written out: the generic `clamped` was not inlined (nor is a vector conversion
    /// to integers: the lanes convert one by one).
    @inline(__always) static func to565(_ c: SIMD3<Float>) -> Int {
        var x = c.replacing(with: 0, where: c .< 0)
        x.replace(with: 255, where: x .> 255)
        let v = (x * SIMD3(31, 63, 31) / 255).rounded(.toNearestOrAwayFromZero)
        return Int(v.x) << 11 | Int(v.y) << 5 | Int(v.z)
    }
}
