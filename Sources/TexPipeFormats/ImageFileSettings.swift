public import TexPipeParameters

/// The settings of every image file kind texpipe writes (`png`, `jpeg`, `webp`, `avif` in a
/// pipeline; docs/manifest.md), one member each; `tables` lists them for the manifest reader, the
/// planner, the schema and `texpipe formats`, so a new image kind adds its member and its row here.
public struct ImageFileSettings: Sendable, Hashable {
    public var png: PNGSettings = .standard
    public var jpeg: JPEGSettings = .standard
    public var webp: WebPSettings = .standard
    public var avif: AVIFSettings = .standard

    public init() {}

    /// Each settings object a pipeline takes: its key (also the key of its line in a job's
    /// parameters), the file kind it writes, its table and its doc line.
    public struct Table: Sendable {
        public let key: String
        public let kind: FileKind
        public let parameters: [Parameter]
        public let doc: String
    }

    public static let tables: [Table] = [
        Table(key: "png", kind: .png, parameters: PNGSettings.parameters, doc: "PNG writer settings"),
        Table(key: "jpeg", kind: .jpeg, parameters: JPEGSettings.parameters, doc: "JPEG writer settings"),
        Table(key: "webp", kind: .webp, parameters: WebPSettings.parameters, doc: "WebP writer settings (libwebp)"),
        Table(
            key: "avif", kind: .avif, parameters: AVIFSettings.parameters, doc: "AVIF writer settings (libavif, libaom)"
        ),
    ]

    /// Sets the member `key` names from its decoded arguments; a rule between its values that
    /// fails throws.
    public mutating func set(_ key: String, _ a: Arguments) throws(SettingsProblems) {
        switch key {
        case "png": png = try PNGSettings(a)
        case "jpeg":
            jpeg = JPEGSettings(a)
            jpeg.target = try QualityTarget.ofFile(a, "jpeg")
        case "webp":
            webp = WebPSettings(a)
            webp.target = try QualityTarget.ofFile(a, "webp", exact: webp.lossless)
        case "avif":
            avif = AVIFSettings(a)
            avif.target = try QualityTarget.ofFile(a, "avif")
        default: preconditionFailure("no image settings \(key)")
        }
    }
}

/// The pipeline's `webp` settings (docs/manifest.md), libwebp's own knobs.
public struct WebPSettings: Sendable, Hashable {
    /// 0…100: the lossy quality; with `lossless`, the effort.
    public var quality: Int
    /// VP8L: every RGBA value kept exactly (RGB under transparent pixels included).
    public var lossless: Bool
    /// 0…6: speed against size.
    public var method: Int
    /// 0…100: the alpha plane's quality (lossy only).
    public var alphaQuality: Int
    /// The target that chooses `quality` (docs/manifest.md "Quality targets"); nil: none.
    public var target: QualityTarget?

    public init(quality: Int, lossless: Bool, method: Int, alphaQuality: Int) {
        self.quality = quality
        self.lossless = lossless
        self.method = method
        self.alphaQuality = alphaQuality
    }

    /// The defaults, declared once.
    public static let standard = WebPSettings(quality: 90, lossless: false, method: 4, alphaQuality: 100)

    public static let parameters: [Parameter] = [
        .integer(
            "quality", in: 0...100, default: standard.quality,
            doc: "lossy quality (cwebp -q); with lossless, the effort"),
        .boolean(
            "lossless", default: standard.lossless,
            doc: "lossless WebP: every RGBA value exact, RGB under transparent pixels too"),
        .integer("method", in: 0...6, default: standard.method, doc: "speed against size (cwebp -m)"),
        .integer(
            "alphaQuality", in: 0...100, default: standard.alphaQuality,
            doc: "quality of the lossy alpha plane (cwebp -alpha_q)"),
        QualityTarget.fileParameter,
    ]

    public init(_ a: Arguments) {
        self.init(
            quality: a.integer("quality"), lossless: a.boolean("lossless"), method: a.integer("method"),
            alphaQuality: a.integer("alphaQuality"))
    }
}

/// The pipeline's `avif` settings (docs/manifest.md): libavif over libaom.
public struct AVIFSettings: Sendable, Hashable {
    public enum Subsampling: String, Sendable, CaseIterable {
        case yuv444 = "444"
        case yuv420 = "420"
    }

    /// 0…100, mapped to AV1's quantizer as libavif 1.x maps it (`quantizer(_:)`).
    public var quality: Int
    /// 0…10: libavif's speed (slower: smaller).
    public var speed: Int
    /// 0…100, mapped as `quality`.
    public var alphaQuality: Int
    /// 8, 10 or 12; nil: 8, or 10 for a 16-bit image.
    public var depth: Int?
    public var subsampling: Subsampling
    /// The target that chooses `quality`; nil: none.
    public var target: QualityTarget?

    public init(quality: Int, speed: Int, alphaQuality: Int, depth: Int?, subsampling: Subsampling) {
        self.quality = quality
        self.speed = speed
        self.alphaQuality = alphaQuality
        self.depth = depth
        self.subsampling = subsampling
    }

    /// The defaults, declared once.
    public static let standard = AVIFSettings(
        quality: 80, speed: 6, alphaQuality: 100, depth: nil, subsampling: .yuv444)

    /// AV1's quantizer (0 best … 63 worst) for a quality, as libavif 1.x maps it:
    /// round((100 − quality) · 63 / 100), halves up.
    public static func quantizer(_ quality: Int) -> Int { ((100 - quality) * 63 + 50) / 100 }

    /// The depth written for an image of `imageDepth` bits.
    public func depth(for imageDepth: Int) -> Int { depth ?? (imageDepth > 8 ? 10 : 8) }

    public static let parameters: [Parameter] = [
        .integer(
            "quality", in: 0...100, default: standard.quality,
            doc: "0…100; AV1 quantizer round((100 − quality) · 63 / 100), min = max (avifenc --min/--max)"),
        .integer("speed", in: 0...10, default: standard.speed, doc: "libavif speed: 0 slowest and smallest … 10"),
        .integer(
            "alphaQuality", in: 0...100, default: standard.alphaQuality,
            doc: "the alpha plane's quality, mapped as quality"),
        Parameter(
            "depth", .integerChoice([8, 10, 12]), .optional(absentDoc: "8, or 10 for a 16-bit image"),
            doc: "bits per sample written"),
        .choice("subsampling", Subsampling.self, default: standard.subsampling, doc: "chroma: 4:4:4 or 4:2:0"),
        QualityTarget.fileParameter,
    ]

    public init(_ a: Arguments) {
        self.init(
            quality: a.integer("quality"), speed: a.integer("speed"), alphaQuality: a.integer("alphaQuality"),
            depth: a.optionalInteger("depth"), subsampling: a.choice("subsampling", as: Subsampling.self))
    }
}

extension QualityTarget {
    /// `target` in a `jpeg`, `webp` or `avif` block: it chooses `quality`.
    public static let fileParameter = Parameter(
        "target", .object(parameters), .optional(absentDoc: "quality as given"),
        doc: "the lowest quality whose file meets these measures (the smallest such file near it)")

    /// A file kind's `target`, or the rules it breaks: `quality` given beside it, `gpuBytes` (a
    /// file's GPU size does not depend on its quality), a lossless WebP (nothing to choose).
    public static func ofFile(_ a: Arguments, _ kind: String, exact: Bool = false) throws(SettingsProblems)
        -> QualityTarget?
    {
        guard let t = a.object("target") else { return nil }
        var problems: [SettingsProblem] = []
        var target: QualityTarget?
        do throws(SettingsProblems) {
            target = try QualityTarget(t)
        } catch {
            problems += error.all.map { SettingsProblem("target" + ($0.key.isEmpty ? "" : "." + $0.key), $0.message) }
        }
        if a.gave("quality") { problems.append(knobGiven("quality", chooses: "\(kind)'s quality")) }
        if target?.minimize == .gpuBytes {
            problems.append(
                nothingToChoose(
                    "minimize \"gpuBytes\": an image file's GPU size is its pixels', whatever its quality (remove minimize)"
                ))
        }
        if exact {
            problems.append(
                nothingToChoose("a lossless WebP is exact, its quality only effort (remove lossless or target)"))
        }
        if !problems.isEmpty { throw SettingsProblems(problems) }
        return target
    }
}
