internal import Foundation
internal import TexPipeFormats
internal import TexPipeMeasures
internal import TexPipePixels

/// Rate-distortion optimisation of one level's BC1, BC3, BC7 or UASTC blocks (docs/gpu-textures.md
/// "Smaller downloads"): the blocks stay valid for every decoder, but a block whose bytes can
/// repeat bytes of a block just before it — at a small cost in error — is made to, so that an LZ
/// compressor (KTX2's zstd, a game's Deflate) stores a short match instead of literals.
///
/// A pass over the encoder's blocks in raster order, in fixed slices of `sliceBlocks` blocks that
/// are independent of each other (so they run on any number of cores with the same bytes). Each
/// block's part — BC1's color block; BC3's alpha block and its color block; a BC7 block — is
/// chosen among:
/// - itself, as encoded (all literals);
/// - a whole copy of the same part of one of the `window` blocks before it, or for BC7 of the
///   three blocks above it (one match);
/// - its own endpoints with the indices of such a block (the index bytes one match): BC7 only
///   when both are of one mode, the bytes that hold nothing but indices;
/// - that block's indices with endpoints fitted to them by least squares (for BC7, the
///   least costly of the previous kind refitted: `BC7.refit`);
/// - for color blocks, such a block's endpoints with the best indices for them; for BC7, the
///   mode, partition and endpoints of the two blocks to the left, the three above and the last
///   match's block (each set once) with indices for them (`BC7.reindexed`): the bytes before
///   the indices one match.
/// A BC7 candidate's rate counts the runs of bytes it shares with the block it copies from,
/// wherever they lie in the block, as matches (`bits`).
/// A UASTC block is chosen among itself and whole copies (its transcoding hints belong to its
/// endpoints and weights, so only a whole block keeps them true).
///
/// It keeps the candidate of least D + λ·R: D the squared error over the texels inside the image
/// (8-bit units, over the channels the part stores), R an estimate of its bits after LZ — 8 per
/// literal byte, 24 per match, 8 for a match at the distance the part's previous match used
/// (zstd's repeat offsets); a block as it is that repeats any part written before it in the
/// slice is one match too. `maxLoss` searches `lambdas` for the largest λ whose PSNR (RGB, and
/// alpha on its own) loses at most that many dB against the blocks without RDO: on one slice in
/// eight, then the rest at the λ found, checked on the whole level (`searched`). Where zstd would
/// store the result in more bytes than the blocks without, the blocks stay as they were
/// (`shrinks`).
enum RDO {
    /// Blocks looked back.
    static let window = 16
    /// Blocks per slice: slices are optimised independently.
    static let sliceBlocks = 1024
    /// The λ that `maxLoss` chooses among (bits valued in squared 8-bit error).
    /// 2^(k/2) for k = −12 … 20: 1/64 … 1024 in steps of √2. The small ones are for levels the
    /// encoder stores almost exactly (a smooth sky at 55 dB loses more than 1 dB at λ 1/4).
    static let lambdas: [Double] = (-12...20).map { pow(2, Double($0) / 2) }

    typealias V16 = SIMD16<Int32>

    /// The block formats it optimises.
    enum Kind: Equatable {
        case bc(BCVariant)
        case uastc

        var format: TextureSettings.Format {
            switch self {
            case .bc(let v): v.format
            case .uastc: .uastc
            }
        }
    }

    /// The blocks as they are without a setting, else optimised.
    static func applied(
        _ setting: TextureSettings.RDO?, to blocks: [UInt8], _ rgba: [UInt8], width: Int, height: Int,
        kind: Kind, rows: any RowScheduler
    ) -> [UInt8] {
        guard let setting else { return blocks }
        return optimized(blocks, rgba, width: width, height: height, kind: kind, setting, rows: rows)
    }

    /// The blocks with `setting` applied.
    static func optimized(
        _ blocks: [UInt8], _ rgba: [UInt8], width: Int, height: Int, kind: Kind,
        _ setting: TextureSettings.RDO, rows: any RowScheduler
    ) -> [UInt8] {
        let optimised: [UInt8]
        switch setting {
        case .lambda(let lambda):
            guard lambda > 0 else { return blocks }
            optimised = pass(blocks, rgba, width, height, kind, lambda, rows).blocks
        case .maxLoss(let dB):
            optimised =
                searched(blocks, rgba, width: width, height: height, kind: kind, maxLoss: dB, rows: rows).blocks
        }
        return shrinks(optimised, blocks) ? optimised : blocks
    }

    /// zstd's level for the final measure: fast, and ranks like level 19 where it matters.
    static let measureLevel = 3

    /// Whether zstd stores the optimised blocks in fewer bytes than the blocks without: the rate
    /// is only estimated, and slices are optimised apart, so on a level whose blocks repeat far
    /// away (a tiled pattern) the estimate can be wrong; there the blocks stay as they were.
    static func shrinks(_ optimised: [UInt8], _ plain: [UInt8]) -> Bool {
        if optimised == plain { return false }
        guard let a = try? Zstd.compress(optimised, level: measureLevel),
            let b = try? Zstd.compress(plain, level: measureLevel)
        else { return true }
        return a.count < b.count
    }

    /// One slice in `sampleStride` (the middle one of each run of that many: `sampled`) is what
    /// `maxLoss`'s search measures; the other slices are optimised once, at the λ found.
    static let sampleStride = 8

    /// `maxLoss`: the largest λ of `lambdas` whose loss stays within `dB`. A bisection over the
    /// list (the loss grows with λ) measured on a sample of the slices — each slice is optimised
    /// on its own, so a sampled slice's blocks and errors are exactly those of a whole pass —, then
    /// the other slices at the λ found; where the whole level then loses more than `dB` (the
    /// sample was kinder than the rest), one step below in a whole pass (it mostly holds; on the
    /// corpus at `maxLoss` 1 a third of BC1's images got here, and a whole bisection for each
    /// cost more than the rest of the search), else the bisection below that.
    /// Deterministic: the sample is fixed by the level's size. Returns the blocks and the λ they
    /// were optimised with (nil: none held, the blocks as given).
    static func searched(
        _ blocks: [UInt8], _ rgba: [UInt8], width: Int, height: Int, kind: Kind, maxLoss dB: Double,
        rows: any RowScheduler, sampleStride: Int = sampleStride
    ) -> (blocks: [UInt8], lambda: Double?) {
        let count = ((width + 3) / 4) * ((height + 3) / 4)
        let slices = Self.slices(count)
        let sample = sampled(slices, stride: sampleStride)
        let texels = width * height
        var sampledTexels = 0
        for s in sample {
            let first = s * sliceBlocks
            let last = min(count, first + sliceBlocks)
            sampledTexels += texelsInside(first..<last, width: width, height: height)
        }
        let onSample = bisect(below: lambdas.count) { lambda in
            let p = pass(blocks, rgba, width, height, kind, lambda, rows, slices: sample)
            return loss(p, kind: kind, texels: sampledTexels) <= dB ? p : nil
        }
        guard let (first, at) = onSample else { return (blocks, nil) }
        var p = first
        if sample.count == slices { return (p.blocks, lambdas[at]) }
        // The rest of the slices at the same λ, on the sample's blocks.
        let rest = (0..<slices).filter { !sample.contains($0) }
        let more = pass(p.blocks, rgba, width, height, kind, lambdas[at], rows, slices: rest)
        p = Pass(blocks: more.blocks, errors: p.errors &+ more.errors, base: p.base &+ more.base)
        if loss(p, kind: kind, texels: texels) <= dB { return (p.blocks, lambdas[at]) }
        // The sample was kinder than the level: one step below, else the bisection below that.
        func tries(_ lambda: Double) -> Pass? {
            let p = pass(blocks, rgba, width, height, kind, lambda, rows)
            return loss(p, kind: kind, texels: texels) <= dB ? p : nil
        }
        if at > 0, let p = tries(lambdas[at - 1]) { return (p.blocks, lambdas[at - 1]) }
        let whole = bisect(below: max(0, at - 1), tries)
        guard let (w, found) = whole else { return (blocks, nil) }
        return (w.blocks, lambdas[found])
    }

    /// The slices `maxLoss`'s search measures: one in `stride`, the middle one of each run of
    /// that many (the middle one of all where there are fewer).
    static func sampled(_ slices: Int, stride: Int) -> [Int] {
        Array(Swift.stride(from: min(stride / 2, slices / 2), to: slices, by: stride))
    }

    /// The largest index of `lambdas` below `limit` whose pass `tries` accepts (a pass, or nil
    /// where it loses too much), by bisection (losses grow with λ), with that pass.
    static func bisect(below limit: Int, _ tries: (Double) -> Pass?) -> (Pass, Int)? {
        var (lo, hi) = (-1, limit)
        var found: Pass?
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if let p = tries(lambdas[mid]) {
                (lo, found) = (mid, p)
            } else {
                hi = mid
            }
        }
        return found.map { ($0, lo) }
    }

    /// How many slices `count` blocks make.
    static func slices(_ count: Int) -> Int { (count + sliceBlocks - 1) / sliceBlocks }

    /// Texels inside the image of the blocks `range` (raster order).
    static func texelsInside(_ range: Range<Int>, width: Int, height: Int) -> Int {
        let bw = (width + 3) / 4
        var n = 0
        for i in range {
            let (bx, by) = (i % bw, i / bw)
            n += min(4, width - 4 * bx) * min(4, height - 4 * by)
        }
        return n
    }

    /// One pass: the optimised blocks, and the squared errors (RGB, alpha) of them and of the
    /// blocks given, over the texels inside the image.
    struct Pass {
        var blocks: [UInt8]
        var errors: SIMD2<Int64>
        var base: SIMD2<Int64>
    }

    /// How much PSNR a pass loses against the blocks without RDO: RGB, or alpha on its own where
    /// the format stores it, whichever loses more (dB, as the `check` gates measure).
    static func loss(_ p: Pass, kind: Kind, texels: Int) -> Double {
        let channels = kind.format.info.channels
        let rgb =
            Quality.psnr(sum: p.base[0], samples: 3 * texels) - Quality.psnr(sum: p.errors[0], samples: 3 * texels)
        guard channels == .rgba else { return rgb }
        return max(rgb, Quality.psnr(sum: p.base[1], samples: texels) - Quality.psnr(sum: p.errors[1], samples: texels))
    }

    /// The parts of a block: BC1 one color block; BC3 an alpha block, then a color block; BC7
    /// and UASTC one block.
    enum Part {
        case color(offset: Int, threeColor: Bool)
        case alpha(offset: Int)
        case bc7
        case uastc
    }

    static func parts(_ kind: Kind) -> [Part] {
        switch kind {
        case .bc(.bc1): [.color(offset: 0, threeColor: true)]
        case .bc(.bc3): [.alpha(offset: 0), .color(offset: 8, threeColor: false)]
        case .bc(.bc7): [.bc7]
        case .bc(.bc4), .bc(.bc5): []
        case .uastc: [.uastc]
        }
    }

    /// Bytes of a BC7 block, per mode, that hold nothing but indices (the top of the block).
    static let bc7IndexBytes: [Int] = BC7.modes.map { m in
        let bits = 16 * m.indexBits - m.subsets + (m.index2Bits > 0 ? 16 * m.index2Bits - 1 : 0)
        return bits / 8
    }

    /// One pass at `lambda` over the slices listed (nil: every slice); the other slices' blocks
    /// stay as given and count in neither error.
    static func pass(
        _ blocks: [UInt8], _ rgba: [UInt8], _ width: Int, _ height: Int, _ kind: Kind, _ lambda: Double,
        _ rows: any RowScheduler, slices listed: [Int]? = nil
    ) -> Pass {
        let bw = (width + 3) / 4
        let bh = (height + 3) / 4
        let count = bw * bh
        let size = kind.format.info.blockBytes
        let list = listed ?? Array(0..<slices(count))
        var out = blocks
        var sums = [SIMD2<Int64>](repeating: .zero, count: 2 * list.count)
        let parts = Self.parts(kind)
        out.withUnsafeMutableBufferPointer { dst in
            rgba.withUnsafeBufferPointer { src in
                sums.withUnsafeMutableBufferPointer { sums in
                    list.withUnsafeBufferPointer { list in
                        rows.forEachBand(rows: list.count, pixelsPerRow: sliceBlocks * 16) { band in
                            // BC7's refits run its fit (see `BC7.withDenormalsFlushed`).
                            BC7.withDenormalsFlushed(kind == .bc(.bc7)) {
                                for j in band {
                                    let s = list[j]
                                    let (e, b) = slice(
                                        s * sliceBlocks..<min(count, (s + 1) * sliceBlocks), dst.baseAddress!, src,
                                        bw: bw, width: width, height: height, size: size, parts: parts, lambda: lambda)
                                    sums[2 * j] = e
                                    sums[2 * j + 1] = b
                                }
                            }
                        }
                    }
                }
            }
        }
        var errors = SIMD2<Int64>.zero
        var base = SIMD2<Int64>.zero
        for j in 0..<list.count {
            errors &+= sums[2 * j]
            base &+= sums[2 * j + 1]
        }
        return Pass(blocks: out, errors: errors, base: base)
    }

    /// A part's bytes as a 128-bit value (a BC1, BC3 half is 8 bytes: the low 64 bits).
    @inline(__always) static func load(_ p: UnsafePointer<UInt8>, _ n: Int) -> UInt128 {
        n == 16
            ? UInt128(UnsafeRawPointer(p).loadUnaligned(as: UInt64.self))
                | UInt128(UnsafeRawPointer(p + 8).loadUnaligned(as: UInt64.self)) &<< 64
            : UInt128(UnsafeRawPointer(p).loadUnaligned(as: UInt64.self))
    }

    @inline(__always) static func store(_ v: UInt128, _ p: UnsafeMutablePointer<UInt8>, _ n: Int) {
        UnsafeMutableRawPointer(p).storeBytes(of: UInt64(truncatingIfNeeded: v), as: UInt64.self)
        if n == 16 {
            UnsafeMutableRawPointer(p + 8).storeBytes(of: UInt64(truncatingIfNeeded: v &>> 64), as: UInt64.self)
        }
    }

    /// One slice, in place: each block's parts in turn (`PartSearch`). Returns the squared errors
    /// (RGB, alpha) of the chosen blocks and of the blocks as they came.
    static func slice(
        _ range: Range<Int>, _ dst: UnsafeMutablePointer<UInt8>, _ src: UnsafeBufferPointer<UInt8>, bw: Int,
        width: Int, height: Int, size: Int, parts: [Part], lambda: Double
    ) -> (SIMD2<Int64>, SIMD2<Int64>) {
        var errors = SIMD2<Int64>.zero
        var base = SIMD2<Int64>.zero
        // Per part, the distance (in blocks) of its last match; 0: none.
        var lastDistance = (0, 0)
        // The parts written so far in the slice: a part that repeats one of them, however far
        // back, is a match to the LZ stage too (an atlas's repeated tiles, the row above).
        var written = Written(capacity: range.count * parts.count)
        // BC7 and UASTC: the decoded texels of the last `window` + 1 blocks as written, so that a
        // whole copy of one is measured without decoding it again.
        let ring = window + 1
        let refits = parts.contains { if case .bc7 = $0 { true } else { false } }
        // The distances looked back: the `window` blocks before, and for BC7 the three above
        // (BC1's and BC3's candidates are costlier to fit: 2 % smaller for a tenth more time).
        let distances = Array(1...window) + (refits ? [bw - 1, bw, bw + 1].filter { $0 > window } : [])
        var seen = Seen(distances: distances.count)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64 + 16 + 64 * ring) { scratch in
            let scratch = Scratch(texels: scratch.baseAddress!, ring: ring, first: range.lowerBound)
            for i in range {
                let block = SearchBlock(
                    i, src, bw: bw, width: width, height: height, refits: refits, dst: dst, size: size)
                for (k, part) in parts.enumerated() {
                    var search = PartSearch(
                        part, block, scratch, lambda: lambda, previous: k == 0 ? lastDistance.0 : lastDistance.1,
                        written: written)
                    base &+= SIMD2<Int64>(truncatingIfNeeded: search.best.error)
                    search.lookBack(distances, seen: &seen)
                    search.keep(&written)
                    errors &+= SIMD2<Int64>(truncatingIfNeeded: search.best.error)
                    if search.best.distance > 0 {
                        if k == 0 {
                            lastDistance.0 = search.best.distance
                        } else {
                            lastDistance.1 = search.best.distance
                        }
                    }
                }
            }
        }
        return (errors, base)
    }

    /// The estimated bits of a BC7 block's `n` bytes `v` written after `other`'s, which lie some blocks
    /// before: each run of at least 3 bytes, anywhere in the block, that equals `other`'s bytes in
    /// the same place is a match — the first 24 bits, 8 at the distance of the part's last match
    /// (`repeated`; zstd's repeat offsets), each later one 8 (its distance is the first's) —,
    /// every other byte a literal of 8. Nil where no run reaches 3 bytes (no match: not a
    /// candidate).
    @inline(__always) static func bits(_ v: UInt128, _ other: UInt128, n: Int, repeated: Bool) -> Int? {
        let x = v ^ other
        let first = repeated ? 8 : 24
        if x == 0 { return first }
        // A bit per byte of the block, set where the two blocks' bytes are equal.
        @inline(__always) func equal(_ w: UInt64) -> UInt64 {
            var t = w | (w &>> 4)
            t |= t &>> 2
            t |= t &>> 1
            return ((~t & 0x0101_0101_0101_0101) &* 0x0102_0408_1020_4080) &>> 56
        }
        let eq = equal(UInt64(truncatingIfNeeded: x)) | equal(UInt64(truncatingIfNeeded: x &>> 64)) &<< 8
        let m = n == 16 ? eq : eq & 0xFF
        // The bytes in runs of at least three, and how many runs.
        let starts = m & (m &>> 1) & (m &>> 2)
        let cover = starts | starts &<< 1 | starts &<< 2
        let runs = (cover & ~(cover &<< 1)).nonzeroBitCount
        if runs == 0 { return nil }
        return 8 * (n - cover.nonzeroBitCount) + first + 8 * (runs - 1)
    }

    /// The parts written so far in a slice, for `contains`: open addressing with linear probing
    /// in a table at least twice their number (a `Set` hashes with SipHash: 4–5 % of a BC3
    /// `maxLoss` encode under `perf`).
    struct Written {
        var keys: [UInt128]
        var used: [Bool]
        let shift: UInt64

        init(capacity: Int) {
            var bits = 4
            while 1 << bits < 2 * capacity { bits += 1 }
            keys = [UInt128](repeating: 0, count: 1 << bits)
            used = [Bool](repeating: false, count: 1 << bits)
            shift = UInt64(64 - bits)
        }

        @inline(__always) func slot(_ v: UInt128) -> Int {
            let x = (UInt64(truncatingIfNeeded: v) ^ UInt64(truncatingIfNeeded: v &>> 64) &* 0x9E37_79B9_7F4A_7C15)
            return Int(truncatingIfNeeded: (x &* 0xBF58_476D_1CE4_E5B9) &>> shift)
        }

        func contains(_ v: UInt128) -> Bool {
            var i = slot(v)
            while used[i] {
                if keys[i] == v { return true }
                i = (i + 1) & (keys.count - 1)
            }
            return false
        }

        mutating func insert(_ v: UInt128) {
            var i = slot(v)
            while used[i] {
                if keys[i] == v { return }
                i = (i + 1) & (keys.count - 1)
            }
            (keys[i], used[i]) = (v, true)
        }
    }

    /// Whether a BC3 color block reads the same to a decoder that (against the format, as some
    /// do) takes c0 ≤ c1 for BC1's three-color mode: c0 > c1, or c0 = c1 without index 3. The
    /// encoder writes only such blocks, and so must RDO.
    @inline(__always) static func fourColorOnly(_ block: UInt64) -> Bool {
        let c0 = block & 0xFFFF
        let c1 = (block >> 16) & 0xFFFF
        if c0 != c1 { return c0 > c1 }
        let s = block >> 32
        // A selector of 3 has both bits set.
        return s & (s >> 1) & 0x5555_5555 == 0
    }

}
