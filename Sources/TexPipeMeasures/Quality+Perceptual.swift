internal import Foundation
public import TexPipeFormats

/// Perceptual measures of a level against the image that was encoded (docs/gpu-textures.md
/// "Checks and budgets"): SSIM as Wang et al. define it, NVIDIA's LDR-FLIP as Andersson et al.
/// define it, and the angle between unit normals. Each takes interleaved 8-bit RGBA (the stored
/// values) and works on contiguous Double rows with separable filters.
extension Quality {
    // MARK: SSIM

    /// SSIM's window: a Gaussian of σ = 1.5 texels out to 3.5 σ (radius 5, 11 taps), normalized —
    /// Wang et al.'s window, as scikit-image's `gaussian_weights=True` builds it.
    static let ssimWindow: [Float] = {
        let taps = (-5...5).map { exp(-Double($0 * $0) / (2 * 1.5 * 1.5)) }
        let sum = taps.reduce(0, +)
        return taps.map { Float($0 / sum) }
    }()

    /// The mean SSIM of one channel (`channel` of interleaved RGBA) of `b` against `a`, on the
    /// stored values (L = 255, K₁ = 0.01, K₂ = 0.03), population (not sample) variances. The map
    /// is averaged over the texels whose whole window lies inside the image, as scikit-image
    /// crops it; a level narrower or shorter than the window (11 texels) averages every texel with
    /// the window cut at the image's edges and renormalized. A channel equal in both is 1.
    ///
    /// `source`, when given, is `a`'s side made once (`ssimSource`): the same value, measured with
    /// two of the five windowed sums already made (a quality target's search measures one source
    /// against many candidates).
    public static func ssim(
        _ a: [UInt8], _ b: [UInt8], width w: Int, height h: Int, channel: Int, source: SSIMSource? = nil
    ) -> Double {
        precondition(a.count == w * h * 4 && b.count == a.count)
        if same(a, b, channel: channel) { return 1 }
        guard w >= 11 && h >= 11 else { return ssimCut(a, b, width: w, height: h, channel: channel) }
        precondition(source.map { $0.width == w && $0.height == h && $0.channel == channel } ?? true)
        return ssimStrips(a, b, width: w, height: h, channel: channel, source: source).sum
    }

    /// Whether `channel` of interleaved RGBA is the same in `a` and `b`: the texels compared as
    /// 32-bit words, the other channels masked off, 256 at a time (most levels differ early).
    static func same(_ a: [UInt8], _ b: [UInt8], channel: Int) -> Bool {
        let mask = (UInt32(0xFF) << (8 * UInt32(channel))).littleEndian
        return a.withUnsafeBytes { a in
            b.withUnsafeBytes { b in
                let (p, q) = (a.bindMemory(to: UInt32.self), b.bindMemory(to: UInt32.self))
                for start in stride(from: 0, to: p.count, by: 256) {
                    var differ: UInt32 = 0
                    for i in start..<min(p.count, start + 256) { differ |= p[i] ^ q[i] }
                    if differ & mask != 0 { return false }
                }
                return true
            }
        }
    }

    /// One channel's source side of SSIM (`ssim(…, source:)`): the windowed mean and mean of squares of
    /// `a`'s channel at each texel whose window lies inside, row by row. Nil for a level narrower or
    /// shorter than the window (those are measured whole).
    public struct SSIMSource: Sendable {
        let width: Int
        let height: Int
        let channel: Int
        /// (height − 10) × width each: rows 5…height − 6.
        var mean: [Float]
        var square: [Float]
    }

    /// `a`'s side of SSIM for `channel` (nil when the level is narrower or shorter than the window).
    public static func ssimSource(_ a: [UInt8], width w: Int, height h: Int, channel: Int) -> SSIMSource? {
        guard w >= 11 && h >= 11 else { return nil }
        return ssimStrips(a, nil, width: w, height: h, channel: channel, source: nil).source
    }

    /// The texels whose window lies inside, in strips of 48 rows: each strip reads its rows and the
    /// window's reach (5) above and below, so the working memory is a few strips. With `b`, the SSIM
    /// map's sum over them (`a`'s sums from `source` when given); without, `a`'s side kept whole.
    /// Each windowed sum of a texel is the same whichever of these made it: the same rows, the same
    /// filter.
    static func ssimStrips(
        _ a: [UInt8], _ b: [UInt8]?, width w: Int, height h: Int, channel: Int, source: SSIMSource?
    ) -> (sum: Double, source: SSIMSource?) {
        let r = 5
        let stripRows = 48
        let (inputPlane, stripPlane) = ((stripRows + 2 * r) * w, stripRows * w)
        var planes = [Float](repeating: 0, count: 5 * inputPlane)
        var filtered = [Float](repeating: 0, count: 5 * stripPlane)
        var scratch = SeparableFilter.Scratch(w, rows: stripRows + 2 * r, r)
        let c1: Float = (0.01 * 255) * (0.01 * 255)
        let c2: Float = (0.03 * 255) * (0.03 * 255)
        var sum = 0.0
        // Planes: 0 a, 1 b, 2 a², 3 b², 4 ab; those made here, by what was given.
        let made: [Int] = b == nil ? [0, 2] : source == nil ? [0, 1, 2, 3, 4] : [1, 3, 4]
        var kept =
            b == nil
            ? SSIMSource(
                width: w, height: h, channel: channel, mean: [Float](repeating: 0, count: (h - 2 * r) * w),
                square: [Float](repeating: 0, count: (h - 2 * r) * w)) : nil
        a.withUnsafeBufferPointer { a in
            (b ?? []).withUnsafeBufferPointer { b in
                planes.withUnsafeMutableBufferPointer { planes in
                    filtered.withUnsafeMutableBufferPointer { filtered in
                        let (p, f) = (planes.baseAddress!, filtered.baseAddress!)
                        for r0 in stride(from: r, to: h - r, by: stripRows) {
                            let rows = r0..<min(h - r, r0 + stripRows)
                            let first = r0 - r
                            for row in first..<(rows.upperBound + r) {
                                for x in stride(from: 0, to: w, by: 8) {
                                    let valid = min(8, w - x)
                                    let at = row * w + x
                                    let dst = p + (row - first) * w + x
                                    let u = Lanes.channel(a.baseAddress! + 4 * at, channel, valid: valid)
                                    u.store(dst, valid: valid)
                                    (u * u).store(dst + 2 * inputPlane, valid: valid)
                                    if !b.isEmpty {
                                        let v = Lanes.channel(b.baseAddress! + 4 * at, channel, valid: valid)
                                        v.store(dst + inputPlane, valid: valid)
                                        (v * v).store(dst + 3 * inputPlane, valid: valid)
                                        (u * v).store(dst + 4 * inputPlane, valid: valid)
                                    }
                                }
                            }
                            for k in made {
                                SeparableFilter.strip(
                                    p + k * inputPlane, first: first, w: w, h: h, rows: rows, ssimWindow, ssimWindow,
                                    &scratch, into: f + k * stripPlane)
                            }
                            let at = (rows.lowerBound - r) * w
                            if kept != nil {
                                for i in 0..<(rows.count * w) {
                                    kept!.mean[at + i] = f[i]
                                    kept!.square[at + i] = f[2 * stripPlane + i]
                                }
                                continue
                            }
                            if let source {
                                for i in 0..<(rows.count * w) {
                                    f[i] = source.mean[at + i]
                                    f[2 * stripPlane + i] = source.square[at + i]
                                }
                            }
                            for row in 0..<rows.count {
                                var rowSum = Lanes(repeating: 0)
                                for col in stride(from: r, to: w - r, by: 8) {
                                    let valid = min(8, w - r - col)
                                    let i = f + row * w + col
                                    let ux = Lanes.load(i, valid: valid)
                                    let uy = Lanes.load(i + stripPlane, valid: valid)
                                    let vx = Lanes.load(i + 2 * stripPlane, valid: valid) - ux * ux
                                    let vy = Lanes.load(i + 3 * stripPlane, valid: valid) - uy * uy
                                    let vxy = Lanes.load(i + 4 * stripPlane, valid: valid) - ux * uy
                                    let top: Lanes = (2 * ux * uy + c1) * (2 * vxy + c2)
                                    let means: Lanes = ux * ux + uy * uy + c1
                                    var v = top / (means * (vx + vy + c2))
                                    for l in valid..<8 { v[l] = 0 }
                                    rowSum += v
                                }
                                sum += Double(rowSum.sum())
                            }
                        }
                    }
                }
            }
        }
        return (sum / Double((h - 2 * r) * (w - 2 * r)), kept)
    }

    /// SSIM of a level narrower or shorter than the window: every texel, the window cut at the
    /// image's edges and renormalized.
    static func ssimCut(_ a: [UInt8], _ b: [UInt8], width w: Int, height h: Int, channel: Int) -> Double {
        let n = w * h
        var planes = [[Float]](repeating: [Float](repeating: 0, count: n), count: 5)
        for i in 0..<n {
            let x = Float(a[4 * i + channel])
            let y = Float(b[4 * i + channel])
            planes[0][i] = x
            planes[1][i] = y
            planes[2][i] = x * x
            planes[3][i] = y * y
            planes[4][i] = x * y
        }
        let f = planes.map { plane in plane.withUnsafeBufferPointer { SeparableFilter.applyCut($0, w, h, ssimWindow) } }
        let k1: Double = 0.01 * 255
        let k2: Double = 0.03 * 255
        let (c1, c2) = (k1 * k1, k2 * k2)
        var sum = 0.0
        for i in 0..<n {
            let (ux, uy) = (Double(f[0][i]), Double(f[1][i]))
            let vx = Double(f[2][i]) - ux * ux
            let vy = Double(f[3][i]) - uy * uy
            let vxy = Double(f[4][i]) - ux * uy
            sum += ((2 * ux * uy + c1) * (2 * vxy + c2)) / ((ux * ux + uy * uy + c1) * (vx + vy + c2))
        }
        return sum / Double(n)
    }

    /// SSIM over R, G and B (their mean) and alpha on its own.
    public static func ssim(_ a: [UInt8], _ b: [UInt8], width w: Int, height h: Int) -> (rgb: Double, alpha: Double) {
        let rgb = (0..<3).map { ssim(a, b, width: w, height: h, channel: $0) }.reduce(0, +) / 3
        return (rgb, ssim(a, b, width: w, height: h, channel: 3))
    }

    // MARK: Normal error

    /// The angle in degrees between each texel's unit normal in `source` and in `decoded` (RGB as
    /// x, y, z = 2c/255 − 1, each normalized; with `twoChannel`, z rebuilt as √(1 − x² − y²) in
    /// the decode, as a shader of a BC5 or EAC RG11 map does): the mean and the 99th percentile
    /// (nearest rank). With `rebuildSource`, the source's z is rebuilt the same way (two
    /// two-channel maps compared, as `texpipe diff` does).
    public static func normalError(
        _ source: [UInt8], _ decoded: [UInt8], width w: Int, height h: Int, twoChannel: Bool,
        rebuildSource: Bool = false
    ) -> (mean: Double, p99: Double) {
        let n = w * h
        guard n > 0 else { return (0, 0) }
        var angles = [Double](repeating: 0, count: n)
        func unit(_ p: [UInt8], _ i: Int, rebuild: Bool) -> SIMD3<Double> {
            let x = Double(p[4 * i]) / 127.5 - 1
            let y = Double(p[4 * i + 1]) / 127.5 - 1
            let z = rebuild ? (max(0, 1 - x * x - y * y)).squareRoot() : Double(p[4 * i + 2]) / 127.5 - 1
            let v = SIMD3(x, y, z)
            let length = (v * v).sum().squareRoot()
            return length > 0 ? v / length : SIMD3(0, 0, 1)
        }
        for i in 0..<n {
            let a = unit(source, i, rebuild: rebuildSource)
            let b = unit(decoded, i, rebuild: twoChannel)
            angles[i] = acos(min(1, max(-1, (a * b).sum()))) * 180 / .pi
        }
        let mean = angles.reduce(0, +) / Double(n)
        angles.sort()
        let rank = Int((0.99 * Double(n)).rounded(.up))
        return (mean, angles[max(0, min(n - 1, rank - 1))])
    }
}

extension Quality {
    /// `q` with the perceptual measures of `decoded` against `texels` (both RGBA8, w × h) filled in:
    /// SSIM over the colour channels the format stores and alpha where it stores it; FLIP for
    /// colour (RGB and RGBA) formats; the normal angle, z rebuilt for two-channel formats (in
    /// `texels` too when `sourceDecoded`: two decodes compared, as `texpipe diff` does).
    ///
    /// `source`, when given, is `texels`' side of SSIM made once (`SourceSide`): the same values.
    public static func measured(
        _ q: LevelQuality, _ texels: [UInt8], _ decoded: [UInt8], width w: Int, height h: Int,
        channels: TextureFormatInfo.Channels, _ metrics: QualityMetrics, sourceDecoded: Bool = false,
        source: SourceSide? = nil
    ) -> LevelQuality {
        var q = q
        if metrics.perceptual {
            let colour = SourceSide.colour(channels)
            q.ssim =
                colour.map { ssim(texels, decoded, width: w, height: h, channel: $0, source: source?.ssim[$0]) }
                .reduce(0, +) / Double(colour.count)
            if channels == .rgba {
                q.ssimAlpha = ssim(texels, decoded, width: w, height: h, channel: 3, source: source?.ssim[3])
            }
            if metrics.flip && (channels == .rgb || channels == .rgba) {
                let f = flip(texels, decoded, width: w, height: h, map: metrics.flipMaps != nil, side: source?.flip)
                q.flip = f.mean
                metrics.flipMaps?.offer(.init(mean: f.mean, width: w, height: h, values: f.map))
            }
        }
        if metrics.normals {
            let e = normalError(
                texels, decoded, width: w, height: h, twoChannel: channels == .rg,
                rebuildSource: sourceDecoded && channels == .rg)
            (q.normalMean, q.normalP99) = (e.mean, e.p99)
        }
        return q
    }
}

/// What measuring one image against many candidates shares (a quality target's search): the image's
/// side of SSIM for the channels a format stores, and of FLIP when asked, made once
/// (`Quality.ssimSource`, `Quality.flipReference`).
public struct SourceSide: Sendable {
    /// By channel (0…3): nil where not made or the level is smaller than SSIM's window.
    var ssim: [Quality.SSIMSource?]
    var flip: Quality.FLIPReference?

    /// `texels`' side (RGBA8, width × height) for the channels `Quality.measured` measures of a format
    /// storing `channels`; FLIP's too with `flip` (a colour format's).
    public init(_ texels: [UInt8], width: Int, height: Int, channels: TextureFormatInfo.Channels, flip: Bool = false) {
        let used = Set(Self.colour(channels) + (channels == .rgba ? [3] : []))
        ssim = (0..<4).map { c in
            used.contains(c) ? Quality.ssimSource(texels, width: width, height: height, channel: c) : nil
        }
        if flip && (channels == .rgb || channels == .rgba) && width * height > 0 {
            self.flip = Quality.flipReference(texels, width: width, height: height)
        }
    }

    /// The colour channels SSIM averages for a format storing `channels`.
    static func colour(_ channels: TextureFormatInfo.Channels) -> [Int] {
        switch channels {
        case .r: [0]
        case .rg: [0, 1]
        case .rgb, .rgba: [0, 1, 2]
        }
    }
}
