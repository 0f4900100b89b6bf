internal import Foundation

/// LDR-FLIP (Andersson, Nilsson, Akenine-Möller, Oskarsson, Åström and Fairchild, "FLIP: A
/// Difference Evaluator for Alternating Images", 2020): per texel, a perceived difference in
/// [0, 1] between a reference and a test image seen at `ppd` pixels per degree (67: a 0.7 m wide
/// 4K display seen from 0.7 m). Two pipelines, as the paper builds them:
/// - colour: both images into the opponent space YyCxCz, each channel filtered by its contrast
///   sensitivity (a sum of Gaussians over degrees of visual angle), back to linear RGB, clamped,
///   into CIELAB with the Hunt effect (a* and b* scaled by 0.01 L*), the HyAB distance raised to
///   0.7 and redistributed so that the largest difference (green against blue) is 1 — the first
///   40 % of that range onto 95 % of the scale;
/// - features: edges (a Gaussian's first derivative) and points (its second) of the achromatic
///   channel, σ = ½ · 0.082° in pixels, their magnitudes' largest difference, (Δ / √2)^½.
/// The error is the colour difference raised to 1 − the feature difference. Filters repeat the
/// edge texel outside the image.
extension Quality {
    /// The per-texel FLIP map of `test` against `reference`, both sRGB-encoded 8-bit RGBA (alpha
    /// ignored), and its mean.
    public static func flip(_ reference: [UInt8], _ test: [UInt8], width w: Int, height h: Int, ppd: Double = 67)
        -> (mean: Double, map: [Float])
    {
        precondition(reference.count == w * h * 4 && test.count == reference.count)
        let n = w * h
        guard n > 0 else { return (0, []) }
        return flip(FLIPImage(reference, n), FLIPImage(test, n), w, h, ppd)
    }

    /// The FLIP map of two images already in YyCxCz, and its mean.
    static func flip(_ ref: FLIPImage, _ tst: FLIPImage, _ w: Int, _ h: Int, _ ppd: Double) -> (
        mean: Double, map: [Float]
    ) {
        let n = w * h
        let filters = FLIPFilters.cached(ppd)
        let refLab = colorPipeline(ref, w, h, filters)
        let tstLab = colorPipeline(tst, w, h, filters)
        let refFeatures = features(ref.achromatic, w, h, filters)
        let tstFeatures = features(tst.achromatic, w, h, filters)
        let cmax = FLIPFilters.maxColorDifference
        let (pc, pt) = (0.4, 0.95)
        var map = [Float](repeating: 0, count: n)
        var sum = 0.0
        for i in 0..<n {
            let (l1, a1, b1) = refLab[i]
            let (l2, a2, b2) = tstLab[i]
            let hyab = abs(l1 - l2) + ((a1 - a2) * (a1 - a2) + (b1 - b2) * (b1 - b2)).squareRoot()
            let dc = hyab > 0 ? exp2(0.7 * log2(hyab)) : 0
            let color =
                dc < pc * cmax ? pt / (pc * cmax) * dc : pt + (dc - pc * cmax) / (cmax - pc * cmax) * (1 - pt)
            let edge = Double(abs(refFeatures.edges[i] - tstFeatures.edges[i]))
            let point = Double(abs(refFeatures.points[i] - tstFeatures.points[i]))
            let feature = (max(edge, point) / 2.squareRoot()).squareRoot()
            let e = color > 0 ? exp2((1 - feature) * log2(color)) : 0
            map[i] = Float(e)
            sum += e
        }
        return (sum / Double(n), map)
    }

    /// An image in YyCxCz, plane by plane, and its achromatic channel normalized ((Yy + 16) / 116).
    struct FLIPImage {
        var planes: [[Float]]
        var achromatic: [Float]

        init(_ rgba: [UInt8], _ n: Int) {
            self.init(n) { i in
                SIMD3(
                    FLIPFilters.linear[Int(rgba[4 * i])], FLIPFilters.linear[Int(rgba[4 * i + 1])],
                    FLIPFilters.linear[Int(rgba[4 * i + 2])])
            }
        }

        /// Texel i's linear RGB from `linear`.
        init(_ n: Int, _ linear: (Int) -> SIMD3<Double>) {
            var yy = [Float](repeating: 0, count: n)
            var cx = yy
            var cz = yy
            var ach = yy
            for i in 0..<n {
                let (y, x, z) = FLIPFilters.ycxcz(linear(i))
                (yy[i], cx[i], cz[i], ach[i]) = (Float(y), Float(x), Float(z), Float((y + 16) / 116))
            }
            planes = [yy, cx, cz]
            achromatic = ach
        }
    }

    /// Filtered by the contrast sensitivities, back to linear RGB and clamped, then CIELAB with the
    /// Hunt adjustment.
    static func colorPipeline(_ image: FLIPImage, _ w: Int, _ h: Int, _ f: FLIPFilters) -> [(Double, Double, Double)] {
        var filtered: [[Float]] = []
        for (k, plane) in image.planes.enumerated() {
            // Each channel's filter is a sum of (at most) two separable Gaussians.
            var sum = [Float](repeating: 0, count: plane.count)
            for (weight, taps) in f.csf[k] where weight != 0 {
                let part = plane.withUnsafeBufferPointer { SeparableFilter.apply($0, w, h, taps, taps) }
                let wf = Float(weight)
                for i in sum.indices { sum[i] += wf * part[i] }
            }
            filtered.append(sum)
        }
        return (0..<(w * h)).map { i in
            var rgb = FLIPFilters.linearRGB(Double(filtered[0][i]), Double(filtered[1][i]), Double(filtered[2][i]))
            rgb = clamp01(rgb)
            return FLIPFilters.huntLab(rgb)
        }
    }

    @inline(__always) static func clamp01(_ v: SIMD3<Double>) -> SIMD3<Double> {
        v.replacing(with: 0, where: v .< 0).replacing(with: 1, where: v .> 1)
    }

    /// Edge and point magnitudes of the achromatic channel.
    static func features(_ y: [Float], _ w: Int, _ h: Int, _ f: FLIPFilters) -> (edges: [Float], points: [Float]) {
        y.withUnsafeBufferPointer { p in
            let ex = SeparableFilter.apply(p, w, h, f.edge, f.gaussian)
            let ey = SeparableFilter.apply(p, w, h, f.gaussian, f.edge)
            let px = SeparableFilter.apply(p, w, h, f.point, f.gaussian)
            let py = SeparableFilter.apply(p, w, h, f.gaussian, f.point)
            return (
                zip(ex, ey).map { ($0 * $0 + $1 * $1).squareRoot() },
                zip(px, py).map { ($0 * $0 + $1 * $1).squareRoot() }
            )
        }
    }
}

/// FLIP's constants and kernels for one viewing distance.
struct FLIPFilters: Sendable {
    /// Per channel (Yy, Cx, Cz): its contrast sensitivity as weighted normalized 1D Gaussians, each
    /// applied along x and y (the 2D filter is their weighted sum, normalized to 1).
    var csf: [[(weight: Double, taps: [Float])]]
    /// The feature detectors' 1D factors: a Gaussian, its first derivative and its second, each 2D
    /// kernel (derivative along one axis × Gaussian along the other) scaled so that its positive
    /// weights sum to 1 and its negative weights to −1.
    var gaussian: [Float]
    var edge: [Float]
    var point: [Float]

    static let cache = NSLock()
    nonisolated(unsafe) static var made: [Double: FLIPFilters] = [:]

    static func cached(_ ppd: Double) -> FLIPFilters {
        cache.lock()
        defer { cache.unlock() }
        if let f = made[ppd] { return f }
        let f = FLIPFilters(ppd: ppd)
        made[ppd] = f
        return f
    }

    init(ppd: Double) {
        // The contrast sensitivities' parameters (a₁, b₁, a₂, b₂): achromatic, red–green, blue–yellow.
        let params: [(Double, Double, Double, Double)] = [
            (1, 0.0047, 0, 1e-5), (1, 0.0053, 0, 1e-5), (34.1, 0.04, 13.5, 0.025),
        ]
        let bMax = 0.04
        let radius = Int((3 * (bMax / (2 * Double.pi * Double.pi)).squareRoot() * ppd).rounded(.up))
        csf = params.map { a1, b1, a2, b2 in
            // S(r) = Σ aᵢ √(π / bᵢ) exp(−π² r² / bᵢ), r in degrees: each term a separable Gaussian.
            var terms: [(Double, [Float])] = []
            var total = 0.0
            for (a, b) in [(a1, b1), (a2, b2)] where a != 0 {
                let taps = (-radius...radius).map { k -> Double in
                    let x = Double(k) / ppd
                    return exp(-Double.pi * Double.pi * x * x / b)
                }
                let s = taps.reduce(0, +)
                // The 2D term's sum is a √(π/b) · s²; its taps normalized to 1 are weighted by it.
                let mass = a * (Double.pi / b).squareRoot() * s * s
                terms.append((mass, taps.map { Float($0 / s) }))
                total += mass
            }
            return terms.map { ($0.0 / total, $0.1) }
        }
        let sigma = 0.5 * 0.082 * ppd
        let r = Int((3 * sigma).rounded(.up))
        let g = (-r...r).map { k in exp(-Double(k * k) / (2 * sigma * sigma)) }
        let gSum = g.reduce(0, +)
        gaussian = g.map { Float($0 / gSum) }
        // First derivative: −x·g(x); the 2D kernel's positive and negative parts are equal in size.
        let d1 = (-r...r).map { k in -Double(k) * exp(-Double(k * k) / (2 * sigma * sigma)) }
        let d1Positive = d1.filter { $0 > 0 }.reduce(0, +)
        edge = d1.map { Float($0 / d1Positive) }
        // Second derivative: (x²/σ² − 1)·g(x); its positive and negative parts scaled apart.
        let d2 = (-r...r).map { k in
            (Double(k * k) / (sigma * sigma) - 1) * exp(-Double(k * k) / (2 * sigma * sigma))
        }
        let d2Positive = d2.filter { $0 > 0 }.reduce(0, +)
        let d2Negative = -d2.filter { $0 < 0 }.reduce(0, +)
        point = d2.map { Float($0 > 0 ? $0 / d2Positive : $0 / d2Negative) }
    }

    /// The sRGB transfer curve decoded, per 8-bit value.
    static let linear: [Double] = (0..<256).map { v in
        let c = Double(v) / 255
        return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
    }

    /// Linear sRGB (D65) to XYZ, and the white every conversion is relative to: XYZ of (1, 1, 1).
    static let toXYZ: [SIMD3<Double>] = [
        SIMD3(0.412_386_56, 0.357_591_49, 0.180_450_49), SIMD3(0.212_636_82, 0.715_182_98, 0.072_180_2),
        SIMD3(0.019_330_62, 0.119_197_16, 0.950_372_59),
    ]
    static let white = SIMD3(toXYZ[0].sum(), toXYZ[1].sum(), toXYZ[2].sum())
    static let fromXYZ: [SIMD3<Double>] = {
        let m = toXYZ
        let det =
            m[0].x * (m[1].y * m[2].z - m[1].z * m[2].y) - m[0].y * (m[1].x * m[2].z - m[1].z * m[2].x)
            + m[0].z * (m[1].x * m[2].y - m[1].y * m[2].x)
        return [
            SIMD3(
                m[1].y * m[2].z - m[1].z * m[2].y, m[0].z * m[2].y - m[0].y * m[2].z, m[0].y * m[1].z - m[0].z * m[1].y)
                / det,
            SIMD3(
                m[1].z * m[2].x - m[1].x * m[2].z, m[0].x * m[2].z - m[0].z * m[2].x, m[0].z * m[1].x - m[0].x * m[1].z)
                / det,
            SIMD3(
                m[1].x * m[2].y - m[1].y * m[2].x, m[0].y * m[2].x - m[0].x * m[2].y, m[0].x * m[1].y - m[0].y * m[1].x)
                / det,
        ]
    }()

    static func xyz(_ rgb: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3((toXYZ[0] * rgb).sum(), (toXYZ[1] * rgb).sum(), (toXYZ[2] * rgb).sum()) / white
    }

    /// YyCxCz (a linearized CIELAB, relative to the white): Yy = 116 Y − 16, Cx = 500 (X − Y),
    /// Cz = 200 (Y − Z).
    static func ycxcz(_ rgb: SIMD3<Double>) -> (Double, Double, Double) {
        let v = xyz(rgb)
        return (116 * v.y - 16, 500 * (v.x - v.y), 200 * (v.y - v.z))
    }

    static func linearRGB(_ yy: Double, _ cx: Double, _ cz: Double) -> SIMD3<Double> {
        let y = (yy + 16) / 116
        let v = SIMD3(cx / 500 + y, y, y - cz / 200) * white
        return SIMD3((fromXYZ[0] * v).sum(), (fromXYZ[1] * v).sum(), (fromXYZ[2] * v).sum())
    }

    /// CIELAB of linear RGB, a* and b* scaled by 0.01 L* (the Hunt effect).
    static func huntLab(_ rgb: SIMD3<Double>) -> (Double, Double, Double) {
        let v = xyz(rgb)
        func f(_ t: Double) -> Double {
            let d = 6.0 / 29
            return t > d * d * d ? cubeRoot(t) : t / (3 * d * d) + 4.0 / 29
        }
        let (fx, fy, fz) = (f(v.x), f(v.y), f(v.z))
        let l = 116 * fy - 16
        return (l, 0.01 * l * 500 * (fx - fy), 0.01 * l * 200 * (fy - fz))
    }

    /// ∛t for t > 0: a first guess from the exponent's bits (within 6 %), then two of Halley's
    /// steps, each cubing the error (relative error below 10⁻¹²), one division each.
    @inline(__always) static func cubeRoot(_ t: Double) -> Double {
        var y = Double(bitPattern: t.bitPattern / 3 + 0x2A9F_7893_782D_A1CE)
        for _ in 0..<2 {
            let y3 = y * y * y
            y *= (y3 + 2 * t) / (2 * y3 + t)
        }
        return y
    }

    /// The largest colour difference: pure green against pure blue, Hunt-adjusted, HyAB, ^0.7.
    static let maxColorDifference: Double = {
        let g = huntLab(SIMD3(0, 1, 0))
        let b = huntLab(SIMD3(0, 0, 1))
        let hyab = abs(g.0 - b.0) + ((g.1 - b.1) * (g.1 - b.1) + (g.2 - b.2) * (g.2 - b.2)).squareRoot()
        return pow(hyab, 0.7)
    }()
}

extension Quality {
    /// HDR-FLIP (Andersson, Nilsson, Shirley and Akenine-Möller, "Visualizing Errors in Rendered
    /// High Dynamic Range Images", 2021) of linear RGBA floats: both images exposed by 2^c and
    /// tonemapped with the ACES fit x' = (k₀x² + k₁x) / (k₃x² + k₄x + k₅) (k₀ = 0.6²·2.51,
    /// k₁ = 0.6·0.03, k₃ = 0.6²·2.43, k₄ = 0.6·0.59, k₅ = 0.14, clamped to [0, 1]) for exposures c
    /// from start = log₂(x_t / Y_max) to stop = log₂(x_t / Y_median) of the reference's luminance
    /// (Rec. 709 weights), x_t the value the tonemapper takes to 0.85, in max(2, ⌈stop − start⌉)
    /// even steps; the LDR-FLIP of each pair, and per texel the largest. Negative values and NaN
    /// count as 0; a median of 0 is taken as the smallest positive luminance.
    public static func hdrFLIP(_ reference: [Float], _ test: [Float], width w: Int, height h: Int, ppd: Double = 67)
        -> (mean: Double, map: [Float])
    {
        precondition(reference.count == w * h * 4 && test.count == reference.count)
        let n = w * h
        guard n > 0 else { return (0, []) }
        let (k0, k1, k3, k4, k5) = (0.6 * 0.6 * 2.51, 0.6 * 0.03, 0.6 * 0.6 * 2.43, 0.6 * 0.59, 0.14)
        @inline(__always) func clean(_ v: Float) -> Double { v.isNaN || v < 0 ? 0 : Double(v) }
        // x_t solves (k₀ − k₃t)x² + (k₁ − k₄t)x − k₅t = 0 for t = 0.85.
        let t = 0.85
        let c0 = (k1 - k4 * t) / (k0 - k3 * t)
        let c1 = -k5 * t / (k0 - k3 * t)
        let xt = -0.5 * c0 + (0.25 * c0 * c0 - c1).squareRoot()
        var luminance = (0..<n).map { i in
            0.2126 * clean(reference[4 * i]) + 0.7152 * clean(reference[4 * i + 1]) + 0.0722
                * clean(reference[4 * i + 2])
        }
        luminance.sort()
        guard let high = luminance.last, high > 0, high.isFinite else {
            return flipAt(exposures: [0], reference, test, w, h, ppd, tonemap: (k0, k1, k3, k4, k5))
        }
        // The median as numpy's percentile takes it: the mean of the middle two for an even count.
        var median = n % 2 == 1 ? luminance[n / 2] : (luminance[n / 2 - 1] + luminance[n / 2]) / 2
        if median <= 0 { median = luminance.first { $0 > 0 }! }
        let start = log2(xt / high)
        let stop = log2(xt / median)
        let count = max(2, Int((stop - start).rounded(.up)))
        let step = (stop - start) / Double(count - 1)
        return flipAt(
            exposures: (0..<count).map { start + Double($0) * step }, reference, test, w, h, ppd,
            tonemap: (k0, k1, k3, k4, k5))
    }

    /// The per-texel largest LDR-FLIP over `exposures` of the two tonemapped images, and its mean.
    static func flipAt(
        exposures: [Double], _ reference: [Float], _ test: [Float], _ w: Int, _ h: Int, _ ppd: Double,
        tonemap k: (Double, Double, Double, Double, Double)
    ) -> (mean: Double, map: [Float]) {
        let n = w * h
        var map = [Float](repeating: 0, count: n)
        for c in exposures {
            let scale = exp2(c)
            @inline(__always) func mapped(_ v: Float) -> Double {
                let x = (v.isNaN || v < 0 ? 0 : Double(v)) * scale
                guard x.isFinite else { return 1 }
                let y = (k.0 * x * x + k.1 * x) / (k.2 * x * x + k.3 * x + k.4)
                return y.isNaN ? 1 : min(max(y, 0), 1)
            }
            let ref = FLIPImage(n) { i in
                SIMD3(mapped(reference[4 * i]), mapped(reference[4 * i + 1]), mapped(reference[4 * i + 2]))
            }
            let tst = FLIPImage(n) { i in SIMD3(mapped(test[4 * i]), mapped(test[4 * i + 1]), mapped(test[4 * i + 2])) }
            let e = flip(ref, tst, w, h, ppd).map
            for i in 0..<n where e[i] > map[i] { map[i] = e[i] }
        }
        return (map.reduce(0.0) { $0 + Double($1) } / Double(n), map)
    }
}
