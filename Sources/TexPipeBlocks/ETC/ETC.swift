package import TexPipeFormats
internal import TexPipePixels

/// texpipe's ETC2 and EAC block encoders, written from the Khronos Data Format Specification's
/// chapter "ETC2 Compressed Texture Image Formats": ETC2 RGB in all five of its modes
/// (individual, differential, T, H and planar), and EAC blocks for ETC2 RGBA's alpha and for the
/// unsigned R11 and RG11 formats. Blocks are big-endian 64-bit words; texel indices run down the
/// columns (index x·4 + y). Error is the plain sum of squared differences (what PSNR measures).
///
/// Individual and differential blocks are searched through a model of their error: a modifier
/// adds the same amount m to all three channels, so a texel p on base b costs
/// |p − b|² − 2m·s + 3m², s = Σ(p − b) over the channels, and its best modifier depends on |s|
/// alone — all eight tables are then scored at once, one SIMD lane each. The chosen blocks are
/// scored exactly (clamped) against the planar fit and the T and H modes' two-colour fits.
/// No allocation per block; the bytes do not depend on how many cores encode.
package enum ETC {
    /// One level's blocks in an ETC2/EAC format, on the calling thread (the benchmark's entry; the
    /// texture writer lends cores through `TextureEncoder`).
    public static func blocks(
        _ rgba: [UInt8], width: Int, height: Int, format: TextureSettings.Format, quality: TextureSettings.Quality
    ) throws -> [UInt8] {
        guard case .etc(let variant) = format.info.codec else { throw CodecError(.notBlockCompressed(format.rawValue)) }
        return encode(rgba, width: width, height: height, variant: variant, quality: quality, rows: SerialRows())
    }

    typealias F16 = SIMD16<Float>
    typealias F8 = SIMD8<Float>
    typealias I16 = SIMD16<Int32>

    /// How hard the encoder looks, per effort.
    struct Effort {
        /// Base-colour candidates per subblock: the mean shifted along grey by this many
        /// quantisation steps either way.
        let shifts: Int
        /// Passes of ±1 per channel around the best base colour.
        let refinePasses: Int
        /// T and H modes tried (with this many distances around the estimate; 8: all).
        let twoColorDistances: Int
        /// Planar colours tried ±1 per value.
        let planarRefine: Bool
        /// Individual mode tried even when differential fits.
        let alwaysIndividual: Bool
        /// All four individual and differential configurations scored exactly (else the model's best).
        let exactAll: Bool
        /// Each texel's index chosen by its exact, clamped error (else by the model).
        let exactIndices: Bool
        /// EAC: multipliers tried per table, and the base refitted to the chosen indices.
        let eacMultipliers: Int
        let eacRefit: Bool

        static func of(_ q: TextureSettings.Quality) -> Effort {
            switch q {
            case .fast:
                Effort(
                    shifts: 0, refinePasses: 0, twoColorDistances: 1, planarRefine: false, alwaysIndividual: false,
                    exactAll: false, exactIndices: false, eacMultipliers: 1, eacRefit: true)
            case .medium:
                Effort(
                    shifts: 1, refinePasses: 0, twoColorDistances: 2, planarRefine: false, alwaysIndividual: false,
                    exactAll: false, exactIndices: true, eacMultipliers: 2, eacRefit: true)
            case .thorough:
                Effort(
                    shifts: 3, refinePasses: 3, twoColorDistances: 8, planarRefine: true, alwaysIndividual: true,
                    exactAll: true, exactIndices: true, eacMultipliers: 3, eacRefit: true)
            }
        }
    }

    /// Blocks of an RGBA8 image, rows of blocks split across the cores `rows` lends.
    static func encode(
        _ rgba: [UInt8], width: Int, height: Int, variant: ETCVariant, quality: TextureSettings.Quality,
        rows: any RowScheduler
    ) -> [UInt8] {
        let effort = Effort.of(quality)
        return BlockRows.encode(
            rgba, width: width, height: height, blockBytes: variant.format.info.blockBytes, rows: rows
        ) { src, bx, by, dst in
            let packed = BlockTexels.load(src, bx, by, width: width, height: height)
            switch variant {
            case .rgb: BlockRows.putBigEndian(colorBlock(packed, effort), dst)
            case .rgba:
                BlockRows.putBigEndian(eacBlock(BC7.float((packed &>> 24) & 255), r11: false, effort), dst)
                BlockRows.putBigEndian(colorBlock(packed, effort), dst + 8)
            case .r11:
                BlockRows.putBigEndian(eacBlock(BC7.float(packed & 255) * (2047 / 255), r11: true, effort), dst)
            case .rg11:
                BlockRows.putBigEndian(eacBlock(BC7.float(packed & 255) * (2047 / 255), r11: true, effort), dst)
                BlockRows.putBigEndian(
                    eacBlock(BC7.float((packed &>> 8) & 255) * (2047 / 255), r11: true, effort), dst + 8)
            }
        }
    }

    // MARK: Lane helpers

    @inline(__always) static func vmin(_ a: F16, _ b: F16) -> F16 { a.choosing(b, where: b.below(a)) }
    @inline(__always) static func clamp255(_ v: F16) -> F16 {
        let lo = v.choosing(F16(), where: v.below(F16()))
        return lo.choosing(F16(repeating: 255), where: F16(repeating: 255).below(lo))
    }
    @inline(__always) static func vmin8(_ a: F8, _ b: F8) -> F8 {
        let m = unsafeBitCast(b - a, to: SIMD8<Int32>.self) &>> 31
        let x = unsafeBitCast(a, to: SIMD8<Int32>.self)
        let y = unsafeBitCast(b, to: SIMD8<Int32>.self)
        return unsafeBitCast((x & ~m) | (y & m), to: F8.self)
    }
    @inline(__always) static func abs8(_ v: F8) -> F8 {
        unsafeBitCast(unsafeBitCast(v, to: SIMD8<Int32>.self) & 0x7FFF_FFFF, to: F8.self)
    }
    /// Floor of small values (|v| < 2²²) that are multiples of ¼: rounded to nearest after −⅜.
    @inline(__always) static func floorQuarter(_ v: F16) -> F16 { ((v - 0.375) + 12_582_912) - 12_582_912 }

    static let xs = F16(0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3)
    static let ys = F16(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3)
    /// The second subblock's texels: right half (flip 0) or bottom half (flip 1).
    static let secondSide = I16(0, 0, -1, -1, 0, 0, -1, -1, 0, 0, -1, -1, 0, 0, -1, -1)
    static let secondBelow = I16(0, 0, 0, 0, 0, 0, 0, 0, -1, -1, -1, -1, -1, -1, -1, -1)

    // MARK: ETC2 colour

    /// The modifier tables of the individual and differential modes (a, b per codeword): index 0
    /// adds a, 1 adds b, 2 subtracts a, 3 subtracts b.
    /// (Computed, not stored: a constant the compiler folds into the search, with no lazy global.)
    @inline(__always) static var smallModifiers: F8 { F8(2, 5, 9, 13, 18, 24, 33, 47) }
    @inline(__always) static var largeModifiers: F8 { F8(8, 17, 29, 42, 60, 80, 106, 183) }
    /// T and H modes' distances.
    static let distances: [Float] = [3, 6, 11, 16, 23, 32, 41, 64]

    /// A block's texels as floats, and what the searches share.
    struct Pixels {
        var r: F16, g: F16, b: F16
        /// r + g + b per texel.
        var sum: F16
    }

    /// One subblock's statistics for the model.
    struct Subblock {
        var sum: F8
        var mean: SIMD3<Float>
        var s1: SIMD3<Float>
        var s2: SIMD3<Float>
    }

    /// The best-found block: its exact error and bits.
    struct Best {
        var error: Float = .infinity
        var bits: UInt64 = 0
        @inline(__always) mutating func consider(_ e: Float, _ b: UInt64) {
            if e < error { (error, bits) = (e, b) }
        }
    }

    static func colorBlock(_ packed: I16, _ effort: Effort) -> UInt64 {
        let r = BC7.float(packed & 255)
        let g = BC7.float((packed &>> 8) & 255)
        let b = BC7.float((packed &>> 16) & 255)
        let px = Pixels(r: r, g: g, b: b, sum: r + g + b)
        var best = Best()
        if packed & 0xFF_FFFF == I16(repeating: packed[0] & 0xFF_FFFF) {
            // One colour: a T block's first paint colour holds a 4-bit expansion as it is, and a
            // planar block any 6-7-6 expansion; otherwise the search below.
            let c = SIMD3<Float>(r[0], g[0], b[0])
            let q = quantize4(c)
            tMode(px, q, expand4(q), q, expand4(q), 0, &best)
            if best.error == 0 { return best.bits }
            planar(px, effort, &best)
            if best.error == 0 { return best.bits }
        }
        individualOrDifferential(px, effort, &best)
        // Planar where the block is not already near exact (fast: mean squared error over 1).
        if best.error > (effort.exactIndices ? 0 : 48) { planar(px, effort, &best) }
        // T and H where the block is still far off (fast: mean squared error over 64 per
        // channel — the two-colour blocks the other modes cannot approach).
        if best.error > (effort.exactIndices ? 48 : 3072) && effort.twoColorDistances > 0 {
            twoColor(px, effort, &best)
        }
        return best.bits
    }

    // MARK: Individual and differential

    static func subblock(_ px: Pixels, _ k: Int) -> Subblock {
        // k: 0 left, 1 right (flip 0); 2 top, 3 bottom (flip 1).
        @inline(__always) func half(_ v: F16) -> F8 {
            switch k {
            case 0: unsafeBitCast(unsafeBitCast(v, to: SIMD8<UInt64>.self).evenHalf, to: F8.self)
            case 1: unsafeBitCast(unsafeBitCast(v, to: SIMD8<UInt64>.self).oddHalf, to: F8.self)
            case 2: v.lowHalf
            default: v.highHalf
            }
        }
        let r = half(px.r)
        let g = half(px.g)
        let b = half(px.b)
        let s1 = SIMD3<Float>(r.sum(), g.sum(), b.sum())
        let s2 = SIMD3<Float>((r * r).sum(), (g * g).sum(), (b * b).sum())
        return Subblock(sum: r + g + b, mean: s1 / 8, s1: s1, s2: s2)
    }

    @inline(__always) static func expand(_ q: SIMD3<Int32>, bits: Int) -> SIMD3<Float> {
        let e = bits == 5 ? (q &<< 3) | (q &>> 2) : (q &<< 4) | q
        return SIMD3<Float>(Float(e.x), Float(e.y), Float(e.z))
    }

    /// The model's error of a subblock on a base colour, and the table that reaches it.
    @inline(__always) static func model(_ s: Subblock, _ base: SIMD3<Float>) -> (Float, Int) {
        let rgb = s.s2 - 2 * base * s.s1 + 8 * base * base
        let beta = base.x + base.y + base.z
        let a = smallModifiers
        let bm = largeModifiers
        let a3 = 3 * a * a
        let a2 = 2 * a
        let b3 = 3 * bm * bm
        let b2 = 2 * bm
        let u = abs8(s.sum - F8(repeating: beta))
        var acc = F8()
        for i in 0..<8 {
            let ui = F8(repeating: u[i])
            acc += vmin8(a3 - a2 * ui, b3 - b2 * ui)
        }
        var table = 0
        var least = acc[0]
        for t in 1..<8 where acc[t] < least { (least, table) = (acc[t], t) }
        return (rgb.x + rgb.y + rgb.z + least, table)
    }

    /// A subblock's best base colour at 4 or 5 bits per channel, by the model.
    struct Choice {
        var q: SIMD3<Int32>
        var error: Float
        var table: Int
    }

    static func search(_ s: Subblock, bits: Int, _ effort: Effort) -> Choice {
        let top = Float((1 << bits) - 1)
        let step: Float = 255 / top
        var best = choice(s, quantize(s.mean, top), bits: bits)
        if effort.shifts > 0 {
            for k in 1...effort.shifts {
                let d = Float(k) * step
                consider(s, quantize(s.mean + d, top), bits: bits, &best)
                consider(s, quantize(s.mean - d, top), bits: bits, &best)
            }
        }
        var pass = 0
        while pass < effort.refinePasses {
            let start = best.q
            for c in 0..<3 {
                for d in stride(from: Int32(-1), through: 1, by: 2) {
                    var q = start
                    q[c] += d
                    if q[c] < 0 || q[c] > Int32(top) { continue }
                    consider(s, q, bits: bits, &best)
                }
            }
            if best.q == start { break }
            pass += 1
        }
        return best
    }

    @inline(__always) static func quantize(_ v: SIMD3<Float>, _ top: Float) -> SIMD3<Int32> {
        let q = (v * (top / 255)).rounded(.toNearestOrEven)
        let c = q.replacing(with: 0, where: q .< 0).replacing(with: top, where: q .> top)
        return SIMD3<Int32>(Int32(c.x), Int32(c.y), Int32(c.z))
    }

    @inline(__always) static func consider(_ s: Subblock, _ q: SIMD3<Int32>, bits: Int, _ best: inout Choice) {
        let (e, t) = model(s, expand(q, bits: bits))
        if e < best.error { best = Choice(q: q, error: e, table: t) }
    }

    /// The model's error of a subblock at a given base colour (for constrained pairs).
    @inline(__always) static func choice(_ s: Subblock, _ q: SIMD3<Int32>, bits: Int) -> Choice {
        let (e, t) = model(s, expand(q, bits: bits))
        return Choice(q: q, error: e, table: t)
    }

    /// A candidate individual or differential block, scored by the model.
    struct Config {
        var modelError: Float = .infinity
        var flip = false
        var differential = false
        var first = Choice(q: .zero, error: 0, table: 0)
        var second = Choice(q: .zero, error: 0, table: 0)
    }

    static func individualOrDifferential(_ px: Pixels, _ effort: Effort, _ best: inout Best) {
        // Up to four configurations (each flip, differential and individual), scored by the
        // model; the best (fast, medium) or all (thorough) scored exactly.
        var configs = (Config(), Config(), Config(), Config())
        for flip in 0..<2 {
            let s1 = subblock(px, flip * 2)
            let s2 = subblock(px, flip * 2 + 1)
            let c1 = search(s1, bits: 5, effort)
            let c2 = search(s2, bits: 5, effort)
            let delta = c2.q &- c1.q
            let fitsDirect = all(delta .>= -4) && all(delta .<= 3)
            var pair = (c1, c2)
            if !fitsDirect {
                // The nearest pairs that fit: either subblock's colour moved into the other's window.
                let moved2 = choice(s2, c2.q.clamped(lowerBound: c1.q &- 4, upperBound: c1.q &+ 3), bits: 5)
                let moved1 = choice(s1, c1.q.clamped(lowerBound: c2.q &- 3, upperBound: c2.q &+ 4), bits: 5)
                pair = c1.error + moved2.error <= moved1.error + c2.error ? (c1, moved2) : (moved1, c2)
            }
            let differential = Config(
                modelError: pair.0.error + pair.1.error, flip: flip == 1, differential: true, first: pair.0,
                second: pair.1)
            var individual = Config()
            if effort.alwaysIndividual || !fitsDirect {
                let i1 = search(s1, bits: 4, effort)
                let i2 = search(s2, bits: 4, effort)
                individual = Config(
                    modelError: i1.error + i2.error, flip: flip == 1, differential: false, first: i1, second: i2)
            }
            if flip == 0 {
                (configs.0, configs.1) = (differential, individual)
            } else {
                (configs.2, configs.3) = (differential, individual)
            }
        }
        @inline(__always) func exact(_ c: Config) {
            guard c.modelError < .infinity else { return }
            let (e, bits) = etc1Block(
                px, flip: c.flip, differential: c.differential, c.first.q, c.first.table, c.second.q, c.second.table,
                exactIndices: effort.exactIndices)
            best.consider(e, bits)
        }
        @inline(__always) func better(_ a: Config, _ b: Config) -> Config { b.modelError < a.modelError ? b : a }
        if effort.exactAll {
            exact(configs.0)
            exact(configs.1)
            exact(configs.2)
            exact(configs.3)
        } else {
            exact(better(better(configs.0, configs.1), better(configs.2, configs.3)))
        }
    }

    /// An individual or differential block's exact error and bits: each texel's best of its
    /// subblock's four modifiers, clamped as the decoder clamps.
    static func etc1Block(
        _ px: Pixels, flip: Bool, differential: Bool, _ q1: SIMD3<Int32>, _ t1: Int, _ q2: SIMD3<Int32>, _ t2: Int,
        exactIndices: Bool = true
    ) -> (Float, UInt64) {
        let bits = differential ? 5 : 4
        let base1 = expand(q1, bits: bits)
        let base2 = expand(q2, bits: bits)
        let second = flip ? secondBelow : secondSide
        @inline(__always) func pick(_ x: Float, _ y: Float) -> F16 {
            F16(repeating: x).choosing(F16(repeating: y), where: second)
        }
        let br = pick(base1.x, base2.x)
        let bg = pick(base1.y, base2.y)
        let bb = pick(base1.z, base2.z)
        let a = pick(smallModifiers[t1], smallModifiers[t2])
        let bm = pick(largeModifiers[t1], largeModifiers[t2])
        @inline(__always) func error(_ m: F16) -> F16 {
            let dr = clamp255(br + m) - px.r
            let dg = clamp255(bg + m) - px.g
            let db = clamp255(bb + m) - px.b
            return dr * dr + dg * dg + db * db
        }
        let total: Float
        let index: I16
        if exactIndices {
            (total, index) = argmin4(error(a), error(bm), error(-a), error(-bm))
        } else {
            // Each texel's index by the model (its intensity offset s: the sign picks + or −,
            // |s| beyond 1.5·(a + b) the large modifier), then that one modifier scored exactly.
            let s = px.sum - (br + bg + bb)
            let negative = s.below(F16())
            let large = (1.5 * (a + bm)).below(abs16(s))
            let m = a.choosing(bm, where: large)
            let signed = m.choosing(-m, where: negative)
            total = error(signed).total
            index = (large & 1) | (negative & 2)
        }
        var hi: UInt64
        if differential {
            let d = (q2 &- q1) & 7
            hi = UInt64(q1.x) << 27 | UInt64(d.x) << 24 | UInt64(q1.y) << 19 | UInt64(d.y) << 16
            hi |= UInt64(q1.z) << 11 | UInt64(d.z) << 8 | 1 << 1
        } else {
            hi = UInt64(q1.x) << 28 | UInt64(q2.x) << 24 | UInt64(q1.y) << 20 | UInt64(q2.y) << 16
            hi |= UInt64(q1.z) << 12 | UInt64(q2.z) << 8
        }
        hi |= UInt64(t1) << 5 | UInt64(t2) << 2 | (flip ? 1 : 0)
        return (total, hi << 32 | UInt64(indexBits(index)))
    }

    /// Per texel the least of four errors and its index (0…3); the sum of the least.
    @inline(__always) static func argmin4(_ e0: F16, _ e1: F16, _ e2: F16, _ e3: F16) -> (Float, I16) {
        let m01 = e1.below(e0)
        let l01 = e0.choosing(e1, where: m01)
        let i01 = m01 & 1
        let m23 = e3.below(e2)
        let l23 = e2.choosing(e3, where: m23)
        let i23 = (m23 & 1) | 2
        let m = l23.below(l01)
        let least = l01.choosing(l23, where: m)
        return (least.total, i01.choosing(i23, where: m))
    }

    /// The 32 index bits of a block: texel k's (column-major) high bit at 16 + k, low bit at k.
    @inline(__always) static func indexBits(_ index: I16) -> UInt32 {
        var bits: UInt32 = 0
        for i in 0..<16 {
            let k = UInt32((i % 4) * 4 + i / 4)
            let v = UInt32(truncatingIfNeeded: index[i])
            bits |= (v >> 1) << (16 + k) | (v & 1) << k
        }
        return bits
    }

    // MARK: Planar

    static func planar(_ px: Pixels, _ effort: Effort, _ best: inout Best) {
        let r = planarChannel(px.r, top: 63, effort.planarRefine)
        let g = planarChannel(px.g, top: 127, effort.planarRefine)
        let b = planarChannel(px.b, top: 63, effort.planarRefine)
        let total = r.error + g.error + b.error
        let q = (SIMD3<Int32>(r.o, g.o, b.o), SIMD3<Int32>(r.h, g.h, b.h), SIMD3<Int32>(r.v, g.v, b.v))
        guard total < best.error else { return }
        let (o, h, v) = (q.0, q.1, q.2)
        // Bits 63…32: RO at 62…57, GO's top bit at 56 and the rest at 54…49, BO's top bit at 48,
        // next two at 44…43, last three at 41…39, RH's top five at 38…34, D at 33, RH's last at
        // 32; the free bits 63, 55, 47…45 and 42 make R and G sum inside 0…31 and B outside.
        var hi = UInt64(o.x) << 25 | UInt64(o.y >> 6) << 24 | UInt64(o.y & 63) << 17 | UInt64(o.z >> 5) << 16
        hi |= UInt64((o.z >> 3) & 3) << 11 | UInt64(o.z & 7) << 7 | UInt64(h.x >> 1) << 2 | 1 << 1 | UInt64(h.x & 1)
        hi |= UInt64((o.x >> 1) & 1) << 31  // R: the sign of dR decides R's free top bit
        hi |= UInt64(o.y >> 1 & 1) << 23  // G: likewise
        let x = (o.z >> 3) & 3
        let y = (o.z >> 1) & 3
        if x + y >= 4 { hi |= 0b111 << 13 } else { hi |= 1 << 10 }  // B + dB above 31, or below 0
        let lo = UInt64(h.y) << 25 | UInt64(h.z) << 19 | UInt64(v.x) << 13 | UInt64(v.y) << 6 | UInt64(v.z)
        best.consider(total, hi << 32 | lo)
    }

    /// One channel's planar colours (O, H, V quantised to 6 or 7 bits) and its exact error:
    /// least squares of c(x, y) = O + x·h + y·v over the block (x and y are uncorrelated on the
    /// 4 × 4 grid, each with Σ(x − 1.5)² = 20), then H = O + 4h and V = O + 4v; with `refine`,
    /// each of the three ±1.
    @inline(__always) static func planarChannel(_ v: F16, top: Float, _ refine: Bool) -> (
        o: Int32, h: Int32, v: Int32, error: Float
    ) {
        let bits7 = top == 127
        let mean = v.total / 16
        let h = (v * (xs - 1.5)).total / 20
        let w = (v * (ys - 1.5)).total / 20
        let o = mean - 1.5 * h - 1.5 * w
        @inline(__always) func quant(_ x: Float) -> Int32 { Int32(min(top, max(0, (x * top / 255).rounded()))) }
        var best = (quant(o), quant(o + 4 * h), quant(o + 4 * w), Float(0))
        best.3 = planarError(v, best.0, best.1, best.2, bits7: bits7)
        guard refine else { return best }
        let (o0, h0, v0) = (best.0, best.1, best.2)
        let t = Int32(top)
        for dO in Int32(-1)...1 {
            for dh in Int32(-1)...1 {
                for dv in Int32(-1)...1 where dO != 0 || dh != 0 || dv != 0 {
                    let (a, b, d) = (o0 + dO, h0 + dh, v0 + dv)
                    if a < 0 || a > t || b < 0 || b > t || d < 0 || d > t { continue }
                    let x = planarError(v, a, b, d, bits7: bits7)
                    if x < best.3 { best = (a, b, d, x) }
                }
            }
        }
        return best
    }

    @inline(__always) static func planarError(_ v: F16, _ qo: Int32, _ qh: Int32, _ qv: Int32, bits7: Bool) -> Float {
        @inline(__always) func ex(_ q: Int32) -> Float { Float(bits7 ? (q << 1) | (q >> 6) : (q << 2) | (q >> 4)) }
        let o = ex(qo)
        let h = ex(qh)
        let w = ex(qv)
        let value = clamp255(floorQuarter((xs * (h - o) + ys * (w - o) + (4 * o + 2)) * 0.25))
        let d = value - v
        return (d * d).total
    }
}
