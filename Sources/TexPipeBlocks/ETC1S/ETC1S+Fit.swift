internal import Foundation

/// ETC1S block fits: the endpoint and selectors that suit a block, or a cluster of blocks, best.
extension ETC1S {
    /// A block's own best fit.
    struct Fit {
        var endpoint = Endpoint(r: 0, g: 0, b: 0, inten: 0)
        var error = Int64.max
    }

    /// The 5-bit value whose expansion is nearest `v`.
    @inline(__always) static func quantize5(_ v: Float) -> UInt8 {
        let c = Int32((v * 31 / 255).rounded())
        var best = max(0, min(31, c))
        var bestError = abs(Float(expand5(UInt8(best))) - v)
        for d in [best - 1, best + 1] where d >= 0 && d <= 31 {
            let e = abs(Float(expand5(UInt8(d))) - v)
            if e < bestError {
                bestError = e
                best = d
            }
        }
        return UInt8(best)
    }

    /// A block's texels as floats, one vector a channel (`Slice`'s layout). Every error of one
    /// block is a sum of at most 16 × 3 × 255² and so exact in a Float.
    struct Texels {
        var r: SIMD16<Float>
        var g: SIMD16<Float>
        var b: SIMD16<Float>

        @inline(__always) init(_ block: UnsafePointer<UInt8>) {
            let raw = UnsafeRawPointer(block)
            r = Self.float(raw.loadUnaligned(as: SIMD16<UInt8>.self))
            g = Self.float(raw.loadUnaligned(fromByteOffset: 16, as: SIMD16<UInt8>.self))
            b = Self.float(raw.loadUnaligned(fromByteOffset: 32, as: SIMD16<UInt8>.self))
        }

        @inline(__always) static func float(_ v: SIMD16<UInt8>) -> SIMD16<Float> {
            SIMD16<Float>(bytes: v)
        }

        /// Each channel's sum.
        var sum: SIMD3<Double> { SIMD3(Double(r.lanesSum), Double(g.lanesSum), Double(b.lanesSum)) }
        /// Each texel's r + g + b.
        var grey: SIMD16<Float> { r + g + b }
    }

    /// The four colours an endpoint decodes to, one lane per selector, channel by channel, and its
    /// table's modifiers.
    struct Palette {
        var r: SIMD4<Float>
        var g: SIMD4<Float>
        var b: SIMD4<Float>
        var m: SIMD4<Float>
        /// The base colour expanded to 8 bits, and whether any entry clamps (a base plus a modifier
        /// outside 0…255 in some channel).
        var base: SIMD3<Float>
        var clamps: Bool

        @inline(__always) init(_ e: Endpoint) {
            let m = ETC1S.modifiers[Int(e.inten)]
            let lo = SIMD4<Int32>(repeating: 0)
            let hi = SIMD4<Int32>(repeating: 255)
            func lane(_ c: UInt8) -> SIMD4<Float> {
                SIMD4<Float>((SIMD4(repeating: ETC1S.expand5(c)) &+ m).clamped(lowerBound: lo, upperBound: hi))
            }
            (r, g, b, self.m) = (lane(e.r), lane(e.g), lane(e.b), SIMD4<Float>(m))
            let c = e.color
            base = SIMD3<Float>(c)
            clamps = c.min() + m[0] < 0 || c.max() + m[3] > 255
        }

        /// Every texel's squared error under selector `s`.
        @inline(__always) func distance(_ x: Texels, _ s: Int) -> SIMD16<Float> {
            let dr = x.r - r[s]
            let dg = x.g - g[s]
            let db = x.b - b[s]
            return dr * dr + dg * dg + db * db
        }
    }

    /// A selector codeword unpacked: each texel's selector's low and high bit, and both, as 0 or 1
    /// (arithmetic rather than lane masks, which the compiler leaves lane by lane).
    struct Selection {
        var low: SIMD16<Float>
        var high: SIMD16<Float>
        var both: SIMD16<Float>

        /// Texel i's selector in lane i.
        @inline(__always) static func lanes(_ word: UInt32) -> SIMD16<Int32> {
            let shifts = SIMD16<Int32>(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30)
            return (SIMD16(repeating: Int32(bitPattern: word)) &>> shifts) & 3
        }

        @inline(__always) init(_ word: UInt32) {
            let v = Self.lanes(word)
            low = SIMD16<Float>(small: v & 1)
            high = SIMD16<Float>(small: v &>> 1)
            both = low * high
        }

        /// Each texel's value of `palette` (one channel's four colours): exact, as every term is an
        /// integer below 2²⁴.
        @inline(__always) func pick(_ p: SIMD4<Float>) -> SIMD16<Float> {
            let d1: Float = p[1] - p[0]
            let d2: Float = p[2] - p[0]
            let d3: Float = p[3] - p[2] - d1
            let v: SIMD16<Float> = low * d1 + high * d2
            return v + both * d3 + p[0]
        }
    }

    /// Every texel at its best selector under `p` (the first on ties): each texel's error and the
    /// modifier chosen.
    @inline(__always) static func best(_ x: Texels, _ p: Palette) -> (error: SIMD16<Float>, shift: SIMD16<Float>) {
        var least = p.distance(x, 0)
        var shift = SIMD16<Float>(repeating: p.m[0])
        for s in 1..<4 {
            let e = p.distance(x, s)
            let less = e .< least
            least.replace(with: e, where: less)
            shift.replace(with: p.m[s], where: less)
        }
        return (least, shift)
    }

    /// For a palette that clamps, with each texel's chosen modifier (`best`): per channel, over the
    /// texels whose entry clamps in that channel, the sum of their values, of their modifiers, and
    /// their count. A base colour moved a little leaves those texels at 0 or 255, so a
    /// least-squares base leaves them out.
    @inline(__always) static func clamped(_ x: Texels, _ shift: SIMD16<Float>, _ p: Palette) -> (
        values: SIMD3<Float>, modifiers: SIMD3<Float>, count: SIMD3<Float>
    ) {
        @inline(__always) func cut(_ v: SIMD16<Float>, _ base: Float) -> (Float, Float, Float) {
            let u = shift + base
            let cut = SIMD16<Float>(repeating: 0).replacing(with: 1, where: (u .< 0) .| (u .> 255))
            return ((v * cut).lanesSum, (shift * cut).lanesSum, cut.lanesSum)
        }
        let (r, g, b) = (cut(x.r, p.base.x), cut(x.g, p.base.y), cut(x.b, p.base.z))
        return (SIMD3(r.0, g.0, b.0), SIMD3(r.1, g.1, b.1), SIMD3(r.2, g.2, b.2))
    }

    /// A block's best selectors under `p` (the first on ties), texel i at bits 2i…2i+1.
    @inline(__always) static func selectors(_ x: Texels, _ p: Palette) -> UInt32 {
        var least = p.distance(x, 0)
        var selector = SIMD16<Int32>()
        for s in 1..<4 {
            let e = p.distance(x, s)
            let less = e .< least
            least.replace(with: e, where: less)
            selector.replace(with: Int32(s), where: less)
        }
        let shifts = SIMD16<Int32>(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30)
        return UInt32(bitPattern: (selector &<< shifts).wrappedSum())
    }

    /// One block's squared error under each of a palette's four entries, per texel, folded so that
    /// a selection's error is three products and a sum: d₀ + low·(d₁ − d₀) + high·(d₂ − d₀) +
    /// both·(d₃ − d₂ − d₁ + d₀). For the passes that try many selections against one palette
    /// (each is `error`'s value exactly: every term is an integer below 2²⁴).
    struct Costs {
        var d0: SIMD16<Float>
        var e1: SIMD16<Float>
        var e2: SIMD16<Float>
        var e3: SIMD16<Float>

        @inline(__always) init(_ x: Texels, _ p: Palette) {
            d0 = p.distance(x, 0)
            e1 = p.distance(x, 1) - d0
            let d2 = p.distance(x, 2)
            e2 = d2 - d0
            e3 = p.distance(x, 3) - d2 - e1
        }

        @inline(__always) func error(_ s: Selection) -> Float {
            let v: SIMD16<Float> = d0 + s.low * e1
            return (v + s.high * e2 + s.both * e3).lanesSum
        }
    }

    /// One block's texels summed by the selector one selection gives them, for the passes that try
    /// many palettes against it: with nₛ texels at selector s whose channel c sums to Sₛ꜀, a
    /// palette's error is Σ|x|² + Σ꜀ Σₛ pₛ꜀ (pₛ꜀ nₛ − 2 Sₛ꜀), four lanes a channel. `error`'s value
    /// exactly: every term and partial sum is an integer below 2²⁴ in magnitude.
    struct Moments {
        var squares: Float
        var r: SIMD4<Float>
        var g: SIMD4<Float>
        var b: SIMD4<Float>
        var n: SIMD4<Float>

        @inline(__always) init(_ x: Texels, _ s: Selection) {
            let (m1, m2, m3) = (s.low - s.both, s.high - s.both, s.both)
            @inline(__always) func sums(_ v: SIMD16<Float>) -> SIMD4<Float> {
                let (a, b, c) = ((v * m1).lanesSum, (v * m2).lanesSum, (v * m3).lanesSum)
                return SIMD4(v.lanesSum - a - b - c, a, b, c)
            }
            (r, g, b) = (sums(x.r), sums(x.g), sums(x.b))
            let (a, c, d) = (m1.lanesSum, m2.lanesSum, m3.lanesSum)
            n = SIMD4(16 - a - c - d, a, c, d)
            squares = (x.r * x.r + x.g * x.g + x.b * x.b).lanesSum
        }

        @inline(__always) func error(_ p: Palette) -> Float {
            var terms: SIMD4<Float> = p.r * (p.r * n - 2 * r)
            terms += p.g * (p.g * n - 2 * g)
            terms += p.b * (p.b * n - 2 * b)
            return squares + terms.sum()
        }
    }

    /// A block's squared error decoded with `p` and `s`.
    @inline(__always) static func error(_ x: Texels, _ p: Palette, _ s: Selection) -> Float {
        let dr = x.r - s.pick(p.r)
        let dg = x.g - s.pick(p.g)
        let db = x.b - s.pick(p.b)
        return (dr * dr + dg * dg + db * db).lanesSum
    }

    /// The endpoint that minimises the error of `blocks`' texels at the given selectors (one per
    /// block). Without clamping, the error of a base colour c and table m is a quadratic in c from
    /// the texels' moments: Σ|p|² − 2c·Σp − 2Σₛ mₛGₛ + N|c|² + 2(c·1)Σₛ mₛnₛ + 3Σₛ mₛ²nₛ, with nₛ
    /// texels at selector s whose r + g + b sum to Gₛ; per channel its minimum is the expansion
    /// nearest the least-squares base. Clamping to 0…255 only lowers a texel's error, so the two
    /// tables best by that bound are then measured exactly, each with its base one step darker and
    /// lighter too, and every table whose colours clamp also with its base fitted to the texels
    /// that do not (`clampFitted`).
    static func bestEndpoint(_ texels: UnsafePointer<UInt8>, blocks: [Int], selectors: [UInt32]) -> Endpoint {
        var sum = SIMD3<Double>()
        var squares: Double = 0
        var uses = SIMD4<Double>()
        var channels = (r: SIMD4<Double>(), g: SIMD4<Double>(), b: SIMD4<Double>())
        typealias F = SIMD16<Float>
        var parts = (r1: F(), r2: F(), r3: F(), g1: F(), g2: F(), g3: F(), b1: F(), b2: F(), b3: F())
        func flush() {
            @inline(__always) func d(_ v: F) -> Double { Double(v.lanesSum) }
            channels.r += SIMD4(0, d(parts.r1), d(parts.r2), d(parts.r3))
            channels.g += SIMD4(0, d(parts.g1), d(parts.g2), d(parts.g3))
            channels.b += SIMD4(0, d(parts.b1), d(parts.b2), d(parts.b3))
            parts = (F(), F(), F(), F(), F(), F(), F(), F(), F())
        }
        for (k, b) in blocks.enumerated() {
            let x = Texels(texels + b * 48)
            let s = Selection(selectors[k])
            sum += x.sum
            squares += Double((x.r * x.r + x.g * x.g + x.b * x.b).lanesSum)
            // Each channel's texels summed by selector 1, 2 and 3 in lanes (selector 0's from the
            // totals), exact in Floats for 256 blocks, then carried in Doubles.
            let (s1, s2) = (s.low - s.both, s.high - s.both)
            parts.r1 += x.r * s1
            parts.r2 += x.r * s2
            parts.r3 += x.r * s.both
            parts.g1 += x.g * s1
            parts.g2 += x.g * s2
            parts.g3 += x.g * s.both
            parts.b1 += x.b * s1
            parts.b2 += x.b * s2
            parts.b3 += x.b * s.both
            if k % 256 == 255 || k == blocks.count - 1 { flush() }
            let word = selectors[k]
            let low = word & 0x5555_5555
            let high = (word >> 1) & 0x5555_5555
            let n3 = (low & high).nonzeroBitCount
            let n2 = (~low & high).nonzeroBitCount
            let n1 = (low & ~high & 0x5555_5555).nonzeroBitCount
            uses += SIMD4(Double(16 - n1 - n2 - n3), Double(n1), Double(n2), Double(n3))
        }
        // Selector 0's share of each channel: the rest of the channel's total.
        channels.r[0] = sum.x - channels.r[1] - channels.r[2] - channels.r[3]
        channels.g[0] = sum.y - channels.g[1] - channels.g[2] - channels.g[3]
        channels.b[0] = sum.z - channels.b[1] - channels.b[2] - channels.b[3]
        // Gₛ: r + g + b of the texels at each selector (whole numbers: exact in Doubles).
        let greys = channels.r + channels.g + channels.b
        let count = Double(blocks.count * 16)
        var estimates: [(error: Double, endpoint: Endpoint)] = []
        for table in 0..<8 {
            let m = SIMD4<Double>(modifiers[table])
            let shift = (uses * m).sum()
            let target = SIMD3<Float>((sum - SIMD3(repeating: shift)) / count)
            let e = Endpoint(
                r: quantize5(target.x), g: quantize5(target.y), b: quantize5(target.z), inten: UInt8(table))
            let c = SIMD3<Double>(e.color)
            let bound =
                squares - 2 * (c * sum).sum() - 2 * (m * greys).sum() + count * (c * c).sum() + 2 * c.sum() * shift
                + 3 * (m * m * uses).sum()
            estimates.append((bound, e))
        }
        estimates.sort { $0.error < $1.error || ($0.error == $1.error && $0.endpoint.inten < $1.endpoint.inten) }
        // The two best by the bound, and every table whose colours clamp or come within 8 of it (its
        // bound too high; not `Palette.clamps`, which is exact).
        let nearClamping = { (e: Endpoint) -> Bool in
            let m = modifiers[Int(e.inten)]
            let c = e.color
            return c.min() + m[0] - 8 < 0 || c.max() + m[3] + 8 > 255
        }
        var best = estimates[0].endpoint
        var bestError = Float.infinity
        var candidates: [(Endpoint, ClosedRange<Int>)] = []
        for (rank, (_, base)) in estimates.enumerated() where rank < 2 || nearClamping(base) {
            candidates.append((base, -1...1))
            // The same table with the texels whose entries clamp left out of the least squares: a
            // base that leaves them at 0 or 255 (a sprite's colour beside its black background).
            if nearClamping(base), let refit = clampFitted(base, channels, uses) { candidates.append((refit, 0...0)) }
        }
        for (base, steps) in candidates {
            for d in steps {
                let r = Int(base.r) + d
                let g = Int(base.g) + d
                let bl = Int(base.b) + d
                guard (0...31).contains(r), (0...31).contains(g), (0...31).contains(bl) else { continue }
                let e = Endpoint(r: UInt8(r), g: UInt8(g), b: UInt8(bl), inten: base.inten)
                let pal = Palette(e)
                var err: Float = 0
                for (k, b) in blocks.enumerated() {
                    err += error(Texels(texels + b * 48), pal, Selection(selectors[k]))
                    if err >= bestError { break }
                }
                if err < bestError { (best, bestError) = (e, err) }
            }
        }
        return best
    }

    /// For each table: from the texels' mean, alternate the best selectors and the least-squares
    /// base colour (the mean of texel − modifier), quantised to 5 bits; the base and its
    /// neighbours one step darker and lighter are tried at the end. With `clamp` (a cluster's fit),
    /// the least squares of a palette that clamps leaves out, per channel, the texels whose entry
    /// clamps (`total`); a block's own fit, which places it for the clustering, keeps the plain one.
    static func bestFit(_ blocks: some Collection<Texels>, tables: Int, iterations: Int, clamp: Bool = false) -> Fit {
        var sum = SIMD3<Double>()
        var lowest = Float.infinity
        var highest = -Float.infinity
        for x in blocks {
            sum += x.sum
            let grey = x.grey
            lowest = min(lowest, grey.min())
            highest = max(highest, grey.max())
        }
        let count = Double(blocks.count * 16)
        let mean = SIMD3<Float>(sum / count)
        // The tables whose ±b is nearest the texels' largest distance from their mean (in grey).
        let grey = (mean.x + mean.y + mean.z) / 3
        let spread = max(highest / 3 - grey, grey - lowest / 3)
        var order = SIMD8<Int32>(0, 1, 2, 3, 4, 5, 6, 7)
        var distance = SIMD8<Float>()
        for k in 0..<8 { distance[k] = abs(Float(modifiers[k][3]) - spread) }
        // Insertion sort of eight by distance, ties to the smaller table.
        for i in 1..<8 {
            var j = i
            while j > 0 && distance[j] < distance[j - 1] {
                (distance[j], distance[j - 1]) = (distance[j - 1], distance[j])
                (order[j], order[j - 1]) = (order[j - 1], order[j])
                j -= 1
            }
        }
        var best = Fit()
        for k in 0..<tables {
            let start = Endpoint(
                r: quantize5(mean.x), g: quantize5(mean.y), b: quantize5(mean.z), inten: UInt8(order[k]))
            let fit = alternate(blocks, from: start, sum: sum, iterations: iterations, clamp: clamp)
            if fit.error < best.error { best = fit }
        }
        return neighbours(blocks, of: best)
    }

    /// A large cluster's fit: the table and base searched on a sample of `sample` blocks spread
    /// evenly through it, then refined on every block.
    static func bestFit(
        _ texels: UnsafePointer<UInt8>, members: [Int], tables: Int, iterations: Int, sample: Int, clamp: Bool = false
    ) -> Fit {
        let all = members.lazy.map { Texels(texels + $0 * 48) }
        guard members.count > sample else { return bestFit(all, tables: tables, iterations: iterations, clamp: clamp) }
        let chosen = (0..<sample).lazy.map { Texels(texels + members[$0 * members.count / sample] * 48) }
        let start = bestFit(chosen, tables: tables, iterations: iterations, clamp: clamp).endpoint
        var sum = SIMD3<Double>()
        for x in all { sum += x.sum }
        return neighbours(all, of: alternate(all, from: start, sum: sum, iterations: iterations, clamp: clamp))
    }

    /// The error of every texel at its best selector under `e`, and the least-squares base for
    /// those selectors (`sum` is the texels' sum); with `clamp`, per channel over the texels whose
    /// entry does not clamp.
    @inline(__always) static func total(
        _ blocks: some Collection<Texels>, _ e: Endpoint, sum: SIMD3<Double>, clamp: Bool = false
    ) -> (
        error: Int64, target: SIMD3<Float>
    ) {
        let pal = Palette(e)
        var err: Int64 = 0
        var shift: Double = 0
        var cut = (values: SIMD3<Double>(), modifiers: SIMD3<Double>(), count: SIMD3<Double>())
        for x in blocks {
            let (blockError, blockShift) = best(x, pal)
            err &+= Int64(blockError.lanesSum)
            shift += Double(blockShift.lanesSum)
            if pal.clamps && clamp {
                let c = clamped(x, blockShift, pal)
                cut.values += SIMD3<Double>(c.values)
                cut.modifiers += SIMD3<Double>(c.modifiers)
                cut.count += SIMD3<Double>(c.count)
            }
        }
        let n = Double(blocks.count * 16)
        if cut.count == SIMD3() { return (err, SIMD3<Float>((sum - SIMD3(repeating: shift)) / n)) }
        // Per channel, the least-squares base of the texels that do not clamp (the current base
        // where every texel clamps).
        var target = pal.base
        for c in 0..<3 where cut.count[c] < n {
            target[c] = Float((sum[c] - cut.values[c] - (shift - cut.modifiers[c])) / (n - cut.count[c]))
        }
        return (err, target)
    }

    /// From `start`, up to `iterations` times: the least-squares base for the best selectors, kept
    /// while it lowers the error.
    static func alternate(
        _ blocks: some Collection<Texels>, from start: Endpoint, sum: SIMD3<Double>, iterations: Int, clamp: Bool
    )
        -> Fit
    {
        var e = start
        var (err, target) = total(blocks, e, sum: sum, clamp: clamp)
        for _ in 0..<iterations {
            let next = Endpoint(r: quantize5(target.x), g: quantize5(target.y), b: quantize5(target.z), inten: e.inten)
            if next == e { break }
            let (nextErr, nextTarget) = total(blocks, next, sum: sum, clamp: clamp)
            if nextErr >= err { break }
            (e, err, target) = (next, nextErr, nextTarget)
        }
        return Fit(endpoint: e, error: err)
    }

    /// `fit`, or its base one step darker or lighter on every channel if that is better.
    static func neighbours(_ blocks: some Collection<Texels>, of fit: Fit) -> Fit {
        var best = fit
        let base = fit.endpoint
        for d in stride(from: -1, through: 1, by: 2) {
            let r = Int(base.r) + d
            let g = Int(base.g) + d
            let b = Int(base.b) + d
            guard (0...31).contains(r), (0...31).contains(g), (0...31).contains(b) else { continue }
            let e = Endpoint(r: UInt8(r), g: UInt8(g), b: UInt8(b), inten: base.inten)
            let err = total(blocks, e, sum: SIMD3()).error
            if err < best.error { best = Fit(endpoint: e, error: err) }
        }
        return best
    }

    /// `base`'s table with, per channel, the least-squares base of the texels whose entry under
    /// `base` does not clamp, from each selector's texel sums per channel (`channels`) and count
    /// (`uses`): a selector's entry clamps or not for all its texels alike. Nil if it is `base`.
    static func clampFitted(
        _ base: Endpoint, _ channels: (r: SIMD4<Double>, g: SIMD4<Double>, b: SIMD4<Double>), _ uses: SIMD4<Double>
    ) -> Endpoint? {
        let m = SIMD4<Double>(modifiers[Int(base.inten)])
        let c = SIMD3<Double>(base.color)
        var target = c
        @inline(__always) func fit(_ sums: SIMD4<Double>, _ ch: Int) {
            let u = m + c[ch]
            let keep = SIMD4<Double>(repeating: 1).replacing(with: 0, where: (u .< 0) .| (u .> 255))
            let n = (keep * uses).sum()
            if n > 0 { target[ch] = (keep * (sums - uses * m)).sum() / n }
        }
        fit(channels.r, 0)
        fit(channels.g, 1)
        fit(channels.b, 2)
        let t = SIMD3<Float>(target)
        let e = Endpoint(r: quantize5(t.x), g: quantize5(t.y), b: quantize5(t.z), inten: base.inten)
        return e == base ? nil : e
    }

    /// The selector codeword that minimises the error of `blocks`, each under its own endpoint's
    /// palette: per texel, the selector with the least error summed over the blocks (the first on
    /// ties).
    static func bestSelector(
        _ texels: UnsafePointer<UInt8>, blocks: [Int], _ palettes: [Palette], _ blockEndpoint: [UInt16]
    ) -> UInt32 {
        // Float sums exact for 64 blocks, then carried in Doubles: a cluster may hold every block.
        var sums = [Double](repeating: 0, count: 64)
        var part = (SIMD16<Float>(), SIMD16<Float>(), SIMD16<Float>(), SIMD16<Float>())
        func flush() {
            for t in 0..<16 {
                sums[t] += Double(part.0[t])
                sums[16 + t] += Double(part.1[t])
                sums[32 + t] += Double(part.2[t])
                sums[48 + t] += Double(part.3[t])
            }
            part = (SIMD16(), SIMD16(), SIMD16(), SIMD16())
        }
        for (k, b) in blocks.enumerated() {
            let x = Texels(texels + b * 48)
            let pal = palettes[Int(blockEndpoint[b])]
            part.0 += pal.distance(x, 0)
            part.1 += pal.distance(x, 1)
            part.2 += pal.distance(x, 2)
            part.3 += pal.distance(x, 3)
            if k % 64 == 63 { flush() }
        }
        flush()
        var out: UInt32 = 0
        for t in 0..<16 {
            var s = 0
            for k in 1..<4 where sums[16 * k + t] < sums[16 * s + t] { s = k }
            out |= UInt32(s) << (2 * UInt32(t))
        }
        return out
    }
}
