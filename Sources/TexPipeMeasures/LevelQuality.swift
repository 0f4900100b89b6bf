internal import Synchronization

/// What was measured of one level of an output against the image that was encoded
/// (docs/gpu-textures.md "Checks and budgets"):
/// - PSNR over the colour channels the format stores (R; R and G; or R, G and B), and alpha on
///   its own where the format stores it: 10 · log10(255² / MSE), capped at 99 dB, which stands for
///   "identical" (log-RGB PSNR for HDR levels);
/// - when a gate or `--report-metrics` asks: SSIM over the same colour channels (their mean) and
///   alpha on its own, the mean LDR-FLIP, and for normal maps the angle between the source's and
///   the decoded unit normals (mean and 99th percentile, degrees).
/// Over the layers, faces or slices of a level, each is the worst of them.
public struct LevelQuality: Sendable, Equatable, Codable {
    public var rgb: Double
    public var alpha: Double?
    public var ssim: Double?
    public var ssimAlpha: Double?
    public var flip: Double?
    public var normalMean: Double?
    public var normalP99: Double?

    public init(
        rgb: Double, alpha: Double?, ssim: Double? = nil, ssimAlpha: Double? = nil, flip: Double? = nil,
        normalMean: Double? = nil, normalP99: Double? = nil
    ) {
        self.rgb = rgb
        self.alpha = alpha
        self.ssim = ssim
        self.ssimAlpha = ssimAlpha
        self.flip = flip
        self.normalMean = normalMean
        self.normalP99 = normalP99
    }

    /// The lower of the two PSNRs: what a `minPSNR` gate compares.
    public var worst: Double { min(rgb, alpha ?? .infinity) }

    /// The lower of the two SSIMs: what a `minSSIM` gate compares (nil: not measured).
    public var worstSSIM: Double? { ssim.map { min($0, ssimAlpha ?? .infinity) } }

    public static let identical = 99.0

    /// An output's levels as one: the worse of each measure over them (nil: no level).
    public static func worst(of levels: [LevelQuality]) -> LevelQuality? {
        levels.first.map { first in levels.dropFirst().reduce(first) { $0.worse($1) } }
    }

    /// Two layers' (faces', slices') measures of one level as one: the worse of each.
    public func worse(_ o: LevelQuality) -> LevelQuality {
        func least(_ a: Double?, _ b: Double?) -> Double? { a.map { x in b.map { min(x, $0) } ?? x } ?? b }
        func most(_ a: Double?, _ b: Double?) -> Double? { a.map { x in b.map { max(x, $0) } ?? x } ?? b }
        return LevelQuality(
            rgb: min(rgb, o.rgb), alpha: least(alpha, o.alpha), ssim: least(ssim, o.ssim),
            ssimAlpha: least(ssimAlpha, o.ssimAlpha), flip: most(flip, o.flip),
            normalMean: most(normalMean, o.normalMean),
            normalP99: most(normalP99, o.normalP99))
    }
}

/// What beyond PSNR a level is measured for: SSIM and FLIP (a `minSSIM` or `maxFLIP` gate, or
/// `--report-metrics`), and the normal angle (a normal map).
public struct QualityMetrics: Sendable, Equatable {
    public var perceptual: Bool
    /// With `perceptual`, FLIP too (a quality target's search that asks SSIM alone skips it).
    public var flip = true
    public var normals: Bool
    /// Where the FLIP map of the worst level goes, for the HTML report (nil: no map is kept).
    public var flipMaps: FLIPMapSink?

    public init(perceptual: Bool = false, normals: Bool = false, flipMaps: FLIPMapSink? = nil) {
        self.perceptual = perceptual
        self.normals = normals
        self.flipMaps = flipMaps
    }

    public static func == (a: QualityMetrics, b: QualityMetrics) -> Bool {
        a.perceptual == b.perceptual && a.flip == b.flip && a.normals == b.normals && (a.flipMaps === b.flipMaps)
    }

    public static let none = QualityMetrics()
    public var isEmpty: Bool { !perceptual && !normals }
}

/// The FLIP map with the highest mean of those offered (one output's levels, faces and layers): the
/// one the HTML report shows beside an output that failed its gates.
public final class FLIPMapSink: Sendable {
    public struct Map: Sendable {
        public var mean: Double
        public var width: Int
        public var height: Int
        public var values: [Float]

        public init(mean: Double, width: Int, height: Int, values: [Float]) {
            self.mean = mean
            self.width = width
            self.height = height
            self.values = values
        }
    }

    private let worst = Mutex<Map?>(nil)

    public init() {}

    public func offer(_ map: Map) {
        worst.withLock { if $0 == nil || map.mean > $0!.mean { $0 = map } }
    }

    public var map: Map? { worst.withLock { $0 } }
}
