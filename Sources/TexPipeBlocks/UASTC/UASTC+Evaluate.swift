/// UASTC's block search: each candidate mode's error, its weights' neighbours and least squares.
extension UASTC {
    /// Ends quantized to the nearest stored values, each member texel's nearest palette entry (the
    /// exact ASTC interpolation), and the squared error over the members and channels.
    static func evaluate(
        _ x: Texels, _ channels: SIMD4<Int32>, _ member: V16, _ mode: Mode, _ q: UnsafeMutablePointer<Int32>,
        _ a: SIMD4<Float>,
        _ b: SIMD4<Float>
    ) -> Part {
        var part = Part()
        for c in 0..<4 where channels[c] != 0 {
            let na = q[Int(min(255, max(0, a[c] + 0.5)))]
            let nb = q[Int(min(255, max(0, b[c] + 0.5)))]
            part.codes.0[c] = na >> 8
            part.codes.1[c] = nb >> 8
            part.ends.0[c] = na & 255
            part.ends.1[c] = nb & 255
        }
        let l = part.ends.0 &* 257
        let h = part.ends.1 &* 257
        var bestError = V16(repeating: Int32.max)
        var bestIndex = V16()
        // Channels not in the part contribute nothing: their palette value is the texel's own.
        let on = 0 &- channels
        // With 3 weight bits or more: each texel's position along the line, rounded to a weight,
        // then that weight and its two neighbours — the palette lies along the line, so its
        // nearest entry is among them (3 palette entries a texel instead of 8, 16 or 32). With
        // fewer, every weight.
        let near = mode.weightBits >= 3
        let top = Int32((1 << mode.weightBits) - 1)
        let topV = V16(repeating: top)
        var guess = V16()
        if near {
            let d = (h &- l) & on
            let df = SIMD4<Float>(d)
            let den = (df * df).total
            if den > 0 {
                let lf = SIMD4<Float>(l)
                var t = (F16(x.0) * 257 - lf[0]) * df[0]
                t += (F16(x.1) * 257 - lf[1]) * df[1]
                t += (F16(x.2) * 257 - lf[2]) * df[2]
                t += (F16(x.3) * 257 - lf[3]) * df[3]
                t *= Float(top) / den
                let most = F16(repeating: Float(top))
                t = t.choosing(F16(), where: t.below(F16())).choosing(most, where: most.below(t))
                // Rounded to the nearest integer by the float's own rounding (as BC7's fit does).
                guess = unsafeBitCast(t + 12_582_912, to: V16.self) &- 0x4B40_0000
            }
        }
        // A candidate weight per texel and its palette value per channel: kept where it is nearer.
        @inline(__always) func consider(_ k: V16, _ p0: V16, _ p1: V16, _ p2: V16, _ p3: V16) {
            let d0 = x.0 &- p0
            let d1 = x.1 &- p1
            let d2 = x.2 &- p2
            let d3 = x.3 &- p3
            var e = (d0 &* d0) & V16(repeating: on[0])
            e = e &+ ((d1 &* d1) & V16(repeating: on[1]))
            e = e &+ ((d2 &* d2) & V16(repeating: on[2]))
            e = e &+ ((d3 &* d3) & V16(repeating: on[3]))
            let better = e.below(bestError)
            bestError = bestError.choosing(e, where: better)
            bestIndex = bestIndex.choosing(k, where: better)
        }
        if near {
            for step in Int32(-1)...1 {
                let k = neighbour(guess, step, top: topV)
                let w = weightValue(k, bits: mode.weightBits)
                let iw = 64 &- w
                consider(
                    k, ((l[0] &* iw &+ h[0] &* w &+ 32) &>> 6) &>> 8, ((l[1] &* iw &+ h[1] &* w &+ 32) &>> 6) &>> 8,
                    ((l[2] &* iw &+ h[2] &* w &+ 32) &>> 6) &>> 8, ((l[3] &* iw &+ h[3] &* w &+ 32) &>> 6) &>> 8)
            }
        } else {
            // One palette entry for every texel: computed once, per channel.
            for step in 0...top {
                let w = weightValue(V16(repeating: step), bits: mode.weightBits)[0]
                let p = ((l &* (64 &- w) &+ h &* w &+ 32) &>> 6) &>> 8
                consider(
                    V16(repeating: step), V16(repeating: p[0]), V16(repeating: p[1]), V16(repeating: p[2]),
                    V16(repeating: p[3]))
            }
        }
        part.weights = bestIndex & member
        part.error = (bestError & member).wrappedSum()
        return part
    }

    /// Each lane's weight index moved by `step`, kept within 0…top.
    @inline(__always) static func neighbour(_ k: V16, _ step: Int32, top: V16) -> V16 {
        var n = k &+ step
        n = n & ~(n &>> 31)
        return n.choosing(top, where: top.below(n))
    }

    /// ASTC's unquantized weight (0…64) of each lane's `bits`-bit weight index: the bits
    /// replicated to six, then one more above 32.
    @inline(__always) static func weightValue(_ k: V16, bits: Int) -> V16 {
        let six: V16 =
            switch bits {
            case 1: k &* 63
            case 2: k &<< 4 | k &<< 2 | k
            case 3: k &<< 3 | k
            case 4: k &<< 2 | k &>> 2
            default: k &<< 1 | k &>> 4
            }
        return six &+ ((V16(repeating: 32) &- six) &>> 31 & 1)
    }

    /// Ends minimising the squared error of the member texels for these weights, per channel;
    /// nil when every member has the same weight.
    static func leastSquares(
        _ f: Floats, _ channels: SIMD4<Int32>, _ member: V16, _ indices: V16, _ bits: Int
    ) -> (SIMD4<Float>, SIMD4<Float>)? {
        let m = F16.ones(member)
        var w = F16(weightValue(indices, bits: bits)) / 64
        let u = (1 - w) * m
        w *= m
        let (aa, ab, bb) = ((u * u).total, (u * w).total, (w * w).total)
        let det = aa * bb - ab * ab
        guard abs(det) > 1e-6 else { return nil }
        var e0 = SIMD4<Float>()
        var e1 = SIMD4<Float>()
        let d0 = SIMD4<Float>((u * f.0).total, (u * f.1).total, (u * f.2).total, (u * f.3).total)
        let d1 = SIMD4<Float>((w * f.0).total, (w * f.1).total, (w * f.2).total, (w * f.3).total)
        let on = SIMD4<Float>(channels)
        e0 = (bb * d0 - ab * d1) / det * on
        e1 = (aa * d1 - ab * d0) / det * on
        return (e0, e1)
    }
}
