internal import TexPipeFormats
internal import TexPipePixels

/// Basis Universal ETC1S (KTX 2.0 specification, BasisLZ/ETC1S bitstream appendix): every 4 × 4
/// block is an ETC1 block whose two halves share one base colour (5 bits a channel) and one
/// intensity table, so a block is an *endpoint* (colour and table) and a *selector* (sixteen 2-bit
/// texel indices). The blocks of every image in a file share two global codebooks, and each
/// block is two indices into them: that is what BasisLZ then codes (`ETC1S+BasisLZ.swift`).
///
/// The encoder is vector quantisation in four passes:
/// 1. each block's own best ETC1S fit (`fit`): for each intensity table, the base colour that
///    minimises the block's squared error, alternating selectors and the least-squares base;
/// 2. endpoint clusters: the blocks' fitted colour lines (low and high texel colours, 6-D) split
///    in a tree (`TreeQuantizer`) into the codebook's size, each cluster then given the one
///    endpoint that minimises the error of all its blocks' texels;
/// 3. selector clusters: each block's best selectors under its cluster's endpoint, split the same
///    way, each cluster given per texel the selector that minimises its blocks' error;
/// 4. each block's endpoint chosen again among its own cluster and the ones whose endpoints its
///    fitted colour line is nearest, under its final selectors.
/// `qlevel` (1–255) sets the codebook sizes; `quality` how hard each pass searches.
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

    /// One image's blocks, gathered: 16 texels × RGB (bytes) a block, blocks row by row. An alpha
    /// slice holds the alpha channel in all three.
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
                            for c in 0..<3 { dst[block + t * 3 + c] = alpha ? src[s + 3] : src[s + c] }
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
        let size = Int((32 * pow2(Double(qlevel - 1) / 28)).rounded())
        return max(1, min(size, 16128, blocks))
    }

    static func pow2(_ x: Double) -> Double {
        var r = 1.0
        var e = x
        while e >= 1 {
            r *= 2
            e -= 1
        }
        // 2^e for e in [0, 1): a short series is exact enough for a size.
        let ln2 = 0.6931471805599453
        var term = 1.0
        var sum = 1.0
        for k in 1..<12 {
            term *= e * ln2 / Double(k)
            sum += term
        }
        return r * sum
    }

    /// Encodes every slice of a file against one pair of codebooks. Every per-block pass runs in
    /// bands of blocks across the cores `rows` lends, each band writing only its blocks' entries,
    /// and every per-cluster pass likewise by cluster: the bytes never depend on the cores.
    static func encode(
        _ slices: [Slice], qlevel: Int, quality: TextureSettings.Quality, rows: any RowScheduler = SerialRows()
    ) -> Encoded {
        let total = slices.reduce(0) { $0 + $1.blockCount }
        // All blocks in one array: slice after slice.
        var texels = [UInt8]()
        texels.reserveCapacity(total * 48)
        for s in slices { texels += s.texels }
        let iterations = quality == .fast ? 1 : quality == .medium ? 2 : 4
        let tableTrials = quality == .fast ? 2 : quality == .medium ? 3 : 8
        let refinements = quality == .fast ? 0 : quality == .medium ? 1 : 3
        return texels.withUnsafeBufferPointer { buffer in
            let t = buffer.baseAddress!
            // 1. Each block's own fit, and its colour line (low and high texel colours) to cluster.
            var lines = [SIMD8<Float>](repeating: SIMD8(), count: total)
            lines.withUnsafeMutableBufferPointer { out in
                bands(total, rows) { range in
                    for b in range {
                        let e = fit(t + b * 48, tables: tableTrials, iterations: iterations).endpoint
                        let c = e.color
                        let m = modifiers[Int(e.inten)]
                        for k in 0..<3 {
                            out[b][k] = Float(c[k] + m[0])
                            out[b][3 + k] = Float(c[k] + m[3])
                        }
                    }
                }
            }
            // 2. Endpoint clusters, each given the endpoint that suits all its blocks best.
            let size = codebookSize(qlevel: qlevel, blocks: total)
            let endpointTree = TreeQuantizer.clusters(lines, count: size, iterations: iterations)
            var blockEndpoint = endpointTree.assignment
            var endpoints = perCluster(groups(blockEndpoint, count: endpointTree.count), rows) { members in
                bestFit(t, blocks: members, tables: tableTrials, iterations: iterations).endpoint
            }
            // 3. Selector clusters from each block's best selectors under its endpoint.
            var features = [SIMD16<Float>](repeating: SIMD16(), count: total)
            features.withUnsafeMutableBufferPointer { out in
                blockEndpoint.withUnsafeBufferPointer { be in
                    bands(total, rows) { range in
                        for b in range {
                            let s = selectors(t + b * 48, endpoints[Int(be[b])])
                            for i in 0..<16 { out[b][i] = Float((s >> (2 * UInt32(i))) & 3) }
                        }
                    }
                }
            }
            let selectorTree = TreeQuantizer.clusters(features, count: size, iterations: iterations)
            var blockSelector = selectorTree.assignment
            var codebook = perCluster(groups(blockSelector, count: selectorTree.count), rows) { members in
                bestSelector(t, blocks: members, endpoints, blockEndpoint)
            }
            // 4. Refinement: each block's selector and endpoint chosen again among its cluster's and
            // the nearest clusters', each cluster's entry fitted again to the blocks it now has.
            if refinements > 0 {
                let nearEndpoints = endpointTree.neighbourTable()
                let nearSelectors = selectorTree.neighbourTable()
                for _ in 0..<refinements {
                    let e0 = endpoints
                    let be0 = blockEndpoint
                    let cb0 = codebook
                    reassign(
                        &blockSelector, total, rows, candidates: { nearSelectors[Int(selectorTree.assignment[$0])] }
                    ) {
                        b, k in error(t + b * 48, e0[Int(be0[b])], cb0[k])
                    }
                    let bs1 = blockSelector
                    codebook = perCluster(groups(bs1, count: codebook.count), rows) { members in
                        members.isEmpty ? 0 : bestSelector(t, blocks: members, e0, be0)
                    }
                    let cb1 = codebook
                    reassign(
                        &blockEndpoint, total, rows, candidates: { nearEndpoints[Int(endpointTree.assignment[$0])] }
                    ) {
                        b, k in error(t + b * 48, e0[k], cb1[Int(bs1[b])])
                    }
                    endpoints = perCluster(groups(blockEndpoint, count: endpoints.count), rows) { members in
                        members.isEmpty
                            ? Endpoint(r: 0, g: 0, b: 0, inten: 0)
                            : bestEndpoint(t, blocks: members, selectors: members.map { cb1[Int(bs1[$0])] })
                    }
                }
            }
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

    /// One entry per cluster, each from its members, clusters in bands.
    static func perCluster<T>(_ members: [[Int]], _ rows: any RowScheduler, _ entry: ([Int]) -> T) -> [T] {
        guard let first = members.first.map(entry) else { return [] }
        var out = [T](repeating: first, count: members.count)
        out.withUnsafeMutableBufferPointer { o in
            rows.forEachBand(rows: members.count, pixelsPerRow: 256) { range in
                for k in range { o[k] = entry(members[k]) }
            }
        }
        return out
    }

    /// Each block's index chosen again: its current one or a candidate, whichever costs least.
    static func reassign(
        _ index: inout [UInt16], _ n: Int, _ rows: any RowScheduler, candidates: (Int) -> [Int],
        _ cost: (Int, Int) -> Int32
    ) {
        index.withUnsafeMutableBufferPointer { out in
            bands(n, rows) { range in
                for b in range {
                    var best = Int(out[b])
                    var bestCost = cost(b, best)
                    for k in candidates(b) {
                        let c = cost(b, k)
                        if c < bestCost {
                            bestCost = c
                            best = k
                        }
                    }
                    out[b] = UInt16(best)
                }
            }
        }
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

    /// The four colours an endpoint decodes to, one lane per selector, channel by channel.
    struct Palette {
        var r: SIMD4<Int32>
        var g: SIMD4<Int32>
        var b: SIMD4<Int32>

        @inline(__always) init(_ e: Endpoint) {
            let m = ETC1S.modifiers[Int(e.inten)]
            let lo = SIMD4<Int32>(repeating: 0)
            let hi = SIMD4<Int32>(repeating: 255)
            r = (SIMD4(repeating: ETC1S.expand5(e.r)) &+ m).clamped(lowerBound: lo, upperBound: hi)
            g = (SIMD4(repeating: ETC1S.expand5(e.g)) &+ m).clamped(lowerBound: lo, upperBound: hi)
            b = (SIMD4(repeating: ETC1S.expand5(e.b)) &+ m).clamped(lowerBound: lo, upperBound: hi)
        }

        /// One texel's squared error under each selector.
        @inline(__always) func errors(_ p: UnsafePointer<UInt8>) -> SIMD4<Int32> {
            let dr = r &- Int32(p[0])
            let dg = g &- Int32(p[1])
            let db = b &- Int32(p[2])
            return dr &* dr &+ dg &* dg &+ db &* db
        }

        /// One texel's squared error under selector `s`.
        @inline(__always) func error(_ p: UnsafePointer<UInt8>, _ s: Int) -> Int32 {
            let dr = r[s] &- Int32(p[0])
            let dg = g[s] &- Int32(p[1])
            let db = b[s] &- Int32(p[2])
            return dr &* dr &+ dg &* dg &+ db &* db
        }
    }

    /// The lane of the least error (the first on ties) and that error.
    @inline(__always) static func least(_ e: SIMD4<Int32>) -> (selector: Int, error: Int32) {
        var s = 0
        var v = e[0]
        if e[1] < v { (s, v) = (1, e[1]) }
        if e[2] < v { (s, v) = (2, e[2]) }
        if e[3] < v { (s, v) = (3, e[3]) }
        return (s, v)
    }

    /// A block's best selectors under `endpoint`.
    static func selectors(_ block: UnsafePointer<UInt8>, _ endpoint: Endpoint) -> UInt32 {
        let pal = Palette(endpoint)
        var out: UInt32 = 0
        for t in 0..<16 { out |= UInt32(least(pal.errors(block + t * 3)).selector) << (2 * UInt32(t)) }
        return out
    }

    /// A block's squared error decoded with `endpoint` and `selector`.
    @inline(__always) static func error(_ block: UnsafePointer<UInt8>, _ endpoint: Endpoint, _ selector: UInt32)
        -> Int32
    {
        error(block, Palette(endpoint), selector)
    }

    @inline(__always) static func error(_ block: UnsafePointer<UInt8>, _ pal: Palette, _ selector: UInt32) -> Int32 {
        var e: Int32 = 0
        for t in 0..<16 { e &+= pal.error(block + t * 3, Int((selector >> (2 * UInt32(t))) & 3)) }
        return e
    }

    /// A block's own best fit over the `tables` intensity tables nearest its spread.
    static func fit(_ block: UnsafePointer<UInt8>, tables: Int, iterations: Int) -> Fit {
        bestFit(block, blocks: CollectionOfOne(0), tables: tables, iterations: iterations)
    }

    /// The endpoint that minimises the error of `blocks`' texels at the given selectors (one per
    /// block): for each table, the least-squares base (mean of texel − modifier) and its neighbours
    /// one step darker and lighter.
    static func bestEndpoint(_ texels: UnsafePointer<UInt8>, blocks: [Int], selectors: [UInt32]) -> Endpoint {
        var best = Endpoint(r: 0, g: 0, b: 0, inten: 0)
        var bestError = Int64.max
        var sum = SIMD3<Float>()
        // How often each selector is used: the modifiers' sum for any table.
        var uses = SIMD4<Int32>()
        for (k, b) in blocks.enumerated() {
            let s = selectors[k]
            for t in 0..<16 {
                let p = texels + b * 48 + t * 3
                sum += SIMD3(Float(p[0]), Float(p[1]), Float(p[2]))
                uses[Int((s >> (2 * UInt32(t))) & 3)] += 1
            }
        }
        let count = Float(blocks.count * 16)
        for table in 0..<8 {
            let shift = Float((uses &* modifiers[table]).wrappedSum())
            let target = (sum - SIMD3(repeating: shift)) / count
            let base = Endpoint(
                r: quantize5(target.x), g: quantize5(target.y), b: quantize5(target.z), inten: UInt8(table))
            for d in -1...1 {
                let r = Int(base.r) + d
                let g = Int(base.g) + d
                let bl = Int(base.b) + d
                guard (0...31).contains(r), (0...31).contains(g), (0...31).contains(bl) else { continue }
                let e = Endpoint(r: UInt8(r), g: UInt8(g), b: UInt8(bl), inten: UInt8(table))
                let pal = Palette(e)
                var err: Int64 = 0
                for (k, b) in blocks.enumerated() {
                    err += Int64(error(texels + b * 48, pal, selectors[k]))
                    if err >= bestError { break }
                }
                if err < bestError {
                    bestError = err
                    best = e
                }
            }
        }
        return best
    }

    /// For each table: from the texels' mean, alternate the best selectors and the least-squares
    /// base colour (the mean of texel − modifier), quantised to 5 bits; the base and its
    /// neighbours one step darker and lighter are tried at the end.
    static func bestFit(
        _ texels: UnsafePointer<UInt8>, blocks: some Collection<Int>, tables: Int, iterations: Int
    ) -> Fit {
        var sum = SIMD3<Float>()
        for b in blocks {
            for t in 0..<16 {
                let p = texels + b * 48 + t * 3
                sum += SIMD3(Float(p[0]), Float(p[1]), Float(p[2]))
            }
        }
        let count = Float(blocks.count * 16)
        let mean = sum / count
        // The tables whose ±b is nearest the texels' largest distance from their mean (in grey).
        var spread: Float = 0
        let grey = (mean.x + mean.y + mean.z) / 3
        for b in blocks {
            for t in 0..<16 {
                let p = texels + b * 48 + t * 3
                spread = max(spread, abs((Float(p[0]) + Float(p[1]) + Float(p[2])) / 3 - grey))
            }
        }
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
        // The error of every texel at its best selector, and the least-squares base for those.
        func total(_ e: Endpoint) -> (Int64, SIMD3<Float>) {
            let pal = Palette(e)
            let m = modifiers[Int(e.inten)]
            var err: Int64 = 0
            var shift: Int32 = 0
            for b in blocks {
                for t in 0..<16 {
                    let (s, te) = least(pal.errors(texels + b * 48 + t * 3))
                    err &+= Int64(te)
                    shift &+= m[s]
                }
            }
            return (err, (sum - SIMD3(repeating: Float(shift))) / count)
        }
        for k in 0..<tables {
            let table = UInt8(order[k])
            var e = Endpoint(r: quantize5(mean.x), g: quantize5(mean.y), b: quantize5(mean.z), inten: table)
            var (err, target) = total(e)
            for _ in 0..<iterations {
                let next = Endpoint(
                    r: quantize5(target.x), g: quantize5(target.y), b: quantize5(target.z), inten: table)
                if next == e { break }
                let (nextErr, nextTarget) = total(next)
                if nextErr >= err { break }
                (e, err, target) = (next, nextErr, nextTarget)
            }
            if err < best.error { best = Fit(endpoint: e, error: err) }
        }
        // One step darker or lighter on every channel.
        let base = best.endpoint
        for d in [-1, 1] {
            let r = Int(base.r) + d
            let g = Int(base.g) + d
            let b = Int(base.b) + d
            guard (0...31).contains(r), (0...31).contains(g), (0...31).contains(b) else { continue }
            let e = Endpoint(r: UInt8(r), g: UInt8(g), b: UInt8(b), inten: base.inten)
            let (err, _) = total(e)
            if err < best.error { best = Fit(endpoint: e, error: err) }
        }
        return best
    }

    /// The selector codeword that minimises the error of `blocks`, each under its own endpoint:
    /// per texel, the selector with the least error summed over the blocks.
    static func bestSelector(
        _ texels: UnsafePointer<UInt8>, blocks: [Int], _ endpoints: [Endpoint], _ blockEndpoint: [UInt16]
    ) -> UInt32 {
        // Per texel, 64-bit sums: a cluster may hold every block of a large image.
        var sums = [SIMD4<Int64>](repeating: SIMD4(), count: 16)
        for b in blocks {
            let pal = Palette(endpoints[Int(blockEndpoint[b])])
            for t in 0..<16 { sums[t] &+= SIMD4<Int64>(truncatingIfNeeded: pal.errors(texels + b * 48 + t * 3)) }
        }
        var out: UInt32 = 0
        for t in 0..<16 {
            let e = sums[t]
            var s = 0
            for k in 1..<4 where e[k] < e[s] { s = k }
            out |= UInt32(s) << (2 * UInt32(t))
        }
        return out
    }
}

/// Tree-structured vector quantisation: the cluster with the largest squared error is split in
/// two (2-means from its two mutually farthest members) until there are `count` clusters or none
/// can split. Deterministic: no random start, ties broken by index. Vectors are SIMD lanes (unused
/// lanes zero), so each distance is a few vector instructions.
enum TreeQuantizer {
    struct Result<V: SIMD> where V.Scalar == Float {
        /// Each vector's cluster.
        var assignment: [UInt16]
        var centroids: [V]
        var count: Int { centroids.count }

        /// For every cluster, up to eight others whose centroids are nearest its own: searched among
        /// the 48 clusters nearest it along the centroids' sum of components (a window in that
        /// order), so the table costs O(count), not O(count²), at 16,128 entries.
        func neighbourTable() -> [[Int]] {
            let sums = centroids.map { $0.sum() }
            let order = (0..<count).sorted { sums[$0] < sums[$1] || (sums[$0] == sums[$1] && $0 < $1) }
            var position = [Int](repeating: 0, count: count)
            for (p, k) in order.enumerated() { position[k] = p }
            return (0..<count).map { k in
                let p = position[k]
                var near: [(Float, Int)] = []
                for q in max(0, p - 24)..<min(count, p + 25) where q != p {
                    near.append((TreeQuantizer.distance(centroids[k], centroids[order[q]]), order[q]))
                }
                near.sort { $0.0 < $1.0 || ($0.0 == $1.0 && $0.1 < $1.1) }
                return near.prefix(8).map(\.1)
            }
        }
    }

    @inline(__always) static func distance<V: SIMD>(_ a: V, _ b: V) -> Float where V.Scalar == Float {
        let x = a - b
        return (x * x).sum()
    }

    static func clusters<V: SIMD>(_ vectors: [V], count: Int, iterations: Int) -> Result<V> where V.Scalar == Float {
        let n = vectors.count
        return vectors.withUnsafeBufferPointer { p in
            var members: [[Int32]] = [(0..<Int32(n)).map { $0 }]
            var sum = V()
            var squares: Float = 0
            for x in p {
                sum += x
                squares += (x * x).sum()
            }
            let c = sum / Float(max(1, n))
            var centroids: [V] = [c]
            var errors: [Float] = [squares - Float(n) * (c * c).sum()]
            var splittable: [Bool] = [n > 1]
            while members.count < count {
                var pick = -1
                for k in 0..<members.count where splittable[k] && errors[k] > 0 {
                    if pick < 0 || errors[k] > errors[pick] { pick = k }
                }
                guard pick >= 0 else { break }
                guard let s = split(p, members[pick], centroids[pick], iterations: iterations + 1) else {
                    splittable[pick] = false
                    continue
                }
                (members[pick], centroids[pick], errors[pick]) = (s.a, s.ca, s.ea)
                splittable[pick] = s.a.count > 1
                members.append(s.b)
                centroids.append(s.cb)
                errors.append(s.eb)
                splittable.append(s.b.count > 1)
            }
            var assignment = [UInt16](repeating: 0, count: n)
            for (k, m) in members.enumerated() { for v in m { assignment[Int(v)] = UInt16(k) } }
            return Result(assignment: assignment, centroids: centroids)
        }
    }

    /// Two halves by 2-means with their centroids and squared errors, or nil when every member is
    /// the same vector.
    static func split<V: SIMD>(
        _ p: UnsafeBufferPointer<V>, _ members: [Int32], _ centroid: V, iterations: Int
    ) -> (a: [Int32], b: [Int32], ca: V, cb: V, ea: Float, eb: Float)? where V.Scalar == Float {
        var far = Int(members[0])
        var farD: Float = -1
        for m in members {
            let d = distance(p[Int(m)], centroid)
            if d > farD { (far, farD) = (Int(m), d) }
        }
        var c1 = p[far]
        var other = far
        var otherD: Float = -1
        for m in members {
            let d = distance(p[Int(m)], c1)
            if d > otherD { (other, otherD) = (Int(m), d) }
        }
        guard otherD > 0 else { return nil }
        var c2 = p[other]
        var a: [Int32] = []
        var b: [Int32] = []
        a.reserveCapacity(members.count)
        b.reserveCapacity(members.count)
        var (qa, qb): (Float, Float) = (0, 0)
        for _ in 0..<iterations {
            a.removeAll(keepingCapacity: true)
            b.removeAll(keepingCapacity: true)
            var (sa, sb) = (V(), V())
            (qa, qb) = (0, 0)
            for m in members {
                let x = p[Int(m)]
                if distance(x, c1) <= distance(x, c2) {
                    a.append(m)
                    sa += x
                    qa += (x * x).sum()
                } else {
                    b.append(m)
                    sb += x
                    qb += (x * x).sum()
                }
            }
            guard !a.isEmpty, !b.isEmpty else { return nil }
            c1 = sa / Float(a.count)
            c2 = sb / Float(b.count)
        }
        return (
            a, b, c1, c2, max(0, qa - Float(a.count) * (c1 * c1).sum()), max(0, qb - Float(b.count) * (c2 * c2).sum())
        )
    }
}
