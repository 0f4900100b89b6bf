internal import TexPipeFormats

extension BC7 {
    /// The best encoding found so far for a block.
    struct Choice {
        var error = Int32.max
        var mode = 6
        var partition = 0
        var rotation = 0
        var selection = 0
        /// The joint RGB(A) lines, or modes 4 and 5's color lines.
        var color = Lines()
        /// Modes 4 and 5's alpha line (channel 3 of the rotated block).
        var alpha = Lines()
    }

    /// How hard to search, per effort.
    struct Search {
        /// Two-subset partitions fitted per mode (1, 3, 7), three-subset ones (0, 2; none: those
        /// modes are not tried).
        let partitions2: Int
        let partitions3: Int
        /// Rounds of least squares on the indices, while the error falls.
        let refine: Int
        /// Thorough's extras: partitions ranked by line residual too (and all 64 for mode 2), all
        /// four rotations and both index selections of modes 4 and 5 (also on opaque blocks), line
        /// ends at texels, and every palette entry tried per texel.
        let exhaustive: Bool
        /// A block whose mode 6 error is at most this (squared, summed) tries nothing else.
        let enough: Int32
        /// An opaque block tries three subsets only where the error is still above this.
        let enoughThree: Int32
        /// Whether mode 4 (5-bit color, 6-bit alpha) is tried on blocks with alpha.
        let mode4: Bool

        static func of(_ quality: TextureSettings.Quality) -> Search {
            switch quality {
            case .fast:
                // Measured on the corpus (docs/performance.md, "BC7 speed"): mode 4 wins some
                // blocks on alpha, which the RGB pays for (without it: RGB +0.05 dB, alpha −0.7 dB,
                // 1.05× the speed); then one three-subset partition where the error is over 384:
                // +0.30 dB for 0.88× the speed. Together +0.35 dB, 0.93×.
                Search(
                    partitions2: 1, partitions3: 1, refine: 1, exhaustive: false, enough: 16 * 3 * 4,
                    enoughThree: 16 * 3 * 8, mode4: false)
            case .medium:
                Search(
                    partitions2: 2, partitions3: 1, refine: 1, exhaustive: false, enough: 16 * 3,
                    enoughThree: 16 * 3, mode4: true)
            case .thorough:
                Search(
                    partitions2: 12, partitions3: 8, refine: 4, exhaustive: true, enough: 0, enoughThree: 0,
                    mode4: true)
            }
        }
    }

    /// Fits mode `mode` (0, 1, 2, 3, 6 or 7: one index set for every channel) with `partition`.
    /// `opaque`: mode 6 keeps alpha 255, with both p-bits 1 (see `encodeBlock`).
    static func tryJoint(
        _ block: Block, mode: Int, partition: Int, search: Search, start: Ends? = nil, opaque: Bool = false,
        into best: inout Choice
    ) {
        let m = modes[mode]
        // Alpha held at 255 contributes nothing to the line, the indices or the error: the colors
        // alone with p-bits of 1 give the ends, indices and error that fitting alpha too at its
        // weight gives (there, alpha's 16 outweighs any color's gain from a p-bit of 0), for ¾ of
        // the work. (A one-color subset is `solid`'s, never mode 6's.)
        let alphaHeld = opaque && mode == 6 && (start?.solid ?? 0) == 0
        let count = m.alphaBits > 0 && !alphaHeld ? 4 : 3
        var q = Quantizer(bits: m.colorBits, endpointP: m.endpointP, sharedP: m.sharedP)
        q.onlyP1 = alphaHeld
        var lines = fit(
            block, first: 0, count: count, subsets: m.subsets, lanes: subsetLanes(m.subsets, partition),
            quantizer: q, indexBits: m.indexBits, refine: search.refine, exhaustive: search.exhaustive, start: start)
        if alphaHeld {
            let top = Int32(1 << m.alphaBits) - 1
            (lines.q0.0[3], lines.q1.0[3]) = (top, top)
        }
        // Modes 0–3 (alpha 255) are tried on opaque blocks only: their error is the whole error.
        if lines.error < best.error {
            best = Choice(error: lines.error, mode: mode, partition: partition, rotation: 0, selection: 0, color: lines)
        }
    }

    /// Fits mode 4 or 5 (color and alpha on their own index sets) with a rotation and selection.
    static func trySeparate(
        _ block: Block, mode: Int, rotation: Int, selection: Int, search: Search,
        into best: inout Choice
    ) {
        let m = modes[mode]
        let rotated = block.rotated(rotation)
        let (colorIndex, alphaIndex) = selection == 1 ? (m.index2Bits, m.indexBits) : (m.indexBits, m.index2Bits)
        let color = fit(
            rotated, first: 0, count: 3, subsets: 1, lanes: V16(),
            quantizer: Quantizer(bits: m.colorBits, endpointP: false, sharedP: false), indexBits: colorIndex,
            refine: search.refine, exhaustive: search.exhaustive)
        if color.error >= best.error { return }
        let alpha = fit(
            rotated, first: 3, count: 1, subsets: 1, lanes: V16(),
            quantizer: Quantizer(bits: m.alphaBits, endpointP: false, sharedP: false), indexBits: alphaIndex,
            refine: search.refine, exhaustive: search.exhaustive)
        let error = color.error &+ alpha.error
        if error < best.error {
            best = Choice(
                error: error, mode: mode, partition: 0, rotation: rotation, selection: selection, color: color,
                alpha: alpha)
        }
    }

    /// Texels split into two or three clusters (k-means from the ends of the principal line), as
    /// one 16-bit mask per cluster.
    static func clusters(
        _ block: Block, _ k: Int, count: Int, line: (SIMD4<Float>, SIMD4<Float>)? = nil
    ) -> SIMD4<UInt16> {
        let (a, b) = line ?? principalLine(block, first: 0, count: count, member: V16(repeating: -1))
        var centers = (a, b, (a + b) * 0.5)
        var labels = V16()
        for round in 0..<3 {
            var best = F16(repeating: .greatestFiniteMagnitude)
            for j in 0..<k {
                let c = j == 0 ? centers.0 : j == 1 ? centers.1 : centers.2
                var dist = F16()
                for ch in 0..<count {
                    let d = block.float(ch) - F16(repeating: c[ch])
                    dist += d * d
                }
                let closer = dist.below(best)
                best = best.choosing(dist, where: closer)
                labels = labels.choosing(V16(repeating: Int32(j)), where: closer)
            }
            if k == 3 && round == 0 {
                // The third center starts at the texel farthest from the line's ends.
                let far = best.greatest
                for i in 0..<16 where best[i] == far {
                    centers.2 = SIMD4<Float>(block.f.0[i], block.f.1[i], block.f.2[i], block.f.3[i])
                    break
                }
                continue
            }
            if round == 2 { break }
            for j in 0..<k {
                let member = labels.equals(Int32(j))
                let w = F16.ones(member)
                let n = w.total
                if n == 0 { continue }
                let c =
                    SIMD4<Float>(
                        (block.f.0 * w).total, (block.f.1 * w).total, (block.f.2 * w).total, (block.f.3 * w).total) / n
                switch j {
                case 0: centers.0 = c
                case 1: centers.1 = c
                default: centers.2 = c
                }
            }
        }
        let bits = V16(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768)
        @inline(__always) func mask(_ j: Int32) -> UInt16 {
            UInt16(truncatingIfNeeded: (bits & labels.equals(j)).wrappedSum())
        }
        return SIMD4(mask(0), mask(1), mask(2), 0)
    }

    /// The `limit` partitions (of `total`) whose subsets agree best with the clusters, best first
    /// (ties: the lower partition number), packed as agreement << 8 | partition.
    static func rank(_ clusters: SIMD4<UInt16>, subsets: Int, total: Int, limit: Int) -> SIMD16<Int32> {
        var top = SIMD16<Int32>(repeating: -1)
        for p in 0..<total {
            var agree: Int
            if subsets == 2 {
                let d = (partitions2[p] ^ clusters[0]).nonzeroBitCount
                agree = max(d, 16 - d)
            } else {
                let sets = subsetMasks3[p]
                // Texels shared by subset i and cluster j, then the best matching of the two.
                var shared = (SIMD4<Int32>(), SIMD4<Int32>(), SIMD4<Int32>())
                for j in 0..<3 {
                    shared.0[j] = Int32((sets[0] & clusters[j]).nonzeroBitCount)
                    shared.1[j] = Int32((sets[1] & clusters[j]).nonzeroBitCount)
                    shared.2[j] = Int32((sets[2] & clusters[j]).nonzeroBitCount)
                }
                let best = max(
                    max(shared.0[0] + shared.1[1] + shared.2[2], shared.0[0] + shared.1[2] + shared.2[1]),
                    max(shared.0[1] + shared.1[0] + shared.2[2], shared.0[1] + shared.1[2] + shared.2[0]),
                    max(shared.0[2] + shared.1[0] + shared.2[1], shared.0[2] + shared.1[1] + shared.2[0]))
                agree = Int(best)
            }
            // Insertion into the sorted top list (score descending, partition ascending).
            let key = Int32(agree << 8 | (255 - p))
            var at = limit
            while at > 0 && top[at - 1] < key { at -= 1 }
            if at < limit {
                var i = limit - 1
                while i > at {
                    top[i] = top[i - 1]
                    i -= 1
                }
                top[at] = key
            }
        }
        for i in 0..<limit where top[i] >= 0 { top[i] = 255 - (top[i] & 255) }
        return top
    }

    /// For each 8-bit value, the 7-bit endpoint pair whose first interpolated entry (weight
    /// 21/64) decodes to it, or comes nearest: mode 5 holds any one color this way, exactly.
    static let singleColor: [SIMD2<Int32>] = (0..<256).map { v in
        var best = SIMD2<Int32>(0, 0)
        var bestError = Int32.max
        // Ends near v/2 suffice (each 7-bit step is 2 in 8 bits).
        let near = Int32(v / 2)
        for a in max(0, near - 4)...min(127, near + 4) {
            for b in max(0, near - 8)...min(127, near + 8) {
                let (ea, eb) = (expand(a, 7), expand(b, 7))
                let d = ((64 - 21) * ea + 21 * eb + 32) >> 6 - Int32(v)
                let error = d * d * 1024 + abs(a - b)
                if error < bestError { (best, bestError) = (SIMD2(a, b), error) }
            }
        }
        return best
    }

    /// A block of one color as mode 5: each channel from `singleColor` at index 1, alpha exact.
    static func solid(_ block: Block) -> Choice {
        var choice = Choice(error: 0, mode: 5)
        var q0 = SIMD4<Int32>()
        var q1 = SIMD4<Int32>()
        for c in 0..<3 {
            let v = block.int(c)[0]
            let pair = singleColor[Int(v)]
            (q0[c], q1[c]) = (pair[0], pair[1])
            let d = ((64 - 21) * expand(pair[0], 7) + 21 * expand(pair[1], 7) + 32) >> 6 - v
            choice.error += 16 * d * d
        }
        choice.color.q0.0 = q0
        choice.color.q1.0 = q1
        choice.color.indices = V16(repeating: 1)
        let a = block.x.3[0]
        choice.alpha.q0.0 = SIMD4(a, 0, 0, 0)
        choice.alpha.q1.0 = SIMD4(a, 0, 0, 0)
        return choice
    }

    /// The `limit` partitions (of `total`) whose subsets lie closest to lines: the summed squared
    /// distance of each subset's texels from its principal axis (trace of the covariance less its
    /// largest eigenvalue), best first. Thorough's ranking; costlier than `rank`.
    static func rankByLines(_ block: Block, subsets: Int, total: Int, limit: Int, count: Int) -> SIMD16<Int32> {
        // Per texel: x, then the products x_i·x_j, i ≤ j (on the stack: nothing allocated per block).
        withUnsafeTemporaryAllocation(of: F16.self, capacity: 14) { q in
            for c in 0..<count { q[c] = block.float(c) }
            var k = 4
            for i in 0..<count {
                for j in i..<count {
                    q[k] = q[i] * q[j]
                    k += 1
                }
            }
            @inline(__always) func residual(_ w: F16) -> Float {
                let n = w.total
                if n < 2 { return 0 }
                var mean = SIMD4<Float>()
                for c in 0..<count { mean[c] = (q[c] * w).total / n }
                var rows = (SIMD4<Float>(), SIMD4<Float>(), SIMD4<Float>(), SIMD4<Float>())
                var k = 4
                for i in 0..<count {
                    for j in i..<count {
                        let v = (q[k] * w).total - n * mean[i] * mean[j]
                        k += 1
                        switch i {
                        case 0: rows.0[j] = v
                        case 1: rows.1[j] = v
                        case 2: rows.2[j] = v
                        default: rows.3[j] = v
                        }
                    }
                }
                (rows.1[0], rows.2[0], rows.2[1]) = (rows.0[1], rows.0[2], rows.1[2])
                (rows.3[0], rows.3[1], rows.3[2]) = (rows.0[3], rows.1[3], rows.2[3])
                let trace = rows.0[0] + rows.1[1] + rows.2[2] + rows.3[3]
                if trace <= 0 { return 0 }
                var v = SIMD4<Float>(1, 1, 1, 1) / trace
                for _ in 0..<6 {
                    var next = rows.0 * v[0]
                    next += rows.1 * v[1]
                    next += rows.2 * v[2]
                    next += rows.3 * v[3]
                    let length = (next * next).total.squareRoot()
                    if length == 0 { return trace }
                    v = next / length
                }
                var cv = rows.0 * v[0]
                cv += rows.1 * v[1]
                cv += rows.2 * v[2]
                cv += rows.3 * v[3]
                return trace - (cv * v).total
            }
            // The best `limit`, kept sorted (ties: the lower partition).
            var top = SIMD16<Int32>(repeating: -1)
            var scores = SIMD16<Float>(repeating: .greatestFiniteMagnitude)
            for p in 0..<total {
                let lanes = subsetLanes(subsets, p)
                var e: Float = 0
                for s in 0..<subsets { e += residual(F16.ones(lanes.equals(Int32(s)))) }
                var at = limit
                while at > 0 && e < scores[at - 1] { at -= 1 }
                guard at < limit else { continue }
                var i = limit - 1
                while i > at {
                    (top[i], scores[i]) = (top[i - 1], scores[i - 1])
                    i -= 1
                }
                (top[at], scores[at]) = (Int32(p), e)
            }
            return top
        }
    }

    /// Thorough's candidates: half by `rankByLines`, then the rest by `rank` (k-means agreement),
    /// skipping repeats — lines miss blocks of few colors (any two colors lie on a line), clusters
    /// miss blocks of crossing gradients.
    static func rankBoth(_ block: Block, subsets: Int, total: Int, limit: Int, count: Int) -> SIMD16<Int32> {
        var top = rankByLines(block, subsets: subsets, total: total, limit: (limit + 1) / 2, count: count)
        let more = rank(clusters(block, subsets, count: count), subsets: subsets, total: total, limit: limit)
        var n = (limit + 1) / 2
        for i in 0..<limit where n < limit && more[i] >= 0 {
            var seen = false
            for j in 0..<n where top[j] == more[i] { seen = true }
            if !seen {
                top[n] = more[i]
                n += 1
            }
        }
        return top
    }

    /// How much alpha's squared error counts against a color channel's when modes compete.
    /// A quarter, as the references' perceptual weights have it: on the corpus this keeps RGB
    /// within 0.2–0.4 dB of etcpak's on textures with alpha and alpha above its (equal weights
    /// gave alpha +5 dB and RGB −1.5 dB).
    static let alphaWeight: Float = 0.25

    /// Whether a color channel holds one even value throughout (0 most often): an opaque block's
    /// mode 6 stores only odd ends (alpha 255 takes p-bits of 1), so it is off by one on every
    /// texel there, which modes 1 and 3 (alpha 255 by the mode) are not.
    static func evenFlat(_ block: Block) -> Bool {
        let (r, g, b, _) = block.x
        @inline(__always) func flatEven(_ c: V16) -> Bool { c[0] & 1 == 0 && c == V16(repeating: c[0]) }
        return flatEven(r) || flatEven(g) || flatEven(b)
    }

    /// Whether the block holds at most two colors: those a partition with one color per subset
    /// stores exactly, however small mode 6's error already is.
    static func twoColors(_ block: Block) -> Bool {
        let (r, g, b, a) = block.x
        @inline(__always) func same(_ i: Int) -> V16 {
            ((r ^ V16(repeating: r[i])) | (g ^ V16(repeating: g[i])) | (b ^ V16(repeating: b[i]))
                | (a ^ V16(repeating: a[i]))).equals(0)
        }
        let first = same(0)
        var other = 0
        while other < 16 && first[other] != 0 { other += 1 }
        if other == 16 { return true }
        return (first | same(other)).wrappedSum() == -16
    }

    /// One block's best encoding within the effort's search.
    static func encodeBlock(_ block: Block, _ search: Search) -> (UInt64, UInt64) {
        let first = SIMD16<Int32>(repeating: block.x.0[0])
        if block.x.0 == first && block.x.1 == V16(repeating: block.x.1[0])
            && block.x.2 == V16(repeating: block.x.2[0]) && block.x.3 == V16(repeating: block.x.3[0])
        {
            return pack(solid(block))
        }
        var best = Choice()
        let opaque = block.opaque
        // An opaque block stays opaque: there alpha outweighs the colors, so mode 6's p-bits keep
        // 255 (7 bits and a p-bit of 0 decode to 254 at most).
        var block = block
        if opaque { block.weights[3] = 16 }
        // The whole block's line: mode 6's start and the clusters' first centers.
        let whole = lines(block, first: 0, count: opaque ? 3 : 4, subsets: 1, lanes: V16())
        tryJoint(block, mode: 6, partition: 0, search: search, start: whole, opaque: opaque, into: &best)
        if best.error > search.enough || (best.error > 0 && (twoColors(block) || (opaque && evenFlat(block)))) {
            if opaque {
                let two =
                    search.exhaustive
                    ? rankBoth(block, subsets: 2, total: 64, limit: search.partitions2, count: 3)
                    : rank(
                        clusters(block, 2, count: 3, line: whole.get(0)), subsets: 2, total: 64,
                        limit: search.partitions2)
                for i in 0..<search.partitions2 where two[i] >= 0 {
                    let p = Int(two[i])
                    let start = lines(block, first: 0, count: 3, subsets: 2, lanes: subsets2[p])
                    tryJoint(block, mode: 1, partition: p, search: search, start: start, into: &best)
                    tryJoint(block, mode: 3, partition: p, search: search, start: start, into: &best)
                }
                if search.partitions3 > 0 && best.error > search.enoughThree {
                    // Mode 0 (4-bit ends, 3-bit indices) has the first 16 partitions; mode 2 all 64.
                    // Medium tries both on the best of the 16, thorough ranks all 64 for mode 2.
                    let c3 = clusters(block, 3, count: 3, line: whole.get(0))
                    let sixteen =
                        search.exhaustive
                        ? rankBoth(block, subsets: 3, total: 16, limit: search.partitions3, count: 3)
                        : rank(c3, subsets: 3, total: 16, limit: search.partitions3)
                    let three =
                        search.exhaustive
                        ? rankBoth(block, subsets: 3, total: 64, limit: search.partitions3, count: 3) : sixteen
                    for i in 0..<search.partitions3 where sixteen[i] >= 0 {
                        let p = Int(sixteen[i])
                        let start = lines(block, first: 0, count: 3, subsets: 3, lanes: subsets3[p])
                        tryJoint(block, mode: 0, partition: p, search: search, start: start, into: &best)
                        if three == sixteen {
                            tryJoint(
                                block, mode: 2, partition: p, search: search, start: start, into: &best)
                        }
                    }
                    for i in 0..<search.partitions3 where three != sixteen && three[i] >= 0 {
                        tryJoint(block, mode: 2, partition: Int(three[i]), search: search, into: &best)
                    }
                }
            } else {
                let two =
                    search.exhaustive
                    ? rankBoth(block, subsets: 2, total: 64, limit: search.partitions2, count: 4)
                    : rank(
                        clusters(block, 2, count: 4, line: whole.get(0)), subsets: 2, total: 64,
                        limit: search.partitions2)
                for i in 0..<search.partitions2 where two[i] >= 0 {
                    tryJoint(
                        block, mode: 7, partition: Int(two[i]), search: search, into: &best)
                }
            }
            if best.error > 0 && (!opaque || search.exhaustive) {
                for rotation in 0..<(search.exhaustive ? 4 : 1) {
                    trySeparate(block, mode: 5, rotation: rotation, selection: 0, search: search, into: &best)
                    for selection in 0..<(search.exhaustive ? 2 : 1) where search.mode4 {
                        trySeparate(
                            block, mode: 4, rotation: rotation, selection: selection, search: search, into: &best)
                    }
                }
            }
        }
        return pack(best)
    }

    /// A 128-bit block written from its least significant bit up.
    struct BitWriter {
        var bits: UInt128 = 0
        var at = 0

        var lo: UInt64 { UInt64(truncatingIfNeeded: bits) }
        var hi: UInt64 { UInt64(truncatingIfNeeded: bits >> 64) }

        /// The low `n` bits of `value` (n ≤ 32).
        @inline(__always) mutating func write(_ value: Int32, _ n: Int) {
            write(word: UInt64(UInt32(bitPattern: value)), n)
        }

        /// The low `n` bits of `value` (n ≤ 63).
        @inline(__always) mutating func write(word value: UInt64, _ n: Int) {
            bits |= UInt128(value & ((1 &<< UInt64(n)) &- 1)) &<< UInt128(at)
            at &+= n
        }
    }
}
