internal import Foundation
internal import TexPipeFormats
internal import TexPipePixels

/// Basis Universal ETC1S (KTX 2.0 specification, BasisLZ/ETC1S bitstream appendix): every 4 × 4
/// block is an ETC1 block whose two halves share one base colour (5 bits a channel) and one
/// intensity table, so a block is an *endpoint* (colour and table) and a *selector* (sixteen 2-bit
/// texel indices). The blocks of every image in a file share two global codebooks, and each
/// block is two indices into them: that is what BasisLZ then codes (`ETC1S+BasisLZ.swift`).
///
/// The encoder is vector quantisation in four passes, then two for the rate (`ETC1S+Rate.swift`):
/// 1. each block's own best ETC1S fit (`bestFit`): for the intensity tables nearest its spread,
///    the selectors and the least-squares base alternately;
/// 2. endpoint clusters: the blocks' fitted colour lines (low and high texel colours, 6-D) split
///    in a tree (`TreeQuantizer`) into the codebook's size, each cluster then given the one
///    endpoint that minimises the error of all its blocks' texels;
/// 3. selector clusters: each block's best selectors under its cluster's endpoint, split the same
///    way, each cluster given per texel the selector that minimises its blocks' error;
/// 4. refinement: each block's selector, then its endpoint, chosen again among its own cluster's
///    and the nearest clusters', and each entry fitted again to its blocks;
/// 5. in the decoder's order, a block takes a neighbour's endpoint or a selector from the
///    decoder's history when that costs less error than `rateWeight` per bit saved (`economise`);
/// 6. the endpoint codebook ordered so that the deltas BasisLZ codes are small (`reorder`).
/// `qlevel` (1–255) sets the codebook sizes and the rate weight; `quality` how hard each pass
/// searches.
enum ETC1S {
    /// ETC1's intensity modifier tables, in BasisLZ's selector order: 0 is −b, 1 −a, 2 +a, 3 +b.
    static let modifiers: [SIMD4<Int32>] = [
        [-8, -2, 2, 8], [-17, -5, 5, 17], [-29, -9, 9, 29], [-42, -13, 13, 42],
        [-60, -18, 18, 60], [-80, -24, 24, 80], [-106, -33, 33, 106], [-183, -47, 47, 183],
    ]

    /// One codebook endpoint: a 5-bit base colour and an intensity table (0…7).
    struct Endpoint: Hashable, Sendable {
        var r: UInt8
        var g: UInt8
        var b: UInt8
        var inten: UInt8

        /// The base colour expanded to 8 bits.
        var color: SIMD3<Int32> { SIMD3(ETC1S.expand5(r), ETC1S.expand5(g), ETC1S.expand5(b)) }
    }

    /// One image's blocks, gathered: 48 bytes a block, its 16 texels' red (row by row), then their
    /// green, then their blue; blocks row by row. An alpha slice holds the alpha channel in all three.
    struct Slice {
        var blocksX: Int
        var blocksY: Int
        var texels: [UInt8]
        var blockCount: Int { blocksX * blocksY }
    }

    /// The codebooks and each slice's block indices.
    struct Encoded {
        var endpoints: [Endpoint]
        /// Texel i (row-major) at bits 2i…2i+1.
        var selectors: [UInt32]
        var endpointIndices: [[UInt16]]
        var selectorIndices: [[UInt16]]
    }

    @inline(__always) static func expand5(_ c: UInt8) -> Int32 { Int32(c) << 3 | Int32(c) >> 2 }

    /// The slice of `rgba` (width × height): its colour, or with `alpha` its alpha channel as grey.
    static func slice(_ rgba: [UInt8], width: Int, height: Int, alpha: Bool) -> Slice {
        let bw = (width + 3) / 4
        let bh = (height + 3) / 4
        var texels = [UInt8](repeating: 0, count: bw * bh * 48)
        rgba.withUnsafeBufferPointer { src in
            texels.withUnsafeMutableBufferPointer { dst in
                for by in 0..<bh {
                    for bx in 0..<bw {
                        let block = (by * bw + bx) * 48
                        for t in 0..<16 {
                            let x = min(bx * 4 + t % 4, width - 1)
                            let y = min(by * 4 + t / 4, height - 1)
                            let s = (y * width + x) * 4
                            for c in 0..<3 { dst[block + c * 16 + t] = alpha ? src[s + 3] : src[s + c] }
                        }
                    }
                }
            }
        }
        return Slice(blocksX: bw, blocksY: bh, texels: texels)
    }

    /// Codebook sizes for `qlevel`: 32 entries at 1, doubling every 28 levels, 16,128 at most
    /// (basisu's limit), never more than there are blocks.
    static func codebookSize(qlevel: Int, blocks: Int) -> Int {
        let size = Int((32 * exp2(Double(qlevel - 1) / 28)).rounded())
        return max(1, min(size, 16128, blocks))
    }

    /// The rate pass's weight for `qlevel` (`economise`): 120 (squared error per bit) up to 128,
    /// then falling linearly to 20 at 255, so the upper levels spend their larger codebooks on
    /// quality and the lower ones their bits sparingly.
    static func rateWeight(qlevel: Int) -> Float {
        20 + 100 * Float(min(127, max(0, 255 - qlevel))) / 127
    }

    /// How hard each pass searches, by `quality`.
    struct Effort {
        /// 2-means steps per split, and least-squares alternations per fit.
        var iterations: Int
        /// Intensity tables tried per fit.
        var tables: Int
        /// Refinement rounds (pass 4).
        var refinements: Int
        /// Intensity tables tried for each block's own fit (pass 1), which only places it for the
        /// clustering.
        var blockTables: Int
        /// The nearest clusters each refinement tries a block in, besides its own.
        var near: Int
        /// The history entries the rate pass tries for a block's selector (`economise`).
        var history: Int

        init(_ quality: TextureSettings.Quality) {
            (iterations, tables, refinements, blockTables, near, history) =
                switch quality {
                case .fast: (1, 2, 1, 1, 4, 8)
                case .medium: (2, 3, 1, 2, 8, 16)
                default: (4, 8, 3, 8, 8, 64)
                }
        }
    }

    /// Encodes every slice of a file against one pair of codebooks. Every per-block pass runs in
    /// bands of blocks across the cores `rows` lends, each band writing only its blocks' entries;
    /// every per-cluster pass likewise by cluster, and the trees split several clusters at once
    /// (`TreeQuantizer`): the bytes never depend on the cores.
    ///
    /// Memory: the slices' texels are moved into one array (a lone slice's without a copy), and
    /// each pass's vectors live only until its tree has clustered them.
    static func encode(
        _ slices: consuming [Slice], qlevel: Int, quality: TextureSettings.Quality,
        rows: any RowScheduler = SerialRows()
    ) -> Encoded {
        let total = slices.reduce(0) { $0 + $1.blockCount }
        // All blocks in one array: slice after slice.
        var texels: [UInt8] = []
        if slices.count == 1 {
            swap(&texels, &slices[0].texels)
        } else {
            texels.reserveCapacity(total * 48)
            for k in slices.indices {
                texels += slices[k].texels
                slices[k].texels = []
            }
        }
        let slices = slices
        let effort = Effort(quality)
        let lambda = rateWeight(qlevel: qlevel)
        return texels.withUnsafeBufferPointer { buffer in
            let t = buffer.baseAddress!
            // 1. Each block's own fit, and its colour line (low and high texel colours) to cluster.
            let size = codebookSize(qlevel: qlevel, blocks: total)
            let endpointTree: TreeQuantizer.Result<SIMD8<Float>>
            do {
                var lines = [SIMD8<Float>](repeating: SIMD8(), count: total)
                lines.withUnsafeMutableBufferPointer { out in
                    bands(total, rows) { range in
                        for b in range {
                            let e = bestFit(
                                CollectionOfOne(Texels(t + b * 48)), tables: effort.blockTables,
                                iterations: effort.iterations
                            ).endpoint
                            let c = SIMD3<Float>(e.color)
                            let m = modifiers[Int(e.inten)]
                            let lo = c + Float(m[0])
                            let hi = c + Float(m[3])
                            out[b] = SIMD8(lo.x, lo.y, lo.z, hi.x, hi.y, hi.z, 0, 0)
                        }
                    }
                }
                // 2. Endpoint clusters, each given the endpoint that suits all its blocks best.
                endpointTree = TreeQuantizer.clusters(
                    consume lines, count: size, iterations: effort.iterations, rows: rows)
            }
            var blockEndpoint = endpointTree.assignment
            var endpoints = perCluster(groups(blockEndpoint, count: endpointTree.count), rows) { _, members in
                bestFit(t, members: members, tables: effort.tables, iterations: effort.iterations, sample: 64).endpoint
            }
            // 3. Selector clusters from each block's best selectors under its endpoint.
            var palettes = endpoints.map(Palette.init)
            let selectorTree: TreeQuantizer.Result<SIMD16<Float>>
            do {
                var features = [SIMD16<Float>](repeating: SIMD16(), count: total)
                features.withUnsafeMutableBufferPointer { out in
                    bands(total, rows) { range in
                        for b in range {
                            let s = selectors(Texels(t + b * 48), palettes[Int(blockEndpoint[b])])
                            out[b] = SIMD16<Float>(Selection.lanes(s))
                        }
                    }
                }
                selectorTree = TreeQuantizer.clusters(
                    consume features, count: size, iterations: effort.iterations, rows: rows)
            }
            var blockSelector = selectorTree.assignment
            var codebook = perCluster(groups(blockSelector, count: selectorTree.count), rows) { _, members in
                bestSelector(t, blocks: members, palettes, blockEndpoint)
            }
            // 4. Refinement: each block's selector and endpoint chosen again among its cluster's and
            // the nearest clusters', each cluster's entry fitted again to the blocks it now has.
            if effort.refinements > 0 {
                let nearEndpoints = endpointTree.neighbourTable(effort.near)
                let nearSelectors = selectorTree.neighbourTable(effort.near)
                for _ in 0..<effort.refinements {
                    let be = blockEndpoint
                    let p0 = palettes
                    let cb0 = codebook
                    let selections = codebook.map(Selection.init)
                    blockSelector.withUnsafeMutableBufferPointer { out in
                        bands(total, rows) { range in
                            for b in range {
                                let x = Texels(t + b * 48)
                                let pal = p0[Int(be[b])]
                                out[b] = UInt16(
                                    least(Int(out[b]), nearSelectors[Int(selectorTree.assignment[b])]) {
                                        error(x, pal, selections[$0])
                                    })
                            }
                        }
                    }
                    let bs = blockSelector
                    codebook = perCluster(groups(bs, count: codebook.count), rows) { k, members in
                        members.isEmpty ? cb0[k] : bestSelector(t, blocks: members, p0, be)
                    }
                    let cb1 = codebook
                    blockEndpoint.withUnsafeMutableBufferPointer { out in
                        bands(total, rows) { range in
                            for b in range {
                                let x = Texels(t + b * 48)
                                let sel = Selection(cb1[Int(bs[b])])
                                out[b] = UInt16(
                                    least(Int(out[b]), nearEndpoints[Int(endpointTree.assignment[b])]) {
                                        error(x, p0[$0], sel)
                                    })
                            }
                        }
                    }
                    let e0 = endpoints
                    endpoints = perCluster(groups(blockEndpoint, count: endpoints.count), rows) { k, members in
                        members.isEmpty
                            ? e0[k] : bestEndpoint(t, blocks: members, selectors: members.map { cb1[Int(bs[$0])] })
                    }
                    palettes = endpoints.map(Palette.init)
                }
            }
            if effort.history > 0 {
                economise(
                    t, slices, endpoints: endpoints, selectors: codebook, blockEndpoint: &blockEndpoint,
                    blockSelector: &blockSelector, depth: effort.history, lambda: lambda)
            }
            reorder(&endpoints, &blockEndpoint, slices)
            // Split the indices back into slices.
            var endpointIndices: [[UInt16]] = []
            var selectorIndices: [[UInt16]] = []
            var start = 0
            for s in slices {
                endpointIndices.append(Array(blockEndpoint[start..<start + s.blockCount]))
                selectorIndices.append(Array(blockSelector[start..<start + s.blockCount]))
                start += s.blockCount
            }
            return Encoded(
                endpoints: endpoints, selectors: codebook, endpointIndices: endpointIndices,
                selectorIndices: selectorIndices)
        }
    }

    /// `body` over 0..<n in bands of the cores `rows` lends.
    @inline(__always) static func bands(_ n: Int, _ rows: any RowScheduler, _ body: (Range<Int>) -> Void) {
        rows.forEachBand(rows: n, pixelsPerRow: 16, body)
    }

    /// One entry per cluster, each from its index and members, clusters in bands.
    static func perCluster<T>(_ members: [[Int]], _ rows: any RowScheduler, _ entry: (Int, [Int]) -> T) -> [T] {
        guard let first = members.first.map({ entry(0, $0) }) else { return [] }
        var out = [T](repeating: first, count: members.count)
        out.withUnsafeMutableBufferPointer { o in
            rows.forEachBand(rows: members.count, pixelsPerRow: 256) { range in
                for k in range where k > 0 { o[k] = entry(k, members[k]) }
            }
        }
        return out
    }

    /// Of `current` and `candidates`, the one that costs least (the current one on ties, then the
    /// first).
    @inline(__always) static func least(_ current: Int, _ candidates: [Int], _ cost: (Int) -> Float) -> Int {
        var best = current
        var bestCost = cost(current)
        for k in candidates {
            let c = cost(k)
            if c < bestCost { (best, bestCost) = (k, c) }
        }
        return best
    }

    /// Block indices by cluster.
    static func groups(_ assignment: [UInt16], count: Int) -> [[Int]] {
        var out = [[Int]](repeating: [], count: count)
        for (b, k) in assignment.enumerated() { out[Int(k)].append(b) }
        return out
    }

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
