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
/// 2. endpoint clusters: the blocks' fitted colour lines (low and high decoded colours, 6-D) split
///    in a tree (`TreeQuantizer`) into the codebook's size, each cluster then given the one
///    endpoint that minimises the error of all its blocks' texels (its least squares leaving out
///    the texels an entry clamps at 0 or 255, which a base moved a little leaves where they are);
/// 3. selector clusters: each block's best selectors under its cluster's endpoint, split the same
///    way with each block weighed by its palette's contrast (`selectorWeight`), each cluster given
///    per texel the selector that minimises its blocks' error;
/// 4. refinement: each block's selector, then its endpoint, chosen again among its own cluster's
///    and the nearest clusters' (`neighbours`: found around it in the tree's order), and each entry
///    fitted again to its blocks; equal entries then merged (`mergeDuplicates`);
/// 5. in the decoder's order, a block takes a neighbour's endpoint or a selector from the
///    decoder's history when that costs less error than `rateWeight` per bit saved (`economise`),
///    then each selector entry is fitted again to the blocks that now use it;
/// 6. entries no block uses dropped (`dropUnused`), the endpoint codebook ordered so that the
///    deltas BasisLZ codes are small (`reorder`), and the selector codebook so that its entries'
///    XOR deltas are mostly zero bytes (`reorderSelectors`).
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

    /// A block's weight in the selector clustering: how far apart its palette's outer entries are
    /// (squared, summed over the channels, clamped as decoded) in steps of 300, at least 1. A
    /// selector that differs costs a block about that much per texel, so clusters are split where
    /// selectors matter — an edge of high contrast — rather than among flat blocks whose selectors
    /// hardly change a texel. (basisu weighs its selector clustering the same way.) Whole numbers:
    /// the clustering's sums of weights stay exact.
    @inline(__always) static func selectorWeight(_ p: Palette) -> Float {
        let d = SIMD3(p.r[3] - p.r[0], p.g[3] - p.g[0], p.b[3] - p.b[0])
        return max(1, ((d * d).sum() / 300).rounded(.down))
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
                // Every table for a cluster's fit: it searches 64 of the cluster's blocks, so the
                // five more cost 3 % of the time, for +0.1 to +0.3 dB per image (a 512² texture of
                // few colours +2.2 dB at qlevel 255).
                case .medium: (2, 8, 1, 2, 8, 16)
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
    ///
    /// `lines`, when given, are pass 1's colour lines of every block (`lines(of:)`), which no
    /// `qlevel` changes: a quality target's search makes them once per slice.
    static func encode(
        _ slices: consuming [Slice], qlevel: Int, quality: TextureSettings.Quality,
        rows: any RowScheduler = SerialRows(), lines known: [SIMD8<Float>]? = nil
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
                let lines = known ?? Self.lines(t, total, effort, rows)
                // 2. Endpoint clusters, each given the endpoint that suits all its blocks best.
                endpointTree = TreeQuantizer.clusters(
                    consume lines, count: size, iterations: effort.iterations, rows: rows)
            }
            var blockEndpoint = endpointTree.assignment
            var endpoints = perCluster(groups(blockEndpoint, count: endpointTree.count), rows) { _, members in
                bestFit(
                    t, members: members, tables: effort.tables, iterations: effort.iterations, sample: 64, clamp: true
                ).endpoint
            }
            // 3. Selector clusters from each block's best selectors under its endpoint.
            var palettes = endpoints.map(Palette.init)
            let selectorTree: TreeQuantizer.Result<SIMD16<Float>>
            do {
                var features = [SIMD16<Float>](repeating: SIMD16(), count: total)
                var weights = [Float](repeating: 0, count: total)
                features.withUnsafeMutableBufferPointer { out in
                    weights.withUnsafeMutableBufferPointer { weight in
                        bands(total, rows) { range in
                            for b in range {
                                let p = palettes[Int(blockEndpoint[b])]
                                let s = selectors(Texels(t + b * 48), p)
                                out[b] = SIMD16<Float>(small: Selection.lanes(s))
                                weight[b] = selectorWeight(p)
                            }
                        }
                    }
                }
                selectorTree = TreeQuantizer.clusters(
                    consume features, weights: consume weights, count: size, iterations: effort.iterations,
                    rows: rows)
            }
            var blockSelector = selectorTree.assignment
            var codebook = perCluster(groups(blockSelector, count: selectorTree.count), rows) { _, members in
                bestSelector(t, blocks: members, palettes, blockEndpoint)
            }
            // 4. Refinement: each block's selector and endpoint chosen again among its cluster's and
            // the nearest clusters', each cluster's entry fitted again to the blocks it now has.
            if effort.refinements > 0 {
                refine(
                    t, total: total, effort: effort, rows: rows,
                    near: (
                        neighbours(endpointTree, blocks: total, effort, rows),
                        neighbours(selectorTree, blocks: total, effort, rows)
                    ),
                    clustered: (endpointTree.assignment, selectorTree.assignment), blockEndpoint: &blockEndpoint,
                    blockSelector: &blockSelector, endpoints: &endpoints, codebook: &codebook, palettes: &palettes)
            }
            // Equal entries merged (the rate pass then sees each endpoint and selector once).
            mergeDuplicates(endpoints, &blockEndpoint)
            mergeDuplicates(codebook, &blockSelector)
            dropUnused(&endpoints, &blockEndpoint)
            dropUnused(&codebook, &blockSelector)
            palettes = endpoints.map(Palette.init)
            if effort.history > 0 {
                economise(
                    t, slices, endpoints: endpoints, selectors: codebook, blockEndpoint: &blockEndpoint,
                    blockSelector: &blockSelector, depth: effort.history, lambda: lambda)
                // The rate moved blocks to other selectors: each entry fitted again to the blocks
                // that now use it (the old entry is one of the choices, so no error grows; the
                // blocks' indices stay, only the codebook's bytes may move a little).
                codebook = fitSelectors(t, codebook, blockSelector, palettes: palettes, blockEndpoint, rows)
            }
            // The refit may have made two selector entries equal: merged. Entries no block uses any
            // more (the refinement and the rate moved their blocks away: up to two fifths of a
            // small texture's selectors) cost the codebook's bytes and give nothing: dropped.
            mergeDuplicates(codebook, &blockSelector)
            dropUnused(&endpoints, &blockEndpoint)
            dropUnused(&codebook, &blockSelector)
            reorder(&endpoints, &blockEndpoint, slices)
            reorderSelectors(&codebook, &blockSelector)
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

    /// The refinement's candidates for each cluster of `tree`: its `effort.near` nearest, times
    /// the texture's blocks in units of 2¹⁶ (1024²) between 1 and 4 — twice at 2048 × 1024, four
    /// times at 2048² — among the 4 × that many around it in the tree's order (at least 64). Each
    /// cluster of a large texture serves more blocks: on a 2048² terrain texture 32 instead of 8
    /// gave 0.3 dB more at 0.6 % more bytes, where over the corpus (up to 1024²) 32 gave
    /// 0.00–0.15 dB per size class for 11.7 % more time.
    static func neighbours<V: FloatLanes>(
        _ tree: TreeQuantizer.Result<V>, blocks: Int, _ effort: Effort, _ rows: any RowScheduler
    ) -> [[Int]] {
        let k = effort.near * max(1, min(4, blocks >> 16))
        return tree.neighbourTable(k, window: max(64, 4 * k), rows: rows)
    }

    /// Pass 1 of `encode` for `slice` alone: each block's own fit as a colour line (low and high
    /// texel colours), at `quality`'s effort. The same values `encode` makes for the slice's blocks.
    static func lines(of slice: Slice, quality: TextureSettings.Quality, rows: any RowScheduler) -> [SIMD8<Float>] {
        slice.texels.withUnsafeBufferPointer { lines($0.baseAddress!, slice.blockCount, Effort(quality), rows) }
    }

    /// Pass 1 over `total` gathered blocks at `t`.
    static func lines(_ t: UnsafePointer<UInt8>, _ total: Int, _ effort: Effort, _ rows: any RowScheduler)
        -> [SIMD8<Float>]
    {
        var lines = [SIMD8<Float>](repeating: SIMD8(), count: total)
        lines.withUnsafeMutableBufferPointer { out in
            bands(total, rows) { range in
                for b in range {
                    let e = bestFit(
                        CollectionOfOne(Texels(t + b * 48)), tables: effort.blockTables, iterations: effort.iterations
                    ).endpoint
                    let c = SIMD3<Float>(e.color)
                    let m = modifiers[Int(e.inten)]
                    // The colours the fit decodes to (clamped, as the decoder does): two blocks that
                    // decode alike are near each other even where one's table reaches below black.
                    let lo = (c + Float(m[0])).clamped(
                        lowerBound: SIMD3(repeating: 0), upperBound: SIMD3(repeating: 255))
                    let hi = (c + Float(m[3])).clamped(
                        lowerBound: SIMD3(repeating: 0), upperBound: SIMD3(repeating: 255))
                    out[b] = SIMD8(lo.x, lo.y, lo.z, hi.x, hi.y, hi.z, 0, 0)
                }
            }
        }
        return lines
    }

    /// Pass 4 of `encode`, `effort.refinements` times: each block's selector chosen again among
    /// its selector cluster's and the nearest clusters' (`near`, by the block's first clustering,
    /// `clustered`), each selector entry fitted again to its blocks; then each block's endpoint
    /// likewise, and each endpoint entry fitted again.
    static func refine(
        _ t: UnsafePointer<UInt8>, total: Int, effort: Effort, rows: any RowScheduler,
        near: (endpoints: [[Int]], selectors: [[Int]]), clustered: (endpoints: [UInt16], selectors: [UInt16]),
        blockEndpoint: inout [UInt16], blockSelector: inout [UInt16], endpoints: inout [Endpoint],
        codebook: inout [UInt32], palettes: inout [Palette]
    ) {
        for _ in 0..<effort.refinements {
            let be = blockEndpoint
            let p0 = palettes
            let cb0 = codebook
            let selections = codebook.map(Selection.init)
            blockSelector.withUnsafeMutableBufferPointer { out in
                bands(total, rows) { range in
                    for b in range {
                        let costs = Costs(Texels(t + b * 48), p0[Int(be[b])])
                        out[b] = UInt16(
                            least(Int(out[b]), near.selectors[Int(clustered.selectors[b])]) {
                                costs.error(selections[$0])
                            })
                    }
                }
            }
            let bs = blockSelector
            codebook = fitSelectors(t, cb0, bs, palettes: p0, be, rows)
            let cb1 = codebook
            blockEndpoint.withUnsafeMutableBufferPointer { out in
                bands(total, rows) { range in
                    for b in range {
                        let moments = Moments(Texels(t + b * 48), Selection(cb1[Int(bs[b])]))
                        out[b] = UInt16(
                            least(Int(out[b]), near.endpoints[Int(clustered.endpoints[b])]) {
                                moments.error(p0[$0])
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

    /// Each selector entry fitted again to the blocks that use it (`bestSelector`); an entry no
    /// block uses kept as it is.
    static func fitSelectors(
        _ t: UnsafePointer<UInt8>, _ codebook: [UInt32], _ blockSelector: [UInt16], palettes: [Palette],
        _ blockEndpoint: [UInt16], _ rows: any RowScheduler
    ) -> [UInt32] {
        perCluster(groups(blockSelector, count: codebook.count), rows) { k, members in
            members.isEmpty ? codebook[k] : bestSelector(t, blocks: members, palettes, blockEndpoint)
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
}
