package import TexPipeFormats
package import TexPipePixels

/// texpipe's Basis Universal UASTC LDR 4×4 encoder (docs/gpu-textures.md "UASTC"), written from
/// Binomial's UASTC Texture Specification. Each block is the best, by squared error over RGBA, of:
/// - mode 8, one color (exact), where the block is one color;
/// - the single-subset modes: RGB 0 (192-level endpoints, 4-bit weights), 18 (32 levels, 5-bit
///   weights), 5 (256 levels, 3-bit weights) and 1 (256 levels, 2 bits) for opaque blocks (fast:
///   0 only; medium: 0 and 5); RGBA
///   10 (48 levels, 4 bits), 12 (192 levels, 3 bits) and 14 (256 levels, 2 bits) for the others —
///   each a line along the texels' principal axis, endpoints quantized to the mode's range, each
///   texel's nearest weight (for 3 bits and more: the weight its projection on the line rounds
///   to, or a neighbour), then least squares on the weights; at medium and thorough an opaque
///   block of mode 0 or 5 then picks its weights by UASTC's error plus four times its BC7
///   transcode's (`jointWeights`), tries its ends moved to values BC7 keeps exactly
///   (`bc7Exact`), and modes 0 and 5 are compared by that sum;
/// - where that is above the effort's bound: the two-subset modes 2 and 4 (opaque) and 9 (alpha),
///   a line per subset, over the patterns whose subsets spread least; and the dual-plane modes 6
///   (one color channel on its own weights) and 11 (alpha on its own).
///
/// Every block carries the transcoding hints the spec defines, so the transcoder's other outputs
/// are good too: ETC1's flip, differential bit and intensity tables (and for mode 8 its base
/// color and selector) from texpipe's own ETC1 search on the block as decoded; EAC's table and
/// multiplier for blocks with alpha; BC1's hints are left clear (the transcoder then encodes BC1
/// from the decoded texels). Not written: the three-subset mode 3, mode 7, the luminance-alpha
/// modes 15–17 and dual-plane 13.
package enum UASTC {
    /// One level's UASTC blocks, on the calling thread (the benchmark's entry; the texture writer
    /// lends cores through `TextureEncoder`).
    package static func blocks(
        _ rgba: [UInt8], width: Int, height: Int, quality: TextureSettings.Quality,
        rows: any RowScheduler = SerialRows(), rdo: TextureSettings.RDO? = nil
    ) -> [UInt8] {
        RDO.applied(
            rdo, to: encode(rgba, width: width, height: height, quality: quality, rows: rows), rgba, width: width,
            height: height, kind: .uastc, rows: rows)
    }

    typealias F16 = SIMD16<Float>
    typealias V16 = SIMD16<Int32>

    /// A mode: its number, code, endpoint BISE range, weight bits, whether it stores alpha, its
    /// subsets and planes.
    struct Mode {
        let number: Int
        let code: (Int, Int)
        let range: Int
        let weightBits: Int
        let alpha: Bool
        var subsets = 1
        var planes = 1
        /// Hint bits: BC1 (2, or 1 for modes 10–12), ETC1 flip, differential, two tables (8), a
        /// 5-bit ETC1 bias (not for modes 10–12), then EAC's table and multiplier with alpha.
        var short: Bool { number >= 10 && number <= 12 }
        /// The endpoint range's trit (3) or quint (5) or none (1), and its low bits.
        var storage: (radix: Int, bits: Int) {
            switch range {
            case 8: (1, 4)
            case 11: (1, 5)
            case 12: (5, 3)
            case 13: (3, 4)
            case 18: (5, 5)
            case 19: (3, 6)
            default: (1, 8)  // 20
            }
        }
    }
    static let mode0 = Mode(number: 0, code: (1, 4), range: 19, weightBits: 4, alpha: false)
    static let mode1 = Mode(number: 1, code: (53, 6), range: 20, weightBits: 2, alpha: false)
    static let mode2 = Mode(number: 2, code: (29, 5), range: 8, weightBits: 3, alpha: false, subsets: 2)
    static let mode4 = Mode(number: 4, code: (19, 5), range: 12, weightBits: 2, alpha: false, subsets: 2)
    static let mode5 = Mode(number: 5, code: (11, 5), range: 20, weightBits: 3, alpha: false)
    static let mode6 = Mode(number: 6, code: (27, 5), range: 18, weightBits: 2, alpha: false, planes: 2)
    static let mode9 = Mode(number: 9, code: (15, 5), range: 8, weightBits: 2, alpha: true, subsets: 2)
    static let mode10 = Mode(number: 10, code: (2, 3), range: 13, weightBits: 4, alpha: true)
    static let mode11 = Mode(number: 11, code: (0, 2), range: 13, weightBits: 2, alpha: true, planes: 2)
    static let mode12 = Mode(number: 12, code: (6, 3), range: 19, weightBits: 3, alpha: true)
    static let mode14 = Mode(number: 14, code: (13, 5), range: 20, weightBits: 2, alpha: true)
    static let mode18 = Mode(number: 18, code: (9, 4), range: 11, weightBits: 5, alpha: false)

    /// The single-subset, single-plane modes tried per effort, opaque blocks and blocks with alpha:
    /// the `i`th, or nil after the last. Medium leaves out mode 18 (its 5-bit weights lose most in
    /// the BC7 transcode, which has 4) and mode 1 (under 1 % of blocks): 0.85× the time, −0.2 dB.
    static func mode(_ quality: TextureSettings.Quality, opaque: Bool, _ i: Int) -> Mode? {
        switch (quality, opaque, i) {
        case (_, true, 0): mode0
        case (_, false, 0): mode10
        case (.fast, _, _): nil
        case (.medium, true, 1): mode5
        case (.medium, true, _): nil
        case (_, true, 1): mode18
        case (_, true, 2): mode5
        case (_, true, 3): mode1
        case (_, false, 1): mode12
        case (_, false, 2): mode14
        default: nil
        }
    }

    /// Per effort: two-subset patterns fitted (the best by the subsets' spread), and the squared
    /// error (summed over the block) above which the two-subset and dual-plane modes are tried.
    static func search(_ quality: TextureSettings.Quality) -> (patterns: Int, enough: Int32) {
        switch quality {
        case .fast: (1, 16 * 3 * 16)
        case .medium: (2, 16 * 3 * 4)
        case .thorough: (8, 0)
        }
    }

    /// A BISE range's values (ASTC's trits, quints or bits): for each 8-bit value, the nearest
    /// stored value as (digit, bits) and the 8-bit value it decodes to.
    struct Quantizer {
        let radix: Int
        let bits: Int
        /// v → digit << 16 | bits << 8 | decoded.
        let nearest: [Int32]

        init(range: Int) {
            let (levels, radix, bits) = Self.ranges[range]
            self.radix = radix
            self.bits = bits
            var values: [(Int, Int, Int)] = []
            for digit in 0..<(levels >> bits) {
                for low in 0..<(1 << bits) {
                    values.append((digit, low, Self.unquantize(digit, low, radix: radix, bits: bits)))
                }
            }
            nearest = (0..<256).map { v in
                let best = values.min { abs($0.2 - v) < abs($1.2 - v) }!
                return Int32(best.0 << 16 | best.1 << 8 | best.2)
            }
        }

        static let ranges: [(Int, Int, Int)] = [
            (2, 1, 1), (3, 3, 0), (4, 1, 2), (5, 5, 0), (6, 3, 1), (8, 1, 3), (10, 5, 1), (12, 3, 2), (16, 1, 4),
            (20, 5, 2), (24, 3, 3), (32, 1, 5), (40, 5, 3), (48, 3, 4), (64, 1, 6), (80, 5, 4), (96, 3, 5),
            (128, 1, 7), (160, 5, 5), (192, 3, 6), (256, 1, 8),
        ]

        /// ASTC's color endpoint unquantization (Table C.2.13 of the ASTC specification): bit
        /// replication, or the trit/quint formula with its per-range shuffles of the bits.
        static func unquantize(_ digit: Int, _ low: Int, radix: Int, bits: Int) -> Int {
            if radix == 1 {
                var v = low << (8 - bits)
                var s = 8 - bits
                while s > 0 {
                    s -= bits
                    v |= s >= 0 ? low << s : low >> -s
                }
                return v & 255
            }
            let a = low & 1 == 1 ? 0x1FF : 0
            let hb = low >> 1  // the bits above the lowest: b (bit 0), c, d, e, f
            func b(_ k: Int) -> Int { (hb >> k) & 1 }
            var bShuffled = 0
            var c = 0
            switch (radix, bits) {
            case (3, 1): c = 204
            case (3, 2): (bShuffled, c) = (b(0) * 0b1_0001_0110, 93)
            case (3, 3): (bShuffled, c) = (b(1) * 0b1_0000_1010 | b(0) * 0b0_1000_0101, 44)
            case (3, 4): (bShuffled, c) = (b(2) * 0b1_0000_0100 | b(1) * 0b0_1000_0010 | b(0) * 0b0_0100_0001, 22)
            case (3, 5):
                (bShuffled, c) = (b(3) * 0b1_0000_0010 | b(2) * 0b0_1000_0001 | b(1) << 6 | b(0) << 5, 11)
            case (3, 6): (bShuffled, c) = (b(4) * 0b1_0000_0001 | b(3) << 7 | b(2) << 6 | b(1) << 5 | b(0) << 4, 5)
            case (5, 1): c = 113
            case (5, 2): (bShuffled, c) = (b(0) * 0b1_0000_1100, 54)
            case (5, 3): (bShuffled, c) = (b(1) * 0b1_0000_0101 | b(0) * 0b0_1000_0010, 26)
            case (5, 4): (bShuffled, c) = (b(2) * 0b1_0000_0010 | b(1) * 0b0_1000_0001 | b(0) << 6, 13)
            default: (bShuffled, c) = (b(3) * 0b1_0000_0001 | b(2) << 7 | b(1) << 6 | b(0) << 5, 6)
            }
            let t = (digit * c + bShuffled) ^ a
            return (a & 0x80) | (t >> 2)
        }
    }

    /// Every BISE range's `Quantizer.nearest`, 256 entries a range, in memory that lives as long as
    /// the process: the blocks' loops read it without reference counting (two cores counting
    /// references to one shared table contend for its cache line).
    nonisolated(unsafe) static let nearestTable: UnsafeMutablePointer<Int32> = {
        let t = UnsafeMutablePointer<Int32>.allocate(capacity: 21 * 256)
        for range in 0...20 {
            let q = Quantizer(range: range)
            for v in 0..<256 { t[range * 256 + v] = q.nearest[v] }
        }
        return t
    }()

    /// The 30 two-subset patterns as lanes (0 or 1 per texel), and each subset's anchor texel,
    /// likewise in memory of their own.
    nonisolated(unsafe) static let patternTable: UnsafeMutablePointer<V16> = {
        let t = UnsafeMutablePointer<V16>.allocate(capacity: 30)
        for (k, p) in UASTCDecoder.patterns2.enumerated() {
            var v = V16()
            for i in 0..<16 { v[i] = Int32(p[i]) }
            t[k] = v
        }
        return t
    }()
    nonisolated(unsafe) static let anchorTable: UnsafeMutablePointer<Int> = {
        let t = UnsafeMutablePointer<Int>.allocate(capacity: 60)
        for (k, a) in UASTCDecoder.anchors2.enumerated() { (t[2 * k], t[2 * k + 1]) = (a[0], a[1]) }
        return t
    }()

    // MARK: Image

    static func encode(
        _ rgba: [UInt8], width: Int, height: Int, quality: TextureSettings.Quality, rows: any RowScheduler
    ) -> [UInt8] {
        BlockRows.encode(rgba, width: width, height: height, blockBytes: 16, rows: rows) { src, bx, by, dst in
            let (lo, hi) = encodeBlock(BlockTexels.load(src, bx, by, width: width, height: height), quality)
            BlockRows.putLittleEndian(lo, dst)
            BlockRows.putLittleEndian(hi, dst + 8)
        }
    }

    // MARK: Block

    /// One line of a block: the texels of one subset (`member`, a lane mask) over some channels
    /// (`channels`, 1 for each channel the line holds), with one weight per texel. A single-subset
    /// block is one part; a two-subset block one per subset; a dual-plane block one per plane.
    struct Part {
        /// Quantized ends (digit << 8 | bits) per channel, and the 8-bit values they decode to.
        var codes = (SIMD4<Int32>(), SIMD4<Int32>())
        var ends = (SIMD4<Int32>(), SIMD4<Int32>())
        /// Each member texel's weight index (others 0).
        var weights = V16()
        var error = Int32.max
        /// After `jointWeights`: UASTC's squared error plus four times the BC7 transcode's.
        var joint = Int32.max
    }

    /// A block: its mode, its parts, and the pattern (two subsets) or plane-two channel.
    struct Fit {
        var mode = mode0
        /// One part, or two (two subsets, or two planes).
        var part0 = Part()
        var part1 = Part()
        var pattern = 0
        var plane2 = 3
        var error = Int32.max

        subscript(_ p: Int) -> Part {
            get { p == 0 ? part0 : part1 }
            set { if p == 0 { part0 = newValue } else { part1 = newValue } }
        }
    }

    typealias Texels = (V16, V16, V16, V16)
    typealias Floats = (F16, F16, F16, F16)
    static let all = V16(repeating: -1)

    static func encodeBlock(_ packed: V16, _ quality: TextureSettings.Quality) -> (UInt64, UInt64) {
        let x = (packed & 255, (packed &>> 8) & 255, (packed &>> 16) & 255, (packed &>> 24) & 255)
        if packed == V16(repeating: packed[0]) {
            return solid(SIMD4(x.0[0], x.1[0], x.2[0], x.3[0]))
        }
        let opaque = x.3 == V16(repeating: 255)
        return pack(fit(x, quality, opaque: opaque), x, opaque: opaque)
    }

    /// The block's best fit (a block of more than one color).
    static func fit(_ x: Texels, _ quality: TextureSettings.Quality, opaque: Bool) -> Fit {
        let f = (BC7.float(x.0), BC7.float(x.1), BC7.float(x.2), BC7.float(x.3))
        let channels = opaque ? SIMD4<Int32>(1, 1, 1, 0) : SIMD4<Int32>(1, 1, 1, 1)
        let refine = quality == .fast ? 1 : 2
        let line = principalLine(f, channels, all)
        var best = Fit()
        var i = 0
        while let mode = mode(quality, opaque: opaque, i) {
            i += 1
            var part = fitPart(x, f, channels, all, mode, line, refine: refine)
            if refine > 1 && opaque && (mode.number == 0 || mode.number == 5) && part.error > 0 {
                part = jointWeights(x, mode, part)
                // The same line with ends BC7 keeps exactly, where the mode can store them.
                if let moved = bc7Exact(part, mode) {
                    let other = jointWeights(x, mode, moved)
                    if other.joint < part.joint { part = other }
                }
            }
            // Modes 0 and 5 against each other by UASTC and BC7 together; the rest by UASTC.
            let both = part.joint != .max && best.part0.joint != .max
            if both ? part.joint < best.part0.joint : part.error < best.error {
                best = Fit(mode: mode, part0: part, error: part.error)
            }
        }
        let (patterns, enough) = search(quality)
        if best.error > enough {
            // Two subsets: the patterns whose subsets spread least about their means.
            let chosen = ranked(f, channels, count: patterns)
            for r in 0..<chosen.count {
                let pattern = Int(chosen.patterns[r])
                let zero = patternTable[pattern].equals(0)
                // Each subset's line, for every mode.
                let line0 = principalLine(f, channels, zero)
                let line1 = principalLine(f, channels, ~zero)
                for m in 0..<(opaque ? 2 : 1) where best.error > 0 {
                    let mode = opaque ? (m == 0 ? mode2 : mode4) : mode9
                    let p0 = fitPart(x, f, channels, zero, mode, line0, refine: refine)
                    if p0.error >= best.error { continue }
                    let p1 = fitPart(x, f, channels, ~zero, mode, line1, refine: refine)
                    let error = p0.error &+ p1.error
                    if error < best.error {
                        best = Fit(mode: mode, part0: p0, part1: p1, pattern: pattern, error: error)
                    }
                }
            }
            // Two planes: alpha on its own (mode 11), or for an opaque block one color channel
            // (mode 6).
            for plane2 in opaque ? [0, 1, 2] : [3] where best.error > 0 {
                let mode = opaque ? mode6 : mode11
                var one = channels
                one[plane2] = 0
                var two = SIMD4<Int32>()
                two[plane2] = 1
                let a = fitPart(x, f, one, all, mode, principalLine(f, one, all), refine: refine)
                if a.error >= best.error { continue }
                let b = fitPart(x, f, two, all, mode, principalLine(f, two, all), refine: refine)
                let error = a.error &+ b.error
                if error < best.error { best = Fit(mode: mode, part0: a, part1: b, plane2: plane2, error: error) }
            }
        }
        return best
    }

    /// The `count` patterns whose two subsets spread least about their own means (squared
    /// distances summed over the channels): a split along the block's colors.
    static func ranked(_ f: Floats, _ channels: SIMD4<Int32>, count: Int) -> (patterns: SIMD8<Int32>, count: Int) {
        // The best `count` (≤ 8) kept in order, by score then pattern: no allocation per block.
        var best = SIMD8<Int32>()
        var scores = SIMD8<Float>(repeating: .infinity)
        let n = min(count, 8)
        // A pattern's spread is Σv² − s0²/n0 − s1²/n1 per channel, where s0 + s1 is the block's
        // sum: only s1 and n1 change from pattern to pattern (Σv² is the same for all: left out).
        let on = SIMD4<Float>(channels)
        let sums = SIMD4<Float>(f.0.total, f.1.total, f.2.total, f.3.total) * on
        for k in 0..<30 {
            let one = F16.ones(patternTable[k].equals(1))
            let n1 = one.total
            let n0 = 16 - n1
            let s1 = SIMD4<Float>((f.0 * one).total, (f.1 * one).total, (f.2 * one).total, (f.3 * one).total) * on
            let s0 = sums - s1
            let score = -((s0 * s0).total / max(n0, 1) + (s1 * s1).total / max(n1, 1))
            // Ties keep the earlier pattern (patterns come in order).
            guard score < scores[n - 1] else { continue }
            var i = n - 1
            while i > 0 && score < scores[i - 1] {
                scores[i] = scores[i - 1]
                best[i] = best[i - 1]
                i -= 1
            }
            scores[i] = score
            best[i] = Int32(k)
        }
        return (best, n)
    }

    /// The segment through the member texels' mean along their principal axis (power iteration
    /// on the covariance of the channels given), covering every member's projection.
    static func principalLine(_ f: Floats, _ channels: SIMD4<Int32>, _ member: V16) -> (SIMD4<Float>, SIMD4<Float>) {
        let m = F16.ones(member)
        let n = max(1, m.total)
        let on = SIMD4<Float>(channels)
        let mean = SIMD4<Float>((f.0 * m).total, (f.1 * m).total, (f.2 * m).total, (f.3 * m).total) / n * on
        let d = (
            (f.0 - mean[0]) * m * on[0], (f.1 - mean[1]) * m * on[1], (f.2 - mean[2]) * m * on[2],
            (f.3 - mean[3]) * m * on[3]
        )
        // The covariance, row by row.
        let r0 = SIMD4<Float>((d.0 * d.0).total, (d.0 * d.1).total, (d.0 * d.2).total, (d.0 * d.3).total)
        let r1 = SIMD4<Float>(r0[1], (d.1 * d.1).total, (d.1 * d.2).total, (d.1 * d.3).total)
        let r2 = SIMD4<Float>(r0[2], r1[2], (d.2 * d.2).total, (d.2 * d.3).total)
        let r3 = SIMD4<Float>(r0[3], r1[3], r2[3], (d.3 * d.3).total)
        // Start from the channel of largest spread.
        let diagonal = SIMD4<Float>(r0[0], r1[1], r2[2], r3[3])
        var start = 0
        for c in 1..<4 where diagonal[c] > diagonal[start] { start = c }
        var axis = SIMD4<Float>()
        axis[start] = 1
        for _ in 0..<4 {
            let next = SIMD4<Float>((r0 * axis).total, (r1 * axis).total, (r2 * axis).total, (r3 * axis).total)
            let norm = (next * next).total.squareRoot()
            if norm < 1e-9 { break }
            axis = next / norm
        }
        var t: F16 = d.0 * axis[0]
        t += d.1 * axis[1]
        t += d.2 * axis[2]
        t += d.3 * axis[3]
        // Extremes over the members only.
        let big = F16(repeating: 1e9)
        let low = t.choosing(big, where: ~member).least
        let high = t.choosing(-big, where: ~member).greatest
        return (mean + axis * low, mean + axis * high)
    }

    /// One part from a line: ends quantized, weights picked, then `refine` rounds of least squares
    /// while the error falls.
    static func fitPart(
        _ x: Texels, _ f: Floats, _ channels: SIMD4<Int32>, _ member: V16, _ mode: Mode,
        _ line: (SIMD4<Float>, SIMD4<Float>), refine: Int
    ) -> Part {
        let q = nearestTable + mode.range * 256
        var best = evaluate(x, channels, member, mode, q, line.0, line.1)
        for _ in 0..<refine {
            guard best.error > 0, let next = leastSquares(f, channels, member, best.weights, mode.weightBits) else {
                break
            }
            let part = evaluate(x, channels, member, mode, q, next.0, next.1)
            if part.error >= best.error { break }
            best = part
        }
        return best
    }

    /// Modes 0 and 5 transcode to BC7 mode 6 (checked against the transcoder in the tests): each
    /// end's shared bit the one that changes its RGBA (alpha 255) least, ties to 0, each channel
    /// rounded to the nearest value of that parity; 3-bit weights k become 2k (+1 from 4), 4-bit
    /// weights stay, and BC7's 4-bit weights (round(64j/15)) differ from ASTC's by up to 1/64.
    /// Each texel's weight is picked again, among its own and its two neighbours, by its squared
    /// error in UASTC plus four times that in the BC7 transcode; the part's `joint` is that sum.
    static func jointWeights(_ x: Texels, _ mode: Mode, _ part: Part) -> Part {
        let (a, b) = (bc7End(part.ends.0), bc7End(part.ends.1))
        let l = part.ends.0 &* 257
        let h = part.ends.1 &* 257
        let top = V16(repeating: Int32((1 << mode.weightBits) - 1))
        var best = V16(repeating: Int32.max)
        var index = V16()
        var own = V16()
        for step in Int32(-1)...1 {
            let k = neighbour(part.weights, step, top: top)
            let w = weightValue(k, bits: mode.weightBits)
            let bw = bc7Weight(k, bits: mode.weightBits)
            var e = V16()
            var u = V16()
            for c in 0..<3 {
                let xc = c == 0 ? x.0 : c == 1 ? x.1 : x.2
                let pu = ((l[c] &* (64 &- w) &+ h[c] &* w &+ 32) &>> 6) &>> 8
                let pb = (a[c] &* (64 &- bw) &+ b[c] &* bw &+ 32) &>> 6
                let du = xc &- pu
                let db = xc &- pb
                u = u &+ du &* du
                e = e &+ du &* du &+ (db &* db) &<< 2
            }
            let better = e.below(best)
            best = best.choosing(e, where: better)
            index = index.choosing(k, where: better)
            own = own.choosing(u, where: better)
        }
        var out = part
        out.weights = index
        out.error = own.wrappedSum()
        out.joint = best.wrappedSum()
        return out
    }

    /// The part with each end moved to the BC7 mode-6 end the transcoder would make of it (each
    /// channel by at most 1, to one parity), so that the transcode keeps the ends exactly; nil
    /// where the mode's range cannot store those values (mode 0's 192 levels).
    static func bc7Exact(_ part: Part, _ mode: Mode) -> Part? {
        let q = nearestTable + mode.range * 256
        let (a, b) = (bc7End(part.ends.0), bc7End(part.ends.1))
        var out = part
        for c in 0..<3 {
            let na = q[Int(a[c])], nb = q[Int(b[c])]
            guard na & 255 == a[c], nb & 255 == b[c] else { return nil }
            out.codes.0[c] = na >> 8
            out.codes.1[c] = nb >> 8
            out.ends.0[c] = na & 255
            out.ends.1[c] = nb & 255
        }
        return out
    }

    /// The BC7 weight (0…64) a mode-0 or mode-5 weight index becomes: 3-bit k → 4-bit 2k (+1
    /// from 4), then BC7's round(64j/15) (as (128j + 15) / 30, by multiplying).
    @inline(__always) static func bc7Weight(_ k: V16, bits: Int) -> V16 {
        let j = bits == 3 ? k &<< 1 | k &>> 2 : k
        return ((j &* 128 &+ 15) &* 2185) &>> 16
    }

    /// An opaque mode-0 or mode-5 part as the transcoder's BC7 mode 6 decodes it (RGB).
    static func bc7Texels(_ mode: Mode, _ part: Part) -> (V16, V16, V16) {
        let (a, b) = (bc7End(part.ends.0), bc7End(part.ends.1))
        let w = bc7Weight(part.weights, bits: mode.weightBits)
        func channel(_ c: Int) -> V16 { (a[c] &* (64 &- w) &+ b[c] &* w &+ 32) &>> 6 }
        return (channel(0), channel(1), channel(2))
    }

    /// An end of BC7 mode 6 (RGBA, alpha 255): the shared bit that changes it least, ties to 0.
    static func bc7End(_ e: SIMD4<Int32>) -> SIMD4<Int32> {
        let v = SIMD4<Int32>(e[0], e[1], e[2], 255)
        let p0 = ((v &+ 1) &>> 1).clamped(lowerBound: .zero, upperBound: SIMD4(repeating: 127)) &<< 1
        let p1 = ((v &>> 1).clamped(lowerBound: .zero, upperBound: SIMD4(repeating: 127)) &<< 1) | 1
        let (d0, d1) = (v &- p0, v &- p1)
        return (d1 &* d1).wrappedSum() < (d0 &* d0).wrappedSum() ? p1 : p0
    }
}
