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
            SIMD16<Float>(SIMD16<Int32>(truncatingIfNeeded: v))
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

        @inline(__always) init(_ e: Endpoint) {
            let m = ETC1S.modifiers[Int(e.inten)]
            let lo = SIMD4<Int32>(repeating: 0)
            let hi = SIMD4<Int32>(repeating: 255)
            func lane(_ c: UInt8) -> SIMD4<Float> {
                SIMD4<Float>((SIMD4(repeating: ETC1S.expand5(c)) &+ m).clamped(lowerBound: lo, upperBound: hi))
            }
            (r, g, b, self.m) = (lane(e.r), lane(e.g), lane(e.b), SIMD4<Float>(m))
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
            low = SIMD16<Float>(v & 1)
            high = SIMD16<Float>(v &>> 1)
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

    /// Every texel at its best selector under `p` (the first on ties): the block's error and the
    /// sum of the modifiers chosen.
    @inline(__always) static func best(_ x: Texels, _ p: Palette) -> (error: Float, shift: Float) {
        var least = p.distance(x, 0)
        var shift = SIMD16<Float>(repeating: p.m[0])
        for s in 1..<4 {
            let e = p.distance(x, s)
            let less = e .< least
            least.replace(with: e, where: less)
            shift.replace(with: p.m[s], where: less)
        }
        return (least.lanesSum, shift.lanesSum)
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
    /// lighter too.
    static func bestEndpoint(_ texels: UnsafePointer<UInt8>, blocks: [Int], selectors: [UInt32]) -> Endpoint {
        var sum = SIMD3<Double>()
        var squares: Double = 0
        var uses = SIMD4<Double>()
        var greys = SIMD4<Double>()
        for (k, b) in blocks.enumerated() {
            let x = Texels(texels + b * 48)
            let s = Selection(selectors[k])
            sum += x.sum
            squares += Double((x.r * x.r + x.g * x.g + x.b * x.b).lanesSum)
            let grey = x.grey
            let g1 = (grey * (s.low - s.both)).lanesSum
            let g2 = (grey * (s.high - s.both)).lanesSum
            let g3 = (grey * s.both).lanesSum
            greys += SIMD4(Double(grey.lanesSum - g1 - g2 - g3), Double(g1), Double(g2), Double(g3))
            let word = selectors[k]
            let low = word & 0x5555_5555
            let high = (word >> 1) & 0x5555_5555
            let n3 = (low & high).nonzeroBitCount
            let n2 = (~low & high).nonzeroBitCount
            let n1 = (low & ~high & 0x5555_5555).nonzeroBitCount
            uses += SIMD4(Double(16 - n1 - n2 - n3), Double(n1), Double(n2), Double(n3))
        }
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
        // The two best by the bound, and every table whose colours clamp (its bound too high).
        let clamps = { (e: Endpoint) -> Bool in
            let m = modifiers[Int(e.inten)]
            let c = e.color
            return c.min() + m[0] - 8 < 0 || c.max() + m[3] + 8 > 255
        }
        var best = estimates[0].endpoint
        var bestError = Float.infinity
        for (rank, (_, base)) in estimates.enumerated() where rank < 2 || clamps(base) {
            for d in [0, -1, 1] {
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
    /// neighbours one step darker and lighter are tried at the end.
    static func bestFit(_ blocks: some Collection<Texels>, tables: Int, iterations: Int) -> Fit {
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
            let fit = alternate(blocks, from: start, sum: sum, iterations: iterations)
            if fit.error < best.error { best = fit }
        }
        return neighbours(blocks, of: best)
    }

    /// A large cluster's fit: the table and base searched on a sample of `sample` blocks spread
    /// evenly through it, then refined on every block.
    static func bestFit(
        _ texels: UnsafePointer<UInt8>, members: [Int], tables: Int, iterations: Int, sample: Int
    ) -> Fit {
        let all = members.lazy.map { Texels(texels + $0 * 48) }
        guard members.count > sample else { return bestFit(all, tables: tables, iterations: iterations) }
        let chosen = (0..<sample).lazy.map { Texels(texels + members[$0 * members.count / sample] * 48) }
        let start = bestFit(chosen, tables: tables, iterations: iterations).endpoint
        var sum = SIMD3<Double>()
        for x in all { sum += x.sum }
        return neighbours(all, of: alternate(all, from: start, sum: sum, iterations: iterations))
    }

    /// The error of every texel at its best selector under `e`, and the least-squares base for
    /// those selectors (`sum` is the texels' sum).
    @inline(__always) static func total(_ blocks: some Collection<Texels>, _ e: Endpoint, sum: SIMD3<Double>) -> (
        error: Int64, target: SIMD3<Float>
    ) {
        let pal = Palette(e)
        var err: Int64 = 0
        var shift: Double = 0
        for x in blocks {
            let (blockError, blockShift) = best(x, pal)
            err &+= Int64(blockError)
            shift += Double(blockShift)
        }
        return (err, SIMD3<Float>((sum - SIMD3(repeating: shift)) / Double(blocks.count * 16)))
    }

    /// From `start`, up to `iterations` times: the least-squares base for the best selectors, kept
    /// while it lowers the error.
    static func alternate(_ blocks: some Collection<Texels>, from start: Endpoint, sum: SIMD3<Double>, iterations: Int)
        -> Fit
    {
        var e = start
        var (err, target) = total(blocks, e, sum: sum)
        for _ in 0..<iterations {
            let next = Endpoint(r: quantize5(target.x), g: quantize5(target.y), b: quantize5(target.z), inten: e.inten)
            if next == e { break }
            let (nextErr, nextTarget) = total(blocks, next, sum: sum)
            if nextErr >= err { break }
            (e, err, target) = (next, nextErr, nextTarget)
        }
        return Fit(endpoint: e, error: err)
    }

    /// `fit`, or its base one step darker or lighter on every channel if that is better.
    static func neighbours(_ blocks: some Collection<Texels>, of fit: Fit) -> Fit {
        var best = fit
        let base = fit.endpoint
        for d in [-1, 1] {
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
