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
    /// ignored), and its mean; without `map`, the mean alone (the map empty).
    ///
    /// `side`, when given, is `reference`'s side made once (`flipReference`): the same values, the
    /// reference neither converted nor filtered again (a quality target's search measures one
    /// source against many candidates).
    public static func flip(
        _ reference: [UInt8], _ test: [UInt8], width w: Int, height h: Int, ppd: Double = 67, map: Bool = true,
        side: FLIPReference? = nil
    ) -> (mean: Double, map: [Float]) {
        precondition(reference.count == w * h * 4 && test.count == reference.count)
        let n = w * h
        guard n > 0 else { return (0, []) }
        precondition(side == nil || (side!.width == w && side!.height == h && side!.ppd == ppd))
        var out = [Float](repeating: 0, count: map ? n : 0)
        var unused: FLIPReference?
        let sum = reference.withUnsafeBufferPointer { r in
            test.withUnsafeBufferPointer { t in
                out.withUnsafeMutableBufferPointer { m in
                    FLIPColour.linear8.withUnsafeBufferPointer { table in
                        flip(
                            SRGB8Texels(texels: r, table: table), SRGB8Texels(texels: t, table: table), w, h, ppd,
                            map: map ? m.baseAddress : nil, side: side, keep: &unused)
                    }
                }
            }
        }
        return (sum / Double(n), out)
    }

    /// FLIP's side of a reference image (`flip(…, side:)`): per texel its colour after the contrast
    /// sensitivity filters (Yy, Cx, Cz), its edge and point magnitudes and its Hunt-adjusted L*a*b*,
    /// each plane whole-image, row-major.
    public struct FLIPReference: Sendable {
        let width: Int
        let height: Int
        let ppd: Double
        var colour: [[Float]]
        var features: [[Float]]
        /// L*, a* and b*, one plane after another (width × height each).
        var lab: [Float]

        /// A strip's filtered reference planes (`count` texels from texel `at`) kept, and their L*a*b*.
        mutating func store(
            _ colour: UnsafePointer<Float>, _ features: UnsafePointer<Float>, _ plane: Int, at: Int, count: Int,
            _ space: FLIPColour
        ) {
            for c in 0..<3 {
                self.colour[c].withUnsafeMutableBufferPointer {
                    ($0.baseAddress! + at).update(from: colour + c * plane, count: count)
                }
            }
            for d in 0..<2 {
                self.features[d].withUnsafeMutableBufferPointer {
                    ($0.baseAddress! + at).update(from: features + d * plane, count: count)
                }
            }
            let n = width * height
            lab.withUnsafeMutableBufferPointer { lab in
                let out = lab.baseAddress! + at
                for i in stride(from: 0, to: count, by: 8) {
                    let valid = min(8, count - i)
                    let v = space.huntLab(space.linearRGB(Lanes3(colour + i, plane, valid: valid)))
                    v.x.store(out + i, valid: valid)
                    v.y.store(out + n + i, valid: valid)
                    v.z.store(out + 2 * n + i, valid: valid)
                }
            }
        }

        /// The kept planes of a strip put where the reference's would be filtered.
        func load(
            _ colour: UnsafeMutablePointer<Float>, _ features: UnsafeMutablePointer<Float>, _ plane: Int, at: Int,
            count: Int
        ) {
            for c in 0..<3 {
                self.colour[c].withUnsafeBufferPointer {
                    (colour + c * plane).update(from: $0.baseAddress! + at, count: count)
                }
            }
            for d in 0..<2 {
                self.features[d].withUnsafeBufferPointer {
                    (features + d * plane).update(from: $0.baseAddress! + at, count: count)
                }
            }
        }
    }

    /// `reference`'s side of FLIP (sRGB-encoded 8-bit RGBA, w × h).
    public static func flipReference(_ reference: [UInt8], width w: Int, height h: Int, ppd: Double = 67)
        -> FLIPReference
    {
        precondition(reference.count == w * h * 4)
        let n = w * h
        var kept: FLIPReference? = FLIPReference(
            width: w, height: h, ppd: ppd, colour: Array(repeating: Array(repeating: 0, count: n), count: 3),
            features: Array(repeating: Array(repeating: 0, count: n), count: 2), lab: Array(repeating: 0, count: 3 * n))
        reference.withUnsafeBufferPointer { r in
            FLIPColour.linear8.withUnsafeBufferPointer { table in
                let texels = SRGB8Texels(texels: r, table: table)
                _ = flip(texels, texels, w, h, ppd, map: nil, side: nil, keep: &kept)
            }
        }
        return kept!
    }

    /// Where FLIP reads an image's texels: linear RGB in [0, 1] of the `valid` (1…8) texels from
    /// texel i, the other lanes 0 (specialized, so no call is dynamic).
    protocol FLIPSource {
        func linear(_ i: Int, _ valid: Int) -> Lanes3
    }

    /// sRGB-encoded 8-bit RGBA.
    struct SRGB8Texels: FLIPSource {
        let texels: UnsafeBufferPointer<UInt8>
        let table: UnsafeBufferPointer<Float>
        @inline(__always) func linear(_ i: Int, _ valid: Int) -> Lanes3 {
            var v = Lanes3()
            for l in 0..<valid {
                let t = 4 * (i + l)
                (v.x[l], v.y[l], v.z[l]) = (table[Int(texels[t])], table[Int(texels[t + 1])], table[Int(texels[t + 2])])
            }
            return v
        }
    }

    /// The sum of the FLIP map of `tst` against `ref` (w × h), written to `map` when given. The
    /// image is worked through in strips of 48 rows (and the filters' reach above and below), so
    /// its working memory is a few strips, not planes of the whole image.
    ///
    /// With `side`, the reference's filtered planes and L*a*b* are read from it; with `keep` holding
    /// a side to fill, the reference's are written to it and nothing is compared.
    static func flip<Source: FLIPSource>(
        _ ref: Source, _ tst: Source, _ w: Int, _ h: Int, _ ppd: Double, map: UnsafeMutablePointer<Float>?,
        side: FLIPReference? = nil, keep: inout FLIPReference?
    ) -> Double {
        let f = FLIPFilters.cached(ppd)
        let colourSpace = FLIPColour()
        let reach = max(f.csf.flatMap { $0.map { $0.taps.count / 2 } }.max()!, f.gaussian.count / 2)
        let stripRows = 48
        let inputRows = stripRows + 2 * reach
        let (inputPlane, stripPlane) = (inputRows * w, stripRows * w)
        // Per image: Yy, Cx, Cz and the achromatic channel of the rows a strip reads (planes 0–3,
        // 4–7); filtered, the three colour channels (0–2, 3–5) and the edge and point magnitudes
        // of the strip's rows (0–1, 2–3).
        var planes = [Float](repeating: 0, count: 8 * inputPlane)
        var colour = [Float](repeating: 0, count: 6 * stripPlane)
        var features = [Float](repeating: 0, count: 4 * stripPlane)
        var parts = [Float](repeating: 0, count: 2 * stripPlane + 2 * inputPlane)
        var scratch = SeparableFilter.Scratch(w, rows: inputRows, reach)
        var sum = 0.0
        planes.withUnsafeMutableBufferPointer { planes in
            colour.withUnsafeMutableBufferPointer { colour in
                features.withUnsafeMutableBufferPointer { features in
                    parts.withUnsafeMutableBufferPointer { parts in
                        let (planes, colour, features) = (
                            planes.baseAddress!, colour.baseAddress!, features.baseAddress!
                        )
                        let (along, across) = (parts.baseAddress!, parts.baseAddress! + stripPlane)
                        let (smoothed, derived) = (across + stripPlane, across + stripPlane + inputPlane)
                        for r0 in stride(from: 0, to: h, by: stripRows) {
                            let rows = r0..<min(h, r0 + stripRows)
                            let first = max(0, r0 - reach)
                            let last = min(h, rows.upperBound + reach)
                            let count = rows.count * w
                            let at = r0 * w
                            for k in side != nil ? [1] : keep != nil ? [0] : [0, 1] {
                                let p = planes + 4 * k * inputPlane
                                for row in first..<last {
                                    for x in stride(from: 0, to: w, by: 8) {
                                        let valid = min(8, w - x)
                                        let v = colourSpace.ycxcz(
                                            k == 0 ? ref.linear(row * w + x, valid) : tst.linear(row * w + x, valid))
                                        let j = p + (row - first) * w + x
                                        v.x.store(j, valid: valid)
                                        v.y.store(j + inputPlane, valid: valid)
                                        v.z.store(j + 2 * inputPlane, valid: valid)
                                        ((v.x + 16) / 116).store(j + 3 * inputPlane, valid: valid)
                                    }
                                }
                                // Colour: each channel's contrast sensitivity, a weighted sum of
                                // separable Gaussians.
                                for c in 0..<3 {
                                    let dst = colour + (3 * k + c) * stripPlane
                                    dst.update(repeating: 0, count: count)
                                    for (weight, taps) in f.csf[c] where weight != 0 {
                                        SeparableFilter.strip(
                                            p + c * inputPlane, first: first, w: w, h: h, rows: rows, taps, taps,
                                            &scratch, into: along)
                                        let wf = Float(weight)
                                        for i in 0..<count { dst[i] += wf * along[i] }
                                    }
                                }
                                // Features: edge and point magnitudes of the achromatic channel; the
                                // Gaussian along x is shared by both detectors along y.
                                let a = max(0, rows.lowerBound - f.gaussian.count / 2)
                                let b = min(h, rows.upperBound + f.gaussian.count / 2)
                                let ach = p + 3 * inputPlane
                                SeparableFilter.horizontal(
                                    ach, first: first, w: w, rows: a..<b, f.gaussian, &scratch.padded, into: smoothed)
                                for (d, detector) in [f.edge, f.point].enumerated() {
                                    SeparableFilter.horizontal(
                                        ach, first: first, w: w, rows: a..<b, detector, &scratch.padded, into: derived)
                                    SeparableFilter.vertical(
                                        derived, first: a, w: w, h: h, rows: rows, f.gaussian, into: along)
                                    SeparableFilter.vertical(
                                        smoothed, first: a, w: w, h: h, rows: rows, detector, into: across)
                                    let m = features + (2 * k + d) * stripPlane
                                    for i in 0..<count {
                                        m[i] = (along[i] * along[i] + across[i] * across[i]).squareRoot()
                                    }
                                }
                            }
                            if keep != nil {
                                keep!.store(colour, features, stripPlane, at: at, count: count, colourSpace)
                                continue
                            }
                            side?.load(colour, features, stripPlane, at: at, count: count)
                            let stripSum = compare(
                                colour, features, stripPlane, count: count, side: side, at: at, colourSpace,
                                map: map.map { $0 + at })
                            sum += stripSum
                        }
                    }
                }
            }
        }
        return sum
    }

    /// The sum of a strip's FLIP errors (`count` texels), each written to `map` when given: the
    /// filtered colour of the reference (planes 0–2 of `colour`, `plane` apart) and of the test
    /// (planes 3–5) into Hunt-adjusted L*a*b* (the reference's read from `side` at texel `at` when
    /// given), with the edge and point magnitudes (`features`, planes 0–1 and 2–3). Eight texels at a
    /// time; the sum is kept in eight Float lanes for 64 steps, then added to a Double.
    static func compare(
        _ colour: UnsafePointer<Float>, _ features: UnsafePointer<Float>, _ plane: Int, count: Int,
        side: FLIPReference?, at: Int, _ space: FLIPColour, map: UnsafeMutablePointer<Float>?
    ) -> Double {
        let cmax = Float(FLIPFilters.maxColorDifference)
        let n = side.map { $0.width * $0.height } ?? 0
        return (side?.lab ?? []).withUnsafeBufferPointer { kept in
            var sum = 0.0
            var lanes = Lanes(repeating: 0)
            for i in stride(from: 0, to: count, by: 8) {
                let valid = min(8, count - i)
                let lab1 =
                    side != nil
                    ? Lanes3(kept.baseAddress! + at + i, n, valid: valid)
                    : space.huntLab(space.linearRGB(Lanes3(colour + i, plane, valid: valid)))
                let lab2 = space.huntLab(space.linearRGB(Lanes3(colour + 3 * plane + i, plane, valid: valid)))
                let edge = Lanes.load(features + i, valid: valid) - Lanes.load(features + 2 * plane + i, valid: valid)
                let point =
                    Lanes.load(features + plane + i, valid: valid) - Lanes.load(features + 3 * plane + i, valid: valid)
                var e = texelError(
                    lab1.x - lab2.x, lab1.y - lab2.y, lab1.z - lab2.z, edge: edge.magnitude, point: point.magnitude,
                    cmax: cmax)
                for l in valid..<8 { e[l] = 0 }
                map.map { e.store($0 + i, valid: valid) }
                lanes += e
                if i % 512 == 504 || i + 8 >= count {
                    sum += Double(lanes.sum())
                    lanes = Lanes(repeating: 0)
                }
            }
            return sum
        }
    }

    /// Eight texels' errors from their two Hunt-adjusted L*a*b* colours' difference (ΔL, Δa, Δb) and
    /// their edge and point differences: the HyAB distance^0.7, redistributed (the first 40 % of the
    /// largest difference `cmax` onto 95 % of the scale), raised to 1 − (the larger feature
    /// difference / √2)^½. A difference of 0 is an error of 0.
    @inline(__always) static func texelError(
        _ dl: Lanes, _ da: Lanes, _ db: Lanes, edge: Lanes, point: Lanes, cmax: Float
    ) -> Lanes {
        let (pc, pt): (Float, Float) = (0.4, 0.95)
        let hyab = dl.magnitude + (da * da + db * db).squareRoot()
        let dc = hyab.power(Lanes(repeating: 0.7)).choosing(Lanes(repeating: 0), where: (hyab.bits &- 1) &>> 31)
        let low = (pt / (pc * cmax)) * dc
        let high = pt + (dc - pc * cmax) / (cmax - pc * cmax) * (1 - pt)
        let color = high.choosing(low, where: dc.below(Lanes(repeating: pc * cmax)))
        let larger = edge.choosing(point, where: edge.below(point))
        let feature = (larger / Float(2).squareRoot()).squareRoot()
        return color.power(1 - feature).choosing(Lanes(repeating: 0), where: (color.bits &- 1) &>> 31)
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
                // Taps under 10⁻⁷ of the centre's (the narrow achromatic and red–green terms reach
                // only 5–6 texels) are left out: they change no result's first six digits.
                let cut = taps.prefix { $0 < 1e-7 * taps[radius] }.count
                terms.append((mass, taps[cut..<(taps.count - cut)].map { Float($0 / s) }))
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

    /// The largest colour difference: pure green against pure blue, Hunt-adjusted, HyAB, ^0.7 (by
    /// the lanes' own power, as every texel's).
    static let maxColorDifference: Double = {
        let colour = FLIPColour()
        var green = Lanes3()
        green.y[0] = 1
        var blue = Lanes3()
        blue.z[0] = 1
        let (g, b) = (colour.huntLab(green), colour.huntLab(blue))
        let (dl, da, db) = (g.x - b.x, g.y - b.y, g.z - b.z)
        let hyab = dl.magnitude + (da * da + db * db).squareRoot()
        return Double(hyab.power(Lanes(repeating: 0.7))[0])
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
    public static func hdrFLIP(
        _ reference: [Float], _ test: [Float], width w: Int, height h: Int, ppd: Double = 67, map: Bool = true
    ) -> (mean: Double, map: [Float]) {
        let r = hdrFLIPMap(reference, test, width: w, height: h, ppd: ppd)
        return (r.mean, map ? r.map : [])
    }

    static func hdrFLIPMap(_ reference: [Float], _ test: [Float], width w: Int, height h: Int, ppd: Double)
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
        var one = [Float](repeating: 0, count: n)
        var unused: FLIPReference?
        reference.withUnsafeBufferPointer { r in
            test.withUnsafeBufferPointer { t in
                one.withUnsafeMutableBufferPointer { e in
                    for c in exposures {
                        let scale = exp2(c)
                        _ = flip(
                            ToneMapped(texels: r, scale: scale, k: k), ToneMapped(texels: t, scale: scale, k: k), w, h,
                            ppd, map: e.baseAddress, keep: &unused)
                        for i in 0..<n where e[i] > map[i] { map[i] = e[i] }
                    }
                }
            }
        }
        return (map.reduce(0.0) { $0 + Double($1) } / Double(n), map)
    }

    /// Linear RGBA floats exposed by `scale` and tonemapped (ACES fit, clamped to [0, 1]).
    struct ToneMapped: FLIPSource {
        let texels: UnsafeBufferPointer<Float>
        let scale: Double
        let k: (Double, Double, Double, Double, Double)
        @inline(__always) func mapped(_ v: Float) -> Double {
            let x = (v.isNaN || v < 0 ? 0 : Double(v)) * scale
            guard x.isFinite else { return 1 }
            let y = (k.0 * x * x + k.1 * x) / (k.2 * x * x + k.3 * x + k.4)
            return y.isNaN ? 1 : min(max(y, 0), 1)
        }
        @inline(__always) func linear(_ i: Int, _ valid: Int) -> Lanes3 {
            var v = Lanes3()
            for l in 0..<valid {
                let t = 4 * (i + l)
                (v.x[l], v.y[l], v.z[l]) = (
                    Float(mapped(texels[t])), Float(mapped(texels[t + 1])), Float(mapped(texels[t + 2]))
                )
            }
            return v
        }
    }
}

/// FLIP's colour conversions per texel, in Float, the matrices held in registers: linear sRGB to
/// YyCxCz (a linearized CIELAB relative to the white XYZ of (1, 1, 1): Yy = 116 Y − 16,
/// Cx = 500 (X − Y), Cz = 200 (Y − Z)) and back, and CIELAB with the Hunt adjustment.
struct FLIPColour {
    let toXYZ: (SIMD3<Float>, SIMD3<Float>, SIMD3<Float>)
    let fromXYZ: (SIMD3<Float>, SIMD3<Float>, SIMD3<Float>)

    init() {
        let m = FLIPFilters.toXYZ
        let white = FLIPFilters.white
        // Rows scaled by 1 / white (XYZ relative to the white); columns of the inverse by white.
        toXYZ = (
            SIMD3<Float>(m[0] / white.x), SIMD3<Float>(m[1] / white.y), SIMD3<Float>(m[2] / white.z)
        )
        let i = FLIPFilters.fromXYZ
        fromXYZ = (SIMD3<Float>(i[0] * white), SIMD3<Float>(i[1] * white), SIMD3<Float>(i[2] * white))
    }

    /// The sRGB transfer curve decoded, per 8-bit value.
    static let linear8: [Float] = (0..<256).map { v in
        let c = Double(v) / 255
        return Float(c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4))
    }

    @inline(__always) func xyz(_ rgb: Lanes3) -> Lanes3 {
        Lanes3(Self.dot(toXYZ.0, rgb), Self.dot(toXYZ.1, rgb), Self.dot(toXYZ.2, rgb))
    }

    /// A row of a matrix times eight colours, summed in the order SIMD3's `sum()` takes.
    @inline(__always) static func dot(_ m: SIMD3<Float>, _ v: Lanes3) -> Lanes {
        (m.x * v.x + m.y * v.y) + m.z * v.z
    }

    @inline(__always) func ycxcz(_ rgb: Lanes3) -> Lanes3 {
        let v = xyz(rgb)
        return Lanes3(116 * v.y - 16, 500 * (v.x - v.y), 200 * (v.y - v.z))
    }

    /// Linear RGB of YyCxCz, clamped to [0, 1].
    @inline(__always) func linearRGB(_ c: Lanes3) -> Lanes3 {
        let y = (c.x + 16) / 116
        let v = Lanes3(c.y / 500 + y, y, y - c.z / 200)
        return Lanes3(
            Self.dot(fromXYZ.0, v).clamped01, Self.dot(fromXYZ.1, v).clamped01, Self.dot(fromXYZ.2, v).clamped01)
    }

    /// CIELAB of linear RGB, a* and b* scaled by 0.01 L* (the Hunt effect).
    @inline(__always) func huntLab(_ rgb: Lanes3) -> Lanes3 {
        let v = xyz(rgb)
        @inline(__always) func f(_ t: Lanes) -> Lanes {
            let d: Float = 6.0 / 29
            let linear = t / (3 * d * d) + 4.0 / 29
            return linear.choosing(Self.cubeRoot(t), where: Lanes(repeating: d * d * d).below(t))
        }
        let (fx, fy, fz) = (f(v.x), f(v.y), f(v.z))
        let l = 116 * fy - 16
        return Lanes3(l, 0.01 * l * 500 * (fx - fy), 0.01 * l * 200 * (fy - fz))
    }

    /// ∛t for t > 0: a first guess from the exponent's bits (within 6 %), then two of Halley's
    /// steps, each cubing the error (to Float's precision).
    @inline(__always) static func cubeRoot(_ t: Lanes) -> Lanes {
        let bits = unsafeBitCast(t, to: SIMD8<UInt32>.self)
        var y = unsafeBitCast(bits / 3 &+ 0x2A51_4067, to: Lanes.self)
        for _ in 0..<2 {
            let y3 = y * y * y
            y *= (y3 + 2 * t) / (2 * y3 + t)
        }
        return y
    }
}

/// Eight texels' three channels, a plane each.
struct Lanes3 {
    var x: Lanes
    var y: Lanes
    var z: Lanes

    init(_ x: Lanes = Lanes(repeating: 0), _ y: Lanes = Lanes(repeating: 0), _ z: Lanes = Lanes(repeating: 0)) {
        (self.x, self.y, self.z) = (x, y, z)
    }

    /// The `valid` texels from `p` of three planes `plane` apart (the other lanes 0).
    @inline(__always) init(_ p: UnsafePointer<Float>, _ plane: Int, valid: Int) {
        self.init(
            Lanes.load(p, valid: valid), Lanes.load(p + plane, valid: valid), Lanes.load(p + 2 * plane, valid: valid))
    }
}
