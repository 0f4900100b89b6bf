extension BC7 {
    /// A block's texels, channel by channel, as integers and as floats.
    struct Block {
        var x: (V16, V16, V16, V16)
        var f: (F16, F16, F16, F16)
        /// Each channel's weight in the error: alpha counts `alphaWeight`, wherever a rotation puts it.
        var weights = SIMD4<Float>(1, 1, 1, BC7.alphaWeight)

        init(_ r: V16, _ g: V16, _ b: V16, _ a: V16) {
            x = (r, g, b, a)
            f = (BC7.float(r), BC7.float(g), BC7.float(b), BC7.float(a))
        }

        /// Whether every texel's alpha is 255.
        var opaque: Bool {
            let alphas = unsafeBitCast(x.3, to: (SIMD4<Int32>, SIMD4<Int32>, SIMD4<Int32>, SIMD4<Int32>).self)
            let all = alphas.0 & alphas.1 & alphas.2 & alphas.3
            return all[0] & all[1] & all[2] & all[3] == 255
        }

        @inline(__always) func int(_ c: Int) -> V16 { c == 0 ? x.0 : c == 1 ? x.1 : c == 2 ? x.2 : x.3 }
        @inline(__always) func float(_ c: Int) -> F16 { c == 0 ? f.0 : c == 1 ? f.1 : c == 2 ? f.2 : f.3 }

        /// The block with alpha and channel `rotation − 1` swapped (modes 4 and 5).
        func rotated(_ rotation: Int) -> Block {
            if rotation == 0 { return self }
            var b =
                switch rotation {
                case 1: Block(x.3, x.1, x.2, x.0)
                case 2: Block(x.0, x.3, x.2, x.1)
                default: Block(x.0, x.1, x.3, x.2)
                }
            b.weights = weights
            (b.weights[rotation - 1], b.weights[3]) = (weights[3], weights[rotation - 1])
            return b
        }
    }

    /// How endpoints are stored: bits per channel before any p-bit, and the kind of p-bit.
    struct Quantizer {
        let bits: Int
        let endpointP: Bool
        let sharedP: Bool
        /// Every p-bit 1 (an opaque block's mode 6: alpha 255 needs them).
        var onlyP1 = false
        var total: Int { bits + (endpointP || sharedP ? 1 : 0) }
    }

    /// Unquantized endpoints of up to three subsets (lanes: the fitted channels).
    struct Ends {
        var a = (SIMD4<Float>(), SIMD4<Float>(), SIMD4<Float>())
        var b = (SIMD4<Float>(), SIMD4<Float>(), SIMD4<Float>())
        /// Subsets of one color (bit s), stored as `SolidTable` gives them: quantized ends and p-bits.
        var solid = 0
        var solidEnds = (Solid(), Solid(), Solid())
        @inline(__always) func solidEnd(_ s: Int) -> Solid {
            s == 0 ? solidEnds.0 : s == 1 ? solidEnds.1 : solidEnds.2
        }
        @inline(__always) mutating func set(_ s: Int, _ x: SIMD4<Float>, _ y: SIMD4<Float>) {
            switch s {
            case 0: (a.0, b.0) = (x, y)
            case 1: (a.1, b.1) = (x, y)
            default: (a.2, b.2) = (x, y)
            }
        }
        @inline(__always) func get(_ s: Int) -> (SIMD4<Float>, SIMD4<Float>) {
            s == 0 ? (a.0, b.0) : s == 1 ? (a.1, b.1) : (a.2, b.2)
        }
    }

    /// A one-color subset's stored ends.
    struct Solid {
        var q0 = SIMD4<Int32>()
        var q1 = SIMD4<Int32>()
        var p0: Int32 = 0
        var p1: Int32 = 0
    }

    /// For one way of storing endpoints and one index size: for each p-bit choice, index k and
    /// 8-bit value v, the stored pair whose palette entry k decodes nearest v (exactly where any
    /// pair does), closest ends first. A subset of one color takes, across its channels, the p-bits
    /// and index whose summed error is least: BC7's modes hold most single colors exactly this way
    /// and few of them as a line's ends.
    struct SolidTable {
        let pairs: [(Int32, Int32)]
        let steps: Int
        /// (pair · steps + k) · 256 + v → x0 | x1 << 8 | squared error << 16.
        let entries: [Int32]

        init(_ q: Quantizer, indexBits: Int) {
            let hasP = q.endpointP || q.sharedP
            pairs = q.endpointP ? [(0, 0), (0, 1), (1, 0), (1, 1)] : q.sharedP ? [(0, 0), (1, 1)] : [(0, 0)]
            steps = 1 << indexBits
            let n = q.total
            let top = Int32(1 << q.bits)
            let weights = BC7.weights[indexBits - 2]
            var entries = [Int32](repeating: 0, count: pairs.count * steps * 256)
            // Every end's decoded value, expanded once (a table per p-bit).
            let expanded: [[Int32]] = (0..<2).map { p in
                (0..<top).map { x in BC7.expand(hasP ? x << 1 | Int32(p) : x, n) }
            }
            var found = [Int32](repeating: -1, count: 256)
            for (pi, (p0, p1)) in pairs.enumerated() {
                for k in 0..<steps {
                    let w = weights[k]
                    for v in 0..<256 { found[v] = -1 }
                    // Pairs by distance |x0 − x1|, then x0, then x1: the first pair to give a value
                    // is the closest (lowest first on a tie), and the search ends once every value
                    // has one (a few distances, where the ends are fine enough for every value).
                    var missing = 256
                    expanded[Int(p0)].withUnsafeBufferPointer { ends0 in
                        expanded[Int(p1)].withUnsafeBufferPointer { ends1 in
                            found.withUnsafeMutableBufferPointer { found in
                                @inline(__always) func take(_ x0: Int, _ x1: Int) {
                                    let e0 = ends0[x0]
                                    let v = Int(e0 + ((w * (ends1[x1] - e0) + 32) >> 6))
                                    if found[v] < 0 {
                                        found[v] = Int32(x0 | x1 << 8)
                                        missing -= 1
                                    }
                                }
                                var d = 0
                                while d < Int(top) && missing > 0 {
                                    for x0 in 0..<Int(top) {
                                        if x0 >= d { take(x0, x0 - d) }
                                        if d > 0 && x0 + d < Int(top) { take(x0, x0 + d) }
                                    }
                                    d += 1
                                }
                            }
                        }
                    }
                    // Values no pair gives take the nearest that one does (below first on a tie).
                    var below = [Int](repeating: -1, count: 256)
                    var last = -1
                    for v in 0..<256 {
                        if found[v] >= 0 { last = v }
                        below[v] = last
                    }
                    var above = -1
                    for v in (0..<256).reversed() {
                        if found[v] >= 0 { above = v }
                        let b = below[v]
                        let u = b < 0 ? above : above < 0 || v - b <= above - v ? b : above
                        entries[(pi * steps + k) * 256 + v] = found[u] | Int32((u - v) * (u - v)) << 16
                    }
                }
            }
            self.entries = entries
        }

        /// The stored ends for one color (channels `0 ..< count` of `color`).
        func ends(for color: SIMD4<Float>, count: Int) -> Solid {
            var v = SIMD4<Int>()
            for c in 0..<count { v[c] = Int(color[c] + 0.5) }
            var best = (Int32.max, 0, 0)
            for pi in 0..<pairs.count {
                for k in 0..<steps {
                    var e: Int32 = 0
                    for c in 0..<count { e += entries[(pi * steps + k) * 256 + v[c]] >> 16 }
                    if e < best.0 { best = (e, pi, k) }
                }
            }
            var solid = Solid(p0: pairs[best.1].0, p1: pairs[best.1].1)
            for c in 0..<count {
                let x = entries[(best.1 * steps + best.2) * 256 + v[c]]
                solid.q0[c] = x & 255
                solid.q1[c] = (x >> 8) & 255
            }
            return solid
        }
    }

    @inline(__always) static func solidKey(_ q: Quantizer, _ indexBits: Int) -> Int {
        q.bits * 100 + (q.endpointP ? 10 : q.sharedP ? 20 : 0) + indexBits
    }

    /// Every endpoint storage and index size the modes use, by `solidKey`, built once per process
    /// (immutable: blocks on every core read it without a lock). Mode 6's is left out: its one
    /// subset is the whole block, and a block of one color is `solid`'s — that table alone was
    /// two thirds of the building.
    static let solidTables: [Int: SolidTable] = {
        var tables: [Int: SolidTable] = [:]
        for m in modes where !(m.subsets == 1 && m.index2Bits == 0) {
            let color = Quantizer(bits: m.colorBits, endpointP: m.endpointP, sharedP: m.sharedP)
            let alpha = Quantizer(bits: m.alphaBits, endpointP: false, sharedP: false)
            var uses = [(color, m.indexBits)]
            if m.index2Bits > 0 { uses += [(color, m.index2Bits), (alpha, m.indexBits), (alpha, m.index2Bits)] }
            for (q, bits) in uses where tables[solidKey(q, bits)] == nil {
                tables[solidKey(q, bits)] = SolidTable(q, indexBits: bits)
            }
        }
        return tables
    }()

    /// The one-color table of one endpoint storage and index size (one not in `solidTables` is
    /// built for the call).
    static func solidTable(_ q: Quantizer, _ indexBits: Int) -> SolidTable {
        solidTables[solidKey(q, indexBits)] ?? SolidTable(q, indexBits: indexBits)
    }

    /// One index set's result: each subset's quantized ends (before p-bits; lanes: the fitted
    /// channels), p-bits (lane s * 2 + e), indices and the weighted squared error over the fitted
    /// channels.
    struct Lines {
        var q0 = (SIMD4<Int32>(), SIMD4<Int32>(), SIMD4<Int32>())
        var q1 = (SIMD4<Int32>(), SIMD4<Int32>(), SIMD4<Int32>())

        /// Endpoint `e` (0 or 1) of subset `s`.
        func end(_ e: Int, _ s: Int) -> SIMD4<Int32> {
            let q = e == 0 ? q0 : q1
            return s == 0 ? q.0 : s == 1 ? q.1 : q.2
        }

        mutating func swapEnds(_ s: Int) {
            switch s {
            case 0: (q0.0, q1.0) = (q1.0, q0.0)
            case 1: (q0.1, q1.1) = (q1.1, q0.1)
            default: (q0.2, q1.2) = (q1.2, q0.2)
            }
            // Lanes 2s and 2s + 1 exchanged as a whole vector (not lane by lane, which stalls).
            let swapped = SIMD8(p[1], p[0], p[3], p[2], p[5], p[4], p[7], p[6])
            let mask = ((SIMD8<Int32>(0, 0, 1, 1, 2, 2, 3, 3) ^ SIMD8(repeating: Int32(s))) &- 1) &>> 31
            p = (p & ~mask) | (swapped & mask)
        }
        var p = SIMD8<Int32>()
        var indices = V16()
        var error = Int32.max
    }

    /// Fits one index set: for each of `subsets` subsets (the texels whose lane in `lanes` is the
    /// subset), a line through channels `first ..< first + count` along their principal axis, then
    /// `refine` rounds of least squares on the indices while the error falls.
    static func fit(
        _ block: Block, first: Int, count: Int, subsets: Int, lanes: V16, quantizer: Quantizer,
        indexBits: Int, refine: Int, exhaustive: Bool = false, start: Ends? = nil
    ) -> Lines {
        var ends = start ?? lines(block, first: first, count: count, subsets: subsets, lanes: lanes)
        for s in 0..<subsets where ends.solid & (1 << s) != 0 {
            let solid = solidTable(quantizer, indexBits).ends(for: ends.get(s).0, count: count)
            switch s {
            case 0: ends.solidEnds.0 = solid
            case 1: ends.solidEnds.1 = solid
            default: ends.solidEnds.2 = solid
            }
        }
        var best = Lines()
        evaluate(
            block, first: first, count: count, subsets: subsets, lanes: lanes, ends: ends,
            quantizer: quantizer, indexBits: indexBits, exhaustive: exhaustive, into: &best)
        if exhaustive && best.error > 0 {
            // Also the texels at the ends of each projection: exact where they are a mode's ends.
            var extremes = ends
            for s in 0..<subsets where ends.solid & (1 << s) == 0 {
                let (a, b) = principalLine(
                    block, first: first, count: count, member: lanes.equals(Int32(s)), extremes: true)
                extremes.set(s, a, b)
            }
            let before = best.error
            evaluate(
                block, first: first, count: count, subsets: subsets, lanes: lanes, ends: extremes,
                quantizer: quantizer, indexBits: indexBits, exhaustive: exhaustive, into: &best)
            if best.error < before { ends = extremes }
        }
        for _ in 0..<refine {
            if best.error == 0 { break }
            var next = Ends()
            for s in 0..<subsets {
                let fitted = leastSquares(
                    block, first: first, count: count, member: lanes.equals(Int32(s)), indices: best.indices,
                    indexBits: indexBits)
                let (a, b) = fitted ?? ends.get(s)
                next.set(s, a, b)
            }
            (next.solid, next.solidEnds) = (ends.solid, ends.solidEnds)
            let before = best.error
            evaluate(
                block, first: first, count: count, subsets: subsets, lanes: lanes, ends: next,
                quantizer: quantizer, indexBits: indexBits, exhaustive: exhaustive, into: &best)
            if best.error >= before { break }
            ends = next
        }
        return best
    }

    /// Each subset's principal line (a subset of one color marked `solid`): shared by the modes
    /// that fit the same subsets with different bits.
    static func lines(_ block: Block, first: Int, count: Int, subsets: Int, lanes: V16) -> Ends {
        var ends = Ends()
        for s in 0..<subsets {
            let (a, b) = principalLine(block, first: first, count: count, member: lanes.equals(Int32(s)))
            ends.set(s, a, b)
            if a == b { ends.solid |= 1 << s }
        }
        return ends
    }

    /// The ends of the segment through the member texels' mean along their principal axis
    /// (power iteration on the covariance), covering every member's projection.
    static func principalLine(
        _ block: Block, first: Int, count: Int, member: V16, extremes: Bool = false
    ) -> (SIMD4<Float>, SIMD4<Float>) {
        let w = F16.ones(member)
        if count == 1 {
            let x = block.float(first)
            let lo = F16(repeating: 1e9).choosing(x, where: member).least
            let hi = F16(repeating: -1e9).choosing(x, where: member).greatest
            return (SIMD4<Float>(lo, 0, 0, 0), SIMD4<Float>(hi, 0, 0, 0))
        }
        let mean = totals(w, block, first: first, count: count) / w.total
        // Weighted channels: the line is fitted to √weight·x, then scaled back.
        let root = fittedWeights(block, first: first, count: count).squareRoot()
        @inline(__always) func centered(_ c: Int) -> F16 {
            c < count ? (block.float(first + c) - F16(repeating: mean[c])) * (w * root[c]) : F16()
        }
        let d = (centered(0), centered(1), centered(2), centered(3))
        // Covariance rows (symmetric, unused channels zero).
        var r0 = SIMD4<Float>()
        var r1 = SIMD4<Float>()
        var r2 = SIMD4<Float>()
        var r3 = SIMD4<Float>()
        r0[0] = (d.0 * d.0).total
        r0[1] = (d.0 * d.1).total
        r0[2] = (d.0 * d.2).total
        r1[1] = (d.1 * d.1).total
        r1[2] = (d.1 * d.2).total
        r2[2] = (d.2 * d.2).total
        if count == 4 {
            r0[3] = (d.0 * d.3).total
            r1[3] = (d.1 * d.3).total
            r2[3] = (d.2 * d.3).total
            r3[3] = (d.3 * d.3).total
        }
        (r1[0], r2[0], r2[1]) = (r0[1], r0[2], r1[2])
        (r3[0], r3[1], r3[2]) = (r0[3], r1[3], r2[3])
        // Start from the channel with the largest variance, signed by its covariances.
        let diagonal = SIMD4<Float>(r0[0], r1[1], r2[2], r3[3])
        let top = Swift.max(Swift.max(diagonal[0], diagonal[1]), Swift.max(diagonal[2], diagonal[3]))
        var axis = top == diagonal[0] ? r0 : top == diagonal[1] ? r1 : top == diagonal[2] ? r2 : r3
        if top <= 0 { return (mean, mean) }
        // Steps normalised by the largest variance only (no square root): each multiplies the
        // axis by at most 4, so four stay far inside Float's range.
        axis /= top
        for _ in 0..<4 {
            var next: SIMD4<Float> = r0 * axis[0]
            next += r1 * axis[1]
            next += r2 * axis[2]
            next += r3 * axis[3]
            axis = next / top
        }
        let length = (axis * axis).total.squareRoot()
        if length < 1e-12 { return (mean, mean) }
        axis /= length
        var projection: F16 = d.0 * axis[0]
        projection += d.1 * axis[1]
        projection += d.2 * axis[2]
        projection += d.3 * axis[3]
        let lo = F16(repeating: 1e9).choosing(projection, where: member).least
        let hi = F16(repeating: -1e9).choosing(projection, where: member).greatest
        if extremes {
            // The member texels themselves at both ends of the projection.
            var a = SIMD4<Float>()
            var b = SIMD4<Float>()
            for i in 0..<16 where member[i] != 0 {
                let x = SIMD4<Float>(block.f.0[i], block.f.1[i], block.f.2[i], block.f.3[i])
                var v = SIMD4<Float>()
                for c in 0..<count { v[c] = x[first + c] }
                if projection[i] == lo { a = v }
                if projection[i] == hi { b = v }
            }
            return (a, b)
        }
        let unscale = 1 / root
        return (mean + axis * unscale * lo, mean + axis * unscale * hi)
    }

    /// Endpoints minimising the squared error of the member texels for these indices (weights
    /// w/64), per channel; nil when every member has the same weight.
    static func leastSquares(
        _ block: Block, first: Int, count: Int, member: V16, indices: V16,
        indexBits: Int
    ) -> (SIMD4<Float>, SIMD4<Float>)? {
        // Weight round(64·k / steps), as the table has it, over 64.
        let steps = Float((1 << indexBits) - 1)
        let t = round(float(indices) * (64 / steps)) * (1.0 / 64)
        let w = F16.ones(member)
        let one = F16(repeating: 1)
        let s = one - t
        let u: F16 = s * w
        let v: F16 = t * w
        let aa = (u * s).total
        let ab = (u * t).total
        let bb = (v * t).total
        let det = aa * bb - ab * ab
        if abs(det) < 1e-6 { return nil }
        let ax = totals(u, block, first: first, count: count)
        let bx = totals(v, block, first: first, count: count)
        return ((ax * bb - bx * ab) / det, (bx * aa - ax * ab) / det)
    }

    /// Σ k·x over the texels of each fitted channel (channels `first ..< first + count`, lanes
    /// 0 ..< count; 0 beyond), built as one vector: a lane written at a time would make every
    /// later read of the whole vector wait for the stores.
    @inline(__always) static func totals(_ k: F16, _ block: Block, first: Int, count: Int) -> SIMD4<Float> {
        SIMD4(
            (k * block.float(first)).total, count > 1 ? (k * block.float(first + 1)).total : 0,
            count > 2 ? (k * block.float(first + 2)).total : 0, count > 3 ? (k * block.float(first + 3)).total : 0)
    }

    /// Each fitted channel's weight in the error (lanes 0 ..< count; 1 beyond). Fits of more than
    /// one channel start at channel 0.
    @inline(__always) static func fittedWeights(_ block: Block, first: Int, count: Int) -> SIMD4<Float> {
        let w = first == 0 ? block.weights : SIMD4(repeating: block.weights[first])
        let used = SIMD4<Float>(1, count > 1 ? 1 : 0, count > 2 ? 1 : 0, count > 3 ? 1 : 0)
        return w * used + (1 - used)
    }

    /// Both ends quantized with each p-bit at once, lanes (a, p 0), (a, p 1), (b, p 0), (b, p 1)
    /// four channels each: the stored values before the p-bit, the 8-bit values they decode to,
    /// and each quarter's squared difference over the first `count` channels.
    @inline(__always) static func quantize(
        _ a: SIMD4<Float>, _ b: SIMD4<Float>, _ q: Quantizer, count: Int, weights: SIMD4<Float>
    ) -> (V16, V16, SIMD4<Float>) {
        let n = q.total
        let hasP = q.endpointP || q.sharedP
        let value = unsafeBitCast((a, a, b, b), to: F16.self)
        var v = value.choosing(F16(), where: value.below(F16()))
        v = v.choosing(F16(repeating: 255), where: F16(repeating: 255).below(v))
        var scaled = v * (Float((1 << n) - 1) / 255)
        let p = F16(0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1)
        if hasP { scaled = (scaled - p) * 0.5 }
        let limit = F16(repeating: Float((1 << q.bits) - 1))
        var k = round(scaled)
        k = k.choosing(F16(), where: k.below(F16()))
        k = k.choosing(limit, where: limit.below(k))
        let x = unsafeBitCast(k + 12_582_912, to: V16.self) &- 0x4B40_0000
        let full = hasP ? x &<< 1 | V16(0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1) : x
        let e = n >= 8 ? full : (full &<< Int32(8 - n)) | (full &>> Int32(2 * n - 8))
        let diff = float(e) - v
        let used = SIMD4<Float>(1, count > 1 ? 1 : 0, count > 2 ? 1 : 0, count > 3 ? 1 : 0) * weights
        let d = unsafeBitCast(diff * diff, to: F16.Quarters.self)
        let err = SIMD4<Float>((d.0 * used).total, (d.1 * used).total, (d.2 * used).total, (d.3 * used).total)
        return (x, e, err)
    }

    /// The quarters of `quantize`'s lanes to keep for ends a and b: per endpoint, per subset
    /// (shared) or none, the p-bits nearest the line's ends (both 1 where `onlyP1`).
    @inline(__always) static func nearestP(_ q: Quantizer, _ err: SIMD4<Float>) -> (Int, Int) {
        q.onlyP1
            ? (1, 3)
            : q.endpointP
                ? (err[1] < err[0] ? 1 : 0, err[3] < err[2] ? 3 : 2)
                : q.sharedP ? (err[1] + err[3] < err[0] + err[2] ? (1, 3) : (0, 2)) : (0, 2)
    }

    /// Lanes 4·i ..< 4·i + 4.
    @inline(__always) static func quarter(_ v: V16, _ i: Int) -> SIMD4<Int32> {
        let q = unsafeBitCast(v, to: (SIMD4<Int32>, SIMD4<Int32>, SIMD4<Int32>, SIMD4<Int32>).self)
        return i == 0 ? q.0 : i == 1 ? q.1 : i == 2 ? q.2 : q.3
    }

    /// Quantizes every subset's endpoints (p-bits chosen nearest), picks each texel's nearest
    /// palette entry, and keeps the result in `best` when its error is smaller.
    static func evaluate(
        _ block: Block, first: Int, count: Int, subsets: Int, lanes: V16, ends: Ends, quantizer: Quantizer,
        indexBits: Int, exhaustive: Bool, into best: inout Lines
    ) {
        var out = Lines()
        var f0 = (SIMD4<Float>(), SIMD4<Float>(), SIMD4<Float>())
        var f1 = (SIMD4<Float>(), SIMD4<Float>(), SIMD4<Float>())
        var p = ((Int32(0), Int32(0)), (Int32(0), Int32(0)), (Int32(0), Int32(0)))
        for s in 0..<subsets {
            let (a, b) = ends.get(s)
            var qa: (SIMD4<Int32>, SIMD4<Int32>, Float)
            var qb: (SIMD4<Int32>, SIMD4<Int32>, Float)
            var pa: Int32 = 0
            var pb: Int32 = 0
            if ends.solid & (1 << s) != 0 {
                let e = ends.solidEnd(s)
                let n = quantizer.total
                let hasP = quantizer.endpointP || quantizer.sharedP
                func decoded(_ x: SIMD4<Int32>, _ p: Int32) -> SIMD4<Int32> {
                    let full = hasP ? x &<< 1 | SIMD4(repeating: p) : x
                    return n >= 8 ? full : (full &<< Int32(8 - n)) | (full &>> Int32(2 * n - 8))
                }
                (qa, qb, pa, pb) = ((e.q0, decoded(e.q0, e.p0), 0), (e.q1, decoded(e.q1, e.p1), 0), e.p0, e.p1)
            } else {
                let weights = fittedWeights(block, first: first, count: count)
                let (x, e, err) = quantize(a, b, quantizer, count: count, weights: weights)
                // Per endpoint, per subset (shared) or none: the p-bits nearest the line's ends.
                let pick = nearestP(quantizer, err)
                qa = (quarter(x, pick.0), quarter(e, pick.0), 0)
                qb = (quarter(x, pick.1), quarter(e, pick.1), 0)
                (pa, pb) = (Int32(pick.0 & 1), Int32(pick.1 & 1))
            }
            let (x0, x1) = (float4(qa.1), float4(qb.1))
            switch s {
            case 0: (out.q0.0, out.q1.0, f0.0, f1.0, p.0) = (qa.0, qb.0, x0, x1, (pa, pb))
            case 1: (out.q0.1, out.q1.1, f0.1, f1.1, p.1) = (qa.0, qb.0, x0, x1, (pa, pb))
            default: (out.q0.2, out.q1.2, f0.2, f1.2, p.2) = (qa.0, qb.0, x0, x1, (pa, pb))
            }
        }
        out.p = SIMD8(p.0.0, p.0.1, p.1.0, p.1.1, p.2.0, p.2.1, 0, 0)
        // Per texel: its subset's decoded endpoints, blended by 0/1 lane weights (exact in floats).
        let m1 = F16.ones(lanes.equals(1))
        let m2 = F16.ones(lanes.equals(2))
        let steps = Float((1 << indexBits) - 1)
        var dot = F16()
        var length = F16()
        var e0 = (F16(), F16(), F16(), F16())
        var d = (F16(), F16(), F16(), F16())
        for c in 0..<count {
            var a = F16(repeating: f0.0[c])
            var b = F16(repeating: f1.0[c])
            if subsets > 1 {
                a += m1 * (f0.1[c] - f0.0[c])
                b += m1 * (f1.1[c] - f1.0[c])
            }
            if subsets > 2 {
                a += m2 * (f0.2[c] - f0.0[c])
                b += m2 * (f1.2[c] - f1.0[c])
            }
            let delta = b - a
            let x = block.float(first + c) - a
            let weighted = delta * block.weights[first + c]
            dot += x * weighted
            length += delta * weighted
            switch c {
            case 0: (e0.0, d.0) = (a, delta)
            case 1: (e0.1, d.1) = (a, delta)
            case 2: (e0.2, d.2) = (a, delta)
            default: (e0.3, d.3) = (a, delta)
            }
        }
        // The index nearest the texel's projection on its line, then its exact palette value:
        // e0 + ⌊(w·(e1 − e0) + 32) / 64⌋ with w = round(64·k / steps).
        var t = dot / (length + 1e-9) * steps
        t = t.choosing(F16(), where: t.below(F16()))
        t = t.choosing(F16(repeating: steps), where: F16(repeating: steps).below(t))
        var k = round(t)
        /// Each texel's squared error at index `k` (lanes).
        @inline(__always) func error(_ k: F16) -> F16 {
            let w = round(k * (64 / steps))
            var err = F16()
            for c in 0..<count {
                let (a, delta) = c == 0 ? (e0.0, d.0) : c == 1 ? (e0.1, d.1) : c == 2 ? (e0.2, d.2) : (e0.3, d.3)
                let y = (w * delta + 32) * (1.0 / 64) - (0.5 - 1.0 / 128)
                let r = block.float(first + c) - (a + round(y))
                err += r * r * block.weights[first + c]
            }
            return err
        }
        var err = error(k)
        if exhaustive {
            // Every entry, keeping each texel's nearest (the palette is only nearly a line).
            for j in 0..<Int(steps) + 1 {
                let kj = F16(repeating: Float(j))
                let e = error(kj)
                let closer = e.below(err)
                err = err.choosing(e, where: closer)
                k = k.choosing(kj, where: closer)
            }
        }
        let indices = unsafeBitCast(k + 12_582_912, to: V16.self) &- 0x4B40_0000
        let total = err.total
        out.indices = indices
        out.error = Int32(total)
        if out.error < best.error { best = out }
    }

    /// Rounding to the nearest integer (ties to even) for |v| < 2²²: adding 1.5·2²³ leaves the
    /// integer in the low mantissa bits.
    @inline(__always) static func round(_ v: F16) -> F16 { (v + 12_582_912) - 12_582_912 }

    @inline(__always) static func float4(_ v: SIMD4<Int32>) -> SIMD4<Float> {
        unsafeBitCast(v | 0x4B00_0000, to: SIMD4<Float>.self) - 8_388_608
    }

    /// Small non-negative integers (< 2²³) as floats (`SIMD16<Float>(small:)`).
    @inline(__always) static func float(_ v: V16) -> F16 { F16(small: v) }
}
